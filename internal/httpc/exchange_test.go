package httpc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/internal/redact"
)

// TestRetryableStatus: 408, 429 and 5xx may mend; another 4xx, a 2xx or
// a 3xx will not.
func TestRetryableStatus(t *testing.T) {
	for code, want := range map[int]bool{408: true, 429: true, 500: true, 502: true, 503: true, 529: true,
		400: false, 401: false, 403: false, 404: false, 409: false, 410: false, 422: false, 200: false, 302: false} {
		if got := RetryableStatus(code); got != want {
			t.Errorf("RetryableStatus(%d) = %v, want %v", code, got, want)
		}
	}
}

// TestRetryAfterHeader reads Retry-After alone: the milliseconds header
// and the rate-limit reset headers are the providers' and do not count.
func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {" 1.5 "}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"0"}}, 0},
		{http.Header{"Retry-After": {"-5"}}, 0},
		{http.Header{"Retry-After": {"NaN"}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"1e300"}}, MaxRetryAfter},
		{http.Header{"Retry-After": {"172800"}}, MaxRetryAfter},
		{http.Header{"Retry-After-Ms": {"250"}}, 0},
		{http.Header{"X-Ratelimit-Reset-Requests": {"6s"}, "X-Ratelimit-Remaining-Requests": {"0"}}, 0},
		{http.Header{}, 0},
	}
	for _, tc := range tests {
		if got := RetryAfterHeader(tc.h, now); got != tc.want {
			t.Errorf("RetryAfterHeader(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

// TestExchangeReturnsEveryStatus: an answer comes back whatever its
// status, with the client's headers (User-Agent among them) sent after
// the request's own; a redirect is not followed under NoRedirects, and
// the other address is never asked.
func TestExchangeReturnsEveryStatus(t *testing.T) {
	var other atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { other.Add(1) }))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != "ua-test" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "missing headers", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, elsewhere.URL, http.StatusFound)
		case "/gone":
			w.WriteHeader(http.StatusGone)
			w.Write([]byte("no such hook"))
		default:
			w.WriteHeader(http.StatusAccepted)
			w.Write([]byte(`{"ok":true}`))
		}
	}))
	defer srv.Close()
	c := &Client{Header: http.Header{"User-Agent": {"ua-test"}}, Redirects: NoRedirects}
	h := http.Header{"Content-Type": {"application/json"}}
	for path, want := range map[string]int{"/": 202, "/gone": 410, "/moved": 302} {
		r, err := c.Exchange(context.Background(), "post", http.MethodPost, srv.URL+path, h, []byte(`{}`))
		if err != nil || r.Status != want {
			t.Fatalf("%s: got %+v, %v; want status %d", path, r, err, want)
		}
	}
	if other.Load() != 0 {
		t.Errorf("the redirect's target got %d requests, want none", other.Load())
	}
}

// TestExchangeErrors: a transport failure is a retryable *Error that
// names neither the URL nor a secret in it; a body over MaxAnswer is a
// final one; an unbuildable request quotes no URL.
func TestExchangeErrors(t *testing.T) {
	const secret = "T0KEN-abcdefghijklmnopqrstuvwx"
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	url := srv.URL + "/services/" + secret
	srv.Close()
	c := &Client{Secrets: redact.New(secret), Redirects: NoRedirects}
	_, err := c.Exchange(context.Background(), "post slack message", http.MethodPost, url, nil, []byte(`{}`))
	e, ok := errors.AsType[*Error](err)
	if !ok || !e.Retryable || e.Code != 0 || !strings.HasPrefix(err.Error(), "post slack message: ") || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), srv.URL) {
		t.Errorf("transport failure: got %v, want a retryable *Error without the URL", err)
	}

	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", MaxAnswer+1)))
	}))
	defer big.Close()
	_, err = c.Exchange(context.Background(), "post", http.MethodGet, big.URL, nil, nil)
	if e, ok := errors.AsType[*Error](err); !ok || e.Retryable || e.Code != 200 || !strings.Contains(e.Message, "larger than") {
		t.Errorf("oversized body: got %v, want a final *Error", err)
	}

	_, err = c.Exchange(context.Background(), "post", "BAD METHOD", "http://x.test/"+secret, nil, nil)
	if err == nil || err.Error() != "post: build request: invalid URL or method" {
		t.Errorf("unbuildable request: got %v", err)
	}
}

// TestExchangeDeadline: a request that outlives its context is a
// retryable *Error that says so and wraps context.DeadlineExceeded.
func TestExchangeDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := (&Client{}).Exchange(ctx, "post", http.MethodPost, srv.URL, nil, nil)
	e, ok := errors.AsType[*Error](err)
	if !ok || !e.Retryable || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(e.Message, "no answer before the deadline") {
		t.Errorf("got %v, want a retryable deadline *Error", err)
	}
}

// TestStatusError words an unwanted answer: status, a scrubbed one-line
// snippet of what the server said, the hint, and the retry advice.
func TestStatusError(t *testing.T) {
	const secret = "hook-secret-0123456789abcdef"
	c := &Client{Secrets: redact.New(secret)}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &Response{Status: 429, Header: http.Header{"Retry-After": {"7"}, "Retry-After-Ms": {"250"}}}
	e := c.StatusError("post webhook", r, "slow\ndown "+secret+" "+strings.Repeat("y", 400), "throttled", now)
	if e.Code != 429 || !e.Retryable || e.RetryAfter != 7*time.Second {
		t.Errorf("got %+v, want a retryable 429 after 7s", e)
	}
	if !strings.HasPrefix(e.Error(), "post webhook: HTTP 429 Too Many Requests: slow down [REDACTED] yyy") || !strings.HasSuffix(e.Error(), "… (throttled)") {
		t.Errorf("got %q", e.Error())
	}
	if strings.Contains(e.Error(), secret) || strings.Contains(e.Message, "\n") {
		t.Errorf("got %q, want one scrubbed line", e.Error())
	}
	e = c.StatusError("post webhook", &Response{Status: 404, Header: http.Header{}}, "", "", now)
	if e.Retryable || e.Error() != "post webhook: HTTP 404 Not Found" {
		t.Errorf("got %v (retryable %v), want a final 404", e, e.Retryable)
	}
	e = c.StatusError("post webhook", &Response{Status: 301, Header: http.Header{}}, "", "ignored", now)
	if e.Error() != "post webhook: HTTP 301 Moved Permanently (redirects are not followed: configure the final URL)" {
		t.Errorf("got %q", e.Error())
	}
}

// TestLine cuts at n bytes, "…" included, and leaves no piece of a
// secret at the cut.
func TestLine(t *testing.T) {
	const secret = "s3cr3t-value-0123456789"
	set := redact.New(secret)
	for pad := 0; pad < 40; pad++ {
		got := Line(set, strings.Repeat("a", pad)+secret+" tail", 30)
		if len(got) > 30 {
			t.Errorf("pad %d: got %d bytes, want at most 30", pad, len(got))
		}
		for k := redact.MinPrefix; k <= len(secret); k++ {
			if strings.Contains(got, secret[:k]) {
				t.Errorf("pad %d: %q holds %d bytes of the secret", pad, got, k)
				break
			}
		}
	}
	if got := Line(nil, "a\tb\x00c\n\nd", 100); got != "a b c d" {
		t.Errorf("got %q, want %q", got, "a b c d")
	}
}
