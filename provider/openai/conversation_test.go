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
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
	"github.com/promptcanary/promptcanary/provider/openai/openaitest"
)

// TestConversationWireShapes pins the exact form of a conversation with
// a tool result and of structured output on both APIs.
func TestConversationWireShapes(t *testing.T) {
	prompt := standinPrompts()["conversation with a tool result"]
	prompt.ToolChoice = "get_weather"
	prompt.ResponseFormat = &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONSchema, Name: "advice", Strict: true,
		Schema: map[string]any{"type": "object", "properties": map[string]any{"umbrella": map[string]any{"type": "boolean"}},
			"required": []any{"umbrella"}, "additionalProperties": false}}
	weatherParams := map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
		"required": []any{"city"}, "additionalProperties": false}
	schema := map[string]any{"type": "object", "properties": map[string]any{"umbrella": map[string]any{"type": "boolean"}},
		"required": []any{"umbrella"}, "additionalProperties": false}
	tests := []struct {
		model string
		want  map[string]any
	}{
		{model: "gpt-5", want: map[string]any{
			"model": "gpt-5", "max_completion_tokens": 1024.0,
			"messages": []any{
				map[string]any{"role": "system", "content": "Be terse."},
				map[string]any{"role": "user", "content": "Weather in Paris?"},
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
					"id": "call_1", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": `{"city":"Paris"}`}}}},
				map[string]any{"role": "tool", "tool_call_id": "call_1", "content": `{"sky":"clear","celsius":21}`},
				map[string]any{"role": "user", "content": "So, do I need an umbrella?"},
			},
			"tools": []any{map[string]any{"type": "function", "function": map[string]any{
				"name": "get_weather", "description": "Current weather for a city.", "parameters": weatherParams}}},
			"tool_choice":     map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}},
			"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "advice", "schema": schema, "strict": true}},
		}},
		{model: "o3-pro", want: map[string]any{
			"model": "o3-pro", "max_output_tokens": 1024.0, "store": false, "instructions": "Be terse.",
			"input": []any{
				map[string]any{"role": "user", "content": "Weather in Paris?"},
				map[string]any{"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": `{"city":"Paris"}`},
				map[string]any{"type": "function_call_output", "call_id": "call_1", "output": `{"sky":"clear","celsius":21}`},
				map[string]any{"role": "user", "content": "So, do I need an umbrella?"},
			},
			"tools": []any{map[string]any{"type": "function", "name": "get_weather", "description": "Current weather for a city.",
				"parameters": weatherParams, "strict": false}},
			"tool_choice": map[string]any{"type": "function", "name": "get_weather"},
			"text":        map[string]any{"format": map[string]any{"type": "json_schema", "name": "advice", "schema": schema, "strict": true}},
		}},
	}
	s := openaitest.Start(t)
	s.Set("", openaitest.JSON)
	for _, tc := range tests {
		p := openStandin(t, s, "openai/"+tc.model, nil)
		resp, err := p.Generate(context.Background(), &provider.Request{Prompt: prompt, Config: suiteDefaults})
		if err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		if resp.Content != `{"umbrella":true}` {
			t.Errorf("%s: got content %q, want the structured answer", tc.model, resp.Content)
		}
		last, _ := s.Last()
		var body map[string]any
		if err := json.Unmarshal(last.Body, &body); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, body); diff != "" {
			t.Errorf("%s: body mismatch (-want +got):\n%s", tc.model, diff)
		}
	}
}

// TestResponsesDecode reads the Responses API's answer shapes.
func TestResponsesDecode(t *testing.T) {
	tests := []struct {
		name, body string
		want       promptcanary.Response
		wantErr    string
	}{
		{name: "text after reasoning", body: `{"id":"resp_1","model":"o3-pro-2025-06-10","status":"completed","output":[{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"thinking"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Paris."}]}],"usage":{"input_tokens":10,"output_tokens":30,"total_tokens":40,"output_tokens_details":{"reasoning_tokens":28}}}`,
			want: promptcanary.Response{Content: "Paris.", FinishReason: "stop", PromptTokens: 10, CompletionTokens: 30, TotalTokens: 40, ReasoningTokens: 28, ServedModel: "o3-pro-2025-06-10", ResponseID: "resp_1"}},
		{name: "function calls", body: `{"id":"resp_2","model":"m","status":"completed","output":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{\"a\": 1}"},{"type":"function_call","call_id":"c2","name":"g","arguments":""}],"usage":{"input_tokens":1,"output_tokens":2}}`,
			want: promptcanary.Response{FinishReason: "tool_calls", PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3, ServedModel: "m", ResponseID: "resp_2",
				ToolCalls: []promptcanary.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}, {ID: "c2", Name: "g", Arguments: json.RawMessage(`{}`)}}}},
		{name: "refusal", body: `{"id":"resp_3","model":"m","status":"completed","output":[{"type":"message","content":[{"type":"refusal","refusal":"No."}]}]}`,
			want: promptcanary.Response{Content: "No.", FinishReason: FinishRefusal, ServedModel: "m", ResponseID: "resp_3"}},
		{name: "incomplete: budget spent on reasoning", body: `{"id":"resp_4","model":"m","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"reasoning","id":"rs","summary":[]}],"usage":{"input_tokens":5,"output_tokens":64,"total_tokens":69}}`,
			want: promptcanary.Response{FinishReason: "length", PromptTokens: 5, CompletionTokens: 64, TotalTokens: 69, ServedModel: "m", ResponseID: "resp_4"}},
		{name: "incomplete: filtered", body: `{"id":"resp_5","model":"m","status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[]}`,
			want: promptcanary.Response{FinishReason: "content_filter", ServedModel: "m", ResponseID: "resp_5"}},
		{name: "failed", body: `{"id":"resp_6","status":"failed","error":{"code":"server_error","message":"boom"},"output":[]}`, wantErr: "response failed: boom"},
		{name: "queued", body: `{"id":"resp_7","status":"queued","output":[]}`, wantErr: `response status "queued"`},
		{name: "completed but empty", body: `{"id":"resp_8","status":"completed","output":[]}`, wantErr: "no output text"},
		{name: "truncated body", body: `{"id":"resp_9","status":"comp`, wantErr: "malformed json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeResponse([]byte(tc.body))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(strings.ToLower(err.Error()), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.RawResponse = nil
			if diff := cmp.Diff(&tc.want, got); diff != "" {
				t.Errorf("response mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAPISettingErrors: the api setting takes chat or responses, and
// azure only chat.
func TestAPISettingErrors(t *testing.T) {
	tests := []struct{ spec, api, want, hint string }{
		{"openai/gpt-5", "completions", `openai: setting api: got "completions", want chat or responses`, ""},
		{"azure/dep", "responses", `azure: setting api: "responses" is not supported for azure`, "chat completions"},
		{"openai/o3-pro", "chat", "", ""},
		{"azure/dep", "chat", "", ""},
	}
	for _, tc := range tests {
		opts := provider.Options{Getenv: env(map[string]string{"OPENAI_API_KEY": testKey, "AZURE_OPENAI_API_KEY": testKey, "AZURE_OPENAI_ENDPOINT": "https://x.openai.azure.com"}),
			Settings: map[string]any{"api": tc.api}}
		_, err := provider.Open(tc.spec, opts)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s api %q: got %v, want no error", tc.spec, tc.api, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s api %q: got %v, want %q", tc.spec, tc.api, err, tc.want)
			continue
		}
		var h interface{ Hints() []string }
		if tc.hint != "" && (!errors.As(err, &h) || !strings.Contains(strings.Join(h.Hints(), " "), tc.hint)) {
			t.Errorf("%s api %q: got no hint naming %q", tc.spec, tc.api, tc.hint)
		}
	}
}

// FuzzDecodeResponse: any body gives a response with valid raw JSON and
// valid tool-call arguments, or an error; never a panic.
func FuzzDecodeResponse(f *testing.F) {
	for _, seed := range []string{
		`{"id":"r","model":"m","status":"completed","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}]},{"type":"message","content":[{"type":"output_text","text":"Paris."}]}],"usage":{"input_tokens":1,"output_tokens":2}}`,
		`{"status":"completed","output":[{"type":"function_call","call_id":"c","name":"f","arguments":"{\"a\":1}"},{"type":"function_call","arguments":{"b":2}}]}`,
		`{"status":"completed","output":[{"type":"message","content":[{"type":"refusal","refusal":"No."}]}]}`,
		`{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}`,
		`{"status":"failed","error":{"code":"server_error","message":"x"}}`,
		`{"usage":{"input_tokens":-1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := decodeResponse(body)
		if err != nil {
			return
		}
		if resp == nil || !json.Valid(resp.RawResponse) {
			t.Fatalf("got %+v without an error", resp)
		}
		if resp.FinishReason == "" {
			t.Errorf("got no finish reason")
		}
		for _, tc := range resp.ToolCalls {
			if len(tc.Arguments) > 0 && !json.Valid(tc.Arguments) {
				t.Errorf("tool call arguments are not valid JSON: %q", tc.Arguments)
			}
		}
	})
}

// TestResponsesRedirects: the Responses API client keeps the key from
// another origin too.
func TestResponsesRedirects(t *testing.T) {
	const key = "ok-test-0a9b8c7d6e5f4a3b2c1d"
	answer := `{"id":"resp_1","model":"o3-pro","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"ok"}]}]}`
	providertest.CheckClientRedirects(t, provider.Open, "openai/o3-pro", "OPENAI_API_KEY", key, answer, nil)
}

// TestResponsesFailures: HTTP failures of the Responses API are
// classified as on chat completions, with no key in any message.
func TestResponsesFailures(t *testing.T) {
	tests := []struct {
		status        int
		header        map[string]string
		fixture       string
		wantRetryable bool
		wantAfter     time.Duration
		wantMsg       string
	}{
		{429, map[string]string{"Retry-After-Ms": "250"}, "error_429.json", true, 250 * time.Millisecond, "requests: Rate limit reached"},
		{500, nil, "error_500.json", true, 0, "server_error: The server had an error"},
		{401, nil, "error_401.json", false, 0, "Incorrect API key provided: [REDACTED]"},
		{400, nil, "error_400.json", false, 0, "invalid_request_error: Unsupported parameter: 'max_tokens'"},
		{200, nil, "truncated.json", true, 0, "malformed JSON response"},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			s := newServer(t, tc.status, tc.header, fixture(t, tc.fixture))
			p := open(t, "openai/gpt-5", provider.Options{
				Getenv:   env(map[string]string{"OPENAI_API_KEY": testKey}),
				Settings: map[string]any{"base_url": s.URL + "/v1", "api": "responses"},
			})
			_, err := p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}})
			if got := s.Last(t).URL.Path; got != "/v1/responses" {
				t.Errorf("got path %s, want /v1/responses", got)
			}
			providertest.CheckError(t, err, providertest.WantError{Status: tc.status, Retryable: tc.wantRetryable, After: tc.wantAfter, Msg: tc.wantMsg}, testKey)
		})
	}
}

// TestRefusalHints: a 400 or 404 naming what the model refuses ends with
// the setting that fixes it.
func TestRefusalHints(t *testing.T) {
	s := openaitest.Start(t)
	cases := []struct {
		name     string
		spec     string
		settings map[string]any
		cfg      promptcanary.ProviderConfig
		want     string
	}{
		{"responses-only model on chat", "openai/o3-pro", map[string]any{"api": "chat"}, suiteDefaults,
			"(set api: responses in the provider's entry under providers: in canary.yaml)"},
		{"max_tokens forced for gpt-5", "openai/gpt-5", map[string]any{"max_tokens_field": "max_tokens"}, suiteDefaults,
			"(set max_tokens_field: max_completion_tokens in the provider's entry under providers: in canary.yaml)"},
		{"unknown parameter on the Responses API", "openai/o3-pro", nil, promptcanary.ProviderConfig{MaxTokens: 100, ExtraParams: map[string]any{"seed": 7}},
			"(the model refuses seed: remove it with extra_params: {seed: null} in canary.yaml)"},
		{"penalty refused by a reasoning model", "openai/o3", nil, promptcanary.ProviderConfig{ExtraParams: map[string]any{"presence_penalty": 0.5}},
			"(the model refuses presence_penalty: remove it with extra_params: {presence_penalty: null} in canary.yaml)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := openStandin(t, s, tc.spec, tc.settings)
			_, err := p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}, Config: tc.cfg})
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("got %v, want it to end with %q", err, tc.want)
			}
			if provider.IsRetryable(err) {
				t.Errorf("got a retryable error, want a final one")
			}
		})
	}
}
