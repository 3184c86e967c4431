package promptcanary

import (
	"fmt"
	"math"
)

// RunSpreadLevel is the one-sided level at which a RunSpread calls a fall
// beyond the model's usual run-to-run spread.
const RunSpreadLevel = 0.05

// RunSpread says how much of a report's suite-level change lies within the
// model's usual hour-to-hour spread, measured over the runs of a pooled
// baseline (one built by 'promptcanary baseline build --runs N'). A
// run's suite rate is the mean of its pairs' pass rates; the test is the
// run-level test of drift.RunLevel over the baseline's runs and the
// current run (see docs/statistics.md). It is information beside the
// verdict: it does not change the report's drift or severity.
type RunSpread struct {
	// BaselineRuns is the number of baseline runs the spread is measured
	// over.
	BaselineRuns int `json:"baseline_runs"`
	// BaselineRate is the mean of the baseline runs' suite rates, and
	// CurrentRate the current run's suite rate, both over the pairs the
	// two have in common (fractions).
	BaselineRate float64 `json:"baseline_rate"`
	CurrentRate  float64 `json:"current_rate"`
	// SD is the standard deviation of the baseline runs' suite rates: the
	// usual run-to-run spread, sampling included.
	SD float64 `json:"sd"`
	// BetweenRunSD is the part of the spread beyond sampling, √τ² with
	// τ² = max(0, SD² − the runs' mean binomial variance).
	BetweenRunSD float64 `json:"between_run_sd"`
	// P is the one-sided p-value of the run-level test of a fall.
	P float64 `json:"p"`
}

// Change is the current suite rate minus the baseline runs' mean.
func (s *RunSpread) Change() float64 { return s.CurrentRate - s.BaselineRate }

// Within reports whether the change lies within the usual spread: no fall
// beyond it at level RunSpreadLevel (a rise always does).
func (s *RunSpread) Within() bool { return s.P >= RunSpreadLevel }

// Line words the spread for every report format, e.g. "suite pass rate
// −2.1 points (82.0% → 79.9%); usual run-to-run spread ±2.2 points (SD
// over 6 baseline runs): within it (run-level test p = 0.21)".
func (s *RunSpread) Line() string {
	verdict := "within it"
	if !s.Within() {
		verdict = "beyond it"
	}
	return fmt.Sprintf("suite pass rate %s points (%.1f%% → %.1f%%); usual run-to-run spread ±%.1f points (SD over %d baseline runs): %s (run-level test p %s)",
		signedPoints(s.Change()), 100*s.BaselineRate, 100*s.CurrentRate, 100*s.SD, s.BaselineRuns, verdict, pValue(s.P))
}

// signedPoints writes a change of rate in points with its sign, a minus
// sign (−) for a fall.
func signedPoints(d float64) string {
	v := math.Round(1000*d) / 10
	switch {
	case v < 0:
		return fmt.Sprintf("−%.1f", -v)
	case v > 0:
		return fmt.Sprintf("+%.1f", v)
	}
	return "±0.0"
}

// pValue writes "= p" with two significant figures, "< 0.0001" below
// that.
func pValue(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return fmt.Sprintf("= %.2g", p)
}
