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

// FinishReason is the finish_reason probe: it passes when the reason the
// provider gave for ending the answer is one of Allowed, or none of
// Forbidden, compared case-insensitively and whole. Set one of the two
// lists. Reasons are each provider's own words: OpenAI and Ollama say stop,
// length, tool_calls, content_filter; Anthropic end_turn, max_tokens,
// tool_use, refusal; Gemini STOP, MAX_TOKENS, SAFETY, and blocked:REASON
// when the prompt itself was blocked. A response without a finish reason
// passes as skipped. The score is 1 or 0.
type FinishReason struct {
	// Allowed are the accepted reasons; empty when Forbidden is used.
	Allowed []string
	// Forbidden are the rejected reasons; empty when Allowed is used.
	Forbidden []string
}

var _ probe.Probe = (*FinishReason)(nil)

const finishID = "finish_reason"

func init() {
	probe.Register(probe.Type{
		ID:          finishID,
		Name:        "Finish Reason",
		Category:    promptcanary.CategoryCustom,
		Description: "Checks why the provider says the answer ended: a truncation, a content filter or a normal stop.",
		Example: `probes:
  - type: finish_reason
    allowed: [stop, end_turn, tool_calls, tool_use]
  - type: finish_reason
    id: not_truncated
    forbidden: [length, max_tokens, content_filter, safety]
`,
		Params: []probe.Param{
			{Name: "allowed", Kind: probe.StringList, Default: []string{},
				Doc: "finish reasons that pass, ignoring case (for example stop, end_turn); set allowed or forbidden"},
			{Name: "forbidden", Kind: probe.StringList, Default: []string{},
				Doc: "finish reasons that fail, ignoring case (for example length, max_tokens, content_filter); set allowed or forbidden"},
		},
		New: newFinishReason,
	})
}

func newFinishReason(p probe.Params) (probe.Probe, error) {
	f := &FinishReason{Allowed: p.Strings("allowed"), Forbidden: p.Strings("forbidden")}
	var errs []error
	switch {
	case len(f.Allowed) == 0 && len(f.Forbidden) == 0:
		errs = append(errs, &probe.ParamError{Msg: "nothing to check: allowed and forbidden are both empty",
			Hint: "list the reasons that pass, for example allowed: [stop], or those that fail, for example forbidden: [length, content_filter]"})
	case len(f.Allowed) > 0 && len(f.Forbidden) > 0:
		errs = append(errs, &probe.ParamError{Param: "forbidden", Msg: "set allowed or forbidden, not both",
			Hint: "allowed already rejects every other reason; remove forbidden, or use a second finish_reason probe"})
	}
	errs = append(errs, checkReasons("allowed", f.Allowed)...)
	errs = append(errs, checkReasons("forbidden", f.Forbidden)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return f, nil
}

// checkReasons reports empty and repeated reasons.
func checkReasons(param string, reasons []string) []error {
	var errs []error
	for i, r := range reasons {
		name := fmt.Sprintf("%s[%d]", param, i)
		if strings.TrimSpace(r) == "" {
			errs = append(errs, &probe.ParamError{Param: name, Msg: "must not be empty",
				Hint: "a response without a finish reason is skipped; list reasons such as stop or length"})
			continue
		}
		for j := range i {
			if strings.EqualFold(reasons[j], r) {
				errs = append(errs, &probe.ParamError{Param: name, Msg: fmt.Sprintf("reason %q repeats %s[%d]", r, param, j),
					Hint: "reasons are compared ignoring case; list each once"})
				break
			}
		}
	}
	return errs
}

// Evaluate compares the response's finish reason with the lists. The
// metadata holds "finish_reason" and "skipped".
func (f *FinishReason) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	reason := r.FinishReason
	meta := map[string]any{"finish_reason": reason, "skipped": false}
	if strings.TrimSpace(reason) == "" {
		return skip(meta, "The provider reported no finish reason, so the check was skipped.")
	}
	q := strconv.Quote(reason)
	if len(f.Allowed) > 0 {
		for _, a := range f.Allowed {
			if strings.EqualFold(reason, a) {
				return probe.Result{Passed: true, Score: 1, Metadata: meta, Details: "Finish reason " + q + " is allowed."}
			}
		}
		return probe.Result{Metadata: meta, Details: "Finish reason " + q + " is not among the allowed " + quoteList(f.Allowed) + "."}
	}
	for _, x := range f.Forbidden {
		if strings.EqualFold(reason, x) {
			return probe.Result{Metadata: meta, Details: "Finish reason " + q + " is forbidden."}
		}
	}
	return probe.Result{Passed: true, Score: 1, Metadata: meta, Details: "Finish reason " + q + " is not forbidden."}
}

// quoteList quotes each reason, comma-separated.
func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}
