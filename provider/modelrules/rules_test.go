package modelrules

import "testing"

func TestFor(t *testing.T) {
	for _, tc := range []struct {
		model                string
		reasoning, responses bool
	}{
		{"gpt-4o-mini", false, false},
		{"gpt-4.1", false, false},
		{"gpt-5", true, false},
		{"gpt-5-mini", true, false},
		{"gpt-5.4", true, false},
		{"gpt-5-2025-08-07", true, false},
		{"openai/gpt-5", true, false},
		{"gpt-5-chat-latest", false, false},
		{"o1", true, false},
		{"o3", true, false},
		{"o3-mini", true, false},
		{"o4-mini", true, false},
		{"o1-pro", true, true},
		{"o3-pro", true, true},
		{"gpt-5-pro", true, true},
		{"gpt-5-codex", true, true},
		{"codex-mini-latest", true, true},
		{"omni-moderation-latest", false, false},
		{"claude-sonnet-4-5", false, false},
	} {
		r := For(tc.model)
		if got := r.TokenField == MaxCompletionTokens && r.NoTopP && r.Temperature != nil && *r.Temperature == 1; got != tc.reasoning {
			t.Errorf("%s: reasoning rules %v, want %v (%+v)", tc.model, got, tc.reasoning, r)
		}
		if r.ResponsesOnly != tc.responses {
			t.Errorf("%s: responses only %v, want %v", tc.model, r.ResponsesOnly, tc.responses)
		}
		if r.Known() != tc.reasoning {
			t.Errorf("%s: known %v", tc.model, r.Known())
		}
	}
}
