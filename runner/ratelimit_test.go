package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/runner/ratelimittest"

	_ "github.com/promptcanary/promptcanary/provider/openai"
)

// tooMany is a 429 asking for after.
func tooMany(after time.Duration) error {
	return &provider.Error{StatusCode: 429, Retryable: true, RetryAfter: after, Message: "requests: Rate limit reached"}
}

// TestRateLimitsAreRetriedWithinTheBudget is the regression test for
// issue 17: a call answered 429 ten times got 4 attempts and failed,
// although the retry budget was barely touched.
func TestRateLimitsAreRetriedWithinTheBudget(t *testing.T) {
	f := &fakeProvider{fail: func(_ string, attempt int) error {
		if attempt <= 10 {
			return tooMany(time.Second)
		}
		return nil
	}}
	opts := fixedOpts()
	opts.MaxAttempts = 4
	run, err := Execute(context.Background(), testPlan(1, 1), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Errors) != 0 || len(run.LLMResponses) != 1 {
		t.Fatalf("got errors %v, want one answer", run.Errors)
	}
	if got := run.LLMResponses[0].Attempts; got != 11 {
		t.Errorf("got %d attempts, want 11", got)
	}
}

// TestOtherFailuresKeepTheirAttempts: 5xx, resets and timeouts are still
// retried MaxAttempts times in all, the rate limits between them aside.
func TestOtherFailuresKeepTheirAttempts(t *testing.T) {
	f := &fakeProvider{fail: func(_ string, attempt int) error {
		if attempt%2 == 1 {
			return tooMany(time.Second)
		}
		return &provider.Error{StatusCode: 500, Retryable: true, Message: "boom"}
	}}
	opts := fixedOpts()
	opts.MaxAttempts = 3
	run, err := Execute(context.Background(), testPlan(1, 1), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Errors) != 1 {
		t.Fatalf("got %d errors, want 1", len(run.Errors))
	}
	if e := run.Errors[0]; e.Attempts != 6 || e.Message != "HTTP 500: boom" {
		t.Errorf("got %q after %d attempts, want HTTP 500: boom after 6 (3 server errors, 3 rate limits)", e.Message, e.Attempts)
	}
}

// standinPlan is a plan of n prompts against the OpenAI client pointed at
// a rate-limiting stand-in.
func standinPlan(n int) *Plan {
	p := testPlan(n, 1)
	p.Config.ModelID = "openai/gpt-4o-mini"
	p.Config.MaxTokens = 16
	for i := range p.Items {
		p.Items[i].Probes = p.Items[i].Probes[:0]
	}
	return p
}

// openStandin opens the real OpenAI client against srv.
func openStandin(t *testing.T, srv *ratelimittest.Server) provider.Provider {
	t.Helper()
	p, err := provider.Open("openai/gpt-4o-mini", provider.Options{
		Settings: map[string]any{"base_url": srv.URL + "/v1"},
		Getenv: func(k string) string {
			if k == "OPENAI_API_KEY" {
				return "sk-standin-ratelimit-0123456789"
			}
			return ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// recorder collects what the engine tells of its waits and throttling.
type recorder struct {
	mu        sync.Mutex
	waits     []Wait
	slept     time.Duration
	throttles []Throttle
	summary   *RateLimits
}

func (r *recorder) options(o Options) Options {
	onSleep(&o, func(d time.Duration) {
		r.mu.Lock()
		r.slept += d
		r.mu.Unlock()
	})
	o.OnWait = func(w Wait) { r.mu.Lock(); r.waits = append(r.waits, w); r.mu.Unlock() }
	o.OnThrottle = func(th Throttle) { r.mu.Lock(); r.throttles = append(r.throttles, th); r.mu.Unlock() }
	o.OnRateLimits = func(rl RateLimits) { r.summary = &rl }
	return o
}

// rateLimitedRun runs 200 calls at concurrency 16 against a stand-in that
// answers percent of them 429 with a 20ms delay; tweak, if not nil, adjusts
// the options first.
func rateLimitedRun(t *testing.T, percent int, tweak func(*Options)) (*ratelimittest.Server, *recorder, *promptcanary.Run) {
	t.Helper()
	srv := ratelimittest.Start(ratelimittest.Config{Percent: percent, Delay: 20 * time.Millisecond, Key: "sk-standin-ratelimit-0123456789"})
	t.Cleanup(srv.Close)
	rec := &recorder{}
	opts := rec.options(fixedOpts())
	opts.Concurrency = 16
	if tweak != nil {
		tweak(&opts)
	}
	run, err := Execute(context.Background(), standinPlan(200), openStandin(t, srv), opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv, rec, run
}

// TestThirtyPercentRateLimited: with 30% of its calls answered 429 (the
// delay named in retry-after-ms or only in x-ratelimit-reset-requests), a
// 200-call run at concurrency 16 measures every prompt, waiting what each
// answer asked for and never the 6 minutes of the tokens window, which was
// not the one exhausted.
func TestThirtyPercentRateLimited(t *testing.T) {
	srv, rec, run := rateLimitedRun(t, 30, nil)
	if len(run.Errors) != 0 || len(run.LLMResponses) != 200 {
		t.Fatalf("got %d answers and errors %v, want 200 answers", len(run.LLMResponses), run.Errors)
	}
	c := srv.Counts()
	if c.OK != 200 || c.Rejected != 0 || c.Limited < 60 {
		t.Errorf("the stand-in answered %+v, want 200 answers, no request refused and 30%% rate limited", c)
	}
	if len(rec.waits) != c.Limited {
		t.Errorf("got %d waits, want one per 429 (%d)", len(rec.waits), c.Limited)
	}
	for _, w := range rec.waits {
		// 20ms as asked: isolated rate limits add no backoff.
		if !w.RateLimited || w.Delay != 20*time.Millisecond {
			t.Fatalf("got wait %+v, want a rate-limited wait of 20ms", w)
		}
	}
	s := rec.summary
	if s == nil || s.Answers != c.Limited || s.Retried != c.Limited || s.NotSent != 0 || s.Concurrency != 16 || s.Waited <= 0 || s.Waited > rec.slept || s.Budget != DefaultMaxRetryWait {
		t.Errorf("got summary %+v, want %d answers retried, none unsent, %v waited of %v", s, c.Limited, rec.slept, DefaultMaxRetryWait)
	}
}

// TestEveryCallRateLimited: when every call is answered 429 the run stops
// once the budget is spent: the calls it could not send fail at once
// without a request, every error names the budget and --max-retry-wait,
// and the concurrency went down to 1 on the way.
func TestEveryCallRateLimited(t *testing.T) {
	srv, rec, run := rateLimitedRun(t, 100, func(opts *Options) {
		opts.MaxRetryWait = time.Second
		opts.BackoffBase = time.Millisecond
	})
	if len(run.LLMResponses) != 0 || len(run.Errors) != 200 {
		t.Fatalf("got %d answers and %d errors, want 200 errors", len(run.LLMResponses), len(run.Errors))
	}
	notSent := 0
	for _, e := range run.Errors {
		if !strings.Contains(e.Message, "retry budget") || !strings.Contains(e.Message, "--max-retry-wait") {
			t.Fatalf("error %q does not name the retry budget and --max-retry-wait", e.Message)
		}
		if e.Attempts == 0 {
			notSent++
			if want := "not sent: openai/gpt-4o-mini is rate limiting the run for longer than what is left of its 1s retry budget (raise it with --max-retry-wait)"; e.Message != want {
				t.Fatalf("got %q, want %q", e.Message, want)
			}
		}
	}
	c := srv.Counts()
	if s := rec.summary; s == nil || s.Waited > time.Second || c.Limited > 100 || notSent < 100 {
		t.Errorf("slept %v, %d requests, %d calls not sent: want at most the 1s budget, then no more requests", rec.slept, c.Limited, notSent)
	}
	var chain []string
	for _, th := range rec.throttles {
		chain = append(chain, fmt.Sprintf("%d→%d", th.From, th.To))
	}
	if got := strings.Join(chain, " "); got != "16→8 8→4 4→2 2→1" {
		t.Errorf("concurrency went %s, want 16→8 8→4 4→2 2→1", got)
	}
	s := rec.summary
	if s == nil || s.Answers != c.Limited || s.NotSent != notSent || s.Lowest != 1 || s.Final != 1 || s.Waited > rec.slept {
		t.Errorf("got summary %+v, want %d answers, %d not sent, lowest and final concurrency 1, %v waited", s, c.Limited, notSent, rec.slept)
	}
}

// TestConcurrencyRecovers: after a burst of 429s the concurrency halves
// down and grows back to the configured one as answers go through; the
// calls in flight never pass the limit.
func TestConcurrencyRecovers(t *testing.T) {
	var answers atomic.Int32
	f := &fakeProvider{fail: func(string, int) error {
		if answers.Add(1) <= 40 {
			return tooMany(10 * time.Millisecond)
		}
		return nil
	}}
	var rec recorder
	opts := rec.options(fixedOpts())
	opts.Concurrency = 8
	opts.BackoffBase = time.Millisecond
	opts.MaxRetryWait = time.Hour // the fake clock adds up the waits of all calls
	run, err := Execute(context.Background(), testPlan(150, 1), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Errors) != 0 {
		t.Fatalf("got errors %v", run.Errors)
	}
	down, up := 0, 0
	for _, th := range rec.throttles {
		switch {
		case th.To == th.From/2:
			down++
		case th.To == th.From+1:
			up++
		default:
			t.Errorf("got change %+v, want a halving or one more", th)
		}
	}
	s := rec.summary
	if down == 0 || up == 0 || s == nil || s.Lowest >= 8 || s.Final != 8 || s.Answers != 40 {
		t.Errorf("went down %d and up %d times, summary %+v: want down, then back up to 8", down, up, s)
	}
	if got := f.maxSeen.Load(); got > 8 {
		t.Errorf("got %d calls in flight, want at most 8", got)
	}
}

// TestPersistentRateLimitsBackOff: while the provider keeps turning calls
// away with a tiny Retry-After, they wait the exponential backoff as
// well, so the run does not call ever faster while its budget lasts.
func TestPersistentRateLimitsBackOff(t *testing.T) {
	f := &fakeProvider{fail: func(string, int) error { return tooMany(time.Millisecond) }}
	var rec recorder
	opts := rec.options(fixedOpts())
	opts.Concurrency = 1
	opts.MaxRetryWait = time.Minute
	run, err := Execute(context.Background(), testPlan(1, 1), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Errors) != 1 {
		t.Fatalf("got %d errors, want 1", len(run.Errors))
	}
	for i, w := range rec.waits {
		if i < freeLimits && w.Delay != time.Millisecond {
			t.Errorf("wait %d: got %v, want the 1ms asked for", i+1, w.Delay)
		}
	}
	// 1ms waits only, a minute's budget would take 60,000 calls; with the
	// backoff (full jitter, doubling from 500ms to 30s) it takes tens.
	if n := run.Errors[0].Attempts; n > 100 || n < freeLimits+2 {
		t.Errorf("got %d attempts in a minute's budget, want a few dozen", n)
	}
}

// TestThrottle steps the limit by hand: halved once per round of calls in
// flight, never below 1, grown by one per limit's worth of answers, never
// above the configured concurrency.
func TestThrottle(t *testing.T) {
	ctx := context.Background()
	th := newThrottle("p", 8)
	var tks []ticket
	for range 8 {
		tk, _ := th.acquire(ctx, true)
		tks = append(tks, tk)
	}
	// The running share passes one half at the 11th 429 in a row; the
	// first eight, all of one round, cut once at most.
	var got []change
	for _, tk := range tks {
		if c := th.release(tk, false, true); c.from != c.to {
			got = append(got, c)
		}
	}
	if len(got) != 0 {
		t.Fatalf("got changes %v after 8 of 8 429s, want none: the share is below one half", got)
	}
	for range 3 {
		tk, _ := th.acquire(ctx, false)
		if c := th.release(tk, false, true); c.from != c.to {
			got = append(got, c)
		}
	}
	if fmt.Sprint(got) != "[{8 4}]" {
		t.Fatalf("got %v, want one cut to 4", got)
	}
	// Answers to attempts sent before the cut do not cut again.
	if c := th.release(func() ticket { th.inflight++; return 0 }(), false, true); c.to != 4 {
		t.Errorf("an old attempt's 429 cut to %d", c.to)
	}
	for th.now() > 1 {
		tk, _ := th.acquire(ctx, false)
		th.release(tk, false, true)
	}
	tk, _ := th.acquire(ctx, false)
	if c := th.release(tk, false, true); c.to != 1 {
		t.Errorf("went below 1: %v", c)
	}
	for range 200 {
		tk, _ := th.acquire(ctx, false)
		th.release(tk, true, false)
	}
	if th.now() != 8 || th.low != 1 {
		t.Errorf("got limit %d (lowest %d), want back to 8 from 1", th.now(), th.low)
	}
	th.stop(fmt.Errorf("budget"))
	if _, err := th.acquire(ctx, true); err == nil || err.Error() != "not sent: budget" {
		t.Errorf("got %v, want not sent: budget", err)
	}
}

// TestThrottleWaitsForASlot: an attempt past the limit waits until one
// frees, or until its context ends.
func TestThrottleWaitsForASlot(t *testing.T) {
	th := newThrottle("p", 1)
	tk, _ := th.acquire(context.Background(), true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := th.acquire(ctx, true); done <- err }()
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
	go func() { _, err := th.acquire(context.Background(), true); done <- err }()
	th.release(tk, true, false)
	if err := <-done; err != nil {
		t.Errorf("got %v, want a slot", err)
	}
}

// TestBudgetCountsOverlappingWaitsOnce: the budget runs while any call
// waits; sixteen calls told to wait 20s at once spend 20s of it, not
// 320s, so that a provider's Retry-After stops a run no sooner than the
// user's --max-retry-wait says.
func TestBudgetCountsOverlappingWaitsOnce(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}
	b := newBudget(time.Minute, clk.now)
	for range 16 {
		if _, err := b.take(20*time.Second, "429"); err != nil {
			t.Fatal(err)
		}
	}
	if spent, _ := b.used(); spent != 20*time.Second {
		t.Errorf("16 waits of 20s at once spent %v, want 20s", spent)
	}
	_ = clk.sleep(context.Background(), 10*time.Second)
	left, err := b.take(20*time.Second, "429")
	if err != nil || left != 30*time.Second {
		t.Errorf("a wait to 30s from the start: got %v left (%v), want 30s: only its last 10s are new", left, err)
	}
	_ = clk.sleep(context.Background(), 20*time.Second)
	if _, err := b.take(31*time.Second, "429"); err == nil {
		t.Errorf("a wait of 31s with 30s left was taken")
	}
}
