package notify_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// slackToken is the secret last segment of a Slack webhook URL.
const slackToken = "Xq7bT2mN9vR4kL8pW3sD6fH1"

const slackPath = "/services/T024BE7LD/B08J1KQ2H/" + slackToken

// slackServer speaks the incoming-webhook protocol: a JSON POST to the
// hook's path answered 200 "ok", or the status and plain-text code reply
// returns for the n-th call (from 1).
func slackServer(t *testing.T, got *[]map[string]any, reply func(n int) (int, string, http.Header)) *httptest.Server {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		if r.Method != http.MethodPost || r.URL.Path != slackPath {
			t.Errorf("got %s %s, want POST to the hook", r.Method, r.URL.Path)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		v, _ := decodeJSON(t, r)
		if got != nil {
			*got = append(*got, v)
		}
		code, body, h := http.StatusOK, "ok", http.Header(nil)
		if reply != nil {
			code, body, h = reply(n)
		}
		for k, vs := range h {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// blocks returns the types of a message's blocks and its texts joined.
func blocks(t *testing.T, msg map[string]any) ([]string, string) {
	t.Helper()
	raw, _ := json.Marshal(msg["blocks"])
	var bs []struct {
		Type string `json:"type"`
		Text *struct {
			Type, Text string
		} `json:"text"`
		Fields   []struct{ Type, Text string } `json:"fields"`
		Elements []struct{ Type, Text string } `json:"elements"`
	}
	if err := json.Unmarshal(raw, &bs); err != nil {
		t.Fatalf("blocks: %v", err)
	}
	var types, texts []string
	for _, b := range bs {
		types = append(types, b.Type)
		if b.Text != nil {
			if b.Type == "header" && b.Text.Type != "plain_text" {
				t.Errorf("header text type %q, want plain_text", b.Text.Type)
			}
			texts = append(texts, b.Text.Text)
		}
		for _, f := range append(b.Fields, b.Elements...) {
			if f.Type != "mrkdwn" {
				t.Errorf("%s element type %q, want mrkdwn", b.Type, f.Type)
			}
			texts = append(texts, f.Text)
		}
	}
	return types, strings.Join(texts, "\n")
}

// sendSlack sends m through a Slack notifier to a fake Slack and returns
// the one message it got.
func sendSlack(t *testing.T, m notify.Message) map[string]any {
	t.Helper()
	var got []map[string]any
	srv := slackServer(t, &got, nil)
	n := mustNew(t, config.Notifier{Name: "oncall", Type: "slack", URL: srv.URL + slackPath})
	if code, err := n.Send(context.Background(), m); err != nil || code != 200 {
		t.Fatalf("Send = %d %v, want 200 <nil>", code, err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d requests, want 1", len(got))
	}
	return got[0]
}

func TestSlackMessage(t *testing.T) {
	m := firing()
	for i := range 5 {
		m.Incident.Units = append(m.Incident.Units, promptcanary.IncidentUnit{Unit: "pair", Name: fmt.Sprintf("p%d/ok", i), Baseline: 0.8, Current: 0.79})
	}
	msg := sendSlack(t, m)
	types, text := blocks(t, msg)
	if want := []string{"header", "section", "section", "section", "context"}; !slices.Equal(types, want) {
		t.Errorf("blocks %v, want %v", types, want)
	}
	for _, want := range []string{
		"drift incident opened: checkout-prod (openai/gpt-4o-mini), high", // header
		"*Severity*\nhigh",
		// The pairs first (the one that broke before the probe whose drop
		// is larger), then the broader units: here cut off.
		"*Flagged units, pass rate baseline → current*\n• pair `refund-policy/json_validity`: 90.0% → 70.0% (q 0.04)\n• pair `p0/ok`: 80.0% → 79.0%",
		"…and 2 more",
		"<http://127.0.0.1:9464/incidents/0b7f3c1e|Open the report>",
		"incident `0b7f3c1e-5d2a-4c4e-9f10-1a2b3c4d5e6f` · opened 2026-03-01T12:00:00Z",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("message lacks %q:\n%s", want, text)
		}
	}
	if fb, _ := msg["text"].(string); fb != "drift incident opened: checkout-prod (openai/gpt-4o-mini), high: probe json_validity fell from 84% to 51%" {
		t.Errorf("fallback text %q", fb)
	}
}

func TestSlackResolved(t *testing.T) {
	_, text := blocks(t, sendSlack(t, resolved()))
	if strings.Contains(text, "Flagged units") {
		t.Errorf("a resolve lists regressions:\n%s", text)
	}
	for _, want := range []string{"drift incident resolved: checkout-prod (openai/gpt-4o-mini)", "Resolved. ", "resolved 2026-03-01T15:30:00Z"} {
		if !strings.Contains(text, want) {
			t.Errorf("resolve lacks %q:\n%s", want, text)
		}
	}
}

func TestSlackEscapesUntrustedText(t *testing.T) {
	m := firing()
	m.Incident.Summary = "<!channel> see <https://evil.example|the fix> & more"
	m.Incident.Units = []promptcanary.IncidentUnit{{Unit: "probe", Name: "a`<@U024BE7LH>`", Baseline: 1, Current: 0}}
	m.ReportURL = "http://127.0.0.1:9464/incidents/x?a=1&b=<2>|3"
	msg := sendSlack(t, m)
	_, text := blocks(t, msg)
	fallback, _ := msg["text"].(string)
	for _, s := range []string{text, fallback} {
		for _, bad := range []string{"<!channel>", "<https://evil", "<@U024BE7LH>", " & more"} {
			if strings.Contains(s, bad) {
				t.Errorf("untrusted %q reached Slack unescaped:\n%s", bad, s)
			}
		}
	}
	for _, want := range []string{"&lt;!channel&gt; see &lt;https://evil.example|the fix&gt; &amp; more", "`a'&lt;@U024BE7LH&gt;'`", "<http://127.0.0.1:9464/incidents/x?a=1&amp;b=%3C2%3E%7C3|Open the report>"} {
		if !strings.Contains(text, want) {
			t.Errorf("message lacks %q:\n%s", want, text)
		}
	}
}

func TestSlackErrors(t *testing.T) {
	tests := []struct {
		code      int
		body      string
		wantHint  string
		retryable bool
	}{
		{400, "invalid_payload", "Slack rejected the message", false},
		{403, "invalid_token", "the webhook URL is wrong or was revoked", false},
		{404, "no_service", "the webhook was removed or its URL is wrong", false},
		{410, "channel_is_archived", "the webhook's channel is archived", false},
		{500, "rollup_error", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.body, func(t *testing.T) {
			srv := slackServer(t, nil, func(int) (int, string, http.Header) { return tc.code, tc.body, nil })
			n := mustNew(t, config.Notifier{Name: "oncall", Type: "slack", URL: srv.URL + slackPath})
			code, err := n.Send(context.Background(), firing())
			if code != tc.code || err == nil {
				t.Fatalf("Send = %d %v, want %d and an error", code, err, tc.code)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, fmt.Sprintf("post slack message: HTTP %d", tc.code)) || !strings.Contains(msg, tc.body) || !strings.Contains(msg, tc.wantHint) {
				t.Errorf("error %q, want the status, %q and the hint %q", msg, tc.body, tc.wantHint)
			}
			var e *notify.Error
			if !errors.As(err, &e) || e.Retryable != tc.retryable || e.Code != tc.code {
				t.Errorf("error %#v, want a *notify.Error with Retryable %v", err, tc.retryable)
			}
			noSecret(t, "error", msg, slackToken, srv.URL+slackPath)
		})
	}
}

func TestSlackRetryAfter(t *testing.T) {
	srv := slackServer(t, nil, func(n int) (int, string, http.Header) {
		if n == 1 {
			return http.StatusTooManyRequests, "rate_limited", http.Header{"Retry-After": {"7"}}
		}
		return http.StatusOK, "ok", nil
	})
	var r recorder
	n := mustNew(t, config.Notifier{Name: "oncall", Type: "slack", URL: srv.URL + slackPath})
	deliver(t, &r, r.options(), []notify.Notifier{n}, firing(), "oncall")
	attempts, delays := r.got()
	if len(attempts) != 2 || attempts[0].Code != 429 || !attempts[1].OK {
		t.Fatalf("attempts %+v, want a 429 then success", attempts)
	}
	if !slices.Equal(delays, []time.Duration{7 * time.Second}) {
		t.Errorf("delays %v, want the Retry-After [7s]", delays)
	}
}
