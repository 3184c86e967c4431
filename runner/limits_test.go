package runner

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

func TestLimiterConfiguration(t *testing.T) {
	l := newLimiter(Limits{RPM: 600, TPM: 90000})
	if got := float64(l.requests.Limit()); got != 10 {
		t.Errorf("got %v requests/s, want 10", got)
	}
	if got := l.requests.Burst(); got != 60 {
		t.Errorf("got burst %d, want 60", got)
	}
	if got := float64(l.tokens.Limit()); got != 1500 {
		t.Errorf("got %v tokens/s, want 1500", got)
	}
	if u := newLimiter(Limits{}); u.requests != nil || u.tokens != nil {
		t.Error("got limiters for zero limits, want none")
	}
}

func TestLimiterWaitHonoursContext(t *testing.T) {
	l := newLimiter(Limits{RPM: 1})
	if err := l.wait(context.Background(), 10); err != nil {
		t.Fatalf("first call: got %v, want the full bucket to admit it", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.wait(ctx, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled once the bucket is empty", err)
	}
}

// TestLimiterPacesOversizedCall is the regression test for a call needing
// more tokens than the whole per-minute budget: it was let through after
// one bucket, and an overflowed estimate was not counted at all. It must
// wait for as many buckets as it needs: with a deadline it cannot meet,
// the wait fails at once (the limiter knows it would pass the deadline),
// so the test reads no clock.
func TestLimiterPacesOversizedCall(t *testing.T) {
	huge := &promptcanary.Prompt{Text: "hi"}
	tests := []struct {
		name   string
		tokens int64
	}{
		{"five buckets", 500},
		{"max_tokens near MaxInt", CallTokens(huge, math.MaxInt)},
		{"max_tokens at the bound", CallTokens(huge, promptcanary.MaxMaxTokens)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newLimiter(Limits{TPM: 100})
			// The bucket refills in a minute: a second bucket cannot be
			// had within 30 seconds.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := l.wait(ctx, tc.tokens); err == nil {
				t.Errorf("got nil, want the wait refused (it would pass the deadline)")
			}
		})
	}
	// A call within one bucket starts at once.
	l := newLimiter(Limits{TPM: 100})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := l.wait(ctx, 100); err != nil {
		t.Errorf("got %v, want a full bucket to admit a call of its size", err)
	}
}

func TestTokenArithmeticSaturates(t *testing.T) {
	p := &promptcanary.Prompt{Text: "one two three"}
	if got := CallTokens(p, math.MaxInt); got != math.MaxInt64 {
		t.Errorf("CallTokens(MaxInt) = %d, want MaxInt64", got)
	}
	if got := CallTokens(p, -5); got != int64(EstimateTokens(p)) {
		t.Errorf("CallTokens(-5) = %d, want the prompt estimate %d", got, EstimateTokens(p))
	}
	tests := []struct {
		tokens int64
		calls  int
		want   int64
	}{
		{10, 3, 30},
		{math.MaxInt64 / 2, 3, math.MaxInt64},
		{promptcanary.MaxMaxTokens, promptcanary.MaxSamples * 1000, promptcanary.MaxMaxTokens * promptcanary.MaxSamples * 1000},
		{math.MaxInt64, math.MaxInt, math.MaxInt64},
		{-1, 5, 0},
		{5, -1, 0},
	}
	for _, tc := range tests {
		if got := PlannedTokens(tc.tokens, tc.calls); got != tc.want {
			t.Errorf("PlannedTokens(%d, %d) = %d, want %d", tc.tokens, tc.calls, got, tc.want)
		}
	}
	long := &promptcanary.Prompt{Text: strings.Repeat("w ", 1<<20)}
	if got := EstimateTokens(long); got <= 0 {
		t.Errorf("EstimateTokens = %d, want positive", got)
	}
}

func TestEstimateTokens(t *testing.T) {
	p := &promptcanary.Prompt{Text: "one two three four five six seven eight nine ten", SystemPrompt: "be brief"}
	if got := EstimateTokens(p); got != 20 {
		t.Errorf("got %d, want ceil(12*1.3)+4 = 20", got)
	}
	// A conversation counts every turn: 12 words as above, 2 of a user
	// turn, 1+1 of a call ({"city":"Oslo"} is one field), 2 of its result.
	p.Messages = []promptcanary.Message{
		{Role: "user", Content: "umbrella today?"},
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{{Name: "get_weather", Arguments: []byte(`{"city":"Oslo"}`)}}},
		{Role: "tool", Content: "heavy rain"},
	}
	if got := EstimateTokens(p); got != 28 {
		t.Errorf("conversation: got %d, want ceil(18*1.3)+4 = 28", got)
	}
}
