package meta

import (
	"context"
	"math"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// Latency is the latency probe: it passes when the call took at most MaxMS
// milliseconds, scoring 1 within the limit and falling linearly to 0 at
// twice the limit. A response without a latency (0, as replayed or
// simulated answers may have) passes as skipped.
type Latency struct {
	// MaxMS is the longest acceptable latency in milliseconds; it must be
	// greater than 0.
	MaxMS float64
}

var _ probe.Probe = (*Latency)(nil)

const latencyID = "latency"

func init() {
	probe.Register(probe.Type{
		ID:          latencyID,
		Name:        "Latency",
		Category:    promptcanary.CategoryCustom,
		Description: "Checks that the provider answered within a time limit.",
		Example: `probes:
  - type: latency
    max_ms: 8000
`,
		Params: []probe.Param{
			{Name: "max_ms", Kind: probe.Float, Required: true,
				Doc: "longest acceptable latency in milliseconds; the score falls to 0 at twice this"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			ms, err := limit(p, "max_ms", "the longest acceptable latency in milliseconds, for example max_ms: 8000")
			if err != nil {
				return nil, err
			}
			return &Latency{MaxMS: ms}, nil
		},
	})
}

// Evaluate compares the response's latency with MaxMS. The metadata holds
// "latency_ms", "max_ms" and "skipped".
func (l *Latency) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	lat := r.LatencyMS
	meta := map[string]any{"latency_ms": lat, "max_ms": l.MaxMS, "skipped": false}
	if !(lat > 0) || math.IsInf(lat, 0) {
		meta["latency_ms"] = 0.0 // NaN and ±Inf do not encode as JSON
		return skip(meta, "The provider reported no latency, so the check was skipped.")
	}
	if lat <= l.MaxMS {
		return probe.Result{Passed: true, Score: 1, Metadata: meta,
			Details: "Latency " + fixed(lat, 0) + " ms is within the " + fixed(l.MaxMS, 0) + " ms limit."}
	}
	return probe.Result{Score: overLimit(lat, l.MaxMS), Metadata: meta,
		Details: "Latency " + fixed(lat, 0) + " ms exceeds the " + fixed(l.MaxMS, 0) + " ms limit (" + fixed(lat/l.MaxMS, 1) + "×)."}
}
