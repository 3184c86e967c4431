package notify

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
)

// DefaultPagerDutyAPI is the PagerDuty Events API's base URL.
const DefaultPagerDutyAPI = "https://events.pagerduty.com"

// PagerDuty's limits, in characters.
const (
	pdSummaryMax  = 1024
	pdDedupKeyMax = 255
)

// pagerDuty sends Events API v2 events: trigger while the incident fires,
// resolve when it resolves, with the incident's fingerprint as dedup_key
// so that PagerDuty keeps one alert per incident identity. The routing
// key is a secret: it never appears in an error.
type pagerDuty struct {
	base
	endpoint   string
	routingKey string
	hc         *httpc.Client
}

func newPagerDuty(cfg Config, hc *httpc.Client) (Notifier, error) {
	if cfg.RoutingKey == "" {
		return nil, errors.New("routing_key is empty (set it from the environment: routing_key: ${PD_ROUTING_KEY})")
	}
	api, err := apiURL(cfg.APIURL, DefaultPagerDutyAPI)
	if err != nil {
		return nil, err
	}
	api.Path += "/v2/enqueue"
	return &pagerDuty{base: base{cfg.Name, cfg.MinSeverity}, endpoint: api.String(), routingKey: cfg.RoutingKey, hc: hc}, nil
}

// pdEvent is an Events API v2 event.
type pdEvent struct {
	RoutingKey  string     `json:"routing_key"`
	EventAction string     `json:"event_action"`
	DedupKey    string     `json:"dedup_key"`
	Payload     *pdPayload `json:"payload,omitempty"`
	Links       []pdLink   `json:"links,omitempty"`
}

type pdPayload struct {
	Summary       string         `json:"summary"`
	Source        string         `json:"source"`
	Severity      string         `json:"severity"`
	Timestamp     string         `json:"timestamp,omitempty"`
	Component     string         `json:"component,omitempty"`
	Group         string         `json:"group,omitempty"`
	Class         string         `json:"class,omitempty"`
	CustomDetails map[string]any `json:"custom_details,omitempty"`
}

type pdLink struct {
	Href string `json:"href"`
	Text string `json:"text,omitempty"`
}

// pdSeverity maps an incident's severity onto PagerDuty's four.
func pdSeverity(s promptcanary.Severity) string {
	switch s {
	case promptcanary.SeverityCritical:
		return "critical"
	case promptcanary.SeverityHigh:
		return "error"
	case promptcanary.SeverityMedium:
		return "warning"
	default:
		return "info"
	}
}

// pdEventOf returns the event of m: a trigger (opened, updated, repeated:
// PagerDuty folds them into one alert by dedup_key) or a resolve.
func pdEventOf(m Message, routingKey string) pdEvent {
	inc := m.Incident
	ev := pdEvent{RoutingKey: routingKey, EventAction: "trigger", DedupKey: cut(inc.Fingerprint, pdDedupKeyMax)}
	if m.Status == promptcanary.NotificationResolved {
		ev.EventAction = "resolve"
		return ev
	}
	summary := inc.Summary
	if summary == "" {
		summary = title(m)
	} else {
		summary = inc.Check + ": " + summary
	}
	at := inc.UpdatedAt
	if at.IsZero() {
		at = inc.OpenedAt
	}
	units := inc.Units
	if units == nil {
		units = []promptcanary.IncidentUnit{}
	}
	ev.Payload = &pdPayload{
		Summary:   cut(strings.Join(strings.Fields(summary), " "), pdSummaryMax),
		Source:    "promptcanary/" + inc.Check,
		Severity:  pdSeverity(inc.Severity),
		Component: inc.Provider,
		Group:     inc.Suite,
		Class:     string(inc.Kind),
		CustomDetails: map[string]any{
			"incident_id": inc.ID,
			"check":       inc.Check,
			"provider":    inc.Provider,
			"suite":       inc.Suite,
			"kind":        inc.Kind,
			"severity":    inc.Severity,
			"event":       m.Event,
			"run_id":      inc.RunID,
			"units":       units,
		},
	}
	if a := attributionOf(inc); a != nil {
		ev.Payload.CustomDetails["attribution"] = a
	}
	if !at.IsZero() {
		ev.Payload.Timestamp = at.UTC().Format(time.RFC3339)
	}
	if m.ReportURL != "" {
		ev.Links = []pdLink{{Href: m.ReportURL, Text: "PromptCanary report"}}
	}
	return ev
}

// Send enqueues m's event. PagerDuty answers 202 {"status":"success"};
// 400 for an invalid event, 429 when throttled.
func (p *pagerDuty) Send(ctx context.Context, m Message) (int, error) {
	const op = "send pagerduty event"
	r, err := postJSON(ctx, p.hc, op, p.endpoint, pdEventOf(m, p.routingKey), nil)
	if err != nil {
		return codeOf(err), err
	}
	if r.Status >= 200 && r.Status < 300 {
		return r.Status, nil
	}
	var v struct {
		Status  string   `json:"status"`
		Message string   `json:"message"`
		Errors  []string `json:"errors"`
	}
	detail := strings.TrimSpace(string(r.Body))
	if json.Unmarshal(r.Body, &v) == nil && (v.Message != "" || v.Status != "") {
		detail = strings.Join(append([]string{v.Status + ": " + v.Message}, v.Errors...), "; ")
	}
	hint := ""
	switch r.Status {
	case http.StatusBadRequest:
		hint = "check the routing_key: it is the Events API v2 integration key of a service"
	case http.StatusTooManyRequests:
		hint = "throttled"
	}
	return r.Status, p.hc.StatusError(op, r, detail, hint, time.Now())
}
