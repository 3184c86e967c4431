package monitor

import (
	"context"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/incident"
)

// Fingerprint identifies what an incident is about: a stable hash of the
// check, the provider and the kind (incident.Fingerprint).
func Fingerprint(check, provider string, kind promptcanary.IncidentKind) string {
	return incident.Fingerprint(check, provider, kind)
}

// recordAttempt stores a notification attempt and counts it.
func (m *Monitor) recordAttempt(a promptcanary.NotificationAttempt) {
	a.Error = m.line(a.Error)
	if err := m.health.wrote(realWrite, m.state.SaveNotification(context.Background(), a)); err != nil {
		m.log.Error("record the notification attempt", logIncident, a.IncidentID, logNotifier, a.Notifier, logErr, err)
	}
	m.changed()
	m.metrics.observeAttempt(a)
	if !a.OK {
		m.log.Warn("notification failed", logIncident, a.IncidentID, logNotifier, a.Notifier, logEvent, string(a.Event), logReason, a.Error)
	}
}

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
// changes (see incident.Lifecycle.Acknowledge). id may be a unique
// prefix; by names who acknowledged.
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
