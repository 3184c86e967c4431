// Package notify delivers incident notifications: a signed webhook, Slack,
// GitHub issues and PagerDuty Events v2, and Deliver, which makes the
// attempts of one delivery with retries and backoff.
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

// Config configures one notifier: monitor.yaml's notifiers: entries, as
// the monitor's configuration (monitor/config, where it is called
// Notifier) reads them.
type Config struct {
	// Name is what checks' notify: lists refer to; Type one of webhook,
	// slack, github, pagerduty.
	Name, Type string
	// URL is the webhook's url or Slack's webhook_url (a secret for Slack).
	URL string
	// Secret signs webhook bodies (HMAC-SHA256).
	Secret string
	// Repo (owner/name), Token and Labels configure GitHub issues.
	Repo, Token string
	Labels      []string
	// RoutingKey is the PagerDuty Events v2 integration key.
	RoutingKey string
	// APIURL overrides the API's base URL (GitHub, PagerDuty), for tests
	// and enterprise installations.
	APIURL string
	// MinSeverity is the least severity notified.
	MinSeverity promptcanary.Severity
	// Line is the notifier's line in monitor.yaml.
	Line int
}
