package monitor

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/incident"
)

// The severities of the incidents the monitor raises itself: a check that
// cannot be measured watches nothing (high); a gradual decline is slow by
// nature (medium). A drift takes its report's severity; the budget
// incident's is the lifecycle's (incident.Lifecycle.OverBudget).
const (
	severityUnmeasured = promptcanary.SeverityHigh
	severityDecline    = promptcanary.SeverityMedium
)

// maxSummaryUnits is how many units a drift summary names.
const maxSummaryUnits = 5

// Fingerprint identifies what an incident is about: a stable hash of the
// check, the provider and the kind (incident.Fingerprint).
func Fingerprint(check, provider string, kind promptcanary.IncidentKind) string {
	return incident.Fingerprint(check, provider, kind)
}

// subject is what an incident is about: a check and provider, or the
// monitor itself (the budget).
type subject struct {
	check, provider, suite string
	notify                 []string
}

// subjectOf is the subject of e's incidents.
func subjectOf(e *entry) subject {
	return subject{check: e.c.Name, provider: e.c.Provider, suite: e.c.Suite.Name, notify: e.c.Notify}
}

// finding is what a run or a rule found, to open or update an incident
// with.
type finding struct {
	kind     promptcanary.IncidentKind
	severity promptcanary.Severity
	summary  string
	units    []promptcanary.IncidentUnit
	runID    string
	reportID string
}

// decide applies a recorded check run to the check's incidents. The
// caller recorded cr first.
func (m *Monitor) decide(ctx context.Context, e *entry, cr *promptcanary.CheckRun, ev *evidence) {
	ctx = context.WithoutCancel(ctx)
	sub := subjectOf(e)
	m.incidents.Book.Lock()
	defer m.incidents.Book.Unlock()
	defer m.syncOpen()
	fpUnmeasured := Fingerprint(sub.check, sub.provider, promptcanary.IncidentUnmeasured)
	fpDrift := Fingerprint(sub.check, sub.provider, promptcanary.IncidentDrift)
	switch cr.Outcome {
	case promptcanary.CheckUnmeasured:
		e.mu.Lock()
		e.failures++
		n := e.failures
		e.mu.Unlock()
		if n >= 2 || m.incidents.Book.Get(fpUnmeasured) != nil {
			m.fire(ctx, sub, finding{kind: promptcanary.IncidentUnmeasured, severity: severityUnmeasured, runID: cr.RunID,
				summary: fmt.Sprintf("not measured %d times in a row: %s", n, cr.Reason)})
		}
	case promptcanary.CheckClean, promptcanary.CheckDrift:
		e.mu.Lock()
		e.failures = 0
		e.lastSuccess = cr.FinishedAt
		alarm := false
		if countsForTrend(cr) {
			alarm = e.trend.Observe(cr.PassRate, 1, cr.BaselinePassRate)
		}
		e.mu.Unlock()
		m.incidents.Clean(ctx, fpUnmeasured, cr)
		inhibited := m.incidents.Book.Get(fpUnmeasured) != nil
		drift := m.incidents.Book.Get(fpDrift)
		switch {
		case cr.Outcome == promptcanary.CheckDrift && cr.Confirmed && ev != nil:
			if inhibited {
				m.log.Info("drift not raised: the check has an open unmeasured incident", logCheck, sub.check, logProvider, sub.provider, logRun, cr.RunID)
				break
			}
			units := promptcanary.SortUnits(ev.units)
			m.fire(ctx, sub, finding{kind: promptcanary.IncidentDrift, severity: cr.Severity, units: units,
				summary: driftSummary(ev, units), runID: lastNonEmpty(cr.RunID, cr.ConfirmRunID), reportID: lastNonEmpty(cr.ReportID, cr.ConfirmReportID)})
		case alarm && drift != nil:
			// The decline goes on: the open drift incident is not clean.
			m.incidents.NotClean(ctx, drift)
		case alarm:
			if inhibited {
				break
			}
			m.fire(ctx, sub, finding{kind: promptcanary.IncidentDrift, severity: severityDecline, runID: cr.RunID, reportID: cr.ReportID,
				units:   []promptcanary.IncidentUnit{{Unit: promptcanary.UnitSuite, Name: sub.suite, Baseline: cr.BaselinePassRate, Current: cr.PassRate}},
				summary: fmt.Sprintf("gradual decline: pass rate %s against the baseline's %s in run %s, falling over the last runs", pct(cr.PassRate), pct(cr.BaselinePassRate), short(cr.RunID))})
		case cr.Outcome == promptcanary.CheckDrift:
			// Flagged but not confirmed: no finding, and not clean either.
			if drift != nil {
				m.incidents.NotClean(ctx, drift)
			}
		default:
			m.incidents.Clean(ctx, fpDrift, cr)
		}
	}
}

// countsForTrend reports whether the trend detector observes cr: a
// measured run without a confirmed drift.
func countsForTrend(cr *promptcanary.CheckRun) bool {
	switch cr.Outcome {
	case promptcanary.CheckClean:
		return true
	case promptcanary.CheckDrift:
		return !cr.Confirmed
	}
	return false
}

// fire opens an incident for f, or updates the open one of the same
// fingerprint (incident.Lifecycle.Fire). The caller holds the book's lock.
func (m *Monitor) fire(ctx context.Context, sub subject, f finding) {
	m.incidents.Fire(ctx, incident.Subject{Check: sub.check, Provider: sub.provider, Suite: sub.suite, Notify: sub.notify},
		incident.Finding{Kind: f.kind, Severity: f.severity, Summary: f.summary, Units: f.units, RunID: f.runID, ReportID: f.reportID})
}

// recordAttempt stores a notification attempt and counts it.
func (m *Monitor) recordAttempt(a promptcanary.NotificationAttempt) {
	a.Error = m.line(a.Error)
	if err := m.wrote(realWrite, m.state.SaveNotification(context.Background(), a)); err != nil {
		m.log.Error("record the notification attempt", logIncident, a.IncidentID, logNotifier, a.Notifier, logErr, err)
	}
	m.changed()
	m.metrics.observeAttempt(a)
	if !a.OK {
		m.log.Warn("notification failed", logIncident, a.IncidentID, logNotifier, a.Notifier, logEvent, string(a.Event), logReason, a.Error)
	}
}

// syncOpen publishes the open incidents to readers and updates their
// metrics (see published). The caller holds the book's lock.
func (m *Monitor) syncOpen() { m.incidents.Sync() }

// published updates the metrics of the open incidents, as the lifecycle
// publishes them after a step.
func (m *Monitor) published(open []promptcanary.Incident) {
	keys := make([][2]string, len(m.entries))
	for i, e := range m.entries {
		keys[i] = e.key()
	}
	m.metrics.setOpen(open, keys)
	m.changed()
}

// Acknowledge silences the repeats of an open incident until its state
// changes (see fire). id may be a unique prefix; by names who
// acknowledged.
func (m *Monitor) Acknowledge(ctx context.Context, id, by string) error {
	return m.scrub(m.incidents.Acknowledge(ctx, id, by))
}

// reportURL links the dashboard's page of an incident, "" when the
// dashboard's address is unknown.
func (m *Monitor) reportURL(incidentID string) string {
	base := m.baseURL
	if base == "" {
		base = dashboardURL(m.Addr())
	}
	if base == "" {
		return ""
	}
	return base + "/incidents/" + incidentID
}

// driftSummary is the one line an incident, its notifications and the
// dashboard say about a confirmed drift: the pass rate of the run whose
// report confirmed it and the baseline's, over the pairs it compared
// (what the dashboard shows for that run, named with its id), then the
// flagged units as SortUnits orders them, the pairs that broke first; at
// most maxSummaryUnits, the rest counted.
func driftSummary(ev *evidence, units []promptcanary.IncidentUnit) string {
	head := fmt.Sprintf("pass rate %s against the baseline's %s in run %s", pct(ev.passRate), pct(ev.baseRate), short(ev.runID))
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
