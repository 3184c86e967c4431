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

// wait blocks until a call estimated at tokens may start.
func (l *limiter) wait(ctx context.Context, tokens int) error {
	if l.requests != nil {
		if err := l.requests.Wait(ctx); err != nil {
			return fmt.Errorf("rate limit: %w", err)
		}
	}
	if l.tokens != nil {
		if err := l.tokens.WaitN(ctx, min(max(tokens, 1), l.tokens.Burst())); err != nil {
			return fmt.Errorf("rate limit: %w", err)
		}
	}
	return nil
}

// EstimateTokens guesses the prompt tokens of p: about 1.3 tokens a word,
// plus the tool definitions.
func EstimateTokens(p *promptcanary.Prompt) int {
	words := len(strings.Fields(p.Text)) + len(strings.Fields(p.SystemPrompt))
	for _, t := range p.Tools {
		words += len(strings.Fields(t.Description)) + 10 + 5*len(t.Parameters)
	}
	return int(math.Ceil(float64(words)*1.3)) + 4
}
