package httpc

import (
	"net/http"
	"testing"
	"time"
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
