package httpc

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}
	if got := RetryAfter(h, now); got != 90*time.Second {
		t.Errorf("got %v, want 90s", got)
	}
	// The delay asked for is kept (the run's retry budget decides), up to
	// MaxRetryAfter, and no value overflows.
	if got := RetryAfter(http.Header{"Retry-After": {"3600"}}, now); got != time.Hour {
		t.Errorf("got %v, want 1h", got)
	}
	for _, h := range []http.Header{{"Retry-After": {"1e300"}}, {"Retry-After-Ms": {"9.3e15"}}, {"Retry-After": {"9223372037"}}} {
		if got := RetryAfter(h, now); got != MaxRetryAfter {
			t.Errorf("RetryAfter(%v) = %v, want the %v cap", h, got, MaxRetryAfter)
		}
	}
	if got := RetryAfter(http.Header{"Retry-After": {"soon"}}, now); got != 0 {
		t.Errorf("got %v, want 0 for garbage", got)
	}
}

// Redact replaces key-shaped strings, bearer tokens, key query parameters
// and the secrets it is given by [REDACTED], and leaves other text alone.
// A key straddling the cut of an error message is TestLine's case.
func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"key sk-proj-abcdefghijklmnop here", "key [REDACTED] here"},
		{"Authorization: Bearer abc.def-ghijkl", "Authorization: [REDACTED]"},
		{"GET /v1?alt=sse&key=AIzaXYZ&x=1", "GET /v1?alt=sse&key=[REDACTED]&x=1"},
		{"nothing secret", "nothing secret"},
	}
	for _, tc := range tests {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Redact("my token is hunter22", "hunter22"); got != "my token is [REDACTED]" {
		t.Errorf("got %q", got)
	}
}

// Authorize sees the request with its headers and the exact body, and
// what it sets is sent; its error fails the call without sending,
// scrubbed of secrets, and keeps the *provider.Error it wraps.
