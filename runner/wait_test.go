package runner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/provider"
)

// rateLimited fails every first attempt of a call with a 429 asking for
// after.
func rateLimited(after time.Duration) *fakeProvider {
	return &fakeProvider{fail: func(_ string, attempt int) error {
		if attempt == 1 {
			return &provider.Error{StatusCode: 429, Retryable: true, RetryAfter: after, Message: "slow down"}
		}
		return nil
	}}
}

// TestRetryBudget is the regression test for a Retry-After of an hour:
// the run slept through it (capped at 5 minutes per retry) without a
// word. A wait past the budget left fails the call at once.
func TestRetryBudget(t *testing.T) {
	tests := []struct {
		name      string
		budget    time.Duration
		after     time.Duration
		prompts   int
		wantWaits []time.Duration
		wantErrs  int
		wantMsg   string
	}{
		{"an hour is past the default budget", 0, time.Hour, 1, nil, 1,
			"retry budget spent: waiting 1h0m0s (HTTP 429 rate limited) exceeds the 3m0s left of the run's 3m0s budget (raise it with --max-retry-wait): HTTP 429: slow down"},
		{"the budget is shared by the run's calls", 10 * time.Second, 4 * time.Second, 3, []time.Duration{4 * time.Second, 4 * time.Second}, 1,
			"retry budget spent: waiting 4s (HTTP 429 rate limited) exceeds the 2s left of the run's 10s budget (raise it with --max-retry-wait): HTTP 429: slow down"},
		{"a negative budget allows no wait", -1, time.Millisecond, 1, nil, 1,
			"retry budget spent: waiting 1ms (HTTP 429 rate limited) exceeds the 0s left of the run's 0s budget (raise it with --max-retry-wait): HTTP 429: slow down"},
		{"within the budget", time.Minute, 7 * time.Second, 2, []time.Duration{7 * time.Second, 7 * time.Second}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var waits []time.Duration
			opts := fixedOpts()
			opts.Concurrency = 1
			opts.MaxRetryWait = tc.budget
			onSleep(&opts, func(d time.Duration) { waits = append(waits, d) })
			run, err := Execute(context.Background(), testPlan(tc.prompts, 1), rateLimited(tc.after), opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(waits) != len(tc.wantWaits) || (len(waits) > 0 && waits[0] != tc.wantWaits[0]) {
				t.Errorf("got waits %v, want %v", waits, tc.wantWaits)
			}
			if len(run.Errors) != tc.wantErrs {
				t.Fatalf("got errors %v, want %d", run.Errors, tc.wantErrs)
			}
			if tc.wantErrs > 0 {
				if e := run.Errors[0]; e.Message != tc.wantMsg || e.Attempts != 1 {
					t.Errorf("got %q after %d attempt(s), want %q after 1", e.Message, e.Attempts, tc.wantMsg)
				}
			}
		})
	}
}

func TestOnWaitSaysWhy(t *testing.T) {
	var got []Wait
	opts := fixedOpts()
	opts.MaxAttempts = 3
	opts.OnWait = func(w Wait) { got = append(got, w) }
	f := &fakeProvider{fail: func(_ string, attempt int) error {
		switch attempt {
		case 1:
			return &provider.Error{StatusCode: 429, Retryable: true, RetryAfter: 2 * time.Second, Message: "slow"}
		case 2:
			return &provider.Error{StatusCode: 503, Retryable: true, RetryAfter: time.Second, Message: "busy"}
		}
		return nil
	}}
	plan := testPlan(1, 1)
	if _, err := Execute(context.Background(), plan, f, opts); err != nil {
		t.Fatal(err)
	}
	want := []Wait{
		{Provider: "fake/m", PromptID: "p0", Delay: 2 * time.Second, Reason: "HTTP 429 rate limited", Attempt: 1, MaxAttempts: 3,
			RateLimited: true, Concurrency: 8, WasConcurrency: 8, MaxConcurrency: 8, BudgetLeft: 178 * time.Second, Budget: 3 * time.Minute},
		{Provider: "fake/m", PromptID: "p0", Delay: time.Second, Reason: "HTTP 503 server error", Attempt: 2, MaxAttempts: 3,
			Concurrency: 8, WasConcurrency: 8, MaxConcurrency: 8, BudgetLeft: 177 * time.Second, Budget: 3 * time.Minute},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestWaitReason(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&provider.Error{StatusCode: 408, Retryable: true}, "HTTP 408"},
		{&provider.Error{Retryable: true, Message: "transport: connection reset by peer"}, "transport: connection reset by peer"},
		{&provider.Error{Retryable: true, Message: strings.Repeat("x", 100)}, strings.Repeat("x", 80) + "…"},
		{context.DeadlineExceeded, "the attempt timed out"},
		{errors.New("odd"), "transient error"},
	}
	for _, tc := range tests {
		if got := waitReason(tc.err, nil); got != tc.want {
			t.Errorf("waitReason(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestWaitHonoursCancel checks that a long wait within the budget ends
// when the run is cancelled: the test would hang otherwise.
func TestWaitHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := fixedOpts()
	opts.Sleep = nil
	opts.MaxRetryWait = 2 * time.Hour
	var once sync.Once
	opts.OnWait = func(Wait) { once.Do(cancel) }
	run, err := Execute(ctx, testPlan(1, 1), rateLimited(time.Hour), opts)
	if !errors.Is(err, context.Canceled) || !run.Interrupted {
		t.Errorf("got %v (interrupted %v), want context.Canceled and an interrupted run", err, run.Interrupted)
	}
}
