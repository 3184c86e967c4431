package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/runner"
)

func TestRateLimitLines(t *testing.T) {
	w := runner.Wait{Provider: "openai/gpt-4o", PromptID: "q", Delay: 2 * time.Second, Reason: "HTTP 429 rate limited",
		RateLimited: true, Concurrency: 8, WasConcurrency: 16, MaxConcurrency: 16, BudgetLeft: 161*time.Second + 900*time.Millisecond}
	if got, want := waitLine(w), "openai/gpt-4o (q): HTTP 429 rate limited: concurrency 16 → 8, waiting 2.0s (budget 2m41s left)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	w.WasConcurrency, w.Delay, w.BudgetLeft = 8, 20*time.Millisecond, 29959*time.Millisecond
	if got, want := waitLine(w), "openai/gpt-4o (q): HTTP 429 rate limited: concurrency 8, waiting 20ms (budget 29.9s left)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	tests := []struct {
		rl   runner.RateLimits
		want string
	}{
		{runner.RateLimits{Provider: "openai/gpt-4o", Answers: 61, Retried: 61, Concurrency: 16, Lowest: 4, Final: 16, Waited: 1300 * time.Millisecond, Budget: 3 * time.Minute},
			"openai/gpt-4o was rate limited: 61 answers turned calls away (61 retried); concurrency went down to 4 of 16 and ended at 16; the waits took 1.3s of the 3m0s retry budget (--max-retry-wait)"},
		{runner.RateLimits{Provider: "p", Answers: 1, Retried: 1, Concurrency: 8, Lowest: 8, Final: 8, Waited: 20 * time.Millisecond, Budget: time.Minute},
			"p was rate limited: 1 answer turned calls away (1 retried); concurrency stayed at 8; the waits took 20ms of the 1m0s retry budget (--max-retry-wait)"},
		{runner.RateLimits{Provider: "p", Answers: 51, Retried: 50, NotSent: 184, Concurrency: 16, Lowest: 1, Final: 1, Waited: time.Second, Budget: time.Second},
			"p was rate limited: 51 answers turned calls away (50 retried); concurrency went down to 1 of 16; the waits took 1.0s of the 1.0s retry budget (--max-retry-wait); 184 calls were not sent once rate limits outlasted it"},
	}
	for _, tc := range tests {
		if got := summaryLine(tc.rl); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// TestProgressRowSaysRateLimited: the provider's progress row says how it
// is rate limited, and only its row.
func TestProgressRowSaysRateLimited(t *testing.T) {
	var out strings.Builder
	now := time.Unix(0, 0)
	bar := newProgressBar(&out, []string{"openai/gpt-4o", "sim/stable"}, 200, 200, func() time.Time { return now })
	bar.setRate("openai/gpt-4o", func(s *rateState) { s.waits, s.limit, s.max, s.left = 12, 8, 16, 161*time.Second })
	bar.setRate("judge/other", func(s *rateState) { s.waits = 99 })
	got := progressLine(bar.rows[0], time.Second, 200)
	if !strings.Contains(got, "rate limited ×12: concurrency 8 of 16, budget 2m41s left") {
		t.Errorf("row %q does not say it is rate limited", got)
	}
	if other := progressLine(bar.rows[1], time.Second, 200); strings.Contains(other, "rate limited") {
		t.Errorf("row %q of another provider says rate limited", other)
	}
}

// TestRateNotesTellWhatMatters: off a terminal, stderr gets the first
// rate-limited wait of a provider, each halving and the return to full
// concurrency, not every wait.
func TestRateNotesTellWhatMatters(t *testing.T) {
	var errOut strings.Builder
	n := &rateNotes{a: &app{stdio: Stdio{Err: &errOut}}}
	w := runner.Wait{Provider: "p/m", PromptID: "q", Delay: 20 * time.Millisecond, Reason: "HTTP 429 rate limited", RateLimited: true,
		Concurrency: 16, WasConcurrency: 16, MaxConcurrency: 16, BudgetLeft: time.Minute}
	n.wait(w) // told: the first
	n.wait(w) // not told
	w.Concurrency = 8
	n.wait(w)                                                               // told: a halving
	n.throttle(runner.Throttle{Provider: "p/m", From: 8, To: 9, Max: 16})   // not told
	n.throttle(runner.Throttle{Provider: "p/m", From: 15, To: 16, Max: 16}) // told: back to full
	got := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	want := []string{
		"promptcanary: warning: p/m (q): HTTP 429 rate limited: concurrency 16, waiting 20ms (budget 1m0s left); further waits are summed up when its run ends",
		"promptcanary: warning: p/m (q): HTTP 429 rate limited: concurrency 16 → 8, waiting 20ms (budget 1m0s left)",
		"promptcanary: warning: p/m: concurrency back to 16 as its answers go through again",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
