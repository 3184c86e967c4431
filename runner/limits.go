package runner

import (
	"context"
	"fmt"
	"math"
	"strings"

	"golang.org/x/time/rate"

	"github.com/promptcanary/promptcanary"
)

// Limits are a provider's rate limits; zero means unlimited.
type Limits struct {
	// RPM bounds requests per minute.
	RPM int
	// TPM bounds tokens per minute, counted before each call as the
	// estimated prompt tokens plus max_tokens.
	TPM int
}

// limiter paces calls under Limits with token buckets that start full, so
// a short run is not slowed down and a long one settles at the limit.
type limiter struct {
	requests *rate.Limiter
	tokens   *rate.Limiter
	// adapt, when set, bounds the attempts in flight as the provider's
	// rate limits allow (see throttle).
	adapt *throttle
}

func newLimiter(l Limits) *limiter {
	lim := &limiter{}
	if l.RPM > 0 {
		lim.requests = rate.NewLimiter(rate.Limit(float64(l.RPM)/60), max(1, l.RPM/10))
	}
	if l.TPM > 0 {
		lim.tokens = rate.NewLimiter(rate.Limit(float64(l.TPM)/60), l.TPM)
	}
	return lim
}

// wait blocks until a call estimated at tokens may start. A call needing
// more tokens than the bucket holds (more than TPM) is paced over as many
// minutes as it needs, a bucket at a time, never let through unpaced; a
// cancelled ctx, or a deadline the wait would pass, stops it.
func (l *limiter) wait(ctx context.Context, tokens int64) error {
	if l.requests != nil {
		if err := l.requests.Wait(ctx); err != nil {
			return fmt.Errorf("rate limit: %w", err)
		}
	}
	if l.tokens != nil {
		burst := int64(l.tokens.Burst())
		for left := max(tokens, 1); left > 0; left -= burst {
			if err := l.tokens.WaitN(ctx, int(min(left, burst))); err != nil {
				return fmt.Errorf("rate limit: %w", err)
			}
		}
	}
	return nil
}

// acquire paces an attempt estimated at tokens (wait), then takes a slot
// of the throttle for it: first tells a call's first attempt from a
// retry. Release the slot with l.adapt.release.
func (l *limiter) acquire(ctx context.Context, tokens int64, first bool) (ticket, error) {
	if err := l.wait(ctx, tokens); err != nil {
		return 0, err
	}
	return l.adapt.acquire(ctx, first)
}

// EstimateTokens guesses the prompt tokens of p: about 1.3 tokens a word
// of the text, the system prompt and every conversation turn (a tool call
// and its arguments included), plus the tool definitions. It saturates at
// math.MaxInt32 rather than overflow.
func EstimateTokens(p *promptcanary.Prompt) int {
	words := float64(len(strings.Fields(p.Text)) + len(strings.Fields(p.SystemPrompt)))
	for _, m := range p.Messages {
		words += float64(len(strings.Fields(m.Content)))
		for _, c := range m.ToolCalls {
			words += float64(1 + len(strings.Fields(string(c.Arguments))))
		}
	}
	for _, t := range p.Tools {
		words += float64(len(strings.Fields(t.Description)) + 10 + 5*len(t.Parameters))
	}
	return int(min(math.Ceil(words*1.3)+4, math.MaxInt32))
}

// CallTokens is what the tpm limit counts for one call of p: its estimated
// prompt tokens plus maxTokens (a negative maxTokens counts as 0). It
// cannot overflow.
func CallTokens(p *promptcanary.Prompt, maxTokens int) int64 {
	return SatAdd(int64(EstimateTokens(p)), int64(max(maxTokens, 0)))
}

// PlannedTokens is tokens × calls, for a dry run's estimate of prompt or
// completion tokens: negative values count as 0, and the product
// saturates at math.MaxInt64 instead of overflowing.
func PlannedTokens(tokens int64, calls int) int64 {
	if tokens <= 0 || calls <= 0 {
		return 0
	}
	if tokens > math.MaxInt64/int64(calls) {
		return math.MaxInt64
	}
	return tokens * int64(calls)
}

// SatAdd returns a + b for non-negative a and b, saturating at
// math.MaxInt64 instead of overflowing.
func SatAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
