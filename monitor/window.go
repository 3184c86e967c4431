package monitor

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/monitor/policy"
	"github.com/promptcanary/promptcanary/monitor/web"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/store"
)

// runLevel is a check's run-level rule (monitor.yaml run_level: true):
// its policy.Window over the current baseline's runs and the check's last
// clean runs against that baseline. It is safe for concurrent use: the
// check page reads it while a run decides.
type runLevel struct {
	mu         sync.Mutex
	baselineID string
	pairP      map[promptcanary.PairKey]float64
	w          *policy.Window
	baseRuns   int
	// control is the NAME/MODEL of the check's control arm, "" for none:
	// diff is then the window of the run's difference from the control in
	// the same slot (policy.NewControlWindow over drift.ArmDifference with
	// weights, drift.PairWeights of the baseline at samples per prompt).
	control string
	samples int
	diff    *policy.Window
	weights map[promptcanary.PairKey]float64
	// stored are the clean runs read back on start (oldest first), of
	// the baseline storedID: they join the window made for it. The last
	// replay of them are the newest scheduled runs in a row, which the
	// window observes again as it did live, so that a window open at a
	// restart stays open.
	stored   []promptcanary.SuiteRunRate
	storedID string
	replay   int
}

// runRate is the window's view of a run-level record.
func runRate(o *promptcanary.SuiteRunRate) drift.RunRate {
	return drift.RunRate{Rate: o.Rate, Var: o.Var}
}

// use makes base the baseline of the rule: a new baseline starts afresh,
// with its own runs and no learned run (they were measured against
// another). The caller holds r.mu.
func (r *runLevel) use(base *promptcanary.Baseline) {
	if r.w != nil && r.baselineID == base.SnapshotID {
		return
	}
	runs, pairP := policy.BaselineRunRates(base)
	r.w, r.pairP, r.baselineID, r.baseRuns = policy.NewWindow(runs), pairP, base.SnapshotID, len(runs)
	r.diff, r.weights = nil, nil
	if r.control != "" {
		r.diff, r.weights = policy.NewControlWindow(), drift.PairWeights(base.RunResult.ProbeResults, r.samples)
	}
	if r.storedID == base.SnapshotID {
		learned := len(r.stored) - r.replay
		for i := range r.stored {
			r.relearn(&r.stored[i], i >= learned)
		}
	}
	r.stored, r.storedID, r.replay = nil, "", 0
}

// relearn adds a stored clean run to the learned runs of the windows,
// after stepping them with it first when replay is set, as live: a run
// without a difference from the current control (none measured, or one
// from another control) closes the control window. The caller holds r.mu.
func (r *runLevel) relearn(o *promptcanary.SuiteRunRate, replay bool) {
	if replay {
		r.w.Step(runRate(o))
	}
	r.w.LearnRun(runRate(o))
	if r.diff == nil {
		return
	}
	if o.ControlDiff == nil || o.Control != r.control {
		if replay {
			r.diff.Close()
		}
		return
	}
	d := drift.RunRate{Rate: *o.ControlDiff}
	if replay {
		r.diff.Step(d)
	}
	r.diff.LearnRun(d)
}

// restore reads back the clean runs of the baseline baselineID from a
// check's stored runs (newest first): measured, with a run-level record,
// not confirmed, and not decided while a drift incident of the check was
// open (incs, its drift incidents); the newest policy.DefaultWindowLearn
// of them. They join the reference when the baseline is next used.
//
// The newest of them that follow each other with no other run between
// (up to the window's reach, policy.DefaultWindowRuns+1) are replayed
// through the window when it is made, so that a window a run opened
// before a restart is still open after it.
func (r *runLevel) restore(baselineID string, runs []promptcanary.CheckRun, incs []promptcanary.Incident) {
	var clean []promptcanary.SuiteRunRate
	replay, inRow := 0, true
	for i := range runs {
		cr := &runs[i]
		if len(clean) == policy.DefaultWindowLearn {
			break
		}
		if cr.RunLevel == nil || !cr.Measured() || cr.Confirmed || cr.BaselineID != baselineID || duringIncident(cr, incs) {
			inRow = false
			continue
		}
		clean = append(clean, *cr.RunLevel)
		if inRow && replay <= policy.DefaultWindowRuns {
			replay++
		}
	}
	slices.Reverse(clean)
	r.mu.Lock()
	r.stored, r.storedID, r.replay, r.w = clean, baselineID, replay, nil
	r.mu.Unlock()
}

// duringIncident reports whether cr finished while one of incs was open.
func duringIncident(cr *promptcanary.CheckRun, incs []promptcanary.Incident) bool {
	for i := range incs {
		inc := &incs[i]
		if !cr.FinishedAt.Before(inc.OpenedAt) && (inc.Open() || cr.FinishedAt.Before(inc.ResolvedAt)) {
			return true
		}
	}
	return false
}

// rate is a run's suite rate and binomial variance, weighed by the
// baseline's pair rates, and its difference from the control's run in the
// same slot (nil without one); nil when the run has no result. The
// caller holds r.mu.
func (r *runLevel) rate(run, control *promptcanary.Run) *promptcanary.SuiteRunRate {
	if run == nil {
		return nil
	}
	o, ok := drift.SuiteRunRate(run.ProbeResults, r.pairP)
	if !ok {
		return nil
	}
	out := &promptcanary.SuiteRunRate{Rate: o.Rate, Var: o.Var}
	if r.diff != nil && control != nil {
		if d, ok := drift.ArmDifference(run.ProbeResults, control.ProbeResults, r.weights); ok {
			out.ControlDiff, out.Control = &d.Rate, r.control
		}
	}
	return out
}

// status returns what the check page shows.
func (r *runLevel) status() *web.RunLevel {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return &web.RunLevel{}
	}
	st := &web.RunLevel{BaselineRuns: r.baseRuns, Learned: r.w.Learned(), Applies: r.w.Known(), Open: r.w.Open()}
	if r.diff != nil {
		st.Control = &web.ControlWindow{Learned: r.diff.Learned(), Applies: r.diff.Known(), Held: r.diff.Open()}
	}
	return st
}

// windowStep is what the run-level rule made of a scheduled run.
type windowStep struct {
	confirmed bool
	test      drift.RunLevelTest
	open      int // runs in the window after the run, 0 when none is open
	// byControl is set when the control window confirmed a fall of the
	// run below its control, whose test is controlTest.
	byControl   bool
	controlTest drift.RunLevelTest
}

// observe measures the first run's suite rate (and its difference from
// the control's run, control, nil for none) onto cr and, when the rule
// applies, steps the window with it; ok is false when it does not apply
// (too few reference runs, no spread beyond sampling, or a run without
// results), and then the check keeps today's rule. The control window
// is stepped either way: s.byControl is set when it confirmed.
func (r *runLevel) observe(base *promptcanary.Baseline, run, control *promptcanary.Run, cr *promptcanary.CheckRun) (s windowStep, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.use(base)
	cr.RunLevel = r.rate(run, control)
	if cr.RunLevel == nil {
		r.w.Close()
		if r.diff != nil {
			r.diff.Close()
		}
		return windowStep{}, false
	}
	s.byControl, s.controlTest = r.stepControl(cr.RunLevel)
	o := runRate(cr.RunLevel)
	if s.confirmed, s.test, ok = r.w.Step(o); !ok {
		return windowStep{byControl: s.byControl, controlTest: s.controlTest}, false
	}
	s.open = r.w.Open()
	if s.test.N == 0 {
		s.test, _ = r.w.Test(o, 1)
	}
	return s, true
}

// stepControl steps the control window with o's difference from the
// control, and reports whether it confirmed a fall below the control; a
// run without a difference (no control run, or no pair both measured)
// closes the window. The caller holds r.mu.
func (r *runLevel) stepControl(o *promptcanary.SuiteRunRate) (confirmed bool, t drift.RunLevelTest) {
	if r.diff == nil {
		return false, t
	}
	if o.ControlDiff == nil {
		r.diff.Close()
		return false, t
	}
	confirmed, t, _ = r.diff.Step(drift.RunRate{Rate: *o.ControlDiff})
	return confirmed, t
}

// confirmation returns a confirmation run's report as the run-level rule
// judges it (policy.Window.Confirmation): the suite unit by the window's
// test of the run's suite rate, pairs beyond the run's shared offset.
func (r *runLevel) confirmation(run *promptcanary.Run, rep *promptcanary.DriftReport) *promptcanary.DriftReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.rate(run, nil)
	if o == nil {
		return policy.BeyondOffset(policy.SuiteOff(rep, false, false))
	}
	return r.w.Confirmation(rep, runRate(o))
}

// learn adds cr's suite rate to the learned runs when cr is a clean run
// of the rule's baseline: measured, no confirmed finding, and no drift
// incident open after it (open).
func (r *runLevel) learn(cr *promptcanary.CheckRun, open bool) {
	if cr.RunLevel == nil || !cr.Measured() || cr.Confirmed || open {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil && r.baselineID == cr.BaselineID {
		r.relearn(cr.RunLevel, false)
	}
}

// judgeRunLevel is judge for a check with the run-level rule, once cr
// holds the first run's rates: the suite unit is judged by the window,
// the other units by drift.Compare and the usual confirmation (whose
// suite unit is the window's test of the confirmation run). ok is false
// when the rule does not apply, and judge goes on as without it.
func (m *Monitor) judgeRunLevel(ctx context.Context, e *entry, base *promptcanary.Baseline, slot time.Time, first measurement, cr *promptcanary.CheckRun) (ev *incident.Evidence, ok bool) {
	var control *promptcanary.Run
	if first.control != nil {
		control = first.control.Run
	}
	s, ok := e.runLevel.observe(base, first.run, control, cr)
	if s.byControl {
		return belowControl(e, first, cr, s.controlTest), true
	}
	if !ok {
		return nil, false
	}
	rest, byOffset := policy.FirstRun(first.report)
	flagged := policy.Flagged(rest)
	switch {
	case s.confirmed:
		cr.Outcome, cr.Confirmed = promptcanary.CheckDrift, true
		cr.Severity = atLeastLow(first.report.Severity)
		ev = evidenceOf(first, []promptcanary.IncidentUnit{{Unit: promptcanary.UnitSuite, Name: e.c.Suite.Name, Baseline: s.test.Reference, Current: s.test.Current}})
		ev.Summary = windowSummary(s.test)
		return ev, true
	case len(flagged) == 0:
		cr.Outcome = promptcanary.CheckClean
		if len(policy.Flagged(first.report)) > 0 {
			// drift.Compare flagged the suite alone, or units that fell
			// no more than the run's other pairs: a drift, left to the
			// window.
			cr.Outcome, cr.Severity = promptcanary.CheckDrift, atLeastLow(first.report.Severity)
			cr.Reason = windowReason(s)
			if byOffset {
				cr.Reason = withinOffset("the run flagged probes or categories", first.report) + "; " + cr.Reason
			}
		}
		return nil, true
	}
	cr.Outcome, cr.Severity = promptcanary.CheckDrift, atLeastLow(first.report.Severity)
	if !e.c.Confirm {
		cr.Confirmed = true
		return evidenceOf(first, flagged), true
	}
	second, measured := m.confirmation(ctx, e, base, slot, cr)
	if !measured {
		return nil, true
	}
	units := policy.Confirm(rest, e.runLevel.confirmation(second.run, second.report))
	ev = confirmed(cr, first, second, units)
	if units == nil && policy.Confirm(rest, policy.SuiteOff(second.report, false, false)) != nil {
		cr.Reason = withinOffset("the confirmation run flagged the same pairs", second.report)
	}
	return ev, true
}

// belowControl records a run whose control window confirmed that the
// check's pass rates fell further below its control's in the same slots
// than usual (test t of the mean difference over t.N runs) and returns
// the evidence: the suite less the control as the unit, with the
// differences tested, a summary that says so, and the likely cause
// (controlCause).
func belowControl(e *entry, first measurement, cr *promptcanary.CheckRun, t drift.RunLevelTest) *incident.Evidence {
	cr.Outcome, cr.Confirmed = promptcanary.CheckDrift, true
	cr.Severity = atLeastLow(first.report.Severity)
	ev := evidenceOf(first, []promptcanary.IncidentUnit{{Unit: promptcanary.UnitSuite, Name: e.c.Suite.Name + " less the control " + e.c.Control,
		Baseline: t.Reference, Current: t.Current}})
	ev.Summary = controlSummary(e.c.Control, t)
	ev.Attribution = controlCause(e.c.Control, first, t, ev.Attribution)
	return ev
}

// controlCause is the likely cause of a fall the control window found. A
// cause the report found from facts of its own (the suite changed, the
// judge re-judged the baseline's answers alike) stands. Otherwise the
// check's provider (or its app) changed unless the control rose: a
// control that improved moves the difference just as a check that fell
// does, so when the control's pass rate in the slot is above its
// baseline's by half the fall or more, who moved is unknown. A control
// that fell with a bad hour is no such sign: the difference takes the
// hour out.
func controlCause(control string, first measurement, t drift.RunLevelTest, found *promptcanary.Attribution) *promptcanary.Attribution {
	if found != nil && (found.Cause == promptcanary.CauseSuite || found.Cause == promptcanary.CauseJudge) {
		return found
	}
	fall := t.Reference - t.Current
	by := fmt.Sprintf("over the last %d runs the pass rates fell %.1f points further from the control's in the same slots than usual", t.N, 100*fall)
	var rep *promptcanary.DriftReport
	if first.control != nil {
		rep = first.control.Report
	}
	if rep == nil || rep.Compared() == 0 {
		return &promptcanary.Attribution{Cause: promptcanary.CauseUnknown, Evidence: []string{by + ", and the control " + control + " compared nothing against its baseline in this slot"}}
	}
	cur, base := rep.PassRates()
	rate := fmt.Sprintf("its pass rate %.1f%% in the slot against its baseline's %.1f%%", 100*cur, 100*base)
	if cur-base >= fall/2 {
		return &promptcanary.Attribution{Cause: promptcanary.CauseUnknown, Evidence: []string{by + ", but the control " + control + " rose: " + rate}}
	}
	cause := promptcanary.CauseProvider
	if provider.CapabilitiesOf(first.report.Provider.ModelID).App {
		cause = promptcanary.CauseApp
	}
	return &promptcanary.Attribution{Cause: cause, Evidence: []string{"the control " + control + " did not rise (" + rate + "): " + by}}
}

// controlSummary is the summary of an incident the control window opened.
func controlSummary(control string, t drift.RunLevelTest) string {
	return fmt.Sprintf("pass rates %.1f points further below the control %s's than usual over %d runs in the same slots: %s points from it, where the last %d clean runs were %s points from it on average (t=%.2f, p=%.2g)",
		100*(t.Reference-t.Current), control, t.N, signedPoints(t.Current), t.K, signedPoints(t.Reference), t.T, t.P)
}

// signedPoints writes a difference of rates in points with its sign.
func signedPoints(d float64) string { return fmt.Sprintf("%+.1f", 100*d) }

// withinOffset says why the units a run flagged (what: "the run flagged
// probes or categories", "the confirmation run flagged the same pairs")
// are no finding: none fell significantly more than the run's other
// pairs.
func withinOffset(what string, rep *promptcanary.DriftReport) string {
	offset, _ := policy.SharedOffset(rep)
	return fmt.Sprintf("%s, but none fell significantly more than the run's other pairs (the run's pairs moved %.1f points from the baseline on average): a bad hour, not their drift", what, 100*offset)
}

// windowSummary is the summary of an incident the window opened.
func windowSummary(t drift.RunLevelTest) string {
	return fmt.Sprintf("suite pass rate below the usual run-to-run spread over %d runs: %.1f%% against %.1f%%, t=%.2f, p=%.2g, k=%d reference runs",
		t.N, 100*t.Current, 100*t.Reference, t.T, t.P, t.K)
}

// windowReason says why a run whose suite drift.Compare flagged is not a
// finding yet.
func windowReason(s windowStep) string {
	if s.open == 0 {
		return fmt.Sprintf("the suite unit is judged by the run-level rule (run_level: true): within the usual run-to-run spread of %d reference runs", s.test.K)
	}
	return fmt.Sprintf("the suite unit is judged by the run-level rule (run_level: true): a window is open (%d of at most %d runs, t=%.2f, p=%.2g, k=%d reference runs)",
		s.open, policy.DefaultWindowRuns+1, s.test.T, s.test.P, s.test.K)
}

// restoreRunLevel reads back e's run-level rule's clean runs from the
// check's stored runs (newest first) and makes its current baseline the
// rule's, so the check page shows the reference runs from the start.
func (m *Monitor) restoreRunLevel(ctx context.Context, e *entry, runs []promptcanary.CheckRun) error {
	if e.runLevel == nil {
		return nil
	}
	incs, err := m.state.Incidents(ctx, store.IncidentFilter{Check: e.c.Name})
	if err != nil {
		return err
	}
	incs = slices.DeleteFunc(incs, func(inc promptcanary.Incident) bool {
		return inc.Provider != e.c.Provider || inc.Kind != promptcanary.IncidentDrift
	})
	e.runLevel.restore(e.track.Baseline(), runs, incs)
	if base, err := m.currentBaseline(ctx, e); err == nil {
		e.runLevel.mu.Lock()
		e.runLevel.use(base)
		e.runLevel.mu.Unlock()
	}
	return nil
}

// learnRunLevel lets e's run-level rule learn from cr, decided: a clean
// run joins its reference runs.
func (m *Monitor) learnRunLevel(e *entry, cr *promptcanary.CheckRun) {
	if e.runLevel == nil {
		return
	}
	b := &m.incidents.Book
	b.Lock()
	open := b.Get(incident.Fingerprint(e.c.Name, e.c.Provider, promptcanary.IncidentDrift)) != nil
	b.Unlock()
	e.runLevel.learn(cr, open)
}
