package incident

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

// CheckRuns answers CatchUp from the fake's runs, newest first, at most
// limit of them.
func (s *fakeStore) CheckRuns(_ context.Context, check, provider string, limit int) ([]promptcanary.CheckRun, error) {
	return slices.Clone(s.runs[:min(limit, len(s.runs))]), nil
}

// decideNow is when the decision tests decide.
var decideNow = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

// run is a recorded check run of testSubject's check.
func run(id string, outcome promptcanary.CheckOutcome) *promptcanary.CheckRun {
	return &promptcanary.CheckRun{ID: id, RunID: "run-" + id, Check: "c", Provider: "p", Outcome: outcome, Reason: "no answer"}
}

// One unmeasured run is no incident, two in a row are; a measured run
// counts as clean for it, and resolve_after of them resolve it.
func TestDecideUnmeasuredTwiceInARow(t *testing.T) {
	ctx := context.Background()
	l, s := newLifecycle(decideNow)
	tr := NewTracker(testSubject, "base")
	fp := Fingerprint("c", "p", promptcanary.IncidentUnmeasured)

	l.Decide(ctx, tr, run("1", promptcanary.CheckUnmeasured), nil)
	if len(s.steps) != 0 {
		t.Fatalf("after one unmeasured run: steps %+v, want none", s.steps)
	}
	l.Decide(ctx, tr, run("2", promptcanary.CheckUnmeasured), nil)
	if len(s.steps) != 1 || s.steps[0].Incident.Fingerprint != fp || s.steps[0].Incident.Severity != SeverityUnmeasured {
		t.Fatalf("after two unmeasured runs: steps %+v, want the unmeasured incident opened", s.steps)
	}
	if got, want := s.steps[0].Event.Summary, "not measured 2 times in a row: no answer"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	for i, id := range []string{"3", "4"} {
		l.Decide(ctx, tr, run(id, promptcanary.CheckClean), nil)
		if open := l.Book.List(); (len(open) == 1) != (i == 0) {
			t.Errorf("after %d clean run(s): open %+v", i+1, open)
		}
	}
	if last := s.steps[len(s.steps)-1]; last.Event.Type != promptcanary.EventResolved || last.Incident.RunID != "run-4" {
		t.Errorf("last step %+v, want resolved by run-4", last.Event)
	}
}

// A confirmed drift opens a drift incident named after the report that
// confirmed it, unless the check has an open unmeasured incident.
func TestDecideConfirmedDrift(t *testing.T) {
	ctx := context.Background()
	l, s := newLifecycle(decideNow)
	tr := NewTracker(testSubject, "base")
	ev := &Evidence{RunID: "confirm-run", PassRate: 0.5, BaseRate: 0.9,
		Units: []promptcanary.IncidentUnit{{Unit: promptcanary.UnitPair, Name: "p/q", Baseline: 1, Current: 0}}}
	drift := run("d", promptcanary.CheckDrift)
	drift.Confirmed, drift.Severity, drift.ConfirmRunID, drift.ConfirmReportID = true, promptcanary.SeverityHigh, "confirm-run", "confirm-report"

	l.Decide(ctx, tr, run("1", promptcanary.CheckUnmeasured), nil)
	l.Decide(ctx, tr, run("2", promptcanary.CheckUnmeasured), nil)
	l.Decide(ctx, tr, drift, ev)
	if open := l.Book.List(); len(open) != 1 || open[0].Kind != promptcanary.IncidentUnmeasured {
		t.Fatalf("open %+v, want only the unmeasured incident: it inhibits the drift", open)
	}
	l.Decide(ctx, tr, run("3", promptcanary.CheckClean), nil) // resolves the unmeasured incident
	l.Decide(ctx, tr, drift, ev)
	last := s.steps[len(s.steps)-1]
	if last.Event.Type != promptcanary.EventOpened || last.Incident.Kind != promptcanary.IncidentDrift ||
		last.Incident.RunID != "confirm-run" || last.Incident.ReportID != "confirm-report" || last.Incident.Severity != promptcanary.SeverityHigh {
		t.Fatalf("last step %+v of %+v, want a drift opened on the confirming run", last.Event, last.Incident)
	}
	if want := "pass rate 50.0% against the baseline's 90.0% in run confirm-; fell: pair p/q 100.0% → 0.0%"; last.Event.Summary != want {
		t.Errorf("summary %q, want %q", last.Event.Summary, want)
	}
}

// A drift flagged but not confirmed is neither a finding nor clean: the
// open drift incident's count of clean runs starts again.
func TestDecideUnconfirmedDriftIsNotClean(t *testing.T) {
	ctx := context.Background()
	l, s := newLifecycle(decideNow)
	tr := NewTracker(testSubject, "base")
	fp := Fingerprint("c", "p", promptcanary.IncidentDrift)
	l.Book.Lock()
	l.Fire(ctx, testSubject, testFinding)
	l.Book.Unlock()
	l.Decide(ctx, tr, run("1", promptcanary.CheckClean), nil)
	if inc := l.Book.Get(fp); inc == nil || inc.CleanRuns != 1 {
		t.Fatalf("after a clean run: %+v, want the drift incident with one clean run", inc)
	}
	l.Decide(ctx, tr, run("2", promptcanary.CheckDrift), nil)
	if inc := l.Book.Get(fp); inc == nil || inc.CleanRuns != 0 {
		t.Fatalf("after an unconfirmed drift: %+v, want the drift incident open with no clean run", inc)
	}
	if len(s.steps) != 1 {
		t.Errorf("steps %+v, want only the opening one", s.steps)
	}
}

// Stale opens an unmeasured incident per stale check, saying whether a
// run is in flight, and none while the budget is what stops the checks.
func TestStale(t *testing.T) {
	ctx, now := context.Background(), decideNow
	l, s := newLifecycle(now)
	stale := []Stale{{Subject: testSubject, Since: now.Add(-3 * time.Hour), Schedule: "1h"},
		{Subject: Subject{Check: "d", Provider: "p"}, Since: now.Add(-150 * time.Minute), InFlight: true, Schedule: "1h"}}
	l.Budget.Limit = 1
	l.Budget.Add(2, now)
	l.OverBudget(ctx, now)
	l.Stale(ctx, now, func() []Stale { return stale })
	if len(s.steps) != 1 {
		t.Fatalf("over budget: steps %+v, want only the budget incident", s.steps)
	}
	l.BudgetDay(ctx, now.Add(24*time.Hour))
	s.steps = nil
	l.Stale(ctx, now, func() []Stale {
		// Decide records measured runs under the book's lock: the
		// stale checks are found under it too.
		if l.Book.mu.TryLock() {
			l.Book.mu.Unlock()
			t.Error("Stale found the stale checks without the book's lock")
		}
		return stale
	})
	want := []string{
		"no measured run for 3h0m0s (twice the interval of 1h), since 2026-01-02T00:00:00Z",
		"no measured run for 2h30m0s (twice the interval of 1h): the run of the slot 2026-01-02T00:30:00Z is still in flight",
	}
	if len(s.steps) != 2 {
		t.Fatalf("steps %+v, want two unmeasured incidents", s.steps)
	}
	for i, st := range s.steps {
		if st.Incident.Kind != promptcanary.IncidentUnmeasured || st.Event.Summary != want[i] {
			t.Errorf("step %d: %s %q, want unmeasured %q", i, st.Incident.Kind, st.Event.Summary, want[i])
		}
	}
}

// Admit lets a run go while today's spend and its estimate fit the
// budget, and says why not when they do not.
func TestAdmit(t *testing.T) {
	now := decideNow
	l, _ := newLifecycle(now)
	tr := NewTracker(testSubject, "base")
	tr.Cost(0.6)
	l.Budget.Add(0.5, now)
	if ok, why := l.Admit(tr, now); !ok || why != "" {
		t.Errorf("no budget: Admit = %v %q, want true", ok, why)
	}
	l.Budget.Limit = 1
	ok, why := l.Admit(tr, now)
	if want := "daily budget of $1.00 reached: $0.50 spent today (UTC), and a run costs about $0.60"; ok || why != want {
		t.Errorf("Admit = %v %q, want false %q", ok, why, want)
	}
	if ok, _ := l.Admit(tr, now.Add(24*time.Hour)); !ok {
		t.Error("the next day: refused, want admitted")
	}
}

// CatchUp replays the runs another monitor recorded: a failure there and
// one here are two in a row.
func TestCatchUpReplaysAnotherMonitorsRuns(t *testing.T) {
	ctx := context.Background()
	l, s := newLifecycle(decideNow)
	tr := NewTracker(testSubject, "base")
	l.Restore(tr, []promptcanary.CheckRun{*run("0", promptcanary.CheckClean)}, l.Now())
	here := run("2", promptcanary.CheckUnmeasured)
	s.runs = []promptcanary.CheckRun{*here, *run("1", promptcanary.CheckUnmeasured), *run("0", promptcanary.CheckClean)}
	l.CatchUp(ctx, tr, here)
	l.Decide(ctx, tr, here, nil)
	if len(s.steps) != 1 || !strings.HasPrefix(s.steps[0].Event.Summary, "not measured 2 times in a row") {
		t.Fatalf("steps %+v, want the unmeasured incident after another monitor's failure and this one", s.steps)
	}
	// Applied now: the same runs read again are not replayed (a replay
	// would set the last success back to run 0's).
	later := l.Now().Add(time.Hour)
	tr.Succeeded(later)
	l.CatchUp(ctx, tr, run("3", promptcanary.CheckClean))
	if got := tr.LastSuccess(); !got.Equal(later) {
		t.Errorf("last success %s, want %s: the runs already applied were replayed again", got, later)
	}
}

// TestDriftSummary: the broken pairs come first whatever order the units
// come in, and at most maxSummaryUnits are named.
func TestDriftSummary(t *testing.T) {
	ev := &Evidence{RunID: "0123456789abcdef", PassRate: 0.783, BaseRate: 0.955}
	units := []promptcanary.IncidentUnit{
		{Unit: promptcanary.UnitSuite, Name: "checkout", Baseline: 0.955, Current: 0.783, Q: 1e-6},
		{Unit: promptcanary.UnitProbe, Name: "mentions_total", Baseline: 0.98, Current: 0.62, Q: 2e-4},
		{Unit: promptcanary.UnitCategory, Name: "factual", Baseline: 0.97, Current: 0.7, Q: 3e-4},
		{Unit: promptcanary.UnitPair, Name: "json_valid/refund-policy", Baseline: 1, Current: 0.3, Q: 3e-3},
		{Unit: promptcanary.UnitPair, Name: "mentions_total/order-status", Baseline: 1, Current: 0.1, Q: 4e-4},
	}
	tests := []struct {
		name  string
		units []promptcanary.IncidentUnit
		want  string
	}{
		{"pairs first", units, "pass rate 78.3% against the baseline's 95.5% in run 01234567; fell: " +
			"pair mentions_total/order-status 100.0% → 10.0%, pair json_valid/refund-policy 100.0% → 30.0%, " +
			"probe mentions_total 98.0% → 62.0%, category factual 97.0% → 70.0%, suite checkout 95.5% → 78.3%"},
		{"the rest counted", append(slices.Clone(units), promptcanary.IncidentUnit{Unit: promptcanary.UnitPair, Name: "a/b", Baseline: 0.9, Current: 0.5}),
			"pass rate 78.3% against the baseline's 95.5% in run 01234567; fell: " +
				"pair mentions_total/order-status 100.0% → 10.0%, pair json_valid/refund-policy 100.0% → 30.0%, pair a/b 90.0% → 50.0%, " +
				"probe mentions_total 98.0% → 62.0%, category factual 97.0% → 70.0%, +1 more"},
		{"no unit", nil, "pass rate 78.3% against the baseline's 95.5% in run 01234567: drift confirmed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DriftSummary(ev, promptcanary.SortUnits(tc.units)); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
