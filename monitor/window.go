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
	// stored are the clean runs read back on start (oldest first), of
	// the baseline storedID: they join the window made for it. The last
	// replay of them are the newest scheduled runs in a row, which the
	// window observes again as it did live, so that a window open at a
	// restart stays open.
	stored   []drift.RunRate
	storedID string
	replay   int
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
	if r.storedID == base.SnapshotID {
		learned := len(r.stored) - r.replay
		for _, o := range r.stored[:learned] {
			r.w.LearnRun(o)
		}
		for _, o := range r.stored[learned:] {
			r.w.Step(o)
			r.w.LearnRun(o)
		}
	}
	r.stored, r.storedID, r.replay = nil, "", 0
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
	var clean []drift.RunRate
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
		clean = append(clean, drift.RunRate{Rate: cr.RunLevel.Rate, Var: cr.RunLevel.Var})
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
// baseline's pair rates; nil when the run has no result. The caller holds
// r.mu.
func (r *runLevel) rate(run *promptcanary.Run) *promptcanary.SuiteRunRate {
	if run == nil {
		return nil
	}
	o, ok := drift.SuiteRunRate(run.ProbeResults, r.pairP)
	if !ok {
		return nil
	}
	return &promptcanary.SuiteRunRate{Rate: o.Rate, Var: o.Var}
}

// status returns what the check page shows.
func (r *runLevel) status() *web.RunLevel {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return &web.RunLevel{}
	}
	return &web.RunLevel{BaselineRuns: r.baseRuns, Learned: r.w.Learned(), Applies: r.w.Known(), Open: r.w.Open()}
}

// windowStep is what the run-level rule made of a scheduled run.
type windowStep struct {
	confirmed bool
	test      drift.RunLevelTest
	open      int // runs in the window after the run, 0 when none is open
}

// observe measures the first run's suite rate onto cr and, when the rule
// applies, steps the window with it; ok is false when it does not apply
// (too few reference runs, no spread beyond sampling, or a run without
// results), and then the check keeps today's rule.
func (r *runLevel) observe(base *promptcanary.Baseline, run *promptcanary.Run, cr *promptcanary.CheckRun) (s windowStep, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.use(base)
	cr.RunLevel = r.rate(run)
	if cr.RunLevel == nil {
		r.w.Close()
		return windowStep{}, false
	}
	o := drift.RunRate{Rate: cr.RunLevel.Rate, Var: cr.RunLevel.Var}
	if s.confirmed, s.test, ok = r.w.Step(o); !ok {
		return windowStep{}, false
	}
	s.open = r.w.Open()
	if s.test.N == 0 {
		s.test, _ = r.w.Test(o, 1)
	}
	return s, true
}

// confirmation returns a confirmation run's report as the run-level rule
// judges it (policy.Window.Confirmation): the suite unit by the window's
// test of the run's suite rate, pairs beyond the run's shared offset.
func (r *runLevel) confirmation(run *promptcanary.Run, rep *promptcanary.DriftReport) *promptcanary.DriftReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.rate(run)
	if o == nil {
		return policy.BeyondOffset(policy.SuiteOff(rep, false, false))
	}
	return r.w.Confirmation(rep, drift.RunRate{Rate: o.Rate, Var: o.Var})
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
		r.w.LearnRun(drift.RunRate{Rate: cr.RunLevel.Rate, Var: cr.RunLevel.Var})
	}
}

// judgeRunLevel is judge for a check with the run-level rule, once cr
// holds the first run's rates: the suite unit is judged by the window,
// the other units by drift.Compare and the usual confirmation (whose
// suite unit is the window's test of the confirmation run). ok is false
// when the rule does not apply, and judge goes on as without it.
func (m *Monitor) judgeRunLevel(ctx context.Context, e *entry, base *promptcanary.Baseline, slot time.Time, first measurement, cr *promptcanary.CheckRun) (ev *incident.Evidence, ok bool) {
	s, ok := e.runLevel.observe(base, first.run, cr)
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
