package policy

import (
	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
)

// The defaults of the monitor's Window (rule R3 of go run ./bench/drift
// -monitor -rules runlevel -baseline-runs 6, see docs/monitor.md "The
// run-level rule, measured").
const (
	DefaultWindowAlpha   = 0.05
	DefaultWindowRuns    = 3
	DefaultWindowAlphaW  = 1e-4
	DefaultWindowLearn   = 100
	DefaultWindowMinRuns = 6
	// DefaultControlAlphaW is the level of the control window's means,
	// split over the lengths it tests (rule R3c of go run ./bench/drift
	// -monitor -rules runlevel -control shared): at 1e-4 it opened 14
	// false incidents in 40,320 runs of the ±5 world (95% upper bound
	// 0.054%, above the target of 0.05%).
	DefaultControlAlphaW = 5e-5
)

// Window is the run-level rule of a check's suite unit: its rate in a run
// is tested with drift.RunLevel against the run-to-run spread of the
// reference runs (the baseline's runs, and the check's last Learn clean
// runs). One run below the reference at level Alpha opens a window; the
// mean of that run and up to Runs later scheduled runs confirms at level
// AlphaW. With fewer than MinRuns reference runs, or none of their spread
// beyond sampling (τ² = 0), the rule does not apply (Known is false) and
// the caller keeps its usual rule. The fields are set by the caller (see
// NewWindow for the monitor's); Learn 0 learns nothing.
type Window struct {
	Alpha   float64 // one-sided level of one run's test, which opens a window
	Runs    int     // later runs a window waits for
	AlphaW  float64 // level of the window's mean
	Learn   int     // the last clean runs that join the reference, 0 for none
	MinRuns int     // reference runs needed, with τ² > 0, before the rule applies
	// Sliding, when set, replaces the window that opens and closes: every
	// run tests the mean of each of its last SlidingFrom to Runs+1 runs
	// at level AlphaW over the number of those lengths (Bonferroni), so
	// no run waits for an earlier window to close, and a drift's runs are
	// not averaged with the runs before it for long. Fewer runs are never
	// tested: the tails of the mean of one or two runs' differences are
	// the least like Student's t (docs/statistics.md).
	Sliding bool

	recent    []drift.RunRate // Sliding: the last Runs+1 runs, oldest first
	pending   []drift.RunRate // Sliding: clean runs still in recent, learned once they leave it
	base      []drift.RunRate
	learned   []drift.RunRate // the last clean runs, oldest first
	open      int             // runs in the open window, 0 when none
	sum, vsum float64
}

// SlidingFrom is the fewest runs whose mean a Sliding window tests.
const SlidingFrom = 3

// NewControlWindow returns the monitor's Window of a check's difference
// from its control arm (drift.ArmDifference), with no reference run: it
// learns the last DefaultWindowLearn clean runs' differences, applies
// from DefaultWindowMinRuns of them, and tests the mean of each of the
// last SlidingFrom to DefaultWindowRuns+1 runs (3 and 4) at
// DefaultControlAlphaW/2 (Sliding; rule R3c of go run ./bench/drift
// -monitor -rules runlevel -control shared, see docs/monitor.md "A
// control arm against bad hours").
func NewControlWindow() *Window {
	return &Window{Alpha: DefaultWindowAlpha, Runs: DefaultWindowRuns, AlphaW: DefaultControlAlphaW,
		Learn: DefaultWindowLearn, MinRuns: DefaultWindowMinRuns, Sliding: true}
}

// NewWindow returns the monitor's Window, with the defaults, over the
// suite rates of a baseline's runs.
func NewWindow(base []drift.RunRate) *Window {
	w := Window{Alpha: DefaultWindowAlpha, Runs: DefaultWindowRuns, AlphaW: DefaultWindowAlphaW,
		Learn: DefaultWindowLearn, MinRuns: DefaultWindowMinRuns}
	return w.Over(base)
}

// Over returns a Window with w's settings over the suite rates of a
// baseline's runs, with no learned run and no window open.
func (w *Window) Over(base []drift.RunRate) *Window {
	return &Window{Alpha: w.Alpha, Runs: w.Runs, AlphaW: w.AlphaW, Learn: w.Learn, MinRuns: w.MinRuns, Sliding: w.Sliding, base: base}
}

// Reference returns the reference runs: the baseline's, then the learned.
func (w *Window) Reference() []drift.RunRate {
	out := make([]drift.RunRate, 0, len(w.base)+len(w.learned))
	return append(append(out, w.base...), w.learned...)
}

// Known reports whether the rule applies: enough reference runs, with a
// spread beyond sampling.
func (w *Window) Known() bool {
	ref := w.Reference()
	if len(ref) < max(w.MinRuns, 2) {
		return false
	}
	t, err := drift.RunLevel(ref, ref[:1])
	return err == nil && t.Tau2 > 0
}

// Test is the run-level test of the mean rate of n runs against the
// reference runs.
func (w *Window) Test(mean drift.RunRate, n int) (drift.RunLevelTest, error) {
	cur := make([]drift.RunRate, n) // RunLevel reads only their mean
	for i := range cur {
		cur[i] = mean
	}
	return drift.RunLevel(w.Reference(), cur)
}

// Drops reports whether the mean rate of n runs is below the reference by
// more than level alpha allows.
func (w *Window) Drops(mean drift.RunRate, n int, alpha float64) bool {
	t, err := w.Test(mean, n)
	return err == nil && t.T > 0 && t.P < alpha
}

// Observe takes the suite rate o of a scheduled run while the rule is
// Known: it adds o to the open window and reports whether the window's
// mean confirms (closing it; a window past Runs later runs closes
// unconfirmed), or, with no window open, opens one when o alone drops at
// Alpha. t is the test of the window's mean after o (n = 0 when no window
// was open nor opened).
func (w *Window) Observe(o drift.RunRate) (confirmed bool, t drift.RunLevelTest) {
	if w.Sliding {
		return w.slide(o)
	}
	switch {
	case w.open > 0:
		w.open++
		w.sum += o.Rate
		w.vsum += o.Var
		n := float64(w.open)
		mean := drift.RunRate{Rate: w.sum / n, Var: w.vsum / n}
		t, _ = w.Test(mean, w.open)
		if w.Drops(mean, w.open, w.AlphaW) {
			confirmed, w.open = true, 0
		} else if w.open > w.Runs {
			w.open = 0
		}
	case w.Drops(o, 1, w.Alpha):
		w.open, w.sum, w.vsum = 1, o.Rate, o.Var
		t, _ = w.Test(o, 1)
	}
	return confirmed, t
}

// slide is Observe of a Sliding window: o joins the last runs, and the
// mean of each of the last SlidingFrom to Runs+1 of them is tested at
// AlphaW over the number of those lengths; the first that drops
// confirms. t is the test with the smallest p (n = 0 while fewer than
// SlidingFrom runs are held).
func (w *Window) slide(o drift.RunRate) (confirmed bool, t drift.RunLevelTest) {
	if len(w.recent) > w.Runs {
		w.recent = append(w.recent[:0], w.recent[1:]...)
	}
	w.recent = append(w.recent, o)
	level := w.AlphaW / float64(max(w.Runs+2-SlidingFrom, 1))
	var sum, vsum float64
	for n := 1; n <= len(w.recent); n++ {
		r := w.recent[len(w.recent)-n]
		sum, vsum = sum+r.Rate, vsum+r.Var
		if n < SlidingFrom {
			continue
		}
		mean := drift.RunRate{Rate: sum / float64(n), Var: vsum / float64(n)}
		tn, err := w.Test(mean, n)
		if err != nil {
			continue
		}
		if t.N == 0 || tn.P < t.P {
			t = tn
		}
		if tn.T > 0 && tn.P < level {
			// The runs stay: while the fall lasts the next run confirms
			// again (an open incident stays open). The clean runs of
			// the mean that confirmed are part of the fall, not of the
			// usual spread: they are not learned.
			w.pending = w.pending[:0]
			return true, tn
		}
	}
	return false, t
}

// Step takes the suite rate o of a scheduled run as a check's rule does:
// when the rule applies (Known) it observes o (Observe) and known is set;
// when it does not, the window closes and the caller keeps its usual rule.
func (w *Window) Step(o drift.RunRate) (confirmed bool, t drift.RunLevelTest, known bool) {
	if !w.Known() {
		w.Close()
		return false, t, false
	}
	confirmed, t = w.Observe(o)
	return confirmed, t, true
}

// Open returns how many runs the open window holds, 0 when none is open
// (a Sliding window: the last runs it tests).
func (w *Window) Open() int {
	if w.Sliding {
		return len(w.recent)
	}
	return w.open
}

// Close closes the open window: the rule does not apply at this run.
func (w *Window) Close() { w.open, w.recent = 0, w.recent[:0] }

// learnLater is LearnRun of a Sliding window: a clean run joins the
// learned runs only once it has left the last Runs+1 runs, so that no
// mean is tested against a reference that holds its own runs.
func (w *Window) learnLater(o drift.RunRate) {
	w.pending = append(w.pending, o)
	if len(w.pending) > w.Runs+1 {
		o, w.pending = w.pending[0], append(w.pending[:0], w.pending[1:]...)
		w.learn(o)
	}
}

// LearnRun adds a clean run's suite rate (no finding, no open incident) to
// the learned runs, forgetting the oldest beyond Learn. A run that opened
// a window is learned too: leaving out the runs below the one-run level
// would shrink the spread learned and raise the false incidents. A
// Sliding window learns it once it has left the runs it tests, unless a
// mean of them confirmed meanwhile.
func (w *Window) LearnRun(o drift.RunRate) {
	switch {
	case w.Learn <= 0:
	case w.Sliding:
		w.learnLater(o)
	default:
		w.learn(o)
	}
}

// learn adds o to the learned runs, forgetting the oldest beyond Learn.
func (w *Window) learn(o drift.RunRate) {
	if len(w.learned) == w.Learn {
		w.learned = append(w.learned[:0], w.learned[1:]...)
	}
	w.learned = append(w.learned, o)
}

// Learned returns how many clean runs joined the reference.
func (w *Window) Learned() int { return len(w.learned) }

// SuiteOff returns rep with its suite unit's verdict replaced by suite
// (the run-level rule judges the suite itself) and, unless keepOthers,
// every other pooled unit (probe, category) cleared; pairs keep
// drift.Compare's verdict. rep is not changed.
func SuiteOff(rep *promptcanary.DriftReport, keepOthers bool, suite bool) *promptcanary.DriftReport {
	out, st := *rep, *rep.Statistics
	st.Units = append([]promptcanary.TestedUnit(nil), st.Units...)
	for i := range st.Units {
		u := &st.Units[i]
		switch {
		case u.Kind == promptcanary.UnitPair:
		case u.Kind == promptcanary.UnitSuite:
			u.SameTestAs, u.Rejected = "", suite
		case !keepOthers:
			u.SameTestAs, u.Rejected = "", false
		}
	}
	out.Statistics = &st
	return &out
}

// Confirmation returns rep, the report of a confirmation run whose suite
// rate is o, as the run-level rule judges it: its suite unit flagged when
// o drops below the reference at AlphaW, the other pooled units cleared
// (SuiteOff), and each flagged pass-count pair kept only when it fell
// significantly more than the run's other pairs (BeyondOffset). In a bad
// hour every pair moves with the rest, and a pair that moved no more than
// they did is not a pair's drift. rep is not changed.
func (w *Window) Confirmation(rep *promptcanary.DriftReport, o drift.RunRate) *promptcanary.DriftReport {
	return BeyondOffset(SuiteOff(rep, false, w.Drops(o, 1, w.AlphaW)))
}

// FirstRun returns rep, the report of a scheduled run, as the run-level
// rule judges it before any confirmation: its suite unit cleared (the
// window judges the suite), and each flagged probe or category tested on
// its pass counts kept only when its pairs fell significantly more than
// the run's other pairs (as BeyondOffset tests them). A bad hour flags
// the probes and categories that pool hundreds of its answers; kept, any
// pair of theirs that a confirmation at another hour flags by chance
// would confirm them. Pairs keep drift.Compare's verdict: the
// confirmation tests them against its own run's offset, with more
// samples than a scheduled run may have. byOffset is set when the offset
// test cleared a unit (not only one that holds every pair). rep is not
// changed.
func FirstRun(rep *promptcanary.DriftReport) (out *promptcanary.DriftReport, byOffset bool) {
	return beyondOffset(SuiteOff(rep, true, false), pooledCounts)
}

// BeyondOffset returns rep with each rejected pass-count unit (a pair's
// Fisher test, a probe's or category's stratified test) kept rejected
// only when its pairs fell significantly more than the report's other
// pairs. A probe or category that holds every measured pair is the
// suite, which the run-level rule's window judges: it is cleared. The
// unit's offset is the mean change of the pass rates of the pairs outside
// it (current minus baseline, over the pairs both sides
// measured, so that its own fall does not widen its margin); when that is
// negative, the unit's pooled pass counts are tested again with
// drift.DropBeyond at margin −offset, at the level its rejection used but
// never above the report's (min(α, p·α/q)). A unit whose test repeats
// another's (SameTestAs) takes that unit's verdict. Score units
// (Mann–Whitney) keep theirs. Pooled counts above drift.DropBeyond's
// exact reach take the normal approximation of its statistic, which at
// pass rates near 1 with few current samples gives smaller p-values than
// the exact test: a probe or category is then kept more readily than the
// level says. rep is not changed.
func BeyondOffset(rep *promptcanary.DriftReport) *promptcanary.DriftReport {
	out, _ := beyondOffset(rep, countsTest)
	return out
}

// beyondOffset is BeyondOffset for the rejected units that gated selects;
// byOffset is set when the offset test cleared one.
func beyondOffset(rep *promptcanary.DriftReport, gated func(*promptcanary.TestedUnit) bool) (_ *promptcanary.DriftReport, byOffset bool) {
	if rep.Statistics == nil {
		return rep, false
	}
	out, st := *rep, *rep.Statistics
	st.Units = append([]promptcanary.TestedUnit(nil), st.Units...)
	var changes []pairChange
	for i := range st.Units {
		u := &st.Units[i]
		if !u.Rejected || !gated(u) || u.SameTestAs != "" {
			continue
		}
		if changes == nil {
			changes = pairChanges(rep)
		}
		switch base, cur, offset, outside := unitOffset(changes, u); {
		case outside == 0 && u.Kind != promptcanary.UnitPair:
			u.Rejected = false // the unit holds every pair: it is the suite, which the window judges
		case outside > 0 && base.N > 0 && offset < 0:
			u.Rejected = drift.DropBeyond(base, cur, -offset) <= rejectionLevel(&st, u)
			byOffset = byOffset || !u.Rejected
		}
	}
	followRepeated(st.Units)
	out.Statistics = &st
	return &out, byOffset
}

// followRepeated gives each unit whose test repeats another's exactly
// (SameTestAs) that unit's verdict: one test, one outcome.
func followRepeated(units []promptcanary.TestedUnit) {
	for i := range units {
		u := &units[i]
		if !u.Rejected {
			continue
		}
		if r := u.RepeatedIn(units); r != nil {
			u.Rejected = r.Rejected
		}
	}
}

// countsTest reports whether u's test is of pass counts that
// BeyondOffset can test again: a pair's Fisher test, a probe's or a
// category's stratified test.
func countsTest(u *promptcanary.TestedUnit) bool {
	switch u.Kind {
	case promptcanary.UnitPair:
		return u.Test == drift.FisherTest
	case promptcanary.UnitProbe, promptcanary.UnitCategory:
		return u.Test == drift.StratifiedTest
	}
	return false
}

// pooledCounts reports whether u is a probe's or a category's test of
// pass counts.
func pooledCounts(u *promptcanary.TestedUnit) bool {
	return u.Kind != promptcanary.UnitPair && countsTest(u)
}

// unitOffset returns the pooled pass counts of the measured pairs in u,
// the mean change of those outside it, and how many are outside (0 when
// u holds them all, and then offset is 0).
func unitOffset(changes []pairChange, u *promptcanary.TestedUnit) (base, cur promptcanary.PassCount, offset float64, outside int) {
	for _, p := range changes {
		if !inUnit(p, u) {
			offset += p.change
			outside++
			continue
		}
		base.Passed, base.N = base.Passed+p.c.Baseline.Passes, base.N+p.c.Baseline.N
		cur.Passed, cur.N = cur.Passed+p.c.Current.Passes, cur.N+p.c.Current.N
	}
	if outside > 0 {
		offset /= float64(outside)
	}
	return base, cur, offset, outside
}

// inUnit reports whether the pair of p is one of unit u's.
func inUnit(p pairChange, u *promptcanary.TestedUnit) bool {
	switch u.Kind {
	case promptcanary.UnitPair:
		return p.key == u.Key
	case promptcanary.UnitProbe:
		return p.c.ProbeID == u.Key
	case promptcanary.UnitCategory:
		return string(p.c.Category) == u.Key
	}
	return false
}

// rejectionLevel is the level at which u was rejected in a family at
// st.Alpha, p·α/q, never above α.
func rejectionLevel(st *promptcanary.DriftStatistics, u *promptcanary.TestedUnit) float64 {
	if u.Q > u.P {
		return u.P * st.Alpha / u.Q
	}
	return st.Alpha
}

// SharedOffset returns the mean change of the pass rates of rep's
// pairs that both sides measured (current minus baseline): how far a bad
// hour moved them all. ok is false when no pair was measured by both.
func SharedOffset(rep *promptcanary.DriftReport) (offset float64, ok bool) {
	changes := pairChanges(rep)
	for _, p := range changes {
		offset += p.change
	}
	if len(changes) == 0 {
		return 0, false
	}
	return offset / float64(len(changes)), true
}

// pairChange is a measured pair's pass-rate change, current minus
// baseline, with its comparison and its unit's key.
type pairChange struct {
	c      *promptcanary.Comparison
	key    string
	change float64
}

// pairChanges returns the changes of rep's pairs that both sides
// measured, in the report's order (so their sums are the same on every
// run).
func pairChanges(rep *promptcanary.DriftReport) []pairChange {
	out := make([]pairChange, 0, len(rep.Comparisons))
	for i := range rep.Comparisons {
		if c := &rep.Comparisons[i]; measured(c) {
			out = append(out, pairChange{c, pairName(c), c.Current.PassRate() - c.Baseline.PassRate()})
		}
	}
	return out
}

// measured reports whether both sides of a compared pair have results.
func measured(c *promptcanary.Comparison) bool {
	return c.Compared() && c.Baseline.N > 0 && c.Current.N > 0
}

// FlagsAny reports whether any tested unit of rep is rejected.
func FlagsAny(rep *promptcanary.DriftReport) bool {
	for _, u := range rep.Statistics.Units {
		if u.Rejected {
			return true
		}
	}
	return false
}

// BaselineRunRates returns the suite rates of a pooled baseline's runs
// (its Runs record; nil for a baseline of one run), its samples split by
// that record, and its pairs' rates, which weigh every run's binomial
// variance (drift.SuiteRunRate).
func BaselineRunRates(b *promptcanary.Baseline) (runs []drift.RunRate, pairP map[promptcanary.PairKey]float64) {
	pairP = drift.PairRates(b.RunResult.ProbeResults)
	if len(b.Runs) < 2 {
		return nil, pairP
	}
	split := make([][]promptcanary.ProbeResult, len(b.Runs))
	for _, r := range b.RunResult.ProbeResults {
		for i, br := range b.Runs {
			if br.Holds(r.Sample) {
				split[i] = append(split[i], r)
				break
			}
		}
	}
	for _, rs := range split {
		if r, ok := drift.SuiteRunRate(rs, pairP); ok {
			runs = append(runs, r)
		}
	}
	return runs, pairP
}
