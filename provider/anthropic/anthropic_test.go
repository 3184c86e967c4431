package anthropic

import (
	"context"
	"encoding/json"
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
const testKey = "ak-test-7f3e9c1b5d2a8e4f6071"

// fakeAPI starts a server that records each request and answers with
// status, headers and body.
func fakeAPI(t *testing.T, status int, header map[string]string, body string) *providertest.Server {
	return providertest.Serve(t, providertest.Answer{Status: status, Header: header, Body: body})
}

func newClient(t *testing.T, baseURL string) *Client {
	t.Helper()
	c, err := New(Config{Model: "claude-sonnet-4-5", APIKey: testKey, BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// generate sends a plain request to the API at baseURL.
func generate(t *testing.T, baseURL string) (*promptcanary.Response, error) {
	return newClient(t, baseURL).Generate(context.Background(), providertest.PlainRequest())
}

var weatherTool = providertest.WeatherTool()

func TestRequestBody(t *testing.T) {
	seed := int64(7)
	tests := []providertest.RequestCase{
		{
			Name:   "plain prompt with default max_tokens and no seed",
			Prompt: promptcanary.Prompt{Text: "What is the capital of France?"},
			Config: promptcanary.ProviderConfig{Temperature: 0, Seed: &seed},
			Want: `{"model":"claude-sonnet-4-5","max_tokens":1024,"temperature":0,
				"messages":[{"role":"user","content":"What is the capital of France?"}]}`,
		},
		{
			Name:   "system prompt in the top-level field",
			Prompt: promptcanary.Prompt{Text: "Hi", SystemPrompt: "You are terse."},
			Config: promptcanary.ProviderConfig{Temperature: 0.7, MaxTokens: 300},
			Want: `{"model":"claude-sonnet-4-5","max_tokens":300,"temperature":0.7,"system":"You are terse.",
				"messages":[{"role":"user","content":"Hi"}]}`,
		},
		{
			Name:   "tools with required choice",
			Prompt: promptcanary.Prompt{Text: "Weather in Paris?", Tools: []promptcanary.Tool{weatherTool, {Name: "get_time"}}, ToolChoice: "required"},
			Config: promptcanary.ProviderConfig{MaxTokens: 100},
			Want: `{"model":"claude-sonnet-4-5","max_tokens":100,"temperature":0,
				"messages":[{"role":"user","content":"Weather in Paris?"}],
				"tools":[{"name":"get_weather","description":"Get the current weather",
				          "input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}},
				         {"name":"get_time","input_schema":{"type":"object","properties":{}}}],
				"tool_choice":{"type":"any"}}`,
		},
		{
			Name:   "named tool choice",
			Prompt: promptcanary.Prompt{Text: "x", Tools: []promptcanary.Tool{weatherTool}, ToolChoice: "get_weather"},
			Config: promptcanary.ProviderConfig{MaxTokens: 10},
			Want: `{"model":"claude-sonnet-4-5","max_tokens":10,"temperature":0,"messages":[{"role":"user","content":"x"}],
				"tools":[{"name":"get_weather","description":"Get the current weather",
				          "input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}],
				"tool_choice":{"type":"tool","name":"get_weather"}}`,
		},
		{
			Name:   "none and auto choices",
			Prompt: promptcanary.Prompt{Text: "x", Tools: []promptcanary.Tool{{Name: "t", Parameters: map[string]any{"type": "object"}}}, ToolChoice: "none"},
			Config: promptcanary.ProviderConfig{MaxTokens: 10},
			Want: `{"model":"claude-sonnet-4-5","max_tokens":10,"temperature":0,"messages":[{"role":"user","content":"x"}],
				"tools":[{"name":"t","input_schema":{"type":"object"}}],"tool_choice":{"type":"none"}}`,
		},
		{
			Name:   "tool choice without tools is not sent",
			Prompt: promptcanary.Prompt{Text: "x", ToolChoice: "auto"},
			Config: promptcanary.ProviderConfig{MaxTokens: 10},
			Want:   `{"model":"claude-sonnet-4-5","max_tokens":10,"temperature":0,"messages":[{"role":"user","content":"x"}]}`,
		},
		{
			Name:   "extra parameters pass through and override",
			Prompt: promptcanary.Prompt{Text: "x"},
			Config: promptcanary.ProviderConfig{MaxTokens: 10, Temperature: 0.2, ExtraParams: map[string]any{
				"top_k": 5, "stop_sequences": []any{"END"}, "max_tokens": 20, "metadata": map[string]any{"user_id": "u1"},
			}},
			Want: `{"model":"claude-sonnet-4-5","max_tokens":20,"temperature":0.2,"top_k":5,"stop_sequences":["END"],
				"metadata":{"user_id":"u1"},"messages":[{"role":"user","content":"x"}]}`,
		},
	}
	providertest.CheckRequests(t, providertest.Answer{}, "text.json", tests, func(t *testing.T, baseURL string, req *provider.Request) error {
		_, err := newClient(t, baseURL).Generate(context.Background(), req)
		return err
	}, checkRequest)
}

// checkRequest checks what a request of TestRequestBody was sent as,
// apart from its body.
func checkRequest(t *testing.T, seen providertest.Request) {
	if seen.Method != http.MethodPost || seen.URL.Path != "/v1/messages" || seen.URL.RawQuery != "" {
		t.Errorf("got %s %s?%s, want POST /v1/messages", seen.Method, seen.URL.Path, seen.URL.RawQuery)
	}
	for k, want := range map[string]string{"X-Api-Key": testKey, "Anthropic-Version": "2023-06-01", "Content-Type": "application/json"} {
		if v := seen.Header.Get(k); v != want {
			t.Errorf("header %s: got %q, want %q", k, v, want)
		}
	}
	if v := seen.Header.Get("Authorization"); v != "" {
		t.Errorf("got Authorization %q, want none", v)
	}
}

func TestOpenAppliesSettings(t *testing.T) {
	srv := fakeAPI(t, 200, nil, providertest.Fixture(t, "text.json"))
	p, err := provider.Open("anthropic/claude-haiku-4-5", provider.Options{
		Settings: map[string]any{
			"base_url":          srv.URL + "/v1/",
			"api_key_env":       "MY_CLAUDE_KEY",
			"anthropic_version": "2024-01-01",
			"headers":           map[string]any{"anthropic-beta": "tools-2024-05-16"},
		},
		Getenv: func(k string) string {
			if k == "MY_CLAUDE_KEY" {
				return testKey
			}
			return ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Generate(context.Background(), providertest.PlainRequest()); err != nil {
		t.Fatal(err)
	}
	seen := srv.Last(t)
	if seen.URL.Path != "/v1/messages" {
		t.Errorf("got path %q, want /v1/messages", seen.URL.Path)
	}
	for k, want := range map[string]string{"X-Api-Key": testKey, "Anthropic-Version": "2024-01-01", "Anthropic-Beta": "tools-2024-05-16"} {
		if v := seen.Header.Get(k); v != want {
			t.Errorf("header %s: got %q, want %q", k, v, want)
		}
	}
	if m := seen.JSON(t)["model"]; m != "claude-haiku-4-5" {
		t.Errorf("got model %v, want claude-haiku-4-5", m)
	}
}

func TestResponses(t *testing.T) {
	tests := []providertest.ResponseCase{
		{
			Name:    "text blocks are concatenated",
			Fixture: "text.json",
			Want: promptcanary.Response{
				Content: "The capital of France is Paris.", FinishReason: "end_turn",
				PromptTokens: 21, CompletionTokens: 9, TotalTokens: 30,
				ServedModel: "claude-sonnet-4-5-20250929", ResponseID: "msg_013Zva2CMHLNnXjNJJKqJ2EF",
			},
		},
		{
			Name:    "tool_use blocks become tool calls and thinking is left out",
			Fixture: "tool_use.json",
			Want: promptcanary.Response{
				Content: "I'll check the current weather in Paris for you.", FinishReason: "tool_use",
				PromptTokens: 622, CompletionTokens: 91, TotalTokens: 713,
				ServedModel: "claude-sonnet-4-5-20250929", ResponseID: "msg_01Aq9w938a90dw8q",
				ToolCalls: []promptcanary.ToolCall{
					{ID: "toolu_01A09q90qw90lq917835lq9", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris, FR","unit":"celsius"}`)},
					{ID: "toolu_01B4f8c2ZZ", Name: "get_time", Arguments: json.RawMessage(`{}`)},
				},
			},
		},
		{
			Name:    "a refusal is a response, not an error",
			Fixture: "refusal.json",
			Want: promptcanary.Response{
				FinishReason: "refusal", PromptTokens: 30, TotalTokens: 30,
				ServedModel: "claude-sonnet-4-5-20250929", ResponseID: "msg_01RefusalXyZ",
			},
		},
		{
			Name:    "thinking that spent max_tokens is a response with no content",
			Fixture: "thinking_max_tokens.json",
			Want: promptcanary.Response{
				FinishReason: "max_tokens", PromptTokens: 40, CompletionTokens: 2048, TotalTokens: 2088,
				ServedModel: "claude-sonnet-4-5-20250929", ResponseID: "msg_01ThinkOut",
			},
		},
		{
			Name:    "a max_tokens cut-off keeps its partial text",
			Fixture: "max_tokens.json",
			Want: promptcanary.Response{
				Content: "Once upon a time, in a land far", FinishReason: "max_tokens",
				PromptTokens: 12, CompletionTokens: 8, TotalTokens: 20,
				ServedModel: "claude-haiku-4-5-20251001", ResponseID: "msg_01MaxTok",
			},
		},
	}
	providertest.CheckResponses(t, providertest.Answer{}, tests, generate)
}

func TestErrors(t *testing.T) {
	tests := []providertest.ErrorCase{
		{Name: "rate limited with retry-after", Status: 429, Header: map[string]string{"Retry-After": "20"}, Body: providertest.Fixture(t, "error_rate_limit.json"), WantStatus: 429, Retryable: true, After: 20 * time.Second, Msg: "rate_limit_error: This request would exceed"},
		{Name: "server error", Status: 500, Body: providertest.Fixture(t, "error_api.json"), WantStatus: 500, Retryable: true, Msg: "api_error: Internal server error"},
		{Name: "overloaded", Status: 529, Body: providertest.Fixture(t, "error_overloaded.json"), WantStatus: 529, Retryable: true, Msg: "overloaded_error: Overloaded"},
		{Name: "wrong key", Status: 401, Body: providertest.Fixture(t, "error_auth.json"), WantStatus: 401, Msg: "authentication_error: invalid x-api-key (check the API key)"},
		{Name: "wrong key echoed back is redacted", Status: 401, Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + testKey + `"}}`, WantStatus: 401, Msg: "invalid x-api-key [REDACTED]"},
		{Name: "bad request is final", Status: 400, Body: providertest.Fixture(t, "error_invalid_request.json"), WantStatus: 400, Msg: "invalid_request_error: max_tokens: Field required"},
		{Name: "malformed JSON is retryable", Status: 200, Body: `{"id":"msg_1","content":[{"type":"text","text":"hi"}]]`, Retryable: true, Msg: "malformed JSON"},
		{Name: "truncated JSON is retryable", Status: 200, Body: providertest.Fixture(t, "text.json")[:120], Retryable: true, Msg: "malformed JSON"},
		{Name: "empty body is retryable", Status: 200, Body: ``, Retryable: true, Msg: "malformed JSON"},
		{Name: "wrong shape is final", Status: 200, Body: `{"content":"hello"}`, Msg: "malformed JSON"},
		{Name: "empty content is final", Status: 200, Body: providertest.Fixture(t, "empty_content.json"), Msg: `response has no content blocks (stop_reason "end_turn")`},
		{Name: "only thinking is final", Status: 200, Body: `{"type":"message","content":[{"type":"thinking","thinking":"hmm"}],"stop_reason":"end_turn"}`, Msg: "no text or tool_use content"},
		{Name: "error passed through with 200", Status: 200, Body: providertest.Fixture(t, "error_overloaded.json"), Retryable: true, Msg: "overloaded_error: Overloaded"},
	}
	providertest.CheckErrors(t, providertest.Answer{}, tests, generate, testKey)
}

func TestDeadline(t *testing.T) {
	providertest.CheckDeadline(t, 20*time.Millisecond, func(ctx context.Context, url string) error {
		_, err := newClient(t, url).Generate(ctx, providertest.PlainRequest())
		return err
	}, testKey)
}

func TestTransportErrorIsRetryable(t *testing.T) {
	providertest.CheckServerDown(t, func(url string) error {
		_, err := newClient(t, url).Generate(context.Background(), providertest.PlainRequest())
		return err
	}, testKey)
}

func TestOpenErrors(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": testKey}
	tests := []providertest.OpenErrorCase{
		{Name: "missing key names the variable", Env: map[string]string{}, Want: []string{"ANTHROPIC_API_KEY is not set"}},
		{Name: "missing key in the configured variable", Settings: map[string]any{"api_key_env": "TEAM_KEY"}, Env: env, Want: []string{"TEAM_KEY is not set"}},
		{Name: "unknown setting suggests the nearest", Settings: map[string]any{"base_ur": "https://x"}, Env: env, Want: []string{`unknown setting "base_ur" (did you mean base_url?)`}},
		{Name: "every problem at once", Settings: map[string]any{"base_url": 3, "headers": "x", "anthropic_version": ""}, Env: env, Want: []string{
			"setting base_url: want a string, got a number", "setting headers: want a map", "setting anthropic_version: want a version",
		}},
		{Name: "key pasted into api_key_env is not echoed", Settings: map[string]any{"api_key_env": "sk-ant-api03-abcdefghijklmnop"}, Env: env, Want: []string{"not the key itself"}},
		{Name: "base_url with a query", Settings: map[string]any{"base_url": "https://proxy.example/?key=abc"}, Env: env, Want: []string{"must not carry a query string"}},
		{Name: "base_url not http", Settings: map[string]any{"base_url": "ftp://proxy.example"}, Env: env, Want: []string{"want an http or https URL"}},
		{Name: "bad header value", Settings: map[string]any{"headers": map[string]any{"x-a": "a\r\nb", "bad name": "v", "x-n": 1}}, Env: env, Want: []string{
			"x-a: value holds a line break", `invalid header name "bad name"`, "x-n: want a string, got a number",
		}},
	}
	providertest.CheckOpenErrors(t, Open, "claude-sonnet-4-5", tests, testKey, "sk-ant-api03", "key=abc")
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no model", Config{APIKey: testKey}, "missing model name"},
		{"model with spaces", Config{Model: "claude sonnet", APIKey: testKey}, "invalid model name"},
		{"no key", Config{Model: "m"}, "empty API key"},
		{"bad version", Config{Model: "m", APIKey: testKey, Version: "2023\n"}, "invalid anthropic-version"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestManyToolCallsBounded: a Messages API answer with 20,000 tool_use
// blocks keeps the first toolcall.Max, marked as cut.
// Shape: https://docs.anthropic.com/en/api/messages
func TestManyToolCallsBounded(t *testing.T) {
	body := providertest.ManyToolCalls(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[`,
		`],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":90000}}`,
		providertest.Calls(`{"type":"tool_use","id":"toolu_%[1]d","name":"tool_%[1]d","input":{}}`))
	resp, err := decode(body, "")
	providertest.CheckToolCallsBounded(t, resp, err, providertest.ToolName)
}
