package check

import (
	"fmt"
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
	// Reason says what went wrong, in one sentence.
	Reason string
}

// unmeasured lists the runs that could not be measured: nothing measured
// at all, or more failed calls than maxErrors allows. measured, when not
// nil, says whether each run measured something (its probe results may
// have been folded, see CompareRequest.ReportsOnly); else Run.Measured.
func unmeasured(runs []*promptcanary.Run, measured []bool, maxErrors int) []Problem {
	var out []Problem
	for i, r := range runs {
		switch {
		case measured == nil && !r.Measured(), measured != nil && !measured[i]:
			out = append(out, Problem{Model: r.Provider.ModelID, Errors: len(r.Errors),
				Reason: fmt.Sprintf("nothing was measured: all %d call(s) failed", len(r.Errors)) + budgetNote(r)})
		case len(r.Errors) > maxErrors:
			out = append(out, Problem{Model: r.Provider.ModelID, Errors: len(r.Errors), Reason: tooManyErrors(r, maxErrors) + budgetNote(r)})
		}
	}
	return out
}

// tooManyErrors says what happened to a run that measured something but
// had more failed calls than maxErrors allows: "1 of 200 calls failed
// after retries; --max-errors 0 allows none, so the run has no verdict".
func tooManyErrors(r *promptcanary.Run, maxErrors int) string {
	failed := len(r.Errors)
	calls := "calls"
	if total := failed + len(r.LLMResponses); total == 1 {
		calls = "call"
	}
	allows := "none"
	if maxErrors > 0 {
		allows = strconv.Itoa(maxErrors)
	}
	return fmt.Sprintf("%d of %d %s failed after retries; --max-errors %d allows %s, so the run has no verdict",
		failed, failed+len(r.LLMResponses), calls, maxErrors, allows)
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
	return fmt.Sprintf(" (%d of them ran out of the retry budget: raise it with --max-retry-wait)", n)
}
