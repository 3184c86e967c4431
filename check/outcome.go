package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// Verdict is what a finished run or compare means for a gate.
type Verdict int

// The verdicts, from best to worst for a gate.
const (
	// Pass: everything was measured and no gate tripped.
	Pass Verdict = iota
	// Tripped: a gate tripped (a failing probe with FailOnFailure, drift
	// at or above the threshold).
	Tripped
	// Unmeasured: too little was measured or compared for a verdict: every
	// call failed, more calls failed than allowed, or no pair could be
	// compared. A gate that saw nothing must not be green.
	Unmeasured
)

// Problem is why a run could not be measured.
type Problem struct {
	// Model is the run's provider/model.
	Model string
	// Errors counts the calls that failed for good.
	Errors int
	// Reason says what went wrong, in one sentence. It names the
	// settings in Settings by their field names (max_errors).
	Reason string
	// Settings are the settings Reason names, by field name, in order of
	// appearance: a caller words them its own way with Words.
	Settings []string
}

// Words returns Reason with each setting of Settings named by name. The
// settings are found from the end, after any file or model the reason
// quotes.
func (p Problem) Words(name func(field string) string) string {
	out, rest := "", p.Reason
	for _, f := range slices.Backward(p.Settings) {
		i := strings.LastIndex(rest, f)
		if i < 0 {
			break
		}
		out = name(f) + rest[i+len(f):] + out
		rest = rest[:i]
	}
	return rest + out
}

// settingsIn returns the fields a reason names, in order: max_errors when
// tooMany, then max_retry_wait when budget (see budgetNote).
func settingsIn(tooMany bool, budget string) []string {
	var out []string
	if tooMany {
		out = append(out, "max_errors")
	}
	if budget != "" {
		out = append(out, "max_retry_wait")
	}
	return out
}

// unmeasured lists the runs that could not be measured: nothing measured
// at all, or more failed calls than maxErrors allows. measured, when not
// nil, says whether each run measured something (its probe results may
// have been folded, see CompareRequest.ReportsOnly); else Run.Measured.
// answered, when not nil, counts each run's responses (they may have been
// folded too); else len(Run.LLMResponses).
func unmeasured(runs []*promptcanary.Run, measured []bool, answered []int, maxErrors int) []Problem {
	var out []Problem
	for i, r := range runs {
		switch {
		case measured == nil && !r.Measured(), measured != nil && !measured[i]:
			out = append(out, Problem{Model: r.Provider.ModelID, Errors: len(r.Errors),
				Reason: fmt.Sprintf("nothing was measured: all %d call(s) failed", len(r.Errors)) + budgetNote(r), Settings: settingsIn(false, budgetNote(r))})
		case len(r.Errors) > maxErrors:
			n := len(r.LLMResponses)
			if answered != nil {
				n = answered[i]
			}
			note := budgetNote(r)
			out = append(out, Problem{Model: r.Provider.ModelID, Errors: len(r.Errors), Reason: tooManyErrors(r, n, maxErrors) + note, Settings: settingsIn(true, note)})
		}
	}
	return out
}

// tooManyErrors says what happened to a run of answered responses that
// measured something but had more failed calls than maxErrors allows: "1
// of 200 calls failed after retries; max_errors 0 allows none, so the
// run has no verdict".
func tooManyErrors(r *promptcanary.Run, answered, maxErrors int) string {
	failed := len(r.Errors)
	calls := "calls"
	if total := failed + answered; total == 1 {
		calls = "call"
	}
	allows := "none"
	if maxErrors > 0 {
		allows = strconv.Itoa(maxErrors)
	}
	return fmt.Sprintf("%d of %d %s failed after retries; max_errors %d allows %s, so the run has no verdict",
		failed, failed+answered, calls, maxErrors, allows)
}

// budgetNote says how many of r's failed calls ran out of the retry
// budget (rate limits that outlasted it, or a wait longer than was left),
// "" when none did.
func budgetNote(r *promptcanary.Run) string {
	n := 0
	for i := range r.Errors {
		if strings.Contains(r.Errors[i].Message, "--max-retry-wait") {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of them ran out of the retry budget: raise it with max_retry_wait)", n)
}
