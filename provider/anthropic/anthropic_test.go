package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

// testKey is shaped like no known key pattern, so only the client's own
// secret list can keep it out of errors.
const testKey = "ak-test-7f3e9c1b5d2a8e4f6071"

// captured is what the fake API saw of the last request.
type captured struct {
	mu     sync.Mutex
	method string
	path   string
	query  string
	header http.Header
	body   map[string]any
}

func (c *captured) get() captured {
	c.mu.Lock()
	defer c.mu.Unlock()
	return captured{method: c.method, path: c.path, query: c.query, header: c.header, body: c.body}
}

// fakeAPI starts a server that records each request and answers with
// status, headers and body.
func fakeAPI(t *testing.T, status int, header map[string]string, body string) (*httptest.Server, *captured) {
	t.Helper()
	c := &captured{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		c.mu.Lock()
		c.method, c.path, c.query, c.header, c.body = r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), m
		c.mu.Unlock()
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, c
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func newClient(t *testing.T, baseURL string) *Client {
	t.Helper()
	c, err := New(Config{Model: "claude-sonnet-4-5", APIKey: testKey, BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func request(p promptcanary.Prompt, cfg promptcanary.ProviderConfig) *provider.Request {
	return &provider.Request{Prompt: &p, Config: cfg}
}

// asJSON round-trips v through JSON so it compares with a decoded body.
func asJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad expected JSON %s: %v", s, err)
	}
	return m
}

var weatherTool = promptcanary.Tool{
	Name:        "get_weather",
	Description: "Get the current weather",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"location": map[string]any{"type": "string"}},
		"required":   []any{"location"},
	},
}

func TestRequestBody(t *testing.T) {
	seed := int64(7)
	tests := []struct {
		name   string
		prompt promptcanary.Prompt
		cfg    promptcanary.ProviderConfig
		want   string
	}{
		{
			name:   "plain prompt with default max_tokens and no seed",
			prompt: promptcanary.Prompt{Text: "What is the capital of France?"},
			cfg:    promptcanary.ProviderConfig{Temperature: 0, Seed: &seed},
			want: `{"model":"claude-sonnet-4-5","max_tokens":1024,"temperature":0,
				"messages":[{"role":"user","content":"What is the capital of France?"}]}`,
		},
		{
			name:   "system prompt in the top-level field",
			prompt: promptcanary.Prompt{Text: "Hi", SystemPrompt: "You are terse."},
			cfg:    promptcanary.ProviderConfig{Temperature: 0.7, MaxTokens: 300},
			want: `{"model":"claude-sonnet-4-5","max_tokens":300,"temperature":0.7,"system":"You are terse.",
				"messages":[{"role":"user","content":"Hi"}]}`,
		},
		{
			name:   "tools with required choice",
			prompt: promptcanary.Prompt{Text: "Weather in Paris?", Tools: []promptcanary.Tool{weatherTool, {Name: "get_time"}}, ToolChoice: "required"},
			cfg:    promptcanary.ProviderConfig{MaxTokens: 100},
			want: `{"model":"claude-sonnet-4-5","max_tokens":100,"temperature":0,
				"messages":[{"role":"user","content":"Weather in Paris?"}],
				"tools":[{"name":"get_weather","description":"Get the current weather",
				          "input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}},
				         {"name":"get_time","input_schema":{"type":"object","properties":{}}}],
				"tool_choice":{"type":"any"}}`,
		},
		{
			name:   "named tool choice",
			prompt: promptcanary.Prompt{Text: "x", Tools: []promptcanary.Tool{weatherTool}, ToolChoice: "get_weather"},
			cfg:    promptcanary.ProviderConfig{MaxTokens: 10},
			want: `{"model":"claude-sonnet-4-5","max_tokens":10,"temperature":0,"messages":[{"role":"user","content":"x"}],
				"tools":[{"name":"get_weather","description":"Get the current weather",
				          "input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}],
				"tool_choice":{"type":"tool","name":"get_weather"}}`,
		},
		{
			name:   "none and auto choices",
			prompt: promptcanary.Prompt{Text: "x", Tools: []promptcanary.Tool{{Name: "t", Parameters: map[string]any{"type": "object"}}}, ToolChoice: "none"},
			cfg:    promptcanary.ProviderConfig{MaxTokens: 10},
			want: `{"model":"claude-sonnet-4-5","max_tokens":10,"temperature":0,"messages":[{"role":"user","content":"x"}],
				"tools":[{"name":"t","input_schema":{"type":"object"}}],"tool_choice":{"type":"none"}}`,
		},
		{
			name:   "tool choice without tools is not sent",
			prompt: promptcanary.Prompt{Text: "x", ToolChoice: "auto"},
			cfg:    promptcanary.ProviderConfig{MaxTokens: 10},
			want:   `{"model":"claude-sonnet-4-5","max_tokens":10,"temperature":0,"messages":[{"role":"user","content":"x"}]}`,
		},
		{
			name:   "extra parameters pass through and override",
			prompt: promptcanary.Prompt{Text: "x"},
			cfg: promptcanary.ProviderConfig{MaxTokens: 10, Temperature: 0.2, ExtraParams: map[string]any{
				"top_k": 5, "stop_sequences": []any{"END"}, "max_tokens": 20, "metadata": map[string]any{"user_id": "u1"},
			}},
			want: `{"model":"claude-sonnet-4-5","max_tokens":20,"temperature":0.2,"top_k":5,"stop_sequences":["END"],
				"metadata":{"user_id":"u1"},"messages":[{"role":"user","content":"x"}]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, got := fakeAPI(t, 200, nil, fixture(t, "text.json"))
			c := newClient(t, srv.URL)
			if _, err := c.Generate(context.Background(), request(tc.prompt, tc.cfg)); err != nil {
				t.Fatal(err)
			}
			seen := got.get()
			if diff := cmp.Diff(asJSON(t, tc.want), seen.body); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
			if seen.method != http.MethodPost || seen.path != "/v1/messages" || seen.query != "" {
				t.Errorf("got %s %s?%s, want POST /v1/messages", seen.method, seen.path, seen.query)
			}
			for k, want := range map[string]string{"X-Api-Key": testKey, "Anthropic-Version": "2023-06-01", "Content-Type": "application/json"} {
				if v := seen.header.Get(k); v != want {
					t.Errorf("header %s: got %q, want %q", k, v, want)
				}
			}
			if v := seen.header.Get("Authorization"); v != "" {
				t.Errorf("got Authorization %q, want none", v)
			}
		})
	}
}

func TestOpenAppliesSettings(t *testing.T) {
	srv, got := fakeAPI(t, 200, nil, fixture(t, "text.json"))
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
	if _, err := p.Generate(context.Background(), request(promptcanary.Prompt{Text: "x"}, promptcanary.ProviderConfig{})); err != nil {
		t.Fatal(err)
	}
	seen := got.get()
	if seen.path != "/v1/messages" {
		t.Errorf("got path %q, want /v1/messages", seen.path)
	}
	for k, want := range map[string]string{"X-Api-Key": testKey, "Anthropic-Version": "2024-01-01", "Anthropic-Beta": "tools-2024-05-16"} {
		if v := seen.header.Get(k); v != want {
			t.Errorf("header %s: got %q, want %q", k, v, want)
		}
	}
	if m := seen.body["model"]; m != "claude-haiku-4-5" {
		t.Errorf("got model %v, want claude-haiku-4-5", m)
	}
}

func TestResponses(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		want    promptcanary.Response
	}{
		{
			name:    "text blocks are concatenated",
			fixture: "text.json",
			want: promptcanary.Response{
				Content: "The capital of France is Paris.", FinishReason: "end_turn",
				PromptTokens: 21, CompletionTokens: 9, TotalTokens: 30,
				ServedModel: "claude-sonnet-4-5-20250929", ResponseID: "msg_013Zva2CMHLNnXjNJJKqJ2EF",
			},
		},
		{
			name:    "tool_use blocks become tool calls and thinking is left out",
			fixture: "tool_use.json",
			want: promptcanary.Response{
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
			name:    "a refusal is a response, not an error",
			fixture: "refusal.json",
			want: promptcanary.Response{
				FinishReason: "refusal", PromptTokens: 30, TotalTokens: 30,
				ServedModel: "claude-sonnet-4-5-20250929", ResponseID: "msg_01RefusalXyZ",
			},
		},
		{
			name:    "a max_tokens cut-off keeps its partial text",
			fixture: "max_tokens.json",
			want: promptcanary.Response{
				Content: "Once upon a time, in a land far", FinishReason: "max_tokens",
				PromptTokens: 12, CompletionTokens: 8, TotalTokens: 20,
				ServedModel: "claude-haiku-4-5-20251001", ResponseID: "msg_01MaxTok",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := fixture(t, tc.fixture)
			srv, _ := fakeAPI(t, 200, nil, body)
			got, err := newClient(t, srv.URL).Generate(context.Background(), request(promptcanary.Prompt{Text: "x"}, promptcanary.ProviderConfig{}))
			if err != nil {
				t.Fatal(err)
			}
			if string(got.RawResponse) != body {
				t.Errorf("got raw response %q, want the body as returned", got.RawResponse)
			}
			got.RawResponse = nil
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name          string
		status        int
		header        map[string]string
		body          string
		wantStatus    int
		wantRetryable bool
		wantAfter     time.Duration
		wantMsg       string
	}{
		{"rate limited with retry-after", 429, map[string]string{"Retry-After": "20"}, fixture(t, "error_rate_limit.json"), 429, true, 20 * time.Second, "rate_limit_error: This request would exceed"},
		{"server error", 500, nil, fixture(t, "error_api.json"), 500, true, 0, "api_error: Internal server error"},
		{"overloaded", 529, nil, fixture(t, "error_overloaded.json"), 529, true, 0, "overloaded_error: Overloaded"},
		{"wrong key", 401, nil, fixture(t, "error_auth.json"), 401, false, 0, "authentication_error: invalid x-api-key (check the API key)"},
		{"wrong key echoed back is redacted", 401, nil, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + testKey + `"}}`, 401, false, 0, "invalid x-api-key [REDACTED]"},
		{"bad request is final", 400, nil, fixture(t, "error_invalid_request.json"), 400, false, 0, "invalid_request_error: max_tokens: Field required"},
		{"malformed JSON is retryable", 200, nil, `{"id":"msg_1","content":[{"type":"text","text":"hi"}]]`, 0, true, 0, "malformed JSON"},
		{"truncated JSON is retryable", 200, nil, fixture(t, "text.json")[:120], 0, true, 0, "malformed JSON"},
		{"empty body is retryable", 200, nil, ``, 0, true, 0, "malformed JSON"},
		{"wrong shape is final", 200, nil, `{"content":"hello"}`, 0, false, 0, "malformed JSON"},
		{"empty content is final", 200, nil, fixture(t, "empty_content.json"), 0, false, 0, `response has no content blocks (stop_reason "end_turn")`},
		{"only thinking is final", 200, nil, `{"type":"message","content":[{"type":"thinking","thinking":"hmm"}],"stop_reason":"end_turn"}`, 0, false, 0, "no text or tool_use content"},
		{"error passed through with 200", 200, nil, fixture(t, "error_overloaded.json"), 0, true, 0, "overloaded_error: Overloaded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := fakeAPI(t, tc.status, tc.header, tc.body)
			resp, err := newClient(t, srv.URL).Generate(context.Background(), request(promptcanary.Prompt{Text: "x"}, promptcanary.ProviderConfig{}))
			if err == nil {
				t.Fatalf("got response %+v, want an error", resp)
			}
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %T %v, want *provider.Error", err, err)
			}
			if pe.StatusCode != tc.wantStatus || pe.Retryable != tc.wantRetryable || pe.RetryAfter != tc.wantAfter {
				t.Errorf("got status %d retryable %v after %v, want %d %v %v", pe.StatusCode, pe.Retryable, pe.RetryAfter, tc.wantStatus, tc.wantRetryable, tc.wantAfter)
			}
			if !strings.Contains(pe.Message, tc.wantMsg) {
				t.Errorf("got message %q, want it to contain %q", pe.Message, tc.wantMsg)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error %q leaks the API key", err)
			}
		})
	}
}

func TestDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := newClient(t, srv.URL).Generate(ctx, request(promptcanary.Prompt{Text: "x"}, promptcanary.ProviderConfig{}))
	if !errors.Is(err, context.DeadlineExceeded) && !provider.IsRetryable(err) {
		t.Errorf("got %v, want context.DeadlineExceeded or a retryable error", err)
	}
	if err != nil && strings.Contains(err.Error(), testKey) {
		t.Errorf("error %q leaks the API key", err)
	}
}

func TestTransportErrorIsRetryable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	url := srv.URL
	srv.Close()
	_, err := newClient(t, url).Generate(context.Background(), request(promptcanary.Prompt{Text: "x"}, promptcanary.ProviderConfig{}))
	if !provider.IsRetryable(err) {
		t.Errorf("got %v, want a retryable error", err)
	}
}

func TestOpenErrors(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": testKey}
	tests := []struct {
		name     string
		settings map[string]any
		env      map[string]string
		want     []string
	}{
		{"missing key names the variable", nil, map[string]string{}, []string{"ANTHROPIC_API_KEY is not set"}},
		{"missing key in the configured variable", map[string]any{"api_key_env": "TEAM_KEY"}, env, []string{"TEAM_KEY is not set"}},
		{"unknown setting suggests the nearest", map[string]any{"base_ur": "https://x"}, env, []string{`unknown setting "base_ur" (did you mean base_url?)`}},
		{"every problem at once", map[string]any{"base_url": 3, "headers": "x", "anthropic_version": ""}, env, []string{
			"setting base_url: want a string, got a number", "setting headers: want a map", "setting anthropic_version: want a version",
		}},
		{"key pasted into api_key_env is not echoed", map[string]any{"api_key_env": "sk-ant-api03-abcdefghijklmnop"}, env, []string{"not the key itself"}},
		{"base_url with a query", map[string]any{"base_url": "https://proxy.example/?key=abc"}, env, []string{"must not carry a query string"}},
		{"base_url not http", map[string]any{"base_url": "ftp://proxy.example"}, env, []string{"want an http or https URL"}},
		{"bad header value", map[string]any{"headers": map[string]any{"x-a": "a\r\nb", "bad name": "v", "x-n": 1}}, env, []string{
			"x-a: value holds a line break", `invalid header name "bad name"`, "x-n: want a string, got a number",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open("claude-sonnet-4-5", provider.Options{Settings: tc.settings, Getenv: func(k string) string { return tc.env[k] }})
			if err == nil {
				t.Fatal("got nil error, want one")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to contain %q", err, w)
				}
			}
			for _, secret := range []string{testKey, "sk-ant-api03", "key=abc"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q leaks %q", err, secret)
				}
			}
		})
	}
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
