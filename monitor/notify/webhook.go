package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
)

// WebhookSignatureHeader is the header of a webhook request carrying its
// signature: "t=<unix seconds>,v1=<hex>", where v1 is the HMAC-SHA256,
// keyed with the notifier's secret, of the timestamp, a dot and the exact
// body ("1700000000.{...}"). Signing the time with the body lets a
// receiver refuse a request replayed later (VerifyWebhook).
const WebhookSignatureHeader = "X-PromptCanary-Webhook-Signature"

// WebhookTolerance is how far from the receiver's clock the timestamp of
// a webhook signature may be before VerifyWebhook refuses the request as
// a possible replay.
const WebhookTolerance = 5 * time.Minute

// SignatureHeader is the header of the signature without a timestamp:
// "sha256=" and the hex HMAC-SHA256 of the exact body keyed with the
// notifier's secret, which a replayed request still carries.
//
// Deprecated: webhooks carry it beside WebhookSignatureHeader for this
// release only, so that receivers can move to VerifyWebhook; the next
// release stops sending it.
const SignatureHeader = "X-PromptCanary-Signature"

// ErrWebhookSignature is returned, wrapped, by VerifyWebhook for a
// signature that is missing, malformed or not the body's.
var ErrWebhookSignature = errors.New("webhook signature does not verify")

// ErrWebhookReplay is returned, wrapped, by VerifyWebhook for a valid
// signature whose timestamp is further than WebhookTolerance from now:
// the request may be replayed.
var ErrWebhookReplay = errors.New("webhook signature timestamp outside the tolerance")

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
	// Attribution is the incident's likely cause with its evidence (one
	// line each, bounded), null when it has none.
	Attribution *promptcanary.Attribution `json:"attribution"`
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
		Attribution: attributionOf(inc),
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

// SignWebhook returns the WebhookSignatureHeader value of body sent at
// t, keyed with secret.
func SignWebhook(body []byte, secret string, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(webhookMAC(body, secret, ts))
}

// VerifyWebhook checks header, a WebhookSignatureHeader value, against
// body and secret, and its timestamp against now: nil when one of its v1
// signatures (several may be sent while a secret is rotated) is the
// body's and the timestamp is within WebhookTolerance of now. Its errors
// wrap ErrWebhookSignature or ErrWebhookReplay and never hold the secret.
// It compares in constant time, and an empty secret verifies nothing.
func VerifyWebhook(body []byte, secret, header string, now time.Time) error {
	if secret == "" {
		return fmt.Errorf("%w: no secret to verify it with", ErrWebhookSignature)
	}
	ts, sigs := parseSignature(header)
	sent, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return fmt.Errorf("%w: want %s: t=<unix seconds>,v1=<hex>", ErrWebhookSignature, WebhookSignatureHeader)
	}
	want := webhookMAC(body, secret, ts)
	ok := false
	for _, sig := range sigs {
		got, err := hex.DecodeString(sig)
		ok = ok || (err == nil && hmac.Equal(got, want))
	}
	if !ok {
		return fmt.Errorf("%w: no v1 signature matches the body", ErrWebhookSignature)
	}
	if age := now.Sub(time.Unix(sent, 0)); age > WebhookTolerance || age < -WebhookTolerance {
		return fmt.Errorf("%w: signed at %s, %s from now (tolerance %s)", ErrWebhookReplay,
			time.Unix(sent, 0).UTC().Format(time.RFC3339), age.Round(time.Second), WebhookTolerance)
	}
	return nil
}

// parseSignature splits a WebhookSignatureHeader value into its
// timestamp ("" unless exactly one) and v1 signatures; other keys are
// ignored, for schemes to come.
func parseSignature(header string) (ts string, sigs []string) {
	n := 0
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts, n = v, n+1
		case "v1":
			sigs = append(sigs, v)
		}
	}
	if n != 1 {
		ts = ""
	}
	return ts, sigs
}

// webhookMAC is the HMAC-SHA256 of ts, ".", body keyed with secret.
func webhookMAC(body []byte, secret, ts string) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return mac.Sum(nil)
}

// Sign returns the SignatureHeader value of body keyed with secret.
//
// Deprecated: use SignWebhook; see SignatureHeader.
func Sign(body []byte, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify reports whether header, a SignatureHeader value, is the signature
// of body with secret. It compares in constant time, and is false when
// secret is empty (an unsigned request proves nothing). It cannot tell a
// replayed request.
//
// Deprecated: use VerifyWebhook; see SignatureHeader.
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
	hc     *httpc.Client
}

func newWebhook(cfg Config, hc *httpc.Client) (Notifier, error) {
	if _, err := checkURL("url", cfg.URL); err != nil {
		return nil, err
	}
	return &webhook{base: base{cfg.Name, cfg.MinSeverity}, url: cfg.URL, secret: cfg.Secret, hc: hc}, nil
}

// Send posts m; any 2xx answer is success.
func (w *webhook) Send(ctx context.Context, m Message) (int, error) {
	const op = "post webhook"
	var sign func(h http.Header, body []byte)
	if w.secret != "" {
		sign = func(h http.Header, body []byte) {
			h.Set(WebhookSignatureHeader, SignWebhook(body, w.secret, time.Now()))
			h.Set(SignatureHeader, Sign(body, w.secret)) // for one release: see SignatureHeader
		}
	}
	r, err := postJSON(ctx, w.hc, op, w.url, NewWebhookBody(m), sign)
	if err != nil {
		return codeOf(err), err
	}
	if r.Status < 200 || r.Status > 299 {
		return r.Status, w.hc.StatusError(op, r, string(r.Body), "", time.Now())
	}
	return r.Status, nil
}
