package monitor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/monitor/notify"
	"github.com/promptcanary/promptcanary/store"
)

// The severities of the incidents the monitor raises itself: a check that
// cannot be measured watches nothing (high); a budget that stops checks
// is an operational matter (medium); a gradual decline is slow by nature
// (medium). A drift takes its report's severity.
const (
	severityUnmeasured = promptcanary.SeverityHigh
	severityBudget     = promptcanary.SeverityMedium
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
	m.inc.Lock()
	defer m.inc.Unlock()
	defer m.syncOpen()
	fpUnmeasured := Fingerprint(sub.check, sub.provider, promptcanary.IncidentUnmeasured)
	fpDrift := Fingerprint(sub.check, sub.provider, promptcanary.IncidentDrift)
	switch cr.Outcome {
	case promptcanary.CheckUnmeasured:
		e.mu.Lock()
		e.failures++
		n := e.failures
		e.mu.Unlock()
		if n >= 2 || m.inc.Get(fpUnmeasured) != nil {
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
		m.clean(ctx, fpUnmeasured, cr)
		inhibited := m.inc.Get(fpUnmeasured) != nil
		drift := m.inc.Get(fpDrift)
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
			m.notClean(ctx, drift)
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
				m.notClean(ctx, drift)
			}
		default:
			m.clean(ctx, fpDrift, cr)
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
// fingerprint. The caller holds m.inc's lock.
func (m *Monitor) fire(ctx context.Context, sub subject, f finding) {
	f.summary = m.line(f.summary)
	fp := Fingerprint(sub.check, sub.provider, f.kind)
	if inc := m.inc.Get(fp); inc != nil {
		m.update(ctx, sub, inc, f)
		return
	}
	m.open(ctx, sub, fp, f)
}

// open opens a new incident for f and notifies it: the incident, its
// opened event and its notifications are recorded in one step. The
// caller holds m.inc's lock.
func (m *Monitor) open(ctx context.Context, sub subject, fp string, f finding) {
	now := m.now().UTC()
	inc := &promptcanary.Incident{
		ID: promptcanary.NewID(), Fingerprint: fp, Check: sub.check, Suite: sub.suite, Provider: sub.provider,
		Kind: f.kind, Severity: f.severity, Summary: f.summary, Units: f.units, RunID: f.runID, ReportID: f.reportID,
		OpenedAt: now, UpdatedAt: now,
	}
	to := m.recipients(sub, inc)
	if len(to) > 0 {
		inc.NotifiedTo, inc.NotifiedAt = to, now
	}
	st, unknown := m.step(inc, promptcanary.EventOpened, f.runID, inc.Summary, promptcanary.NotificationFiring, to)
	err := m.wrote(realWrite, m.box.RecordStep(ctx, st))
	if errors.Is(err, store.ErrConflict) {
		// Another monitor sharing the store opened it first: adopt it.
		if adopted := m.adopt(ctx, sub, fp); adopted != nil {
			m.inc.Put(fp, adopted)
			m.update(ctx, sub, adopted, f)
			return
		}
	}
	if err != nil {
		// Not kept either: an incident only this process knows would be
		// dropped by the next read of the store and invented again with a
		// new id. The next run or tick finds the problem again.
		m.log.Error("record the incident: not opened, neither stored nor notified", logCheck, sub.check, logProvider, sub.provider,
			logKind, string(f.kind), logErr, err)
		return
	}
	m.inc.Put(fp, inc)
	m.logEvent(inc, st.Event)
	telemetry.From(ctx).Incident(inc, string(st.Event.Type))
	m.noteUnknown(st, promptcanary.NotificationFiring, unknown)
	m.outbox.Wake()
}

// update applies f to the open incident inc: a change of severity or of
// the flagged units is an update, notified; an unchanged finding is
// notified again after the repeat interval unless acknowledged; either way
// the incident is not clean. The caller holds m.inc's lock.
func (m *Monitor) update(ctx context.Context, sub subject, inc *promptcanary.Incident, f finding) {
	now := m.now().UTC()
	inc.CleanRuns = 0
	if f.runID != "" {
		inc.RunID, inc.ReportID = f.runID, f.reportID
	}
	last := inc.NotifiedAt
	if last.IsZero() {
		last = inc.UpdatedAt
	}
	var ev promptcanary.IncidentEventType
	switch {
	case f.severity != inc.Severity || !sameUnits(f.units, inc.Units):
		ev = promptcanary.EventUpdated
		inc.Severity, inc.Units, inc.Summary, inc.UpdatedAt = f.severity, f.units, f.summary, now
		// Acknowledging silences repeats until the state changes: it has.
		inc.AcknowledgedAt, inc.AcknowledgedBy = time.Time{}, ""
	case inc.AcknowledgedAt.IsZero() && now.Sub(last) >= m.repeat:
		ev = promptcanary.EventRepeated
		inc.Summary = f.summary
	}
	var to []string
	if ev != "" {
		to = m.recipients(sub, inc)
		if len(to) > 0 {
			inc.NotifiedAt = now
			for _, n := range to {
				if !slices.Contains(inc.NotifiedTo, n) {
					inc.NotifiedTo = append(inc.NotifiedTo, n)
				}
			}
		} else if ev == promptcanary.EventRepeated {
			ev = "" // nobody to remind
		}
	}
	if ev == "" {
		if err := m.wrote(realWrite, m.state.SaveIncident(ctx, inc)); err != nil {
			m.log.Error("record the incident", logIncident, inc.ID, logErr, err)
		}
		return
	}
	m.recordStep(ctx, inc, ev, f.runID, inc.Summary, promptcanary.NotificationFiring, to)
}

// recordStep records a step of inc's lifecycle with its notifications to
// the notifiers named, logs it, and wakes the outbox.
func (m *Monitor) recordStep(ctx context.Context, inc *promptcanary.Incident, t promptcanary.IncidentEventType, runID, summary string,
	status promptcanary.NotificationStatus, to []string) {
	st, unknown := m.step(inc, t, runID, summary, status, to)
	if err := m.wrote(realWrite, m.box.RecordStep(ctx, st)); err != nil {
		m.log.Error("record the incident: neither stored nor notified", logIncident, inc.ID, logEvent, string(t), logErr, err)
		return
	}
	m.logEvent(inc, st.Event)
	telemetry.From(ctx).Incident(inc, string(t))
	m.noteUnknown(st, status, unknown)
	m.outbox.Wake()
}

// adopt loads the open incident of fp that another writer stored.
func (m *Monitor) adopt(ctx context.Context, sub subject, fp string) *promptcanary.Incident {
	open, err := m.state.Incidents(ctx, store.IncidentFilter{Check: sub.check, OpenOnly: true})
	if err != nil {
		m.log.Error("load the open incidents", logCheck, sub.check, logErr, err)
		return nil
	}
	for i := range open {
		if open[i].Fingerprint == fp {
			return &open[i]
		}
	}
	return nil
}

// notClean restarts the count of clean runs of an open incident.
func (m *Monitor) notClean(ctx context.Context, inc *promptcanary.Incident) {
	if inc.CleanRuns == 0 {
		return
	}
	inc.CleanRuns = 0
	if err := m.wrote(realWrite, m.state.SaveIncident(ctx, inc)); err != nil {
		m.log.Error("record the incident", logIncident, inc.ID, logErr, err)
	}
}

// clean counts the clean run cr for the open incident of fp, and resolves
// it after resolve_after of them in a row: the run that resolves it
// becomes its latest run. The caller holds m.inc's lock.
func (m *Monitor) clean(ctx context.Context, fp string, cr *promptcanary.CheckRun) {
	inc := m.inc.Get(fp)
	if inc == nil {
		return
	}
	inc.CleanRuns++
	if inc.CleanRuns < m.resolveAfter {
		if err := m.wrote(realWrite, m.state.SaveIncident(ctx, inc)); err != nil {
			m.log.Error("record the incident", logIncident, inc.ID, logErr, err)
		}
		return
	}
	if cr.RunID != "" {
		inc.RunID, inc.ReportID = cr.RunID, cr.ReportID
	}
	m.resolve(ctx, inc, cr.RunID, fmt.Sprintf("resolved after %d clean run(s)", inc.CleanRuns))
}

// resolve closes inc and tells the notifiers that were sent it. The
// caller holds m.inc's lock.
func (m *Monitor) resolve(ctx context.Context, inc *promptcanary.Incident, runID, why string) {
	now := m.now().UTC()
	inc.ResolvedAt, inc.UpdatedAt = now, now
	m.inc.Delete(inc.Fingerprint)
	m.recordStep(ctx, inc, promptcanary.EventResolved, runID, why, promptcanary.NotificationResolved, inc.NotifiedTo)
}

// event records one step of an incident's lifecycle that notifies nobody
// (an acknowledgement) and logs it.
func (m *Monitor) event(ctx context.Context, inc *promptcanary.Incident, t promptcanary.IncidentEventType, runID, summary string) {
	ev := promptcanary.IncidentEvent{IncidentID: inc.ID, At: m.now().UTC(), Type: t, RunID: runID, Severity: inc.Severity, Summary: m.line(summary)}
	if err := m.wrote(realWrite, m.state.AddIncidentEvent(ctx, ev)); err != nil {
		m.log.Error("record the incident event", logIncident, inc.ID, logEvent, string(t), logErr, err)
	}
	m.logEvent(inc, ev)
}

// logEvent logs a step of an incident's lifecycle.
func (m *Monitor) logEvent(inc *promptcanary.Incident, ev promptcanary.IncidentEvent) {
	m.log.Info("incident "+string(ev.Type), logIncident, inc.ID, logKind, string(inc.Kind), logCheck, inc.Check,
		logProvider, inc.Provider, logSeverity, string(inc.Severity), logReason, ev.Summary)
}

// recipients are the notifiers of sub that want inc at its severity.
func (m *Monitor) recipients(sub subject, inc *promptcanary.Incident) []string {
	names := sub.notify
	if sub.check == "" {
		// The monitor's own incidents go to every notifier.
		names = nil
		for _, n := range m.notifiers {
			names = append(names, n.Name())
		}
	}
	var to []string
	for _, n := range m.notifiers {
		if slices.Contains(names, n.Name()) && notify.Wants(n, notify.Message{Status: promptcanary.NotificationFiring, Incident: *inc}) {
			to = append(to, n.Name())
		}
	}
	return to
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
// metrics. The caller holds m.inc's lock.
func (m *Monitor) syncOpen() {
	keys := make([][2]string, len(m.entries))
	for i, e := range m.entries {
		keys[i] = e.key()
	}
	m.metrics.setOpen(m.inc.Publish(), keys)
	m.changed()
}

// Acknowledge silences the repeats of an open incident until its state
// changes (see fire). id may be a unique prefix; by names who
// acknowledged.
func (m *Monitor) Acknowledge(ctx context.Context, id, by string) error {
	return m.scrub(m.acknowledge(ctx, id, by))
}

// acknowledge is Acknowledge with errors not yet scrubbed.
func (m *Monitor) acknowledge(ctx context.Context, id, by string) error {
	stored, err := m.state.Incident(ctx, id)
	if err != nil {
		return fmt.Errorf("acknowledge incident %q: %w", id, err)
	}
	m.inc.Lock()
	defer m.inc.Unlock()
	inc := m.inc.Get(stored.Fingerprint)
	if inc == nil || inc.ID != stored.ID {
		if !stored.Open() {
			return fmt.Errorf("acknowledge incident %s: it was resolved at %s", short(stored.ID), stored.ResolvedAt.UTC().Format(time.RFC3339))
		}
		inc = stored
		m.inc.Put(inc.Fingerprint, inc)
	}
	if !inc.AcknowledgedAt.IsZero() {
		return nil
	}
	by = m.line(strings.TrimSpace(by))
	if len(by) > 200 {
		by = by[:200]
	}
	inc.AcknowledgedAt, inc.AcknowledgedBy = m.now().UTC(), by
	err = m.state.SaveIncident(context.WithoutCancel(ctx), inc)
	m.syncOpen()
	if err != nil {
		return fmt.Errorf("acknowledge incident %s: %w", short(inc.ID), err)
	}
	summary := "acknowledged"
	if by != "" {
		summary += " by " + by
	}
	m.event(context.WithoutCancel(ctx), inc, promptcanary.EventAcknowledged, "", summary)
	return nil
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

// sameUnits reports whether two unit sets name the same units (their
// rates may differ from run to run).
func sameUnits(a, b []promptcanary.IncidentUnit) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(u promptcanary.IncidentUnit) string { return u.Unit + "\x00" + u.Name }
	ka := make([]string, len(a))
	kb := make([]string, len(b))
	for i := range a {
		ka[i], kb[i] = key(a[i]), key(b[i])
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
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
