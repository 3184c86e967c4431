package notify_test

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/notify"
)

const hookSecret = "whsec-4f1d9a7c2b8e6d30"

func TestWebhookBody(t *testing.T) {
	wantKeys := []string{"attribution", "check", "event", "fingerprint", "incident_id", "kind", "provider", "report_url", "resolved_at", "run_id", "severity", "started_at", "status", "suite", "summary", "units", "version"}
	tests := []struct {
		name         string
		m            notify.Message
		status       string
		wantResolved any
	}{
		{"firing", firing(), "firing", nil},
		{"resolved", resolved(), "resolved", "2026-03-01T15:30:00Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/hooks/canary" {
					t.Errorf("got %s %s, want POST /hooks/canary", r.Method, r.URL.Path)
				}
				if ct := r.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q, want application/json", ct)
				}
				v, body := decodeJSON(t, r)
				if sig := r.Header.Get("X-PromptCanary-Webhook-Signature"); notify.VerifyWebhook(body, hookSecret, sig, time.Now()) != nil {
					t.Errorf("signature %q does not verify: %v", sig, notify.VerifyWebhook(body, hookSecret, sig, time.Now()))
				}
				// The old header, sent for one release.
				if sig := r.Header.Get("X-PromptCanary-Signature"); !notify.Verify(body, hookSecret, sig) {
					t.Errorf("old signature %q does not verify", sig)
				}
				got = v
				w.WriteHeader(http.StatusNoContent)
			}))
			defer srv.Close()
			n := mustNew(t, config.Notifier{Name: "hook", Type: "webhook", URL: srv.URL + "/hooks/canary", Secret: hookSecret})
			code, err := n.Send(context.Background(), tc.m)
			if err != nil || code != http.StatusNoContent {
				t.Fatalf("Send: %d %v, want 204 <nil>", code, err)
			}
			if k := slices.Sorted(maps.Keys(got)); !slices.Equal(k, wantKeys) {
				t.Errorf("keys %v, want %v", k, wantKeys)
			}
			want := map[string]any{
				"version": "1", "status": tc.status, "incident_id": "0b7f3c1e-5d2a-4c4e-9f10-1a2b3c4d5e6f",
				"fingerprint": "3f9a2c41d7e8", "check": "checkout-prod", "suite": "checkout",
				"provider": "openai/gpt-4o-mini", "kind": "drift", "severity": "high",
				"summary": "probe json_validity fell from 84% to 51%", "started_at": "2026-03-01T12:00:00Z",
				"resolved_at": tc.wantResolved, "run_id": "run-42", "report_url": "http://127.0.0.1:9464/incidents/0b7f3c1e",
			}
			if v, ok := got["attribution"]; !ok || v != nil {
				t.Errorf("attribution = %#v, want null for an incident without one", v)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s = %#v, want %#v", k, got[k], v)
				}
			}
			units, _ := got["units"].([]any)
			if len(units) != 2 {
				t.Fatalf("units = %#v, want 2 units", got["units"])
			}
			u, _ := units[1].(map[string]any)
			if k := slices.Sorted(maps.Keys(u)); !slices.Equal(k, []string{"baseline", "current", "name", "q", "unit"}) {
				t.Errorf("unit keys %v", k)
			}
			if u["unit"] != "probe" || u["name"] != "json_validity" || u["baseline"] != 0.84 || u["current"] != 0.51 || u["q"] != 0.0012 {
				t.Errorf("unit = %v", u)
			}
		})
	}
}

func TestWebhookNoUnitsIsEmptyArray(t *testing.T) {
	var units any = "unset"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := decodeJSON(t, r)
		units = v["units"]
		for _, h := range []string{"X-Promptcanary-Signature", "X-Promptcanary-Webhook-Signature"} {
			if _, ok := r.Header[h]; ok {
				t.Errorf("a notifier without secret sent %s", h)
			}
		}
	}))
	defer srv.Close()
	m := firing()
	m.Incident.Kind = promptcanary.IncidentUnmeasured
	m.Incident.Units = nil
	n := mustNew(t, config.Notifier{Name: "hook", Type: "webhook", URL: srv.URL})
	if _, err := n.Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if u, ok := units.([]any); !ok || len(u) != 0 {
		t.Errorf("units = %#v, want []", units)
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"version":"1","status":"firing"}`)
	sig := notify.Sign(body, hookSecret)
	if !strings.HasPrefix(sig, "sha256=") || len(sig) != len("sha256=")+64 {
		t.Fatalf("Sign = %q, want sha256= and 64 hex digits", sig)
	}
	tests := []struct {
		name   string
		body   []byte
		secret string
		header string
		want   bool
	}{
		{"valid", body, hookSecret, sig, true},
		{"upper-case hex", body, hookSecret, "sha256=" + strings.ToUpper(strings.TrimPrefix(sig, "sha256=")), true},
		{"wrong secret", body, "another-secret", sig, false},
		{"tampered body", []byte(`{"version":"1","status":"resolved"}`), hookSecret, sig, false},
		{"no prefix", body, hookSecret, strings.TrimPrefix(sig, "sha256="), false},
		{"not hex", body, hookSecret, "sha256=zz", false},
		{"empty header", body, hookSecret, "", false},
		{"empty secret", body, "", notify.Sign(body, ""), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := notify.Verify(tc.body, tc.secret, tc.header); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestWebhookRetriesAfter500(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "upstream\nexploded", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	var r recorder
	n := mustNew(t, config.Notifier{Name: "hook", Type: "webhook", URL: srv.URL, Secret: hookSecret})
	deliver(t, &r, r.options(), []notify.Notifier{n}, firing(), "hook")
	attempts, delays := r.got()
	if len(attempts) != 2 {
		t.Fatalf("got %d attempts, want 2: %+v", len(attempts), attempts)
	}
	a1, a2 := attempts[0], attempts[1]
	if a1.OK || a1.Code != 500 || a1.Attempt != 1 || !strings.Contains(a1.Error, "HTTP 500") || strings.Contains(a1.Error, "\n") {
		t.Errorf("attempt 1 = %+v, want a failed single-line 500", a1)
	}
	if !strings.Contains(a1.Error, "upstream exploded") {
		t.Errorf("attempt 1 error %q does not quote the body on one line", a1.Error)
	}
	if !a2.OK || a2.Code != 200 || a2.Attempt != 2 || a2.Error != "" {
		t.Errorf("attempt 2 = %+v, want OK 200", a2)
	}
	if a1.ID == "" || a1.ID != a2.ID {
		t.Errorf("attempt ids %q and %q, want one id per delivery", a1.ID, a2.ID)
	}
	if a1.Notifier != "hook" || a1.IncidentID != incident().ID || a1.Status != promptcanary.NotificationFiring || a1.Event != promptcanary.EventOpened {
		t.Errorf("attempt 1 = %+v, want the message's incident, status and event", a1)
	}
	if !slices.Equal(delays, []time.Duration{time.Second}) {
		t.Errorf("delays %v, want [1s]", delays)
	}
}

func TestWebhookClientErrorNotRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, `{"error":"no such hook"}`, http.StatusNotFound)
	}))
	defer srv.Close()
	var r recorder
	n := mustNew(t, config.Notifier{Name: "hook", Type: "webhook", URL: srv.URL})
	deliver(t, &r, r.options(), []notify.Notifier{n}, firing(), "hook")
	attempts, _ := r.got()
	if calls.Load() != 1 || len(attempts) != 1 || attempts[0].Code != 404 || attempts[0].OK {
		t.Errorf("calls %d, attempts %+v, want one failed 404 attempt", calls.Load(), attempts)
	}
}

func TestWebhookRedirectNotFollowed(t *testing.T) {
	var followed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			followed.Store(true)
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	n := mustNew(t, config.Notifier{Name: "hook", Type: "webhook", URL: srv.URL + "/hook", Secret: hookSecret})
	code, err := n.Send(context.Background(), firing())
	if err == nil || code != http.StatusFound || followed.Load() {
		t.Errorf("Send = %d %v (followed %v), want a 302 error and no request to the target", code, err, followed.Load())
	}
}

func TestWebhookTimeoutIsRetried(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			// Hang until the client gives up (the server notices once the
			// body is read) or the test ends.
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	defer close(release)
	var r recorder
	o := r.options()
	o.Timeout = 50 * time.Millisecond
	n := mustNew(t, config.Notifier{Name: "hook", Type: "webhook", URL: srv.URL})
	deliver(t, &r, o, []notify.Notifier{n}, firing(), "hook")
	attempts, _ := r.got()
	if len(attempts) != 2 {
		t.Fatalf("got %d attempts, want 2: %+v", len(attempts), attempts)
	}
	if a := attempts[0]; a.OK || a.Code != 0 || !strings.Contains(a.Error, "timed out after 50ms") {
		t.Errorf("attempt 1 = %+v, want a timeout with no code", a)
	}
	if a := attempts[1]; !a.OK || a.Code != http.StatusAccepted {
		t.Errorf("attempt 2 = %+v, want OK 202", a)
	}
}
