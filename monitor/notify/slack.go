package notify

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
)

// slackTopUnits is how many flagged units a Slack message lists.
const slackTopUnits = 5

// Slack's limits on block texts, in characters.
const (
	slackHeaderMax  = 150
	slackSectionMax = 3000
	slackFieldMax   = 2000
)

// slack posts Block Kit messages to a Slack incoming webhook. The webhook
// URL is the credential: it never appears in an error.
type slack struct {
	base
	url string
	hc  *httpc.Client
}

func newSlack(cfg Config, hc *httpc.Client) (Notifier, error) {
	if _, err := checkURL("webhook_url", cfg.URL); err != nil {
		return nil, err
	}
	return &slack{base: base{cfg.Name, cfg.MinSeverity}, url: cfg.URL, hc: hc}, nil
}

// slackHints explain the error codes an incoming webhook answers with.
var slackHints = map[string]string{
	"invalid_payload":                   "Slack rejected the message",
	"no_service":                        "the webhook was removed or its URL is wrong",
	"no_service_id":                     "the webhook URL is wrong",
	"no_team":                           "the webhook URL is wrong",
	"team_disabled":                     "the Slack workspace is disabled",
	"invalid_token":                     "the webhook URL is wrong or was revoked",
	"channel_not_found":                 "the webhook's channel no longer exists",
	"channel_is_archived":               "the webhook's channel is archived",
	"action_prohibited":                 "a Slack admin restricted posting to the channel",
	"posting_to_general_channel_denied": "only admins may post to the channel",
	"too_many_attachments":              "Slack rejected the message",
}

// Send posts m. Slack answers 200 "ok"; errors are a plain-text code.
func (sl *slack) Send(ctx context.Context, m Message) (int, error) {
	const op = "post slack message"
	r, err := postJSON(ctx, sl.hc, op, sl.url, slackPayload(m), nil)
	if err != nil {
		return codeOf(err), err
	}
	if r.Status >= 200 && r.Status < 300 {
		return r.Status, nil
	}
	detail := strings.TrimSpace(string(r.Body))
	hint := slackHints[detail]
	if hint == "" && (r.Status == http.StatusForbidden || r.Status == http.StatusNotFound) {
		hint = "the webhook URL is wrong or was revoked"
	}
	return r.Status, sl.hc.StatusError(op, r, detail, hint, time.Now())
}

// slackMessage is an incoming-webhook message: text is the notification's
// fallback, blocks what the channel shows.
type slackMessage struct {
	Text   string       `json:"text"`
	Blocks []slackBlock `json:"blocks"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Fields   []slackText `json:"fields,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// slackPayload returns the incoming-webhook message of m: a header with
// the title, a section with the summary and severity, the top regressions
// (at most slackTopUnits), a link to the report and a context line with
// the incident's id. Every untrusted text (names, summaries) is escaped
// for mrkdwn, so a name cannot mention @channel or forge a link.
func slackPayload(m Message) slackMessage {
	inc := m.Incident
	t := title(m)
	var blocks []slackBlock
	blocks = append(blocks, slackBlock{Type: "header", Text: &slackText{"plain_text", cut(t, slackHeaderMax)}})

	summary := inc.Summary
	if m.Status == promptcanary.NotificationResolved {
		summary = "Resolved. " + summary
	}
	fields := []slackText{
		{"mrkdwn", cut("*Severity*\n"+slackEscape(string(inc.Severity)), slackFieldMax)},
		{"mrkdwn", cut("*Kind*\n"+slackEscape(string(inc.Kind)), slackFieldMax)},
		{"mrkdwn", cut("*Check*\n"+slackEscape(inc.Check), slackFieldMax)},
		{"mrkdwn", cut("*Provider*\n"+slackEscape(inc.Provider), slackFieldMax)},
	}
	if inc.Suite != "" {
		fields = append(fields, slackText{"mrkdwn", cut("*Suite*\n"+slackEscape(inc.Suite), slackFieldMax)})
	}
	blocks = append(blocks, slackBlock{Type: "section", Text: &slackText{"mrkdwn", cut(slackEscape(summary), slackSectionMax)}, Fields: fields})

	a := attributionOf(inc)
	if a != nil {
		blocks = append(blocks, slackBlock{Type: "section", Text: &slackText{"mrkdwn", cut(slackAttribution(a), slackSectionMax)}})
	}
	if len(inc.Units) > 0 && m.Status == promptcanary.NotificationFiring {
		blocks = append(blocks, slackBlock{Type: "section", Text: &slackText{"mrkdwn", cut(slackUnits(inc.Units), slackSectionMax)}})
	}
	if m.ReportURL != "" {
		blocks = append(blocks, slackBlock{Type: "section", Text: &slackText{"mrkdwn", "<" + slackURL(m.ReportURL) + "|Open the report>"}})
	}
	ctxLine := "incident `" + slackEscape(inc.ID) + "`"
	if !inc.OpenedAt.IsZero() {
		ctxLine += " · opened " + inc.OpenedAt.UTC().Format(time.RFC3339)
	}
	if m.Status == promptcanary.NotificationResolved && !inc.ResolvedAt.IsZero() {
		ctxLine += " · resolved " + inc.ResolvedAt.UTC().Format(time.RFC3339)
	}
	if inc.RunID != "" {
		ctxLine += " · run `" + slackEscape(inc.RunID) + "`"
	}
	blocks = append(blocks, slackBlock{Type: "context", Elements: []slackText{{"mrkdwn", cut(ctxLine, slackFieldMax)}}})

	text := slackEscape(t)
	if inc.Summary != "" {
		text += ": " + slackEscape(inc.Summary)
	}
	if a != nil {
		text += " (likely cause: " + slackEscape(a.Cause) + ")"
	}
	return slackMessage{Text: cut(text, slackSectionMax), Blocks: blocks}
}

// slackAttribution is the likely cause of a with its facts, escaped.
func slackAttribution(a *promptcanary.Attribution) string {
	var b strings.Builder
	b.WriteString("*Likely cause*: " + slackEscape(a.Cause))
	for _, e := range a.Evidence {
		b.WriteString("\n• " + slackEscape(e))
	}
	return b.String()
}

// slackUnits lists units, the broken pairs first, with their pass rates.
func slackUnits(units []promptcanary.IncidentUnit) string {
	us := topUnits(units, slackTopUnits)
	var b strings.Builder
	b.WriteString("*Flagged units, pass rate baseline → current*")
	for _, u := range us {
		fmt.Fprintf(&b, "\n• %s %s: %s → %s", slackEscape(u.Unit), slackCode(u.Name), percent(u.Baseline), percent(u.Current))
		if u.Q > 0 {
			fmt.Fprintf(&b, " (q %s)", formatQ(u.Q))
		}
	}
	if more := len(units) - len(us); more > 0 {
		fmt.Fprintf(&b, "\n…and %d more", more)
	}
	return b.String()
}

// topUnits returns at most n of units in the order every surface lists
// them (promptcanary.SortUnits: the broken pairs first, the largest drop
// first), without changing units.
func topUnits(units []promptcanary.IncidentUnit, n int) []promptcanary.IncidentUnit {
	us := promptcanary.SortUnits(units)
	if len(us) > n {
		us = us[:n]
	}
	return us
}

// title is the one-line title of m, such as "drift incident opened:
// checkout-prod (openai/gpt-4o-mini), high".
func title(m Message) string {
	inc := m.Incident
	what := string(inc.Kind) + " incident"
	switch {
	case m.Status == promptcanary.NotificationResolved:
		what += " resolved"
	case m.Event == promptcanary.EventUpdated:
		what += " updated"
	case m.Event == promptcanary.EventRepeated:
		what += " still open"
	default:
		what += " opened"
	}
	t := what + ": " + inc.Check
	if inc.Provider != "" {
		t += " (" + inc.Provider + ")"
	}
	if m.Status == promptcanary.NotificationFiring && inc.Severity != "" {
		t += ", " + string(inc.Severity)
	}
	return t
}

// slackEscape escapes Slack's three control characters, so that text
// shows as written and cannot form a link or a mention.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// slackCode shows s as inline code: backticks inside would end it early.
func slackCode(s string) string {
	return "`" + slackEscape(strings.ReplaceAll(s, "`", "'")) + "`"
}

// slackURL makes u fit inside <u|text>: the control characters escaped,
// and the "|" that would end the URL percent-encoded.
func slackURL(u string) string {
	return strings.NewReplacer("&", "&amp;", "<", "%3C", ">", "%3E", "|", "%7C", " ", "%20").Replace(u)
}

// cut shortens s to at most n runes, ending in "…" when it was longer.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// percent formats a rate as a percentage.
func percent(r float64) string { return fmt.Sprintf("%.1f%%", r*100) }

// formatQ formats a q-value with two significant digits.
func formatQ(q float64) string { return fmt.Sprintf("%.2g", q) }
