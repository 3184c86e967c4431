package cli

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/runner"
)

// rateState is where a provider's rate limiting stands, for its row of
// the progress bar.
type rateState struct {
	// waits counts the rate-limited waits; limit is the calls allowed in
	// flight of max; left is the retry budget left after the last wait.
	waits      int
	limit, max int
	left       time.Duration
}

// String is the progress row's part: "rate limited ×12: concurrency 8 of
// 16, budget 2m41s left".
func (s *rateState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rate limited ×%d", s.waits)
	if s.max > 0 {
		fmt.Fprintf(&b, ": concurrency %d of %d", s.limit, s.max)
	}
	if s.waits > 0 {
		fmt.Fprintf(&b, ", budget %s left", span(s.left))
	}
	return b.String()
}

// setRate updates the rate limiting shown in spec's row; a nil bar or an
// unknown spec (a judge model) does nothing.
func (p *progressBar) setRate(spec string, f func(*rateState)) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, s := range p.specs {
		if s == spec {
			if p.rows[i].rate == nil {
				p.rows[i].rate = &rateState{}
			}
			f(p.rows[i].rate)
			return
		}
	}
}

// rateNotes tells the user how providers rate limit a run: the progress
// row of each says so as it happens; stderr gets a line for the first
// rate-limited wait of a provider, for each halving of its concurrency
// and for its return to the full concurrency, then sums it all up at the
// end of its run.
type rateNotes struct {
	a   *app
	bar *progressBar
	mu  sync.Mutex
	// told holds the providers whose first rate-limited wait was told.
	told map[string]bool
}

// wait is an OnWait callback for a rate-limited wait.
func (n *rateNotes) wait(w runner.Wait) {
	n.bar.setRate(w.Provider, func(s *rateState) {
		s.waits++
		s.limit, s.max, s.left = w.Concurrency, w.MaxConcurrency, w.BudgetLeft
	})
	n.mu.Lock()
	first := !n.told[w.Provider]
	if n.told == nil {
		n.told = map[string]bool{}
	}
	n.told[w.Provider] = true
	n.mu.Unlock()
	if !first && w.Concurrency == w.WasConcurrency {
		return
	}
	line := waitLine(w)
	if first {
		line += "; further waits are summed up when its run ends"
	}
	n.bar.pause(func() { n.a.warn("%s", line) })
}

// waitLine says why and how long a call waits: "openai/gpt-4o (q): HTTP
// 429 rate limited: concurrency 16 → 8, waiting 2.0s (budget 2m41s
// left)".
func waitLine(w runner.Wait) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s: ", termtext.Safe(w.Provider), termtext.Safe(w.PromptID), termtext.Safe(w.Reason))
	switch {
	case w.MaxConcurrency == 0:
	case w.Concurrency != w.WasConcurrency:
		fmt.Fprintf(&b, "concurrency %d → %d, ", w.WasConcurrency, w.Concurrency)
	default:
		fmt.Fprintf(&b, "concurrency %d, ", w.Concurrency)
	}
	fmt.Fprintf(&b, "waiting %s (budget %s left)", span(w.Delay), span(w.BudgetLeft))
	return b.String()
}

// throttle is an OnThrottle callback: the row shows the new limit, and a
// line says when the provider is back at its full concurrency.
func (n *rateNotes) throttle(th runner.Throttle) {
	n.bar.setRate(th.Provider, func(s *rateState) { s.limit, s.max = th.To, th.Max })
	if th.To == th.Max && th.To > th.From {
		n.bar.pause(func() {
			n.a.warn("%s: concurrency back to %d as its answers go through again", termtext.Safe(th.Provider), th.To)
		})
	}
}

// summary is an OnRateLimits callback: one line with what rate limits did
// to a provider's run.
func (n *rateNotes) summary(rl runner.RateLimits) {
	n.bar.pause(func() { n.a.warn("%s", summaryLine(rl)) })
}

// summaryLine sums up rate limits: "openai/gpt-4o was rate limited: 61
// answers turned calls away (61 retried); concurrency went down to 4 of
// 16 and ended at 16; the waits took 1.3s of the 3m0s retry budget
// (--max-retry-wait)".
func summaryLine(rl runner.RateLimits) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s was rate limited: %s turned calls away (%d retried)", termtext.Safe(rl.Provider), count(rl.Answers, "answer", "answers"), rl.Retried)
	switch {
	case rl.Lowest == rl.Concurrency:
		fmt.Fprintf(&b, "; concurrency stayed at %d", rl.Concurrency)
	case rl.Final == rl.Lowest:
		fmt.Fprintf(&b, "; concurrency went down to %d of %d", rl.Lowest, rl.Concurrency)
	default:
		fmt.Fprintf(&b, "; concurrency went down to %d of %d and ended at %d", rl.Lowest, rl.Concurrency, rl.Final)
	}
	fmt.Fprintf(&b, "; the waits took %s of the %s retry budget (--max-retry-wait)", span(rl.Waited), span(rl.Budget))
	if rl.NotSent > 0 {
		fmt.Fprintf(&b, "; %s not sent once rate limits outlasted it", count(rl.NotSent, "call was", "calls were"))
	}
	return b.String()
}

// span prints a wait to the precision it matters at, cut rather than
// rounded so that a budget is never said to have more left than it has:
// "20ms", "2.0s", "2m41s".
func span(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return d.Truncate(time.Millisecond).String()
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Truncate(100*time.Millisecond).Seconds())
	}
	return d.Truncate(time.Second).String()
}

// count is "1 answer" or "61 answers".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
