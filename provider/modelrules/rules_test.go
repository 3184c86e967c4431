package modelrules

import (
	"strings"
	"testing"
)

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
		{"o3-deep-research", true, true},
		{"o3-deep-research-2025-06-26", true, true},
		{"o4-mini-deep-research", true, true},
		{"computer-use-preview", true, true},
		{"computer-use-preview-2025-03-11", true, true},
		{"omni-moderation-latest", false, false},
		{"claude-sonnet-4-5", false, false},
		{"openai.gpt-oss-120b-1:0", false, false},
	} {
		r := For(tc.model)
		if got := r.TokenField == MaxCompletionTokens && r.NoTopP && r.Temperature != nil && *r.Temperature == 1; got != tc.reasoning {
			t.Errorf("%s: reasoning rules %v, want %v (%+v)", tc.model, got, tc.reasoning, r)
		}
		if r.ResponsesOnly != tc.responses {
			t.Errorf("%s: responses only %v, want %v", tc.model, r.ResponsesOnly, tc.responses)
		}
	}
}

func TestBase(t *testing.T) {
	for in, want := range map[string]string{
		"openai/gpt-5":                                    "gpt-5",
		"openrouter/openai/gpt-5":                         "gpt-5",
		"anthropic.claude-sonnet-4-5-20250929-v1:0":       "claude-sonnet-4-5-20250929-v1:0",
		"us.anthropic.claude-sonnet-4-5-20250929-v1:0":    "claude-sonnet-4-5-20250929-v1:0",
		"us-gov.anthropic.claude-3-haiku-20240307-v1:0":   "claude-3-haiku-20240307-v1:0",
		"global.anthropic.claude-haiku-4-5-20251001-v1:0": "claude-haiku-4-5-20251001-v1:0",
		"claude-sonnet-4-5@20250929":                      "claude-sonnet-4-5",
		"anthropic/claude-sonnet-4.5":                     "claude-sonnet-4-5",
		"gpt-4.1-mini":                                    "gpt-4.1-mini",
		"gemini-2.5-flash":                                "gemini-2.5-flash",
		"meta.llama3-3-70b-instruct-v1:0":                 "llama3-3-70b-instruct-v1:0",
		"GPT-5":                                           "gpt-5",
	} {
		if got := Base(in); got != want {
			t.Errorf("Base(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClaudeRules(t *testing.T) {
	for _, tc := range []struct {
		model                          string
		oneSampler, noSampling, budget bool
	}{
		{"claude-3-5-sonnet-20241022", false, false, false},
		{"claude-3-5-haiku-latest", false, false, false},
		{"claude-3-7-sonnet-20250219", false, false, true},
		{"claude-opus-4-20250514", false, false, true},
		{"claude-sonnet-4-0", false, false, true},
		{"claude-opus-4-1", true, false, true},
		{"claude-opus-4-1-20250805", true, false, true},
		{"claude-sonnet-4-5", true, false, true},
		{"claude-haiku-4-5", true, false, true},
		{"claude-opus-4-5", true, false, true},
		{"claude-sonnet-4-6", true, false, true},
		{"anthropic/claude-sonnet-4.5", true, false, true},
		{"bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", true, false, true},
		{"anthropic.claude-opus-4-1-20250805-v1:0", true, false, true},
		{"vertex/claude-sonnet-4-5@20250929", true, false, true},
		{"vertex/claude-opus-4@20250514", false, false, true},
		{"claude-opus-4-7", false, true, false},
		{"claude-sonnet-5", false, true, false},
	} {
		r := For(tc.model)
		if r.Vendor != VendorAnthropic || !r.Known() {
			t.Errorf("%s: vendor %q", tc.model, r.Vendor)
		}
		if r.OneSampler != tc.oneSampler || r.NoTemperature != tc.noSampling || r.ThinkingBudget != tc.budget || r.AdaptiveThinkingOnly != tc.noSampling {
			t.Errorf("%s: got %+v", tc.model, r)
		}
	}
}

func TestGeminiRules(t *testing.T) {
	for _, tc := range []struct {
		model             string
		thinks, byDefault bool
		min               int
	}{
		{"gemini-1.5-pro", false, false, 0},
		{"gemini-2.0-flash", false, false, 0},
		{"gemini-2.5-pro", true, true, 128},
		{"gemini/gemini-2.5-pro-preview-06-05", true, true, 128},
		{"gemini-2.5-flash", true, true, 0},
		{"vertex/gemini-2.5-flash", true, true, 0},
		{"gemini-2.5-flash-lite", true, false, 0},
		{"gemini-3-pro-preview", true, true, 128},
	} {
		r := For(tc.model)
		if r.Vendor != VendorGoogle || r.ThinksInOutput != tc.thinks || r.ThinksByDefault != tc.byDefault || r.MinThinkingBudget != tc.min {
			t.Errorf("%s: got %+v", tc.model, r)
		}
	}
	if r := For("llama3.1"); r.Known() {
		t.Errorf("llama3.1 has rules %+v, want the plain ones", r)
	}
}

func TestDescribe(t *testing.T) {
	for model, want := range map[string]string{
		"gpt-5-pro":         "temperature 1 only; no top_p; max_completion_tokens; Responses API only",
		"claude-sonnet-4-5": "temperature or top_p, not both; thinking budget 1024 to below max_tokens, with temperature 1",
		"claude-opus-4-7":   "no temperature; no top_p; no top_k; adaptive thinking only",
		"gemini-2.5-pro":    "always thinks, within max_tokens",
		"gemini-2.5-flash":  "thinks by default, within max_tokens",
		"gpt-4o":            "",
	} {
		if got := strings.Join(For(model).Describe(), "; "); got != want {
			t.Errorf("%s: %q, want %q", model, got, want)
		}
	}
}
