package notify_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/monitor/notify"
)

// The worked example of docs/notifiers.md: body, secret, time and signature.
const (
	readmeBody   = `{"version":"1","status":"firing"}`
	readmeSecret = "s3cret-for-the-example"
	readmeTime   = 1700000000
	readmeV1     = "68550cad18ac31ca44378caf8988ae7a879dd9f85e21e0f28a12e81e76cd826c"
)

// TestSignWebhookAlgorithm checks SignWebhook against the documented
// algorithm, computed here from the standard library, and the docs'
// worked example.
func TestSignWebhookAlgorithm(t *testing.T) {
	at := time.Unix(readmeTime, 0)
	mac := hmac.New(sha256.New, []byte(readmeSecret))
	mac.Write([]byte(strconv.Itoa(readmeTime) + "." + readmeBody))
	want := "t=1700000000,v1=" + hex.EncodeToString(mac.Sum(nil))
	if got := notify.SignWebhook([]byte(readmeBody), readmeSecret, at); got != want {
		t.Errorf("SignWebhook = %q, want %q", got, want)
	}
	if want != "t=1700000000,v1="+readmeV1 {
		t.Errorf("the example signature of docs/notifiers.md is %s, want %s", readmeV1, want)
	}
}

// verifyCase is one request a receiver checks at now: every verifier (Go,
// and the examples in docs/notifiers.md) must agree on it.
type verifyCase struct {
	name, body, secret, header string
	now                        int64
	// want is nil when the request is accepted.
	want error
}

// verifyCases are requests signed at the example time of docs/notifiers.md.
func verifyCases() []verifyCase {
	body := []byte(readmeBody)
	at := time.Unix(readmeTime, 0)
	sig := notify.SignWebhook(body, readmeSecret, at)
	_, v1, _ := strings.Cut(sig, ",")
	other := notify.SignWebhook(body, "the-previous-secret", at)
	_, otherV1, _ := strings.Cut(other, ",")
	tol := int64(notify.WebhookTolerance / time.Second)
	return []verifyCase{
		{"fresh", readmeBody, readmeSecret, sig, readmeTime + 10, nil},
		{"at the tolerance", readmeBody, readmeSecret, sig, readmeTime + tol, nil},
		{"replayed past the tolerance", readmeBody, readmeSecret, sig, readmeTime + tol + 1, notify.ErrWebhookReplay},
		{"replayed an hour later", readmeBody, readmeSecret, sig, readmeTime + 3600, notify.ErrWebhookReplay},
		{"from the future", readmeBody, readmeSecret, sig, readmeTime - tol - 1, notify.ErrWebhookReplay},
		{"tampered body", `{"version":"1","status":"resolved"}`, readmeSecret, sig, readmeTime, notify.ErrWebhookSignature},
		{"wrong secret", readmeBody, "another-secret", sig, readmeTime, notify.ErrWebhookSignature},
		{"timestamp moved", readmeBody, readmeSecret, "t=1700000300," + v1, readmeTime + 300, notify.ErrWebhookSignature},
		{"rotated secret: two v1", readmeBody, readmeSecret, other + "," + v1, readmeTime, nil},
		{"only the old secret's v1", readmeBody, readmeSecret, "t=1700000000," + otherV1, readmeTime, notify.ErrWebhookSignature},
		{"spaces and unknown keys", readmeBody, readmeSecret, "t=1700000000, v0=abc , " + v1, readmeTime, nil},
		{"two timestamps", readmeBody, readmeSecret, sig + ",t=1700000000", readmeTime, notify.ErrWebhookSignature},
		{"no timestamp", readmeBody, readmeSecret, v1, readmeTime, notify.ErrWebhookSignature},
		{"no v1", readmeBody, readmeSecret, "t=1700000000", readmeTime, notify.ErrWebhookSignature},
		{"timestamp not a number", readmeBody, readmeSecret, "t=soon," + v1, readmeTime, notify.ErrWebhookSignature},
		{"v1 not hex", readmeBody, readmeSecret, "t=1700000000,v1=zz", readmeTime, notify.ErrWebhookSignature},
		{"the old header's form", readmeBody, readmeSecret, notify.Sign(body, readmeSecret), readmeTime, notify.ErrWebhookSignature},
		{"empty header", readmeBody, readmeSecret, "", readmeTime, notify.ErrWebhookSignature},
	}
}

func TestVerifyWebhook(t *testing.T) {
	for _, tc := range verifyCases() {
		t.Run(tc.name, func(t *testing.T) {
			err := notify.VerifyWebhook([]byte(tc.body), tc.secret, tc.header, time.Unix(tc.now, 0))
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), tc.secret) {
				t.Errorf("the error %q holds the secret", err)
			}
		})
	}
	body := []byte(readmeBody)
	if err := notify.VerifyWebhook(body, "", notify.SignWebhook(body, "", time.Unix(readmeTime, 0)), time.Unix(readmeTime, 0)); !errors.Is(err, notify.ErrWebhookSignature) {
		t.Errorf("empty secret: got %v, want ErrWebhookSignature", err)
	}
}
