package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/openai/openaitest"
)

// suiteDefaults is what a canary.yaml without sampling settings runs
// with (check/settings.go): temperature 0, max_tokens 1024.
var suiteDefaults = promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 1024}

// openStandin opens spec against the stand-in with settings.
func openStandin(t *testing.T, s *openaitest.Server, spec string, settings map[string]any) provider.Provider {
	t.Helper()
	set := map[string]any{"base_url": s.BaseURL()}
	for k, v := range settings {
		set[k] = v
	}
	return open(t, spec, provider.Options{Getenv: env(map[string]string{"OPENAI_API_KEY": s.Key}), Settings: set})
}

func strictWeather() promptcanary.Tool {
	return promptcanary.Tool{Name: "get_weather", Description: "Current weather for a city.", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
		"required": []any{"city"}, "additionalProperties": false,
	}}
}

// standinPrompts are the prompt shapes a suite can hold.
func standinPrompts() map[string]*promptcanary.Prompt {
	return map[string]*promptcanary.Prompt{
		"plain": {ID: "plain", Text: "What is the capital of France?"},
		"system and tools": {ID: "tools", Text: "Weather in Paris?", SystemPrompt: "Be terse.",
			Tools: []promptcanary.Tool{strictWeather(), {Name: "now"}}, ToolChoice: "get_weather"},
		"conversation with a tool result": {ID: "conv", Text: "Weather in Paris?", SystemPrompt: "Be terse.",
			Tools: []promptcanary.Tool{strictWeather()},
			Messages: []promptcanary.Message{
				{Role: promptcanary.RoleAssistant, ToolCalls: []promptcanary.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
				{Role: promptcanary.RoleTool, ToolCallID: "call_1", Name: "get_weather", Content: `{"sky":"clear","celsius":21}`},
				{Role: promptcanary.RoleUser, Content: "So, do I need an umbrella?"},
			}},
		"strict json schema": {ID: "schema", Text: "Name a city.", ResponseFormat: &promptcanary.ResponseFormat{
			Type: promptcanary.FormatJSONSchema, Name: "city", Strict: true,
			Schema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}},
				"required": []any{"name"}, "additionalProperties": false},
		}},
		"json object": {ID: "object", Text: "Answer in JSON: the capital of France?",
			ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONObject}},
	}
}

// TestStandinAcceptsEveryModel sends every prompt shape to today's models
// with the suite defaults: the strict stand-in must accept every request,
// on the API the model is served by.
func TestStandinAcceptsEveryModel(t *testing.T) {
	models := map[string]string{
		"gpt-4o-mini": "/v1/chat/completions", "gpt-5": "/v1/chat/completions", "gpt-5-mini": "/v1/chat/completions",
		"o3": "/v1/chat/completions", "o4-mini": "/v1/chat/completions", "o3-mini": "/v1/chat/completions",
		"gpt-5.4": "/v1/chat/completions", "gpt-5-nano": "/v1/chat/completions", "o1": "/v1/chat/completions",
		"gpt-5-chat-latest": "/v1/chat/completions", "gpt-4.1": "/v1/chat/completions",
		"o3-pro": "/v1/responses", "gpt-5-pro": "/v1/responses", "o1-pro": "/v1/responses",
		"gpt-5.1-codex": "/v1/responses", "codex-mini-latest": "/v1/responses", "gpt-5.5-pro": "/v1/responses",
	}
	s := openaitest.Start(t)
	for model, path := range models {
		for name, prompt := range standinPrompts() {
			t.Run(model+"/"+name, func(t *testing.T) {
				p := openStandin(t, s, "openai/"+model, nil)
				cfg := suiteDefaults
				cfg.ModelID = "openai/" + model
				resp, err := p.Generate(context.Background(), &provider.Request{Prompt: prompt, Config: cfg})
				if err != nil {
					t.Fatal(err)
				}
				last, _ := s.Last()
				if last.Path != path {
					t.Errorf("got path %s, want %s", last.Path, path)
				}
				if resp.Content == "" && len(resp.ToolCalls) == 0 {
					t.Errorf("got an empty answer: %+v", resp)
				}
				if resp.ServedModel == "" || resp.ResponseID == "" || resp.TotalTokens == 0 {
					t.Errorf("got served model %q, id %q, %d tokens; want all set", resp.ServedModel, resp.ResponseID, resp.TotalTokens)
				}
			})
		}
	}
	for _, r := range s.Rejections() {
		t.Errorf("stand-in rejected %s: %s\n%s", r.Path, r.Error, r.Body)
	}
}

// TestStandinAPISetting: api: responses selects the Responses API for
// any model, api: chat forces chat completions (which the stand-in, as
// the real API, refuses for o3-pro).
func TestStandinAPISetting(t *testing.T) {
	s := openaitest.Start(t)
	prompt := standinPrompts()["conversation with a tool result"]
	for _, model := range []string{"gpt-4o-mini", "gpt-5", "o4-mini"} {
		p := openStandin(t, s, "openai/"+model, map[string]any{"api": "responses"})
		if _, err := p.Generate(context.Background(), &provider.Request{Prompt: prompt, Config: suiteDefaults}); err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if last, _ := s.Last(); last.Path != "/v1/responses" {
			t.Errorf("%s: got path %s, want /v1/responses", model, last.Path)
		}
	}
	p := openStandin(t, s, "openai/o3-pro", map[string]any{"api": "chat"})
	_, err := p.Generate(context.Background(), &provider.Request{Prompt: prompt, Config: suiteDefaults})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.StatusCode != 404 || !strings.Contains(pe.Message, "only supported in v1/responses") {
		t.Errorf("api: chat for o3-pro: got %v, want the API's 404", err)
	}
}

// TestStandinEdgeCasesAreMeasured: JSON answers, parallel tool calls,
// refusals and answers whose budget went to reasoning are responses, on
// both APIs; a 429 is a retryable error with its delay.
func TestStandinEdgeCasesAreMeasured(t *testing.T) {
	prompt := standinPrompts()["system and tools"]
	prompt.ToolChoice = "auto"
	for _, model := range []string{"gpt-5", "o3-pro", "gpt-4o-mini"} {
		s := openaitest.Start(t)
		p := openStandin(t, s, "openai/"+model, nil)
		gen := func(b openaitest.Behaviour) (*promptcanary.Response, error) {
			s.Set(model, b)
			return p.Generate(context.Background(), &provider.Request{Prompt: prompt, Config: suiteDefaults})
		}
		resp, err := gen(openaitest.JSON)
		if err != nil || !json.Valid([]byte(resp.Content)) || resp.FinishReason != "stop" {
			t.Errorf("%s json: got %+v, %v; want a JSON answer", model, resp, err)
		}
		resp, err = gen(openaitest.ParallelTools)
		if err != nil || len(resp.ToolCalls) != 2 || resp.FinishReason != "tool_calls" {
			t.Errorf("%s parallel tools: got %+v, %v; want two calls", model, resp, err)
		} else if resp.ToolCalls[0].ID == resp.ToolCalls[1].ID || string(resp.ToolCalls[0].Arguments) != `{"city":"example"}` {
			t.Errorf("%s parallel tools: got calls %+v", model, resp.ToolCalls)
		}
		resp, err = gen(openaitest.Refusal)
		if err != nil || resp.Content != openaitest.RefusalText || resp.FinishReason != FinishRefusal {
			t.Errorf("%s refusal: got %+v, %v; want the refusal as content, finishing refusal", model, resp, err)
		}
		resp, err = gen(openaitest.Length)
		if err != nil || resp.FinishReason != "length" {
			t.Errorf("%s length: got %+v, %v; want a measured answer finishing length", model, resp, err)
		} else if model != "gpt-4o-mini" && (resp.Content != "" || resp.CompletionTokens != 1024) {
			t.Errorf("%s length: got content %q and %d completion tokens, want none and the whole budget", model, resp.Content, resp.CompletionTokens)
		}
		_, err = gen(openaitest.RateLimited)
		var pe *provider.Error
		if !errors.As(err, &pe) || pe.StatusCode != 429 || !pe.Retryable || pe.RetryAfter != 20*time.Millisecond {
			t.Errorf("%s 429: got %#v, want a retryable error asking for 20ms", model, err)
		}
		for _, r := range s.Rejections() {
			t.Errorf("%s: stand-in rejected %s: %s", model, r.Path, r.Error)
		}
	}
}

// TestStandinRulesDropRefusedParams: what the config or extra_params ask
// that the model refuses is left out; a nil extra param removes a key.
func TestStandinRulesDropRefusedParams(t *testing.T) {
	tests := []struct {
		model  string
		cfg    promptcanary.ProviderConfig
		want   map[string]any
		absent []string
	}{
		{model: "gpt-5", cfg: promptcanary.ProviderConfig{Temperature: 0.7, MaxTokens: 100, ExtraParams: map[string]any{"top_p": 0.5}},
			want: map[string]any{"max_completion_tokens": 100.0}, absent: []string{"temperature", "top_p", "max_tokens"}},
		{model: "gpt-5", cfg: promptcanary.ProviderConfig{Temperature: 1, ExtraParams: map[string]any{"reasoning_effort": "low"}},
			want: map[string]any{"temperature": 1.0, "reasoning_effort": "low"}},
		{model: "o3", cfg: promptcanary.ProviderConfig{ExtraParams: map[string]any{"temperature": 0.2}}, absent: []string{"temperature"}},
		{model: "gpt-4o-mini", cfg: promptcanary.ProviderConfig{Temperature: 0.3, ExtraParams: map[string]any{"temperature": nil, "top_p": 0.9}},
			want: map[string]any{"top_p": 0.9}, absent: []string{"temperature"}},
		{model: "o3-pro", cfg: promptcanary.ProviderConfig{Temperature: 1, MaxTokens: 8, Seed: seed(1)},
			want: map[string]any{"max_output_tokens": 16.0, "store": false}, absent: []string{"temperature", "seed"}},
	}
	s := openaitest.Start(t)
	for _, tc := range tests {
		p := openStandin(t, s, "openai/"+tc.model, nil)
		if _, err := p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}, Config: tc.cfg}); err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		last, _ := s.Last()
		var body map[string]any
		if err := json.Unmarshal(last.Body, &body); err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.want {
			if !cmp.Equal(body[k], v) {
				t.Errorf("%s: got %s %v, want %v", tc.model, k, body[k], v)
			}
		}
		for _, k := range tc.absent {
			if v, ok := body[k]; ok {
				t.Errorf("%s: got %s %v, want it left out", tc.model, k, v)
			}
		}
	}
}

// TestTokenFieldByModel: the field follows the model whatever the host
// or name; max_tokens_field still overrides it.
func TestTokenFieldByModel(t *testing.T) {
	tests := []struct {
		spec     string
		settings map[string]any
		want     string
	}{
		{"openai/gpt-5", nil, MaxCompletionTokens},
		{"openai/o4-mini", nil, MaxCompletionTokens},
		{"openrouter/openai/gpt-5-mini", nil, MaxCompletionTokens},
		{"hosted_vllm/o3", nil, MaxCompletionTokens},
		{"openai/gpt-4o-mini", nil, MaxTokens},
		{"openai/llama3", nil, MaxTokens},
		{"groq/llama-3.3-70b-versatile", nil, MaxTokens},
		{"openai/gpt-5", map[string]any{"max_tokens_field": "max_tokens"}, MaxTokens},
		// A gateway serves o3-pro through chat completions.
		{"openrouter/openai/o3-pro", nil, MaxCompletionTokens},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s := newServer(t, 200, nil, fixture(t, "chat.json"))
			set := map[string]any{"base_url": s.URL + "/v1"}
			for k, v := range tc.settings {
				set[k] = v
			}
			p := open(t, tc.spec, provider.Options{Getenv: env(map[string]string{"OPENROUTER_API_KEY": testKey, "GROQ_API_KEY": testKey}), Settings: set})
			if _, err := p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}, Config: suiteDefaults}); err != nil {
				t.Fatal(err)
			}
			last := s.Last(t)
			if !strings.HasSuffix(last.URL.Path, "/chat/completions") {
				t.Errorf("got path %s, want chat completions", last.URL.Path)
			}
			body := last.JSON(t)
			if body[tc.want] != 1024.0 {
				t.Errorf("got body %v, want %s: 1024", body, tc.want)
			}
		})
	}
}

// TestReasoningTokens: the reasoning tokens the usage reports
// (completion_tokens_details.reasoning_tokens on chat completions,
// output_tokens_details.reasoning_tokens on the Responses API) are read,
// within the completion tokens; a model that does not reason reports none.
func TestReasoningTokens(t *testing.T) {
	s := openaitest.Start(t)
	prompt := standinPrompts()["plain"]
	for model, want := range map[string]int{"gpt-5": 64, "o3-pro": 64, "gpt-4o-mini": 0} {
		p := openStandin(t, s, "openai/"+model, nil)
		resp, err := p.Generate(context.Background(), &provider.Request{Prompt: prompt, Config: suiteDefaults})
		if err != nil {
			t.Fatal(err)
		}
		if resp.ReasoningTokens != want || resp.ReasoningTokens > resp.CompletionTokens {
			t.Errorf("%s: got %d reasoning tokens of %d completion tokens, want %d", model, resp.ReasoningTokens, resp.CompletionTokens, want)
		}
	}
}

// TestStandinManyToolCalls: an answer of 20,000 parallel tool calls from
// the stand-in, on either API, keeps the first toolcall.Max, marked cut.
func TestStandinManyToolCalls(t *testing.T) {
	prompt := standinPrompts()["system and tools"]
	prompt.ToolChoice = "auto"
	for _, model := range []string{"gpt-5", "o3-pro"} {
		s := openaitest.Start(t)
		s.Set(model, openaitest.ManyTools)
		p := openStandin(t, s, "openai/"+model, nil)
		resp, err := p.Generate(context.Background(), &provider.Request{Prompt: prompt, Config: suiteDefaults})
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if len(resp.ToolCalls) != 128 || !resp.Truncated || resp.OriginalToolCalls != openaitest.ManyToolCalls {
			t.Errorf("%s: got %d calls, truncated %v, original %d; want 128, true, %d", model, len(resp.ToolCalls), resp.Truncated, resp.OriginalToolCalls, openaitest.ManyToolCalls)
		}
		for _, r := range s.Rejections() {
			t.Errorf("%s: stand-in rejected %s: %s", model, r.Path, r.Error)
		}
	}
}
