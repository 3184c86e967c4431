package modelrules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func cfg(model string, temp float64, maxTokens int, extra map[string]any) promptcanary.ProviderConfig {
	return promptcanary.ProviderConfig{ModelID: model, Temperature: temp, MaxTokens: maxTokens, ExtraParams: extra}
}

func TestApplyOpenAIReasoning(t *testing.T) {
	in := cfg("openai/gpt-5", 0, 1024, map[string]any{"top_p": 0.9})
	got, notes, err := Apply(in)
	if err != nil {
		t.Fatal(err)
	}
	if got.Temperature != 1 {
		t.Errorf("temperature %v, want 1", got.Temperature)
	}
	if v, ok := got.ExtraParams["top_p"]; !ok || v != nil {
		t.Errorf("top_p %v (present %v), want removed (nil)", v, ok)
	}
	want := []string{
		"gpt-5 takes no temperature but the default 1: sends 1 instead of 0",
		"gpt-5 takes no top_p: sends none instead of 0.9",
	}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if in.Temperature != 0 || in.ExtraParams["top_p"] != 0.9 {
		t.Errorf("Apply changed its argument: %+v", in)
	}
	// temperature: null in extra_params sends none: nothing to change.
	got, notes, _ = Apply(cfg("openai/o3", 0, 1024, map[string]any{"temperature": nil}))
	if len(notes) != 0 || got.ExtraParams["temperature"] != nil {
		t.Errorf("temperature: null: notes %q, config %+v", notes, got)
	}
	// extra_params' own temperature is what is sent, so it is the one fixed.
	got, notes, _ = Apply(cfg("openai/o4-mini", 1, 1024, map[string]any{"temperature": 0.2}))
	if got.ExtraParams["temperature"] != 1.0 || len(notes) != 1 || !strings.Contains(notes[0], "instead of 0.2") {
		t.Errorf("extra temperature: notes %q, config %+v", notes, got)
	}
	// A chat model keeps everything.
	got, notes, _ = Apply(cfg("openai/gpt-4o-mini", 0, 1024, map[string]any{"top_p": 0.9}))
	if len(notes) != 0 || got.Temperature != 0 || got.ExtraParams["top_p"] != 0.9 {
		t.Errorf("gpt-4o-mini: notes %q, config %+v", notes, got)
	}
}

func TestApplyClaudeOneSampler(t *testing.T) {
	got, notes, err := Apply(cfg("anthropic/claude-sonnet-4-5", 0, 1024, map[string]any{"top_p": 0.9}))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.ExtraParams["top_p"]; !ok || v != nil || got.Temperature != 0 {
		t.Errorf("config %+v, want temperature 0 and top_p removed", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "temperature or top_p, not both") {
		t.Errorf("notes %q", notes)
	}
	// Bedrock's Converse API spells it topP.
	got, notes, _ = Apply(cfg("bedrock/anthropic.claude-opus-4-1-20250805-v1:0", 0, 1024, map[string]any{"topP": 0.9}))
	if v, ok := got.ExtraParams["topP"]; !ok || v != nil || len(notes) != 1 {
		t.Errorf("topP: notes %q, config %+v", notes, got)
	}
	if _, ok := got.ExtraParams["top_p"]; ok {
		t.Errorf("top_p added: %+v", got.ExtraParams)
	}
	// With temperature: null the user chose top_p: it stays.
	got, notes, _ = Apply(cfg("bedrock/us.anthropic.claude-haiku-4-5-20251001-v1:0", 0, 1024, map[string]any{"temperature": nil, "top_p": 0.9}))
	if len(notes) != 0 || got.ExtraParams["top_p"] != 0.9 {
		t.Errorf("temperature: null: notes %q, config %+v", notes, got)
	}
	// Claude 3.5 takes both.
	if _, notes, _ := Apply(cfg("anthropic/claude-3-5-sonnet-latest", 0, 1024, map[string]any{"top_p": 0.9})); len(notes) != 0 {
		t.Errorf("claude-3-5: notes %q", notes)
	}
}

func TestApplyClaudeNoSampling(t *testing.T) {
	got, notes, err := Apply(cfg("anthropic/claude-opus-4-7", 0, 1024, map[string]any{"top_k": 5}))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"temperature", "top_k"} {
		if v, ok := got.ExtraParams[k]; !ok || v != nil {
			t.Errorf("%s not removed: %+v", k, got.ExtraParams)
		}
	}
	if len(notes) != 2 {
		t.Errorf("notes %q", notes)
	}
	_, _, err = Apply(cfg("anthropic/claude-opus-4-7", 0, 4096, map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 2048}}))
	if err == nil || !strings.Contains(err.Error(), "type: adaptive") {
		t.Errorf("budget thinking on 4.7: %v", err)
	}
}

func TestApplyClaudeThinking(t *testing.T) {
	thinking := func(budget any) map[string]any {
		return map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": budget}, "top_k": 40, "top_p": 0.5}
	}
	got, notes, err := Apply(cfg("anthropic/claude-sonnet-4-5", 0, 4096, thinking(2048)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Temperature != 1 || got.ExtraParams["top_k"] != nil || got.ExtraParams["top_p"] != nil {
		t.Errorf("config %+v, want temperature 1, no top_k, no top_p", got)
	}
	if len(notes) != 3 || !strings.Contains(notes[0], "extended thinking takes no temperature but 1") {
		t.Errorf("notes %q", notes)
	}
	for _, tc := range []struct {
		budget any
		want   string
	}{
		{512, "below 1024"},
		{4096, "not below max_tokens 4096"},
		{"lots", "not a number"},
	} {
		if _, _, err := Apply(cfg("anthropic/claude-sonnet-4-5", 0, 4096, thinking(tc.budget))); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("budget %v: error %v, want %q", tc.budget, err, tc.want)
		}
	}
	// top_p 0.95 is allowed with thinking.
	got, _, _ = Apply(cfg("anthropic/claude-3-7-sonnet-latest", 1, 4096, map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 1024}, "top_p": 0.95}))
	if got.ExtraParams["top_p"] != 0.95 {
		t.Errorf("top_p 0.95 removed: %+v", got.ExtraParams)
	}
}

func TestApplyGemini(t *testing.T) {
	// The thinking warning changes nothing, so it is a warning, not an
	// adjustment.
	if _, notes, _ := Apply(cfg("gemini/gemini-2.5-pro", 0, 1024, nil)); len(notes) != 0 {
		t.Errorf("2.5 pro at 1024: adjustments %q, want none", notes)
	}
	notes := Warnings(cfg("gemini/gemini-2.5-pro", 0, 1024, nil))
	if len(notes) != 1 || !strings.Contains(notes[0], "MAX_TOKENS") {
		t.Errorf("2.5 pro at 1024: warnings %q", notes)
	}
	if notes := Warnings(cfg("gemini/gemini-2.5-flash", 0, 16384, nil)); len(notes) != 0 {
		t.Errorf("roomy max_tokens: notes %q", notes)
	}
	if notes := Warnings(cfg("gemini/gemini-2.5-flash-lite", 0, 1024, nil)); len(notes) != 0 {
		t.Errorf("flash-lite does not think by default: notes %q", notes)
	}
	budget := map[string]any{"generationConfig": map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": 256}}}
	if notes := Warnings(cfg("vertex/gemini-2.5-flash", 0, 1024, budget)); len(notes) != 0 {
		t.Errorf("budget below max_tokens: notes %q", notes)
	}
	budget = map[string]any{"thinking_config": map[string]any{"thinking_budget": 2048}}
	if notes := Warnings(cfg("gemini/gemini-2.5-flash", 0, 1024, budget)); len(notes) != 1 || !strings.Contains(notes[0], "not below max_tokens") {
		t.Errorf("budget above max_tokens: notes %q", notes)
	}
	if notes := Warnings(cfg("openai/gpt-5", 0, 16, nil)); len(notes) != 0 {
		t.Errorf("gpt-5: warnings %q", notes)
	}
}

// The OpenAI client sends Responses-only models no temperature and at
// least 16 output tokens; the run must record that, not temperature 1.
func TestApplyResponsesOnly(t *testing.T) {
	got, notes, err := Apply(cfg("openai/o3-pro", 0, 8, nil))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.ExtraParams["temperature"]; !ok || v != nil {
		t.Errorf("temperature %v (present %v), want removed (nil)", v, ok)
	}
	if got.MaxTokens != 16 {
		t.Errorf("max_tokens %d, want 16", got.MaxTokens)
	}
	want := []string{
		"o3-pro takes no temperature on the Responses API: sends none (asked 0)",
		"o3-pro takes max_output_tokens of 16 or more on the Responses API: sends 16 instead of 8",
	}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	// A roomy limit and temperature: null are left alone.
	got, notes, _ = Apply(cfg("openai/o4-mini-deep-research", 0, 1024, map[string]any{"temperature": nil}))
	if len(notes) != 0 || got.MaxTokens != 1024 {
		t.Errorf("deep research: notes %q, config %+v", notes, got)
	}
}

func TestApplyGeminiProThinksAlways(t *testing.T) {
	off := map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": 0}}
	if _, _, err := Apply(cfg("gemini/gemini-2.5-pro", 0, 1024, off)); err == nil || !strings.Contains(err.Error(), "cannot turn thinking off") {
		t.Errorf("2.5 pro with budget 0: %v", err)
	}
	if _, _, err := Apply(cfg("gemini/gemini-2.5-flash", 0, 1024, off)); err != nil {
		t.Errorf("2.5 flash with budget 0: %v", err)
	}
}

func TestApplyUnknownModel(t *testing.T) {
	in := cfg("ollama/llama3.1", 0, 1024, map[string]any{"top_p": 0.9})
	got, notes, err := Apply(in)
	if err != nil || len(notes) != 0 || !reflect.DeepEqual(got, in) {
		t.Errorf("unknown model changed: %+v %q %v", got, notes, err)
	}
}

// A reasoning model sent through the Responses API by choice (api:
// responses) gets what a Responses-only one gets: no temperature at all
// (the client sends none there), and the note says so; a chat model
// through either API, and a reasoning model through chat, are unchanged.
func TestApplyViaResponses(t *testing.T) {
	got, notes, err := ApplyVia(cfg("openai/gpt-5", 0, 1024, nil), APIResponses)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.ExtraParams["temperature"]; !ok || v != nil {
		t.Errorf("gpt-5 via responses: temperature %v (present %v), want removed", v, ok)
	}
	if want := []string{"gpt-5 takes no temperature on the Responses API: sends none (asked 0)"}; !reflect.DeepEqual(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if got, _, _ := ApplyVia(cfg("openai/gpt-5", 0, 1024, nil), ""); got.Temperature != 1 {
		t.Errorf("gpt-5 via chat: temperature %v, want 1", got.Temperature)
	}
	if got, notes, _ := ApplyVia(cfg("openai/gpt-4o-mini", 0, 1024, nil), APIResponses); len(notes) != 0 || got.Temperature != 0 {
		t.Errorf("gpt-4o-mini via responses: %+v %q, want unchanged", got, notes)
	}
}
