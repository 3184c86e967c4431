package meta

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// Tokens is the tokens probe: it passes when the completion and the whole
// call used at most the configured numbers of tokens. Each limit scores 1
// when kept, falling linearly to 0 at twice the limit, and the probe's
// score is the lower of the two. A response that reports no token counts
// at all passes as skipped; a total of 0 beside other counts is taken as
// prompt + completion.
type Tokens struct {
	// MaxCompletion is the most completion tokens; 0 means no limit.
	MaxCompletion int
	// MaxTotal is the most prompt + completion tokens; 0 means no limit.
	MaxTotal int
}

var _ probe.Probe = (*Tokens)(nil)

const tokensID = "tokens"

func init() {
	probe.Register(probe.Type{
		ID:          tokensID,
		Name:        "Token Usage",
		Category:    promptcanary.CategoryCustom,
		Description: "Checks the completion and total token counts the provider reported against limits.",
		Example: `probes:
  - type: tokens
    max_completion_tokens: 400
    max_total_tokens: 1200
`,
		Params: []probe.Param{
			{Name: "max_completion_tokens", Kind: probe.Int,
				Doc: "most tokens the answer may use; the score falls to 0 at twice this"},
			{Name: "max_total_tokens", Kind: probe.Int,
				Doc: "most prompt + answer tokens the call may use; the score falls to 0 at twice this"},
		},
		New: newTokens,
	})
}

func newTokens(p probe.Params) (probe.Probe, error) {
	t := &Tokens{}
	var errs []error
	c, hasC := p.Int("max_completion_tokens")
	tot, hasT := p.Int("max_total_tokens")
	if !hasC && !hasT {
		errs = append(errs, &probe.ParamError{Msg: "nothing to check: set max_completion_tokens, max_total_tokens or both",
			Hint: "for example max_completion_tokens: 400"})
	}
	if hasC && c < 1 {
		errs = append(errs, &probe.ParamError{Param: "max_completion_tokens", Msg: fmt.Sprintf("must be > 0, got %d", c),
			Hint: "omit max_completion_tokens for no limit on the answer"})
	}
	if hasT && tot < 1 {
		errs = append(errs, &probe.ParamError{Param: "max_total_tokens", Msg: fmt.Sprintf("must be > 0, got %d", tot),
			Hint: "omit max_total_tokens for no limit on the call"})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	t.MaxCompletion, t.MaxTotal = c, tot
	return t, nil
}

// Evaluate compares the reported token counts with the limits. The
// metadata holds "completion_tokens", "total_tokens", each limit that is
// set ("max_completion_tokens", "max_total_tokens") and "skipped".
func (t *Tokens) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	prompt, completion, total := max(r.PromptTokens, 0), max(r.CompletionTokens, 0), max(r.TotalTokens, 0)
	if total == 0 {
		total = prompt + completion
	}
	meta := map[string]any{"completion_tokens": completion, "total_tokens": total, "skipped": false}
	if t.MaxCompletion > 0 {
		meta["max_completion_tokens"] = t.MaxCompletion
	}
	if t.MaxTotal > 0 {
		meta["max_total_tokens"] = t.MaxTotal
	}
	if total == 0 {
		return skip(meta, "The provider reported no token counts, so the check was skipped.")
	}
	score, passed := 1.0, true
	var over, within []string
	check := func(what string, n, limit int) {
		if limit <= 0 {
			return
		}
		if n > limit {
			passed = false
			over = append(over, strconv.Itoa(n)+" "+what+" tokens exceed the limit of "+strconv.Itoa(limit))
		} else {
			within = append(within, strconv.Itoa(n)+" "+what+" tokens")
		}
		score = min(score, overLimit(float64(n), float64(limit)))
	}
	check("completion", completion, t.MaxCompletion)
	check("total", total, t.MaxTotal)
	if len(over) > 0 {
		return probe.Result{Score: score, Metadata: meta, Details: capitalize(strings.Join(over, "; ")) + "."}
	}
	return probe.Result{Passed: passed, Score: score, Metadata: meta,
		Details: capitalize(strings.Join(within, " and ")) + " are within the limits."}
}

// capitalize upper-cases the first byte of an ASCII sentence.
func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
