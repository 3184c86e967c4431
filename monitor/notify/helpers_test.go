package notify_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/notify"
)

var (
	openedAt   = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	resolvedAt = time.Date(2026, 3, 1, 15, 30, 0, 0, time.UTC)
)

// incident is a drift incident with two flagged units.
func incident() promptcanary.Incident {
	return promptcanary.Incident{
		ID:          "0b7f3c1e-5d2a-4c4e-9f10-1a2b3c4d5e6f",
		Fingerprint: "3f9a2c41d7e8",
		Check:       "checkout-prod",
		Suite:       "checkout",
		Provider:    "openai/gpt-4o-mini",
		Kind:        promptcanary.IncidentDrift,
		Severity:    promptcanary.SeverityHigh,
		Summary:     "probe json_validity fell from 84% to 51%",
		Units: []promptcanary.IncidentUnit{
			{Unit: "pair", Name: "refund-policy/json_validity", Baseline: 0.9, Current: 0.7, Q: 0.04},
			{Unit: "probe", Name: "json_validity", Baseline: 0.84, Current: 0.51, Q: 0.0012},
		},
		RunID:     "run-42",
		OpenedAt:  openedAt,
		UpdatedAt: openedAt,
	}
}

// firing is the message of an opened incident.
func firing() notify.Message {
	return notify.Message{Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened, Incident: incident(), ReportURL: "http://127.0.0.1:9464/incidents/0b7f3c1e"}
}

// resolved is the message of the incident's resolve.
func resolved() notify.Message {
	m := firing()
	m.Status = promptcanary.NotificationResolved
	m.Event = promptcanary.EventResolved
	m.Incident.ResolvedAt = resolvedAt
	m.Incident.CleanRuns = 2
	return m
}

// mustNew builds a notifier or fails the test.
func mustNew(t *testing.T, cfg config.Notifier) notify.Notifier {
	t.Helper()
	n, err := notify.New(cfg, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return n
}

// decodeJSON decodes a request body into a generic map.
func decodeJSON(t *testing.T, r *http.Request) (map[string]any, []byte) {
	t.Helper()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("read body: %v", err)
		return nil, nil
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("body is not a JSON object: %v: %s", err, body)
	}
	return v, body
}

// recorder collects the attempts Deliver records, and the delays it
// sleeps, without waiting.
type recorder struct {
	mu       sync.Mutex
	attempts []promptcanary.NotificationAttempt
	delays   []time.Duration
}

func (r *recorder) record(a promptcanary.NotificationAttempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts = append(r.attempts, a)
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.delays = append(r.delays, d)
	r.mu.Unlock()
	return ctx.Err()
}

func (r *recorder) got() ([]promptcanary.NotificationAttempt, []time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.attempts), slices.Clone(r.delays)
}

// options returns a policy that records into r, sleep without
// waiting and jitter by exactly 1.
func (r *recorder) options() notify.Policy {
	return notify.Policy{
		Record: r.record,
		Sleep:  r.sleep,
		Rand:   func() float64 { return 0.5 },
		Now:    func() time.Time { return openedAt },
	}
}

// deliver delivers m to each notifier of ns named in to, in turn, and
// returns the outcomes.
func deliver(t *testing.T, r *recorder, o notify.Policy, ns []notify.Notifier, m notify.Message, to ...string) []notify.Outcome {
	t.Helper()
	var outs []notify.Outcome
	for _, name := range to {
		i := slices.IndexFunc(ns, func(n notify.Notifier) bool { return n.Name() == name })
		if i < 0 {
			t.Fatalf("no notifier %q", name)
		}
		outs = append(outs, notify.Deliver(context.Background(), ns[i], m, o))
	}
	return outs
}

// noSecret fails the test when s holds any of secrets.
func noSecret(t *testing.T, what, s string, secrets ...string) {
	t.Helper()
	for _, sec := range secrets {
		if sec != "" && strings.Contains(s, sec) {
			t.Errorf("%s holds the secret %q: %s", what, sec, s)
		}
	}
}

// newTextLogger logs everything, in text, to w.
func newTextLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
