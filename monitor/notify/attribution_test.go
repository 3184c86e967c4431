package notify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/notify"
)

// hostileFact is evidence quoting a model's answer that tries to format,
// mention, link and break lines in every notifier's markup.
const hostileFact = "answer now \"<!channel> @octocat <img src=x> [click](https://evil.example) & more\"\nsecond line"

// attributed is the message of an opened incident whose likely cause is
// the provider, with a plain fact, a hostile one, a very long one and
// more facts than a notification carries.
func attributed() notify.Message {
	m := firing()
	ev := []string{"served model changed: gpt-4o-mini-2024-07-18 → gpt-4o-mini-2025-01-31", hostileFact, strings.Repeat("x", 5000)}
	for i := range 7 {
		ev = append(ev, fmt.Sprintf("fact %d", i))
	}
	m.Incident.Attribution = &promptcanary.Attribution{Cause: promptcanary.CauseProvider, Evidence: ev}
	return m
}

// checkBounded fails unless facts are what a notification carries of
// attributed(): one line each, at most 300 characters, 8 and a count.
func checkBounded(t *testing.T, facts []string) {
	t.Helper()
	if len(facts) != 9 || facts[8] != "2 more in the drift report" {
		t.Fatalf("facts %q, want 8 and \"2 more in the drift report\"", facts)
	}
	if facts[0] != "served model changed: gpt-4o-mini-2024-07-18 → gpt-4o-mini-2025-01-31" {
		t.Errorf("first fact %q", facts[0])
	}
	for _, f := range facts {
		if strings.Contains(f, "\n") || utf8.RuneCountInString(f) > 300 {
			t.Errorf("fact %.60q… (%d characters) is not one bounded line", f, utf8.RuneCountInString(f))
		}
	}
}

// The webhook body carries the attribution as {cause, evidence}, bounded.
func TestWebhookAttribution(t *testing.T) {
	var body notify.WebhookBody
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, raw := decodeJSON(t, r)
		var v map[string]json.RawMessage
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Error(err)
		}
		var a map[string]any
		if err := json.Unmarshal(v["attribution"], &a); err != nil || slices.Sorted(maps.Keys(a))[0] != "cause" || len(a) != 2 {
			t.Errorf("attribution %s, want {cause, evidence}", v["attribution"])
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Error(err)
		}
	}))
	defer srv.Close()
	n := mustNew(t, config.Notifier{Name: "hook", Type: "webhook", URL: srv.URL})
	if _, err := n.Send(context.Background(), attributed()); err != nil {
		t.Fatal(err)
	}
	if body.Attribution == nil || body.Attribution.Cause != promptcanary.CauseProvider {
		t.Fatalf("attribution %+v, want provider", body.Attribution)
	}
	checkBounded(t, body.Attribution.Evidence)
	if want := `answer now "<!channel> @octocat <img src=x> [click](https://evil.example) & more" second line`; body.Attribution.Evidence[1] != want {
		t.Errorf("hostile fact %q, want %q (JSON escapes it; one line)", body.Attribution.Evidence[1], want)
	}
}

// Slack shows the likely cause and its facts in a section, escaped, and
// names the cause in the fallback text.
func TestSlackAttribution(t *testing.T) {
	msg := sendSlack(t, attributed())
	_, text := blocks(t, msg)
	escaped(t, "the Slack message", text, []string{
		"*Likely cause*: provider\n• served model changed: gpt-4o-mini-2024-07-18 → gpt-4o-mini-2025-01-31\n• answer now \"&lt;!channel&gt; @octocat &lt;img src=x&gt; [click](https://evil.example) &amp; more\" second line",
		"\n• 2 more in the drift report",
	}, []string{"<!channel>", "<img", " & more"})
	if fb, _ := msg["text"].(string); !strings.HasSuffix(fb, "fell from 84% to 51% (likely cause: provider)") {
		t.Errorf("fallback text %q, want the likely cause", fb)
	}
}

// PagerDuty's custom_details carry the attribution, bounded.
func TestPagerDutyAttribution(t *testing.T) {
	p := newPDServer(t)
	if _, err := p.notifier(t, pdKey).Send(context.Background(), attributed()); err != nil {
		t.Fatal(err)
	}
	cd := p.events[0]["payload"].(map[string]any)["custom_details"].(map[string]any)
	raw, _ := json.Marshal(cd["attribution"])
	var a promptcanary.Attribution
	if err := json.Unmarshal(raw, &a); err != nil || a.Cause != promptcanary.CauseProvider {
		t.Fatalf("custom_details.attribution %s (%v), want the provider cause", raw, err)
	}
	checkBounded(t, a.Evidence)
}

// The GitHub issue names the likely cause with its facts as a list of
// literal text: no mention, tag or link of a quoted answer works.
func TestGitHubAttribution(t *testing.T) {
	g := newFakeGitHub(t)
	if _, err := g.notifier(t).Send(context.Background(), attributed()); err != nil {
		t.Fatal(err)
	}
	escaped(t, "the issue body", g.issues[0].Body, []string{
		"**Likely cause: provider**\n\n- served model changed: gpt\\-4o\\-mini\\-2024\\-07\\-18 → gpt\\-4o\\-mini\\-2025\\-01\\-31\n",
		"- answer now \"\\<\\!channel\\> @\u200boctocat \\<img src=x\\> \\[click\\]\\(https://evil.example\\) & more\" second line\n",
		"- 2 more in the drift report\n",
	}, []string{"@octocat", " <img", "[click](https://evil"})
}

// escaped fails unless text, what a notifier sent, holds every string of
// want and none of bad (untrusted text that reached it unescaped).
func escaped(t *testing.T, what, text string, want, bad []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
	for _, b := range bad {
		if strings.Contains(text, b) {
			t.Errorf("%s holds the unescaped %q:\n%s", what, b, text)
		}
	}
}

// An incident without an attribution adds nothing to any message.
func TestNoAttributionNoLine(t *testing.T) {
	_, text := blocks(t, sendSlack(t, firing()))
	g := newFakeGitHub(t)
	if _, err := g.notifier(t).Send(context.Background(), firing()); err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"slack": text, "github": g.issues[0].Body} {
		if strings.Contains(s, "ikely cause") {
			t.Errorf("%s names a likely cause the incident has not:\n%s", what, s)
		}
	}
}
