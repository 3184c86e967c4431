package provider_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/promptcanary/promptcanary/provider"
)

func TestIsRateLimited(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&provider.Error{StatusCode: 429, Retryable: true}, true},
		{&provider.Error{StatusCode: 529, Retryable: true}, true},
		{&provider.Error{Retryable: true, RateLimited: true}, true},
		{fmt.Errorf("call: %w", &provider.Error{StatusCode: 429, Retryable: true}), true},
		// Anthropic's errors passed through with a 2xx status by a proxy.
		{&provider.Error{Retryable: true, Message: "overloaded_error: Overloaded"}, true},
		{&provider.Error{Retryable: true, Message: "rate_limit_error: Number of request tokens has exceeded your per-minute rate limit"}, true},
		{&provider.Error{StatusCode: 503, Retryable: true, Message: "UNAVAILABLE: The model is overloaded. Please try again later."}, true},
		// A 429 that no retry mends (insufficient_quota) is not retryable.
		{&provider.Error{StatusCode: 429, Message: "insufficient_quota: You exceeded your current quota"}, false},
		{&provider.Error{StatusCode: 500, Retryable: true, Message: "boom"}, false},
		{&provider.Error{Retryable: true, Message: "transport: connection reset by peer"}, false},
		{errors.New("HTTP 429"), false},
		{nil, false},
	}
	for _, tc := range tests {
		if got := provider.IsRateLimited(tc.err); got != tc.want {
			t.Errorf("IsRateLimited(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
