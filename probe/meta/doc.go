// Package meta holds the built-in probes over what the provider reported
// about a call rather than what the model wrote: latency, tokens, cost and
// finish_reason. Importing it registers them with package probe.
//
// A provider that reports nothing for a probe's field (a latency or token
// count of 0, an empty finish reason, a model without a known price) does
// not fail the probe: the result passes with score 1, details say the check
// was skipped and why, and metadata "skipped" is true. The bounded probes
// score 1 within their limit, falling linearly to 0 at twice the limit, so
// a creeping latency or cost shows as a falling score before it is a drop
// to zero.
package meta

import (
	"fmt"
	"math"
	"strconv"

	"github.com/promptcanary/promptcanary/probe"
)

// fixed formats x with prec decimals, as %.<prec>f does.
func fixed(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }

// overLimit scores v against limit: 1 up to limit, then linearly down to 0
// at twice the limit.
func overLimit(v, limit float64) float64 {
	if v <= limit {
		return 1
	}
	return max(0, 2-v/limit)
}

// limit reads parameter name, a limit that must be a finite number > 0;
// hint, the hint of a bad value, says what it limits.
func limit(p probe.Params, name, hint string) (float64, error) {
	v, _ := p.Float(name)
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, &probe.ParamError{Param: name, Msg: fmt.Sprintf("must be a finite number > 0, got %v", v), Hint: hint}
	}
	return v, nil
}

// skip is the result of a response without what the probe checks: it
// passes with score 1, metadata "skipped" is true and details say why.
func skip(meta map[string]any, details string) probe.Result {
	meta["skipped"] = true
	return probe.Result{Passed: true, Score: 1, Metadata: meta, Details: details}
}
