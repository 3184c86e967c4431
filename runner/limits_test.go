package runner

import (
	"context"
	"errors"
	"testing"

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

func TestLimiterOversizedCallIsCapped(t *testing.T) {
	// A call estimated above the whole per-minute budget must still run.
	l := newLimiter(Limits{TPM: 100})
	if err := l.wait(context.Background(), 5000); err != nil {
		t.Errorf("got %v, want the estimate capped at the burst", err)
	}
}

func TestEstimateTokens(t *testing.T) {
	p := &promptcanary.Prompt{Text: "one two three four five six seven eight nine ten", SystemPrompt: "be brief"}
	if got := EstimateTokens(p); got != 20 {
		t.Errorf("got %d, want ceil(12*1.3)+4 = 20", got)
	}
}
