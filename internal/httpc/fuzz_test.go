package httpc

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/internal/fuzzseed"
	"github.com/promptcanary/promptcanary/internal/redact"
)

// FuzzErrorMessage feeds arbitrary error bodies, seeded with
// testdata/error-*, to the message extractor and the redact-then-cut step
// every client applies: no panic, and a secret in the body never reaches
// the message, whole or as a piece left at the cut.
func FuzzErrorMessage(f *testing.F) {
	const key = "ak-test-7f3e9c1b5d2a8e4f6071"
	fuzzseed.Files(f, "error-*")
	f.Add([]byte(strings.Repeat("x", 290) + key))
	f.Add([]byte(`{"error":"` + strings.Repeat("é", 150) + key + `"}`))
	set := redact.New(key)
	c := &Client{Secrets: set}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := c.Message(ErrorMessage(body))
		if len(msg) > MaxMessage+len("…") {
			t.Fatalf("got %d bytes, want at most %d", len(msg), MaxMessage+len("…"))
		}
		for k := redact.MinPrefix; k <= len(key); k++ {
			if strings.HasSuffix(strings.TrimSuffix(msg, "…"), key[:k]) && strings.HasSuffix(msg, "…") {
				t.Fatalf("message %q ends with %d bytes of the key", msg, k)
			}
		}
		if strings.Contains(msg, key) {
			t.Fatalf("message %q holds the key", msg)
		}
	})
}

// FuzzRetryAfter checks that no Retry-After value yields a negative delay
// or one past MaxRetryAfter, read by the providers (RetryAfter) or the
// notifiers (RetryAfterHeader).
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "0.25", "-1", "1e300", "NaN", "Inf", "Wed, 21 Oct 2015 07:28:00 GMT", "9223372037"} {
		f.Add(s, "")
		f.Add("", s)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, after, afterMs string) {
		h := http.Header{}
		if after != "" {
			h.Set("Retry-After", after)
		}
		if afterMs != "" {
			h.Set("Retry-After-Ms", afterMs)
		}
		if d := RetryAfter(h, now); d < 0 || d > MaxRetryAfter {
			t.Fatalf("RetryAfter(%q, %q) = %v, want within [0, %v]", after, afterMs, d, MaxRetryAfter)
		}
		if d := RetryAfterHeader(h, now); d < 0 || d > MaxRetryAfter {
			t.Fatalf("RetryAfterHeader(%q) = %v, want within [0, %v]", after, d, MaxRetryAfter)
		}
	})
}
