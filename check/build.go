package check

import (
	"errors"
	"fmt"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// SplitSamples splits the samples per prompt of a baseline over runs
// runs as evenly as it can: each run takes samples/runs, and the first
// samples%runs runs one more. samples must be at least runs.
func SplitSamples(samples, runs int) ([]int, error) {
	if runs < 1 || runs > promptcanary.MaxSamples {
		return nil, inRange("runs", runs, 1, promptcanary.MaxSamples)
	}
	if samples < runs || samples > promptcanary.MaxSamples {
		return nil, inRange("samples", samples, runs, promptcanary.MaxSamples)
	}
	split := make([]int, runs)
	for i := range split {
		split[i] = samples / runs
		if i < samples%runs {
			split[i]++
		}
	}
	return split, nil
}

// PoolBaseline returns the baseline that pools runs, the runs of one
// suite and model in the order they ran: the probe results, answers and
// failed calls of every run, their sample indices moved up so that each
// run's samples follow the previous run's, and a record of the runs
// (Baseline.Runs). The pooled run carries the last run's id, settings and
// fingerprints, starts when the first run started and finishes when the
// last one finished; the baseline is created at now. The runs must be
// compatible with the last one (see Compatible). The runs are not
// changed.
func PoolBaseline(runs []*promptcanary.Run, now time.Time) (*promptcanary.Baseline, error) {
	if len(runs) == 0 {
		return nil, errors.New("pool a baseline: no runs")
	}
	last := runs[len(runs)-1]
	pooled := *last
	pooled.StartedAt = runs[0].StartedAt
	pooled.ProbeResults, pooled.LLMResponses, pooled.Errors = nil, nil, nil
	pooled.CostUSD = nil
	record := make([]promptcanary.BaselineRun, len(runs))
	cost, priced, first := 0.0, true, 0
	for i, r := range runs {
		if r.SuiteName != last.SuiteName || r.Provider.ModelID != last.Provider.ModelID {
			return nil, fmt.Errorf("pool a baseline: run %s is of %s on %s, not %s on %s like run %s",
				r.RunID, r.SuiteName, r.Provider.ModelID, last.SuiteName, last.Provider.ModelID, last.RunID)
		}
		if err := Compatible(last, r); err != nil {
			return nil, fmt.Errorf("pool a baseline: run %s: %w", r.RunID, err)
		}
		n := max(r.Samples, r.SamplesPerPrompt(), 1)
		record[i] = promptcanary.BaselineRun{RunID: r.RunID, StartedAt: r.StartedAt.Truncate(time.Microsecond),
			FinishedAt: r.FinishedAt.Truncate(time.Microsecond), FirstSample: first, Samples: n}
		appendShifted(&pooled, r, first)
		if r.CostUSD == nil {
			priced = false
		} else {
			cost += *r.CostUSD
		}
		first += n
	}
	if first > promptcanary.MaxSamples {
		return nil, fmt.Errorf("pool a baseline: the %d runs hold %d samples per prompt, more than %d", len(runs), first, promptcanary.MaxSamples)
	}
	pooled.Samples = first
	if priced {
		pooled.CostUSD = &cost
	}
	b := store.NewBaseline(&pooled, "", now.UTC())
	if len(runs) > 1 {
		b.Runs = record // a baseline of one run is that run's, as run --save-baseline saves it
	}
	return b, nil
}

// appendShifted appends the probe results, answers and failed calls of r
// to pooled, each sample index moved up by first.
func appendShifted(pooled, r *promptcanary.Run, first int) {
	for _, pr := range r.ProbeResults {
		pr.Sample += first
		pooled.ProbeResults = append(pooled.ProbeResults, pr)
	}
	for _, resp := range r.LLMResponses {
		resp.Sample += first
		pooled.LLMResponses = append(pooled.LLMResponses, resp)
	}
	for _, e := range r.Errors {
		e.Sample += first
		pooled.Errors = append(pooled.Errors, e)
	}
}
