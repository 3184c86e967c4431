package policy

import (
	"math"
	"slices"

	"github.com/promptcanary/promptcanary"
)

// The defaults of Trend, chosen with the monitor benchmark (go run
// ./bench/drift -monitor), which measures the detector's false alarms per
// check-year on drift-free hourly runs and its delay on a decline of one
// point a day.
const (
	DefaultTrendWarmup    = 96
	DefaultTrendSlack     = 0.75
	DefaultTrendThreshold = 10
	DefaultTrendMaxStep   = 3
	DefaultTrendMinSD     = 0.005
)

// Trend detects a gradual decline of a check's pass rate: a one-sided
// CUSUM over the run-to-run deficits, standardised by the noise the check
// itself shows.
//
// Each observation is a run's deficit d = baselineRate − passRate (the
// baseline rate over the same pairs, so a run that measured fewer pairs
// stays comparable). The first Warmup observations after a reset learn the
// check's reference deficit (their mean: it absorbs the baseline's own
// sampling luck, which a single baseline carries for its whole life) and
// raise no alarm. From then on each run adds z = (d − reference)/σ − Slack,
// capped at MaxStep so that one odd run cannot alarm alone, to a sum that
// never falls below 0 (nor rises above twice Threshold). The detector
// alarms when the sum reaches Threshold and stays in alarm until the sum is
// back at 0: a decline keeps it in alarm, a recovery clears it, and a sum
// hovering near the threshold raises one alarm, not many. σ is the run-to-run noise, estimated from the mean squared
// successive difference of all deficits since the reset (a slow trend
// hardly moves it), and never below MinSD.
//
// The state depends only on the sequence of (passRate, baselineRate) since
// the last reset, so Replay rebuilds it from stored check runs after a
// restart. The zero value is ready to use with the defaults.
type Trend struct {
	// Warmup is how many runs learn the reference before any alarm
	// (default DefaultTrendWarmup: four days of hourly runs). A shorter
	// warmup leaves the reference less certain, and an unlucky reference
	// is the main source of false alarms.
	Warmup int
	// Slack is the CUSUM's allowance k, in units of σ (default
	// DefaultTrendSlack): deficits below reference + Slack·σ pull the sum
	// down.
	Slack float64
	// Threshold is the CUSUM's decision level h, in units of σ (default
	// DefaultTrendThreshold).
	Threshold float64
	// MaxStep caps one run's contribution, in units of σ (default
	// DefaultTrendMaxStep).
	MaxStep float64
	// MinSD is the smallest σ, as a fraction (default DefaultTrendMinSD,
	// half a point), for checks whose pass rate barely moves.
	MinSD float64

	n       int     // observations since the reset
	sum     float64 // sum of the warmup deficits
	last    float64 // the previous deficit
	sqDiff  float64 // sum of squared successive differences
	ref     float64 // reference deficit, fixed after the warmup
	cusum   float64
	alarmed bool
}

func (t *Trend) warmup() int {
	if t.Warmup > 0 {
		return t.Warmup
	}
	return DefaultTrendWarmup
}

func orDefault(v, d float64) float64 {
	if v > 0 {
		return v
	}
	return d
}

// Reset forgets the history: call it when the check's baseline changes.
// The configuration is kept.
func (t *Trend) Reset() {
	*t = Trend{Warmup: t.Warmup, Slack: t.Slack, Threshold: t.Threshold, MaxStep: t.MaxStep, MinSD: t.MinSD}
}

// Observe adds one measured run (its pass rate over n results, and the
// baseline's pass rate over the same pairs) and reports whether the
// detector is in alarm after it. A run with n ≤ 0 or a rate that is not a
// number measured nothing: it changes nothing and returns the current
// state. n is not otherwise used, so the state can be rebuilt from stored
// check runs, which keep the rates but not the counts.
func (t *Trend) Observe(passRate float64, n int, baselineRate float64) (alarm bool) {
	if n <= 0 || math.IsNaN(passRate) || math.IsNaN(baselineRate) || math.IsInf(passRate, 0) || math.IsInf(baselineRate, 0) {
		return t.alarmed
	}
	d := baselineRate - passRate
	if t.n > 0 {
		t.sqDiff += (d - t.last) * (d - t.last)
	}
	t.last = d
	t.n++
	w := t.warmup()
	if t.n <= w {
		t.sum += d
		if t.n == w {
			t.ref = t.sum / float64(w)
		}
		return false
	}
	z := (d - t.ref) / t.SD()
	z = min(z, orDefault(t.MaxStep, DefaultTrendMaxStep))
	h := orDefault(t.Threshold, DefaultTrendThreshold)
	// The sum is capped at twice the threshold, so that after a recovery
	// the alarm clears within a bounded number of runs.
	t.cusum = min(max(0, t.cusum+z-orDefault(t.Slack, DefaultTrendSlack)), 2*h)
	t.alarmed = t.cusum >= h || (t.alarmed && t.cusum > 0)
	return t.alarmed
}

// SD returns σ, the run-to-run noise of the deficits the detector
// standardises by (MinSD until two runs were seen).
func (t *Trend) SD() float64 {
	floor := orDefault(t.MinSD, DefaultTrendMinSD)
	if t.n < 2 {
		return floor
	}
	return max(floor, math.Sqrt(t.sqDiff/(2*float64(t.n-1))))
}

// Alarm reports whether the detector is in alarm.
func (t *Trend) Alarm() bool { return t.alarmed }

// Statistic returns the CUSUM in units of σ and the threshold it alarms
// at, for display ("trend 7.9 of 12").
func (t *Trend) Statistic() (cusum, threshold float64) {
	return t.cusum, orDefault(t.Threshold, DefaultTrendThreshold)
}

// Ready reports whether the warmup is over, so the detector can alarm.
func (t *Trend) Ready() bool { return t.n >= t.warmup() }

// Replay rebuilds the detector from a check's stored runs (one check and
// provider, in any order) and returns whether it is in alarm after the
// last: it resets, then observes, oldest slot first, every run that Counts
// since the last change of BaselineID. The monitor calls it once per check
// at start-up with the check's history (store.Monitor.CheckRuns), then
// Observe for each new run that Counts and Reset when the baseline
// changes. Given every run since the baseline last changed, the state is
// exactly the one Observe built; a truncated history gives the state of a
// detector that started with the oldest run given.
func (t *Trend) Replay(history []promptcanary.CheckRun) bool {
	runs := slices.Clone(history)
	slices.SortStableFunc(runs, func(a, b promptcanary.CheckRun) int { return a.Slot.Compare(b.Slot) })
	t.Reset()
	start := 0
	for i := 1; i < len(runs); i++ {
		if runs[i].BaselineID != runs[i-1].BaselineID {
			start = i
		}
	}
	for _, r := range runs[start:] {
		if Counts(&r) {
			t.Observe(r.PassRate, 1, r.BaselinePassRate)
		}
	}
	return t.alarmed
}

// Counts reports whether a check run is one the trend detector observes: a
// measured run (clean, or flagged but not confirmed). Runs with a
// confirmed drift are left out (an incident is already open for them), as
// are unmeasured and skipped runs.
func Counts(r *promptcanary.CheckRun) bool {
	switch r.Outcome {
	case promptcanary.CheckClean:
		return true
	case promptcanary.CheckDrift:
		return !r.Confirmed
	}
	return false
}
