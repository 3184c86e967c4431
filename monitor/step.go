package monitor

import (
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/store"
)

// step returns the step of inc's lifecycle t (a notification of status
// for each notifier in to that this monitor knows), with its event. A
// notifier it does not know is recorded as a failed attempt by noteUnknown
// once the step is stored.
func (m *Monitor) step(inc *promptcanary.Incident, t promptcanary.IncidentEventType, runID, summary string,
	status promptcanary.NotificationStatus, to []string) (store.IncidentStep, []string) {
	now := m.now().UTC()
	st := store.IncidentStep{
		Incident: inc,
		Event:    promptcanary.IncidentEvent{IncidentID: inc.ID, At: now, Type: t, RunID: runID, Severity: inc.Severity, Summary: m.line(summary)},
	}
	var unknown []string
	for _, name := range to {
		if !m.outbox.Known(name) {
			unknown = append(unknown, name)
			continue
		}
		st.Deliveries = append(st.Deliveries, store.Delivery{ID: promptcanary.NewID(), IncidentID: inc.ID, Notifier: name,
			Status: status, Event: t, CreatedAt: now})
	}
	return st, unknown
}

// noteUnknown records a failed attempt for each notifier of a stored
// step that this monitor does not know (removed from monitor.yaml since
// the incident opened).
func (m *Monitor) noteUnknown(st store.IncidentStep, status promptcanary.NotificationStatus, unknown []string) {
	for _, name := range unknown {
		m.recordAttempt(promptcanary.NotificationAttempt{
			ID: promptcanary.NewID(), IncidentID: st.Incident.ID, Notifier: name, Status: status, Event: st.Event.Type,
			Attempt: 1, At: st.Event.At, Error: fmt.Sprintf("unknown notifier %q%s", name, suggest.Hint(name, m.outbox.Names())),
		})
	}
}
