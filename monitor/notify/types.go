// Package notify delivers incident notifications: a signed webhook, Slack,
// GitHub issues and PagerDuty Events v2, and a Dispatcher that retries
// failed deliveries with backoff without ever blocking the checks.
package notify

import (
	"context"

	"github.com/promptcanary/promptcanary"
)

// Message is one notification of an incident.
type Message struct {
	// Status is firing or resolved; Event the lifecycle step notified.
	Status   promptcanary.NotificationStatus
	Event    promptcanary.IncidentEventType
	Incident promptcanary.Incident
	// ReportURL links the dashboard's page of the incident, "" when unknown.
	ReportURL string
}

// Notifier delivers messages to one destination.
type Notifier interface {
	// Name is the notifier's configured name.
	Name() string
	// MinSeverity is the least severity it is sent.
	MinSeverity() promptcanary.Severity
	// Send makes one delivery attempt and returns the HTTP status it got
	// (0 when none came back).
	Send(ctx context.Context, m Message) (code int, err error)
}
