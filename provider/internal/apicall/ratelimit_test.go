package apicall

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

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
			srv := providertest.Reply(t, tc.status, tc.header, tc.body)
			_, err := Do(context.Background(), &httpc.Client{}, "POST", srv.URL, map[string]string{"a": "b"})
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
