package notify_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/notify"
)

const pdKey = "R0UT1NGK3Y0123456789abcdefABCDEF" // 32 characters, like a real one

// pdServer speaks the Events API v2: POST /v2/enqueue, 202 with
// {"status":"success","message":"Event processed","dedup_key":…}, or 400
// {"status":"invalid event",…} for an event it rejects. reply, when set,
// may answer the n-th call (from 1) instead.
type pdServer struct {
	srv    *httptest.Server
	mu     sync.Mutex
	events []map[string]any
	reply  func(n int, ev map[string]any) (int, string, bool)
}

func newPDServer(t *testing.T) *pdServer {
	p := &pdServer{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v2/enqueue" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("got %s %s (%s), want a JSON POST to /v2/enqueue", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		ev, _ := decodeJSON(t, r)
		p.mu.Lock()
		p.events = append(p.events, ev)
		n := len(p.events)
		reply := p.reply
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if reply != nil {
			if code, body, ok := reply(n, ev); ok {
				w.WriteHeader(code)
				_, _ = io.WriteString(w, body)
				return
			}
		}
		if msg := pdInvalid(ev); msg != "" {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"status": "invalid event", "message": "Event object is invalid", "errors": []string{msg}})
			return
		}
		w.WriteHeader(http.StatusAccepted)
		_ = json.NewEncoder(w).Encode(map[string]any{"status": "success", "message": "Event processed", "dedup_key": ev["dedup_key"]})
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// pdInvalid checks an event as PagerDuty does, returning its complaint.
func pdInvalid(ev map[string]any) string {
	if k, _ := ev["routing_key"].(string); len(k) != 32 {
		return "Length of 'routing_key' is incorrect (should be 32 characters)"
	}
	action, _ := ev["event_action"].(string)
	if action != "trigger" && action != "resolve" && action != "acknowledge" {
		return "'event_action' is invalid"
	}
	if action != "trigger" {
		if ev["dedup_key"] == nil {
			return "'dedup_key' is missing"
		}
		return ""
	}
	p, _ := ev["payload"].(map[string]any)
	if p == nil {
		return "'payload' is missing"
	}
	if s, _ := p["summary"].(string); s == "" || len([]rune(s)) > 1024 {
		return "'payload.summary' is missing or too long"
	}
	if s, _ := p["source"].(string); s == "" {
		return "'payload.source' is missing"
	}
	if !slices.Contains([]string{"critical", "error", "warning", "info"}, p["severity"].(string)) {
		return "'payload.severity' is invalid"
	}
	return ""
}

func (p *pdServer) notifier(t *testing.T, key string) notify.Notifier {
	return mustNew(t, config.Notifier{Name: "pager", Type: "pagerduty", RoutingKey: key, APIURL: p.srv.URL, MinSeverity: promptcanary.SeverityHigh})
}

func TestPagerDutyTriggerAndResolve(t *testing.T) {
	p := newPDServer(t)
	n := p.notifier(t, pdKey)
	for _, m := range []notify.Message{firing(), resolved()} {
		if code, err := n.Send(context.Background(), m); err != nil || code != http.StatusAccepted {
			t.Fatalf("Send(%s) = %d %v, want 202", m.Status, code, err)
		}
	}
	trig, res := p.events[0], p.events[1]
	if trig["event_action"] != "trigger" || res["event_action"] != "resolve" {
		t.Errorf("actions %v, %v; want trigger, resolve", trig["event_action"], res["event_action"])
	}
	if trig["dedup_key"] != "3f9a2c41d7e8" || res["dedup_key"] != "3f9a2c41d7e8" {
		t.Errorf("dedup keys %v, %v; want the fingerprint in both", trig["dedup_key"], res["dedup_key"])
	}
	if trig["routing_key"] != pdKey {
		t.Errorf("routing_key %v", trig["routing_key"])
	}
	if _, ok := res["payload"]; ok {
		t.Errorf("a resolve carries a payload: %v", res)
	}
	pl := trig["payload"].(map[string]any)
	want := map[string]any{
		"summary":   "checkout-prod: probe json_validity fell from 84% to 51%",
		"source":    "promptcanary/checkout-prod",
		"severity":  "error",
		"timestamp": "2026-03-01T12:00:00Z",
		"component": "openai/gpt-4o-mini",
		"group":     "checkout",
		"class":     "drift",
	}
	for k, v := range want {
		if pl[k] != v {
			t.Errorf("payload.%s = %v, want %v", k, pl[k], v)
		}
	}
	cd := pl["custom_details"].(map[string]any)
	if cd["incident_id"] != incident().ID || len(cd["units"].([]any)) != 2 {
		t.Errorf("custom_details %v, want the incident id and its 2 units", cd)
	}
	links, _ := trig["links"].([]any)
	if len(links) != 1 || links[0].(map[string]any)["href"] != "http://127.0.0.1:9464/incidents/0b7f3c1e" {
		t.Errorf("links %v, want the report", trig["links"])
	}
}

func TestPagerDutySeverityAndSummaryLimit(t *testing.T) {
	tests := []struct {
		sev  promptcanary.Severity
		want string
	}{
		{promptcanary.SeverityCritical, "critical"},
		{promptcanary.SeverityHigh, "error"},
		{promptcanary.SeverityMedium, "warning"},
		{promptcanary.SeverityLow, "info"},
		{promptcanary.SeverityNone, "info"},
	}
	for _, tc := range tests {
		t.Run(string(tc.sev), func(t *testing.T) {
			p := newPDServer(t)
			m := firing()
			m.Incident.Severity = tc.sev
			m.Incident.Summary = strings.Repeat("é", 2000)
			if _, err := p.notifier(t, pdKey).Send(context.Background(), m); err != nil {
				t.Fatal(err)
			}
			pl := p.events[0]["payload"].(map[string]any)
			if pl["severity"] != tc.want {
				t.Errorf("severity %v, want %s", pl["severity"], tc.want)
			}
			if s := pl["summary"].(string); len([]rune(s)) != 1024 || !strings.HasSuffix(s, "…") {
				t.Errorf("summary of %d characters, want 1024 ending in …", len([]rune(s)))
			}
		})
	}
}

func TestPagerDutyInvalidEvent(t *testing.T) {
	p := newPDServer(t)
	p.reply = func(_ int, ev map[string]any) (int, string, bool) {
		// An echo of the key, which PagerDuty does not do but a proxy might.
		return http.StatusBadRequest, `{"status":"invalid event","message":"Event object is invalid","errors":["routing_key ` + ev["routing_key"].(string) + ` is unknown"]}`, true
	}
	var r recorder
	deliver(t, &r, r.options(), []notify.Notifier{p.notifier(t, pdKey)}, firing(), "pager")
	attempts, _ := r.got()
	if len(attempts) != 1 || attempts[0].Code != 400 || attempts[0].OK {
		t.Fatalf("attempts %+v, want one failed 400 (not retried)", attempts)
	}
	a := attempts[0].Error
	if !strings.Contains(a, "HTTP 400 Bad Request: invalid event: Event object is invalid; routing_key [REDACTED] is unknown") || !strings.Contains(a, "check the routing_key") {
		t.Errorf("error %q, want PagerDuty's complaint and a hint", a)
	}
	noSecret(t, "attempt error", a, pdKey)
}

func TestPagerDutyThrottledThenAccepted(t *testing.T) {
	p := newPDServer(t)
	p.reply = func(n int, _ map[string]any) (int, string, bool) {
		if n <= 2 {
			return http.StatusTooManyRequests, `{"status":"throttle event","message":"Requests for this service are arriving too quickly.  Please retry later."}`, true
		}
		return 0, "", false
	}
	var r recorder
	deliver(t, &r, r.options(), []notify.Notifier{p.notifier(t, pdKey)}, firing(), "pager")
	attempts, delays := r.got()
	if len(attempts) != 3 || !attempts[2].OK || attempts[2].Code != 202 || attempts[0].Code != 429 {
		t.Fatalf("attempts %+v, want 429, 429, 202", attempts)
	}
	if !slices.Equal(delays, []time.Duration{time.Second, 2 * time.Second}) {
		t.Errorf("delays %v, want the exponential backoff [1s 2s]", delays)
	}
	if !strings.Contains(attempts[0].Error, "throttled") {
		t.Errorf("error %q lacks the hint", attempts[0].Error)
	}
}

func TestPagerDutyUnreachable(t *testing.T) {
	p := newPDServer(t)
	n := p.notifier(t, pdKey)
	p.srv.Close()
	code, err := n.Send(context.Background(), firing())
	var e *notify.Error
	if code != 0 || !errors.As(err, &e) || !e.Retryable || e.Code != 0 {
		t.Fatalf("Send = %d %#v, want a retryable error without a code", code, err)
	}
	noSecret(t, "error", err.Error(), pdKey)
	if strings.Contains(err.Error(), "/v2/enqueue") {
		t.Errorf("error %q names the URL", err)
	}
}
