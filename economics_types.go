package promptcanary

import (
	"fmt"
	"math"
	"strings"
)

// The measures of Economics, in the order a report lists them.
const (
	// MeasureCompletionTokens is the completion tokens of one answer.
	MeasureCompletionTokens = "completion_tokens"
	// MeasurePromptTokens is the prompt tokens of one call.
	MeasurePromptTokens = "prompt_tokens"
	// MeasureLatency is the latency of the call that answered, in
	// milliseconds (Response.LatencyMS: request sent to whole answer
	// read; retries and waits before it excluded).
	MeasureLatency = "latency_ms"
	// MeasureCost is the cost of one call in US dollars, its tokens at
	// the price of its side's model; its totals are the cost of a run.
	MeasureCost = "cost_usd"
)

// The tests of EconomicMeasure.Test.
const (
	// EconomicTestAnswers: a permutation test of the answers within each
	// prompt (a one-run baseline).
	EconomicTestAnswers = "answer permutation"
	// EconomicTestRuns: the answer permutation test and a prediction t
	// test against the baseline's runs, both rejecting (a baseline built
	// from several runs).
	EconomicTestRuns = "answer permutation and run spread"
	// EconomicTestRunsOnly: the prediction t test against the baseline's
	// runs alone (each run repeats one answer per prompt).
	EconomicTestRunsOnly = "run spread"
)

// Economics is the economic drift section of a drift report: what the
// answers cost in tokens, time and money, against the baseline, each
// measure tested (see docs/economics.md). It is a signal of its own, as
// the model identity test is: a flagged measure does not make the
// report's drift or severity.
type Economics struct {
	// Measures are the four measures, in the order of the Measure*
	// constants; one not available says why in NA.
	Measures []EconomicMeasure `json:"measures"`
	// Alpha is the family-wise level of the Holm step over the measures
	// tested, and MinChange the smallest relative change (0.10 = 10%) a
	// measure must show to be flagged.
	Alpha     float64 `json:"alpha"`
	MinChange float64 `json:"min_change"`
	// Prompts counts the prompts compared and Answers the current run's
	// answers to them, which weigh each prompt (see EconomicMeasure).
	Prompts int `json:"prompts"`
	Answers int `json:"answers"`
	// BaselineRuns is the number of runs the baseline pools (1 for a
	// baseline of one run).
	BaselineRuns int `json:"baseline_runs"`
	// Permutations is the largest number of permutations a measure drew,
	// Seed the seed of their generator (the report's).
	Permutations int    `json:"permutations"`
	Seed         uint64 `json:"seed"`
	// Summary is the plain sentence of the flagged measures ("answers
	// are 40% longer since 2026-12-01 …"); empty when none is flagged.
	Summary string `json:"summary,omitempty"`
}

// EconomicMeasure is one measure of Economics. Baseline and Current are
// means per call over the same prompt mix: each prompt's mean weighted
// by the current run's answers to it, so a run that asked the long
// prompts more often is not called wordier. For MeasureCost they are the
// cost of the whole run instead: the current run's, and what the same
// calls cost at the baseline's mean per prompt.
type EconomicMeasure struct {
	Measure string `json:"measure"`
	// NA says why the measure is not available (tokens not recorded, no
	// price for the model, …); the other fields are then zero.
	NA       string  `json:"na,omitempty"`
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	// Change is Current / Baseline − 1; 0 when Baseline is 0.
	Change float64 `json:"change"`
	// Test names the test (EconomicTest*), empty when none could run,
	// and Untested why.
	Test     string `json:"test,omitempty"`
	Untested string `json:"untested,omitempty"`
	// PAnswers and PRuns are the two-sided p-values of the answer
	// permutation test and of the run-spread test (−1 when not run), P
	// the measure's (the larger of those run) and Q its Holm-adjusted
	// value.
	PAnswers float64 `json:"p_answers"`
	PRuns    float64 `json:"p_runs"`
	P        float64 `json:"p"`
	Q        float64 `json:"q"`
	// Flagged is Q ≤ Alpha and |Change| ≥ MinChange.
	Flagged bool `json:"flagged"`
}

// Flagged reports whether any measure of e is flagged.
func (e *Economics) Flagged() bool {
	if e == nil {
		return false
	}
	for i := range e.Measures {
		if e.Measures[i].Flagged {
			return true
		}
	}
	return false
}

// Measure returns the measure named name, or nil.
func (e *Economics) Measure(name string) *EconomicMeasure {
	if e == nil {
		return nil
	}
	for i := range e.Measures {
		if e.Measures[i].Measure == name {
			return &e.Measures[i]
		}
	}
	return nil
}

// Line is the measure in one line of plain text, for the report formats:
// "completion tokens per answer: 212 → 293 (+38%); answer permutation
// p=0.0005, q=0.002; flagged".
func (m *EconomicMeasure) Line() string {
	name := economicLabel(m.Measure)
	if m.NA != "" {
		return fmt.Sprintf("%s: n/a (%s)", name, m.NA)
	}
	b, c := m.Value(m.Baseline), m.Value(m.Current)
	if m.Measure == MeasureCost {
		b, c = USDPair(m.Baseline, m.Current)
	}
	s := fmt.Sprintf("%s: %s → %s", name, b, c)
	if m.Baseline != 0 {
		s += fmt.Sprintf(" (%+.0f%%)", 100*m.Change)
	}
	if m.Test == "" {
		return s + "; not tested (" + m.Untested + ")"
	}
	s += fmt.Sprintf("; %s p=%s, q=%s", m.Test, shortP(m.P), shortP(m.Q))
	if m.Flagged {
		s += "; flagged"
	}
	return s
}

// Value formats v in the measure's unit.
func (m *EconomicMeasure) Value(v float64) string {
	switch m.Measure {
	case MeasureCost:
		return USD(v)
	case MeasureLatency:
		return fmt.Sprintf("%.0f ms", v)
	}
	if v < 100 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// economicLabel names a measure for a reader.
func economicLabel(measure string) string {
	switch measure {
	case MeasureCompletionTokens:
		return "completion tokens per answer"
	case MeasurePromptTokens:
		return "prompt tokens per call"
	case MeasureLatency:
		return "latency per call"
	case MeasureCost:
		return "cost per run"
	}
	return strings.ReplaceAll(measure, "_", " ")
}

// USD formats a dollar amount: cents from a dollar up ("$12.40"), two
// significant digits below ("$0.82", "$0.0041"), "$0" for nothing.
func USD(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case math.Abs(v) >= 1:
		return fmt.Sprintf("$%.2f", v)
	}
	d := max(2, 1-int(math.Floor(math.Log10(math.Abs(v)))))
	return fmt.Sprintf("$%.*f", d, v)
}

// USDPair formats two dollar amounts as USD does, with more decimals
// (up to six) while they would read the same: "$0.0106" and "$0.0119",
// not "$0.01" twice.
func USDPair(a, b float64) (string, string) {
	sa, sb := USD(a), USD(b)
	for d := 3; sa == sb && a != b && d <= 6; d++ {
		sa, sb = fmt.Sprintf("$%.*f", d, a), fmt.Sprintf("$%.*f", d, b)
	}
	return sa, sb
}

// shortP formats a p-value in at most two significant digits.
func shortP(p float64) string {
	if p >= 0.01 || p == 0 {
		return fmt.Sprintf("%.2g", p)
	}
	return fmt.Sprintf("%.1e", p)
}

// Line is e in one line of plain text: its summary when a measure is
// flagged, else that none moved beyond the test.
func (e *Economics) Line() string {
	if e.Flagged() {
		return "Economic drift: " + e.Summary
	}
	return fmt.Sprintf("Economics: no measure moved (%d prompts, %d answers; Holm α = %g, at least %.0f%%)", e.Prompts, e.Answers, e.Alpha, 100*e.MinChange)
}
