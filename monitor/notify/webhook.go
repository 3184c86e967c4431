package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/config"
)

// SignatureHeader is the header of a webhook request carrying the body's
// signature, "sha256=" and the hex HMAC-SHA256 of the exact body keyed
// with the notifier's secret.
const SignatureHeader = "X-PromptCanary-Signature"

// WebhookVersion is the version of the webhook body.
const WebhookVersion = "1"

// WebhookBody is the JSON body a webhook notifier posts (version 1).
type WebhookBody struct {
	Version string                          `json:"version"`
	Status  promptcanary.NotificationStatus `json:"status"`
	// Event is the lifecycle step notified (opened, updated, repeated,
	// resolved), an addition to the spec's body so a receiver can tell a
	// new incident from a reminder.
	Event       promptcanary.IncidentEventType `json:"event"`
	IncidentID  string                         `json:"incident_id"`
	Fingerprint string                         `json:"fingerprint"`
	Check       string                         `json:"check"`
	Suite       string                         `json:"suite"`
	Provider    string                         `json:"provider"`
	Kind        promptcanary.IncidentKind      `json:"kind"`
	Severity    promptcanary.Severity          `json:"severity"`
	Summary     string                         `json:"summary"`
	StartedAt   time.Time                      `json:"started_at"`
	// ResolvedAt is null while the incident fires.
	ResolvedAt *time.Time `json:"resolved_at"`
	RunID      string     `json:"run_id"`
	// ReportURL is "" when the monitor has no base URL.
	ReportURL string `json:"report_url"`
	// Units is [] when no unit was flagged (unmeasured, budget).
	Units []promptcanary.IncidentUnit `json:"units"`
}

// NewWebhookBody returns the webhook body of m.
func NewWebhookBody(m Message) WebhookBody {
	inc := m.Incident
	b := WebhookBody{
		Version:     WebhookVersion,
		Status:      m.Status,
		Event:       m.Event,
		IncidentID:  inc.ID,
		Fingerprint: inc.Fingerprint,
		Check:       inc.Check,
		Suite:       inc.Suite,
		Provider:    inc.Provider,
		Kind:        inc.Kind,
		Severity:    inc.Severity,
		Summary:     inc.Summary,
		StartedAt:   inc.OpenedAt.UTC(),
		RunID:       inc.RunID,
		ReportURL:   m.ReportURL,
		Units:       inc.Units,
	}
	if b.Units == nil {
		b.Units = []promptcanary.IncidentUnit{}
	}
	if m.Status == promptcanary.NotificationResolved && !inc.ResolvedAt.IsZero() {
		t := inc.ResolvedAt.UTC()
		b.ResolvedAt = &t
	}
	return b
}

// Sign returns the SignatureHeader value of body keyed with secret.
func Sign(body []byte, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify reports whether header, a SignatureHeader value, is the signature
// of body with secret. It compares in constant time, and is false when
// secret is empty (an unsigned request proves nothing).
func Verify(body []byte, secret, header string) bool {
	if secret == "" {
		return false
	}
	hexSig, ok := strings.CutPrefix(strings.TrimSpace(header), "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// webhook posts WebhookBody to a URL, signed when it has a secret.
type webhook struct {
	base
	url    string
	secret string
	s      *sender
}

func newWebhook(cfg config.Notifier, s *sender) (Notifier, error) {
	if _, err := checkURL("url", cfg.URL); err != nil {
		return nil, err
	}
	return &webhook{base: base{cfg.Name, cfg.MinSeverity}, url: cfg.URL, secret: cfg.Secret, s: s}, nil
}

// Send posts m; any 2xx answer is success.
func (w *webhook) Send(ctx context.Context, m Message) (int, error) {
	const op = "post webhook"
	body, err := json.Marshal(NewWebhookBody(m))
	if err != nil {
		return 0, &Error{Op: op, Message: "encode body: " + w.s.line(err.Error(), 300)}
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if w.secret != "" {
		h.Set(SignatureHeader, Sign(body, w.secret))
	}
	r, err := w.s.do(ctx, op, http.MethodPost, w.url, h, body)
	if err != nil {
		return codeOf(err), err
	}
	if r.code < 200 || r.code > 299 {
		return r.code, w.s.statusError(op, r, string(r.body), "")
	}
	return r.code, nil
}
