package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// testKey is shaped like no known key pattern, so only the client's own
// secret list can keep it out of errors.
const testKey = "gk-test-5e1d9a7c3b2f8e6d4a01"

// fakeAPI starts a server that records each request and answers with
// status, headers and body.
func fakeAPI(t *testing.T, status int, header map[string]string, body string) *providertest.Server {
	a := geminiAnswer
	a.Status, a.Header, a.Body = status, header, body
	return providertest.Serve(t, a)
}

// geminiAnswer is how the API answers: JSON with a charset.
var geminiAnswer = providertest.Answer{ContentType: "application/json; charset=UTF-8"}

func newClient(t *testing.T, baseURL string) *Client {
	t.Helper()
	c, err := New(Config{Model: "gemini-2.5-flash", APIKey: testKey, BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// generate sends a plain request to the API at baseURL.
func generate(t *testing.T, baseURL string) (*promptcanary.Response, error) {
	return newClient(t, baseURL).Generate(context.Background(), providertest.PlainRequest())
}

var weatherTool = promptcanary.Tool{
	Name:        "get_weather",
	Description: "Get the current weather",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"location": map[string]any{"type": "string", "enum": []any{"Paris", "Rome"}}},
		"required":   []any{"location"},
	},
}

// strictTool uses JSON Schema keywords outside the OpenAPI subset.
var strictTool = promptcanary.Tool{
	Name: "lookup",
	Parameters: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"id": map[string]any{"type": []any{"string", "null"}}},
		"additionalProperties": false,
	},
}

func TestRequestBody(t *testing.T) {
	seed := int64(42)
	tests := []providertest.RequestCase{
		{
			Name:   "plain prompt without max tokens or seed",
			Prompt: promptcanary.Prompt{Text: "What is the capital of France?"},
			Config: promptcanary.ProviderConfig{},
			Want: `{"contents":[{"role":"user","parts":[{"text":"What is the capital of France?"}]}],
				"generationConfig":{"temperature":0}}`,
		},
		{
			Name:   "system instruction, max tokens and seed",
			Prompt: promptcanary.Prompt{Text: "Hi", SystemPrompt: "You are terse."},
			Config: promptcanary.ProviderConfig{Temperature: 0.4, MaxTokens: 256, Seed: &seed},
			Want: `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],
				"systemInstruction":{"parts":[{"text":"You are terse."}]},
				"generationConfig":{"temperature":0.4,"maxOutputTokens":256,"seed":42}}`,
		},
		{
			Name:   "tools with required choice",
			Prompt: promptcanary.Prompt{Text: "Weather?", Tools: []promptcanary.Tool{weatherTool, {Name: "get_time", Description: "Now"}}, ToolChoice: "required"},
			Want: `{"contents":[{"role":"user","parts":[{"text":"Weather?"}]}],"generationConfig":{"temperature":0},
				"tools":[{"functionDeclarations":[
					{"name":"get_weather","description":"Get the current weather",
					 "parameters":{"type":"object","properties":{"location":{"type":"string","enum":["Paris","Rome"]}},"required":["location"]}},
					{"name":"get_time","description":"Now"}]}],
				"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`,
		},
		{
			Name:   "named tool choice and a full JSON Schema",
			Prompt: promptcanary.Prompt{Text: "x", Tools: []promptcanary.Tool{strictTool}, ToolChoice: "lookup"},
			Want: `{"contents":[{"role":"user","parts":[{"text":"x"}]}],"generationConfig":{"temperature":0},
				"tools":[{"functionDeclarations":[{"name":"lookup","parametersJsonSchema":
					{"type":"object","properties":{"id":{"type":["string","null"]}},"additionalProperties":false}}]}],
				"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["lookup"]}}}`,
		},
		{
			Name:   "auto and none choices",
			Prompt: promptcanary.Prompt{Text: "x", Tools: []promptcanary.Tool{{Name: "t"}}, ToolChoice: "none"},
			Want: `{"contents":[{"role":"user","parts":[{"text":"x"}]}],"generationConfig":{"temperature":0},
				"tools":[{"functionDeclarations":[{"name":"t"}]}],
				"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}}`,
		},
		{
			Name:   "extra parameters are routed and override",
			Prompt: promptcanary.Prompt{Text: "x"},
			Config: promptcanary.ProviderConfig{Temperature: 1, MaxTokens: 50, ExtraParams: map[string]any{
				"top_p": 0.9, "topK": 20, "max_output_tokens": 99,
				"generation_config": map[string]any{"response_mime_type": "application/json"},
				"safetySettings":    []any{map[string]any{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}},
			}},
			Want: `{"contents":[{"role":"user","parts":[{"text":"x"}]}],
				"generationConfig":{"temperature":1,"maxOutputTokens":99,"topP":0.9,"topK":20,"responseMimeType":"application/json"},
				"safetySettings":[{"category":"HARM_CATEGORY_HATE_SPEECH","threshold":"BLOCK_NONE"}]}`,
		},
	}
	providertest.CheckRequests(t, geminiAnswer, "text.json", tests, func(t *testing.T, baseURL string, req *provider.Request) error {
		_, err := newClient(t, baseURL).Generate(context.Background(), req)
		return err
	}, checkRequest)
}

// checkRequest checks what a request of TestRequestBody was sent as,
// apart from its body.
func checkRequest(t *testing.T, seen providertest.Request) {
	if seen.Method != http.MethodPost || seen.URL.EscapedPath() != "/v1beta/models/gemini-2.5-flash:generateContent" {
		t.Errorf("got %s %s, want POST /v1beta/models/gemini-2.5-flash:generateContent", seen.Method, seen.URL.EscapedPath())
	}
	if seen.URL.RawQuery != "" {
		t.Errorf("got query %q, want none (the key goes in a header)", seen.URL.RawQuery)
	}
	if v := seen.Header.Get("X-Goog-Api-Key"); v != testKey {
		t.Errorf("got x-goog-api-key %q, want the key", v)
	}
	if v := seen.Header.Get("Content-Type"); v != "application/json" {
		t.Errorf("got content-type %q, want application/json", v)
	}
}

func TestSeedOutOfRange(t *testing.T) {
	srv := fakeAPI(t, 200, nil, providertest.Fixture(t, "text.json"))
	seed := int64(1) << 40
	_, err := newClient(t, srv.URL).Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "x"}, promptcanary.ProviderConfig{Seed: &seed}))
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Retryable || !strings.Contains(pe.Message, "32-bit") {
		t.Errorf("got %v, want a final error about the 32-bit seed", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("got %d requests sent, want none", n)
	}
}

func TestModelPath(t *testing.T) {
	tests := []struct{ model, path string }{
		{"gemini-2.5-flash", "/v1beta/models/gemini-2.5-flash:generateContent"},
		{"models/gemini-2.0-flash-001", "/v1beta/models/gemini-2.0-flash-001:generateContent"},
		{"tunedModels/my-tuned-abc", "/v1beta/tunedModels/my-tuned-abc:generateContent"},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			srv := fakeAPI(t, 200, nil, providertest.Fixture(t, "text.json"))
			c, err := New(Config{Model: tc.model, APIKey: testKey, BaseURL: srv.URL + "/v1beta/"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Generate(context.Background(), providertest.PlainRequest()); err != nil {
				t.Fatal(err)
			}
			if p := srv.Last(t).URL.EscapedPath(); p != tc.path {
				t.Errorf("got path %q, want %q", p, tc.path)
			}
		})
	}
	for _, bad := range []string{"", "a/b", "models/", "x?key=1", "gemini 2", "m#f", "other/m"} {
		t.Run("invalid "+bad, func(t *testing.T) {
			if _, err := New(Config{Model: bad, APIKey: testKey}); err == nil {
				t.Errorf("got nil error for model %q, want one", bad)
			}
		})
	}
}

func TestOpenKeyPrecedence(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		settings map[string]any
		wantKey  string
		wantErr  string
	}{
		{"gemini key", map[string]string{"GEMINI_API_KEY": "gem-key-1234"}, nil, "gem-key-1234", ""},
		{"google key", map[string]string{"GOOGLE_API_KEY": "goo-key-1234"}, nil, "goo-key-1234", ""},
		{"google key wins when both are set", map[string]string{"GEMINI_API_KEY": "gem-key-1234", "GOOGLE_API_KEY": "goo-key-1234"}, nil, "goo-key-1234", ""},
		{"api_key_env replaces both", map[string]string{"GEMINI_API_KEY": "gem-key-1234", "TEAM_KEY": "team-key-1234"}, map[string]any{"api_key_env": "TEAM_KEY"}, "team-key-1234", ""},
		{"no key names both variables", map[string]string{}, nil, "", "GEMINI_API_KEY is not set (export the Gemini API key as GEMINI_API_KEY or GOOGLE_API_KEY"},
		{"configured variable unset", map[string]string{"GEMINI_API_KEY": "gem-key-1234"}, map[string]any{"api_key_env": "TEAM_KEY"}, "", "TEAM_KEY is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeAPI(t, 200, nil, providertest.Fixture(t, "text.json"))
			settings := map[string]any{"base_url": srv.URL}
			for k, v := range tc.settings {
				settings[k] = v
			}
			p, err := Open("gemini-2.5-flash", provider.Options{Settings: settings, Getenv: func(k string) string { return tc.env[k] }})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Generate(context.Background(), providertest.PlainRequest()); err != nil {
				t.Fatal(err)
			}
			if k := srv.Last(t).Header.Get("X-Goog-Api-Key"); k != tc.wantKey {
				t.Errorf("got key %q, want %q", k, tc.wantKey)
			}
		})
	}
}

func TestOpenAppliesHeaders(t *testing.T) {
	srv := fakeAPI(t, 200, nil, providertest.Fixture(t, "text.json"))
	p, err := provider.Open("gemini/gemini-2.5-pro", provider.Options{
		Settings: map[string]any{"base_url": srv.URL, "headers": map[string]string{"x-goog-user-project": "canary-ci"}},
		Getenv:   func(k string) string { return map[string]string{"GEMINI_API_KEY": testKey}[k] },
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Generate(context.Background(), providertest.PlainRequest()); err != nil {
		t.Fatal(err)
	}
	seen := srv.Last(t)
	if v := seen.Header.Get("X-Goog-User-Project"); v != "canary-ci" {
		t.Errorf("got x-goog-user-project %q, want canary-ci", v)
	}
	if seen.URL.EscapedPath() != "/v1beta/models/gemini-2.5-pro:generateContent" {
		t.Errorf("got path %q", seen.URL.EscapedPath())
	}
}

func TestResponses(t *testing.T) {
	tests := []providertest.ResponseCase{
		{
			Name:    "text parts are concatenated",
			Fixture: "text.json",
			Want: promptcanary.Response{
				Content: "The capital of France is Paris.", FinishReason: "STOP",
				PromptTokens: 9, CompletionTokens: 7, TotalTokens: 16,
				ServedModel: "gemini-2.0-flash-001", ResponseID: "mO1BaPbNHsWW1MkPpK2z4Qk",
			},
		},
		{
			Name:    "thought summaries are left out and thinking tokens counted as output",
			Fixture: "thinking.json",
			Want: promptcanary.Response{
				Content: "Paris.", FinishReason: "STOP",
				PromptTokens: 10, CompletionTokens: 122, TotalTokens: 132, ReasoningTokens: 120,
				ServedModel: "gemini-2.5-flash", ResponseID: "Xk5BaOW2Lq3WgLUPxdTgsAo",
			},
		},
		{
			Name:    "function calls become tool calls",
			Fixture: "function_call.json",
			Want: promptcanary.Response{
				FinishReason: "STOP", PromptTokens: 70, CompletionTokens: 20, TotalTokens: 90,
				ServedModel: "gemini-2.5-flash", ResponseID: "aE5BaNn7KpGVgLUP9tHk2Q0",
				ToolCalls: []promptcanary.ToolCall{
					{Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris","unit":"celsius"}`)},
					{ID: "call-2", Name: "get_time", Arguments: json.RawMessage(`{}`)},
				},
			},
		},
		{
			Name:    "a safety stop is a response with that finish reason",
			Fixture: "safety.json",
			Want: promptcanary.Response{
				FinishReason: "SAFETY", PromptTokens: 14, TotalTokens: 14,
				ServedModel: "gemini-2.0-flash-001", ResponseID: "cU5BaM6eFKOWgLUPpe3x8Q4",
			},
		},
		{
			Name:    "a blocked prompt is a response marked blocked",
			Fixture: "prompt_blocked.json",
			Want: promptcanary.Response{
				FinishReason: "blocked:SAFETY", PromptTokens: 8, TotalTokens: 8,
				ServedModel: "gemini-2.0-flash-001", ResponseID: "dU5BaKLqNM2WgLUPr9_y6Q0",
			},
		},
		{
			Name:    "a max tokens cut-off keeps its text",
			Fixture: "max_tokens.json",
			Want: promptcanary.Response{
				Content: "Once upon a time", FinishReason: "MAX_TOKENS",
				PromptTokens: 5, CompletionTokens: 4, TotalTokens: 9,
				ServedModel: "gemini-2.5-flash-lite", ResponseID: "eU5BaJ2nO8WWgLUPv6Xr2Q4",
			},
		},
	}
	providertest.CheckResponses(t, geminiAnswer, tests, generate)
}

func TestErrors(t *testing.T) {
	tests := []providertest.ErrorCase{
		{Name: "rate limited with RetryInfo", Status: 429, Body: providertest.Fixture(t, "error_rate_limit.json"), WantStatus: 429, Retryable: true, After: 17 * time.Second, Msg: "RESOURCE_EXHAUSTED: You exceeded your current quota"},
		{Name: "rate limited with Retry-After", Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: providertest.Fixture(t, "error_rate_limit.json"), WantStatus: 429, Retryable: true, After: 3 * time.Second, Msg: "RESOURCE_EXHAUSTED"},
		{Name: "rate limited with a plain body", Status: 429, Body: `slow down`, WantStatus: 429, Retryable: true, Msg: "slow down"},
		{Name: "server error", Status: 500, Body: providertest.Fixture(t, "error_internal.json"), WantStatus: 500, Retryable: true, Msg: "INTERNAL: An internal error has occurred"},
		{Name: "overloaded", Status: 503, Body: providertest.Fixture(t, "error_unavailable.json"), WantStatus: 503, Retryable: true, Msg: "UNAVAILABLE: The model is overloaded"},
		{Name: "wrong key is reported as such", Status: 400, Body: providertest.Fixture(t, "error_key_invalid.json"), WantStatus: 400, Msg: "INVALID_ARGUMENT: API key not valid. Please pass a valid API key. (check the API key)"},
		{Name: "permission denied", Status: 403, Body: providertest.Fixture(t, "error_permission.json"), WantStatus: 403, Msg: "PERMISSION_DENIED: Method doesn't allow unregistered callers"},
		{Name: "unknown model is final", Status: 404, Body: providertest.Fixture(t, "error_not_found.json"), WantStatus: 404, Msg: "NOT_FOUND: models/gemini-9.9-ultra is not found"},
		{Name: "key echoed back is redacted", Status: 400, Body: `{"error":{"code":400,"message":"bad key ` + testKey + `","status":"INVALID_ARGUMENT"}}`, WantStatus: 400, Msg: "bad key [REDACTED]"},
		{Name: "key echoed in a 429 is redacted", Status: 429, Body: `{"error":{"code":429,"message":"quota for ` + testKey + `","status":"RESOURCE_EXHAUSTED"}}`, WantStatus: 429, Retryable: true, Msg: "quota for [REDACTED]"},
		{Name: "malformed JSON is retryable", Status: 200, Body: `{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]]`, Retryable: true, Msg: "malformed JSON"},
		{Name: "truncated JSON is retryable", Status: 200, Body: providertest.Fixture(t, "text.json")[:150], Retryable: true, Msg: "malformed JSON"},
		{Name: "wrong shape is final", Status: 200, Body: `{"candidates":{"text":"hi"}}`, Msg: "malformed JSON"},
		{Name: "no candidates is final", Status: 200, Body: providertest.Fixture(t, "no_candidates.json"), Msg: "response has no candidates"},
		{Name: "empty candidate is final", Status: 200, Body: providertest.Fixture(t, "stop_no_parts.json"), Msg: `candidate has no text or functionCall parts (finishReason "STOP")`},
		{Name: "error passed through with 200", Status: 200, Body: providertest.Fixture(t, "error_unavailable.json"), WantStatus: 503, Retryable: true, Msg: "UNAVAILABLE"},
	}
	providertest.CheckErrors(t, geminiAnswer, tests, generate, testKey)
}

func TestDeadline(t *testing.T) {
	providertest.CheckDeadline(t, 20*time.Millisecond, func(ctx context.Context, url string) error {
		_, err := newClient(t, url).Generate(ctx, providertest.PlainRequest())
		return err
	}, testKey)
}

func TestOpenErrors(t *testing.T) {
	env := map[string]string{"GEMINI_API_KEY": testKey}
	tests := []providertest.OpenErrorCase{
		{Name: "unknown setting suggests the nearest", Settings: map[string]any{"header": map[string]any{}}, Env: env, Want: []string{`unknown setting "header" (did you mean headers?)`}},
		{Name: "provider-specific keys of others are unknown", Settings: map[string]any{"anthropic_version": "x"}, Env: env, Want: []string{`unknown setting "anthropic_version"`}},
		{Name: "key pasted into api_key_env is not echoed", Settings: map[string]any{"api_key_env": "AIzaSyD-abcdefghijklmnopqrstuvwxyz012"}, Env: env, Want: []string{"not the key itself"}},
		{Name: "base_url with a key in the query", Settings: map[string]any{"base_url": "https://generativelanguage.googleapis.com/?key=AIzaSyD-abcdefghijklmnopqrstuvwxyz012"}, Env: env, Want: []string{"must not carry a query string"}},
		{Name: "several problems at once", Settings: map[string]any{"base_url": "", "api_key_env": 1, "headers": []any{"a"}}, Env: env, Want: []string{"api_key_env: want a string", "headers: want a map"}},
	}
	providertest.CheckOpenErrors(t, Open, "gemini-2.5-flash", tests, testKey, "AIzaSyD")
}

func TestCamel(t *testing.T) {
	for in, want := range map[string]string{"top_p": "topP", "topK": "topK", "response_mime_type": "responseMimeType", "_x": "x", "safety_settings": "safetySettings"} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenAPISchema(t *testing.T) {
	tests := []struct {
		name   string
		schema map[string]any
		want   bool
	}{
		{"simple object", weatherTool.Parameters, true},
		{"nested items", map[string]any{"type": "object", "properties": map[string]any{"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}, true},
		{"additionalProperties", map[string]any{"type": "object", "additionalProperties": false}, false},
		{"type list", strictTool.Parameters, false},
		{"numeric enum", map[string]any{"type": "integer", "enum": []any{1, 2}}, false},
		{"$ref deep inside", map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/defs/a"}}}, false},
		{"anyOf", map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := openAPISchema(tc.schema); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestManyToolCallsBounded: a generateContent answer with 20,000
// functionCall parts keeps the first toolcall.Max, marked as cut.
// Shape: https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse
func TestManyToolCallsBounded(t *testing.T) {
	resp, err := decode(providertest.ManyToolCalls(`{"candidates":[{"content":{"role":"model","parts":[`,
		`]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":90000,"totalTokenCount":90010},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`,
		providertest.Calls(`{"functionCall":{"name":"tool_%[1]d","args":{}}}`)))
	providertest.CheckToolCallsBounded(t, resp, err, providertest.ToolName)
}
