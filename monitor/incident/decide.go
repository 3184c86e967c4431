package incident

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// The severities of the incidents the monitor raises itself: a check that
// cannot be measured watches nothing (high); a gradual decline is slow by
// nature (medium). A drift takes its report's severity; the budget
// incident's is severityBudget.
const (
	SeverityUnmeasured = promptcanary.SeverityHigh
	SeverityDecline    = promptcanary.SeverityMedium
)

// maxSummaryUnits is how many units a drift summary names.
const maxSummaryUnits = 5

// Evidence is what a drift finding rests on: the units of the report that
// confirmed it (the confirmation run's, or the run's own without a
// confirmation), and that report's run, named with its pass rate and the
// baseline's over the pairs it compared, the measure the dashboard shows
// for a run.
type Evidence struct {
	Units              []promptcanary.IncidentUnit
	RunID              string
	PassRate, BaseRate float64
	// Attribution is that report's likely cause of the change, nil when
	// it names none.
	Attribution *promptcanary.Attribution
	// Summary, when set, is the incident's summary in place of
	// DriftSummary's (a finding of the run-level rule says what it
	// tested).
	Summary string
}

// Decide applies a recorded run of t's check to the check's incidents:
// two unmeasured runs in a row open an unmeasured incident (one open
// already is updated); a measured run counts as clean for it; a confirmed
// drift (ev, nil for none) opens or updates a drift incident, unless the
// check cannot be measured; the trend detector's alarm opens one for a
// gradual decline, or keeps the open one from resolving; a drift flagged
// but not confirmed is neither a finding nor clean. The caller recorded cr
// first. It takes the book's lock.
func (l *Lifecycle) Decide(ctx context.Context, t *Tracker, cr *promptcanary.CheckRun, ev *Evidence) {
	ctx = context.WithoutCancel(ctx)
	sub := t.Subject
	l.Book.Lock()
	defer l.Book.Unlock()
	defer l.Sync()
	fpUnmeasured := Fingerprint(sub.Check, sub.Provider, promptcanary.IncidentUnmeasured)
	switch cr.Outcome {
	case promptcanary.CheckUnmeasured:
		n, _ := t.observe(cr)
		if n >= 2 || l.Book.Get(fpUnmeasured) != nil {
			l.Fire(ctx, sub, Finding{Kind: promptcanary.IncidentUnmeasured, Severity: SeverityUnmeasured, RunID: cr.RunID,
				Summary: fmt.Sprintf("not measured %d times in a row: %s", n, cr.Reason)})
		}
	case promptcanary.CheckClean, promptcanary.CheckDrift:
		_, alarm := t.observe(cr)
		l.Clean(ctx, fpUnmeasured, cr)
		l.measured(ctx, sub, cr, ev, alarm)
	}
}

// measured decides a measured run cr about drift, once the unmeasured
// incident counted it as clean; alarm is the trend detector's. The caller
// holds the book's lock.
func (l *Lifecycle) measured(ctx context.Context, sub Subject, cr *promptcanary.CheckRun, ev *Evidence, alarm bool) {
	inhibited := l.Book.Get(Fingerprint(sub.Check, sub.Provider, promptcanary.IncidentUnmeasured)) != nil
	fpDrift := Fingerprint(sub.Check, sub.Provider, promptcanary.IncidentDrift)
	drift := l.Book.Get(fpDrift)
	switch {
	case cr.Outcome == promptcanary.CheckDrift && cr.Confirmed && ev != nil:
		if inhibited {
			l.Log.Info("drift not raised: the check has an open unmeasured incident", logCheck, sub.Check, logProvider, sub.Provider, logRun, cr.RunID)
			break
		}
		units := promptcanary.SortUnits(ev.Units)
		l.Fire(ctx, sub, Finding{Kind: promptcanary.IncidentDrift, Severity: cr.Severity, Units: units,
			Summary: cmp.Or(ev.Summary, DriftSummary(ev, units)), RunID: lastNonEmpty(cr.RunID, cr.ConfirmRunID), ReportID: lastNonEmpty(cr.ReportID, cr.ConfirmReportID),
			Attribution: ev.Attribution})
	case alarm && drift != nil:
		// The decline goes on: the open drift incident is not clean.
		l.NotClean(ctx, drift)
	case alarm:
		if inhibited {
			break
		}
		l.Fire(ctx, sub, Finding{Kind: promptcanary.IncidentDrift, Severity: SeverityDecline, RunID: cr.RunID, ReportID: cr.ReportID,
			Units:   []promptcanary.IncidentUnit{{Unit: promptcanary.UnitSuite, Name: sub.Suite, Baseline: cr.BaselinePassRate, Current: cr.PassRate}},
			Summary: fmt.Sprintf("gradual decline: pass rate %s against the baseline's %s in run %s, falling over the last runs", pct(cr.PassRate), pct(cr.BaselinePassRate), short(cr.RunID))})
	case cr.Outcome == promptcanary.CheckDrift:
		// Flagged but not confirmed: no finding, and not clean either.
		if drift != nil {
			l.NotClean(ctx, drift)
		}
	default:
		l.Clean(ctx, fpDrift, cr)
	}
}

// Stale is a check that has not completed a measured run for twice its
// interval (see Lifecycle.Stale).
type Stale struct {
	Subject Subject
	// Since is when the time without a measured run counts from; InFlight
	// says that it is the slot of a run still in flight.
	Since    time.Time
	InFlight bool
	// Schedule is the check's schedule as monitor.yaml words it.
	Schedule string
}

// Stale opens (or updates) an unmeasured incident for every check that
// find names, unless the budget is what stops the checks. It takes the
// book's lock and calls find under it: Decide records a measured run
// under the same lock, so a run that lands during the tick is either seen
// by find or lands after the incident, never between the two (a list
// found before the lock could open an incident just after a good run).
func (l *Lifecycle) Stale(ctx context.Context, now time.Time, find func() []Stale) {
	l.Book.Lock()
	defer l.Book.Unlock()
	if l.Book.Get(Fingerprint("", "", promptcanary.IncidentBudget)) != nil {
		return
	}
	stale := find()
	if len(stale) == 0 {
		return
	}
	for _, s := range stale {
		since := s.Since.UTC().Format(time.RFC3339)
		summary := fmt.Sprintf("no measured run for %s (twice the interval of %s), since %s", now.Sub(s.Since).Round(time.Second), s.Schedule, since)
		if s.InFlight {
			summary = fmt.Sprintf("no measured run for %s (twice the interval of %s): the run of the slot %s is still in flight", now.Sub(s.Since).Round(time.Second), s.Schedule, since)
		}
		l.Fire(ctx, s.Subject, Finding{Kind: promptcanary.IncidentUnmeasured, Severity: SeverityUnmeasured, Summary: summary})
	}
	l.Sync()
}

// LoadOpen replaces the open incidents with the store's and publishes
// them (Sync). It takes the book's lock.
func (l *Lifecycle) LoadOpen(ctx context.Context) error {
	open, err := l.Store.Incidents(ctx, store.IncidentFilter{OpenOnly: true})
	if err != nil {
		return err
	}
	l.Book.Lock()
	defer l.Book.Unlock()
	l.Book.Load(open)
	l.Sync()
	return nil
}

// ReadBack is LoadOpen for a running monitor: another monitor sharing the
// store may have opened, updated, acknowledged or resolved an incident.
// On error (logged) the incidents as this monitor knows them stay.
func (l *Lifecycle) ReadBack(ctx context.Context) {
	if err := l.LoadOpen(ctx); err != nil {
		l.Log.Warn("read the open incidents back", logErr, err)
	}
}

// CatchUp brings t's decision state and the open incidents up to date
// with the store before cr (recorded already) is decided: when the
// check's newest runs hold one t has not applied, another monitor
// recorded it, and the state is rebuilt from the check's history without
// cr, as Restore does.
func (l *Lifecycle) CatchUp(ctx context.Context, t *Tracker, cr *promptcanary.CheckRun) {
	ctx = context.WithoutCancel(ctx)
	l.ReadBack(ctx)
	sub := t.Subject
	runs, err := l.Store.CheckRuns(ctx, sub.Check, sub.Provider, syncProbe)
	if err != nil {
		l.Log.Warn("read the check's runs back", logCheck, sub.Check, logProvider, sub.Provider, logErr, err)
		return
	}
	if t.unknown(runs, cr.ID) {
		if runs, err = l.Store.CheckRuns(ctx, sub.Check, sub.Provider, HistoryRuns); err != nil {
			l.Log.Warn("read the check's runs back", logCheck, sub.Check, logProvider, sub.Provider, logErr, err)
			return
		}
		t.Replay(slices.DeleteFunc(runs, func(r promptcanary.CheckRun) bool { return r.ID == cr.ID }))
	}
	t.apply(cr.ID)
}

// Restore rebuilds t from the check's runs (newest first) as the last
// process left them: its decision state (Replay), the cost of a run, and
// today's spend, counted in the budget. It returns the last measured run.
func (l *Lifecycle) Restore(t *Tracker, runs []promptcanary.CheckRun, now time.Time) (lastMeasured *promptcanary.CheckRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	lastMeasured = t.replay(runs)
	for i := range runs {
		if r := &runs[i]; r.CostUSD > 0 {
			t.estimate = r.CostUSD
			break
		}
	}
	for i := range runs {
		if r := &runs[i]; DayOf(r.StartedAt) == DayOf(now) {
			l.Budget.Add(r.CostUSD, r.StartedAt)
		}
	}
	t.applied.reset(runs)
	t.counted.reset(runs)
	return lastMeasured
}

// Counted counts a run another monitor recorded against today's budget
// and as the estimate of t's next run, once: false when t counted it
// already.
func (l *Lifecycle) Counted(t *Tracker, r *promptcanary.CheckRun, now time.Time) bool {
	if !t.Count(r.ID) {
		return false
	}
	if DayOf(r.StartedAt) == DayOf(now) {
		l.Budget.Add(r.CostUSD, r.StartedAt)
	}
	t.Cost(r.CostUSD)
	return true
}

// ReasonBudget begins the reason of a run the daily budget skipped.
const ReasonBudget = "daily budget"

// Admit reports whether t's check may run now under the daily budget, and
// if not why (beginning with ReasonBudget). It resolves the budget
// incident of a day that is over first (BudgetDay).
func (l *Lifecycle) Admit(t *Tracker, now time.Time) (bool, string) {
	if l.Budget.Limit <= 0 {
		return true, ""
	}
	l.BudgetDay(context.Background(), now)
	est := t.Estimate()
	spent := l.Budget.Today(now)
	if spent+est <= l.Budget.Limit {
		return true, ""
	}
	return false, fmt.Sprintf(ReasonBudget+" of $%.2f reached: $%.2f spent today (UTC), and a run costs about $%.2f", l.Budget.Limit, spent, est)
}

// DriftSummary is the one line an incident, its notifications and the
// dashboard say about a confirmed drift: the pass rate of the run whose
// report confirmed it and the baseline's, over the pairs it compared
// (what the dashboard shows for that run, named with its id), then the
// flagged units (sorted by promptcanary.SortUnits, the pairs that broke
// first); at most maxSummaryUnits, the rest counted.
func DriftSummary(ev *Evidence, units []promptcanary.IncidentUnit) string {
	head := fmt.Sprintf("pass rate %s against the baseline's %s in run %s", pct(ev.PassRate), pct(ev.BaseRate), short(ev.RunID))
	if len(units) == 0 {
		return head + ": drift confirmed"
	}
	var parts []string
	for i, u := range units {
		if i == maxSummaryUnits {
			parts = append(parts, fmt.Sprintf("+%d more", len(units)-maxSummaryUnits))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s %s → %s", u.Unit, u.Name, pct(u.Baseline), pct(u.Current)))
	}
	return head + "; fell: " + strings.Join(parts, ", ")
}

// pct formats a rate as a percentage with one decimal, as the dashboard
// and the notifiers do; "n/a" when it is not a number.
func pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

// lastNonEmpty returns b unless it is empty.
func lastNonEmpty(a, b string) string {
	if b != "" {
		return b
	}
	return a
}
