package httpc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/provider"
)

// TestResetHeaders: a 429 without Retry-After waits for the rate-limit
// window to reset, as OpenAI
// (https://platform.openai.com/docs/guides/rate-limits, durations) and
// Anthropic (https://docs.anthropic.com/en/api/rate-limits, RFC 3339
// times) put it in their headers.
func TestResetHeaders(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"openai seconds", map[string]string{"x-ratelimit-reset-requests": "1s"}, time.Second},
		{"openai minutes", map[string]string{"x-ratelimit-reset-tokens": "6m0s"}, 6 * time.Minute},
		{"openai milliseconds", map[string]string{"x-ratelimit-reset-requests": "20ms"}, 20 * time.Millisecond},
		{"openai fractions", map[string]string{"x-ratelimit-reset-tokens": "1m30.5s"}, 90*time.Second + 500*time.Millisecond},
		{"the exhausted window decides", map[string]string{
			"x-ratelimit-reset-requests": "1s", "x-ratelimit-remaining-requests": "59",
			"x-ratelimit-reset-tokens": "6m0s", "x-ratelimit-remaining-tokens": "0"}, 6 * time.Minute},
		{"the last of the exhausted windows", map[string]string{
			"x-ratelimit-reset-requests": "2s", "x-ratelimit-remaining-requests": "0",
			"x-ratelimit-reset-tokens": "500ms", "x-ratelimit-remaining-tokens": "0"}, 2 * time.Second},
		{"none exhausted: the first reset", map[string]string{
			"x-ratelimit-reset-requests": "1s", "x-ratelimit-remaining-requests": "59",
			"x-ratelimit-reset-tokens": "6m0s", "x-ratelimit-remaining-tokens": "149984"}, time.Second},
		{"anthropic RFC 3339", map[string]string{
			"anthropic-ratelimit-requests-reset":     now.Add(30 * time.Second).Format(time.RFC3339),
			"anthropic-ratelimit-requests-remaining": "0",
			"anthropic-ratelimit-tokens-reset":       now.Add(50 * time.Second).Format(time.RFC3339),
			"anthropic-ratelimit-tokens-remaining":   "12000"}, 30 * time.Second},
		{"anthropic output tokens", map[string]string{
			"anthropic-ratelimit-output-tokens-reset":     now.Add(1500 * time.Millisecond).Format(time.RFC3339Nano),
			"anthropic-ratelimit-output-tokens-remaining": "0"}, 1500 * time.Millisecond},
		{"a past reset is no wait", map[string]string{"anthropic-ratelimit-requests-reset": now.Add(-time.Second).Format(time.RFC3339)}, 0},
		{"garbage is no wait", map[string]string{"x-ratelimit-reset-requests": "soon"}, 0},
		{"a negative duration is no wait", map[string]string{"x-ratelimit-reset-requests": "-5s"}, 0},
		{"capped", map[string]string{"x-ratelimit-reset-tokens": "100000h"}, MaxRetryAfter},
		{"Retry-After comes first", map[string]string{"Retry-After": "2", "x-ratelimit-reset-tokens": "6m0s", "x-ratelimit-remaining-tokens": "0"}, 2 * time.Second},
		{"retry-after-ms comes first", map[string]string{"retry-after-ms": "150", "x-ratelimit-reset-requests": "1s"}, 150 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			if got := RetryAfter(h, now); got != tc.want {
				t.Errorf("RetryAfter(%v) = %v, want %v", h, got, tc.want)
			}
		})
	}
}

// TestRateLimitedAnswers: 429, 529 and overloaded answers are marked
// RateLimited for the engine; reset headers delay only a 429 (they come
// with every answer); a quota that is used up is not retried at all.
func TestRateLimitedAnswers(t *testing.T) {
	tests := []struct {
		name                   string
		status                 int
		header                 map[string]string
		body                   string
		retryable, rateLimited bool
		after                  time.Duration
		msg                    string
	}{
		{"429 with a reset", 429, map[string]string{"x-ratelimit-reset-requests": "20ms", "x-ratelimit-remaining-requests": "0"},
			`{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			true, true, 20 * time.Millisecond, "requests: Rate limit reached for gpt-4o-mini"},
		{"anthropic 529", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			true, true, 0, "overloaded_error: Overloaded"},
		{"an overloaded 503", 503, nil, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`,
			true, true, 0, "UNAVAILABLE: The model is overloaded. Please try again later."},
		{"a 500 ignores reset headers", 500, map[string]string{"x-ratelimit-reset-tokens": "6m0s"}, `{"error":{"message":"boom"}}`,
			true, false, 0, "boom"},
		{"a 503 honours Retry-After", 503, map[string]string{"Retry-After": "3"}, `{"error":{"message":"busy"}}`,
			true, false, 3 * time.Second, "busy"},
		{"insufficient quota is final", 429, map[string]string{"Retry-After": "1"},
			`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			false, false, 0, "insufficient_quota: You exceeded your current quota, please check your plan and billing details. (the account's quota or credit is used up: check its plan and billing; retrying will not help)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			_, err := (&Client{}).Do(context.Background(), "POST", srv.URL, map[string]string{"a": "b"})
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want *provider.Error", err)
			}
			if pe.Retryable != tc.retryable || pe.RateLimited != tc.rateLimited || pe.RetryAfter != tc.after || pe.Message != tc.msg {
				t.Errorf("got retryable %v rate limited %v after %v %q, want %v %v %v %q", pe.Retryable, pe.RateLimited, pe.RetryAfter, pe.Message, tc.retryable, tc.rateLimited, tc.after, tc.msg)
			}
			if provider.IsRateLimited(err) != tc.rateLimited {
				t.Errorf("IsRateLimited = %v, want %v", !tc.rateLimited, tc.rateLimited)
			}
		})
	}
}
