package ollama

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

// testKey is a bearer token for servers behind authentication.
const testKey = "ot-test-9a8b7c6d5e4f3a2b1c0d"

// fakeOllama starts a server that records each request and answers with
// status and body.
func fakeOllama(t *testing.T, status int, body string) *providertest.Server {
	a := ollamaAnswer
	a.Status, a.Body = status, body
	return providertest.Serve(t, a)
}

// ollamaAnswer is how the server answers: JSON with a charset.
var ollamaAnswer = providertest.Answer{ContentType: "application/json; charset=utf-8"}

// generate returns a call that sends a plain request, with key, to the
// server at baseURL.
func generate(key string) func(t *testing.T, baseURL string) (*promptcanary.Response, error) {
	return func(t *testing.T, baseURL string) (*promptcanary.Response, error) {
		return newClient(t, baseURL, key).Generate(context.Background(), providertest.PlainRequest())
	}
}

func newClient(t *testing.T, baseURL, key string) *Client {
	t.Helper()
	c, err := New(Config{Model: "llama3.2", BaseURL: baseURL, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var weatherTool = promptcanary.Tool{
	Name:        "get_current_weather",
	Description: "Get the current weather for a location",
	Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"location": map[string]any{"type": "string"}},
		"required":   []any{"location"},
	},
}

const weatherJSON = `{"type":"function","function":{"name":"get_current_weather","description":"Get the current weather for a location",
	"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}`

const timeJSON = `{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{}}}}`

func TestRequestBody(t *testing.T) {
	seed := int64(101)
	tools := []promptcanary.Tool{weatherTool, {Name: "get_time"}}
	tests := []providertest.RequestCase{
		{
			Name:   "plain prompt",
			Prompt: promptcanary.Prompt{Text: "why is the sky blue?"},
			Want: `{"model":"llama3.2","stream":false,"messages":[{"role":"user","content":"why is the sky blue?"}],
				"options":{"temperature":0}}`,
		},
		{
			Name:   "system message, seed and num_predict",
			Prompt: promptcanary.Prompt{Text: "Hello!", SystemPrompt: "Answer in French."},
			Config: promptcanary.ProviderConfig{Temperature: 0.8, MaxTokens: 64, Seed: &seed},
			Want: `{"model":"llama3.2","stream":false,
				"messages":[{"role":"system","content":"Answer in French."},{"role":"user","content":"Hello!"}],
				"options":{"temperature":0.8,"num_predict":64,"seed":101}}`,
		},
		{
			Name:   "tools with auto choice",
			Prompt: promptcanary.Prompt{Text: "Weather in Paris?", Tools: tools, ToolChoice: "auto"},
			Want: `{"model":"llama3.2","stream":false,"messages":[{"role":"user","content":"Weather in Paris?"}],
				"options":{"temperature":0},"tools":[` + weatherJSON + `,` + timeJSON + `]}`,
		},
		{
			Name:   "required choice offers every tool",
			Prompt: promptcanary.Prompt{Text: "x", Tools: tools, ToolChoice: "required"},
			Want: `{"model":"llama3.2","stream":false,"messages":[{"role":"user","content":"x"}],
				"options":{"temperature":0},"tools":[` + weatherJSON + `,` + timeJSON + `]}`,
		},
		{
			Name:   "named choice offers only that tool",
			Prompt: promptcanary.Prompt{Text: "x", Tools: tools, ToolChoice: "get_time"},
			Want: `{"model":"llama3.2","stream":false,"messages":[{"role":"user","content":"x"}],
				"options":{"temperature":0},"tools":[` + timeJSON + `]}`,
		},
		{
			Name:   "none choice offers no tools",
			Prompt: promptcanary.Prompt{Text: "x", Tools: tools, ToolChoice: "none"},
			Want:   `{"model":"llama3.2","stream":false,"messages":[{"role":"user","content":"x"}],"options":{"temperature":0}}`,
		},
		{
			Name:   "extra parameters are routed and override",
			Prompt: promptcanary.Prompt{Text: "x"},
			Config: promptcanary.ProviderConfig{Temperature: 0.5, MaxTokens: 10, ExtraParams: map[string]any{
				"top_k": 40, "num_ctx": 8192, "num_predict": 20,
				"options":    map[string]any{"repeat_penalty": 1.1},
				"format":     "json",
				"keep_alive": "10m",
			}},
			Want: `{"model":"llama3.2","stream":false,"messages":[{"role":"user","content":"x"}],
				"options":{"temperature":0.5,"num_predict":20,"top_k":40,"num_ctx":8192,"repeat_penalty":1.1},
				"format":"json","keep_alive":"10m"}`,
		},
	}
	providertest.CheckRequests(t, ollamaAnswer, "chat.json", tests, func(t *testing.T, baseURL string, req *provider.Request) error {
		_, err := newClient(t, baseURL, "").Generate(context.Background(), req)
		return err
	}, checkRequest)
}

// checkRequest checks what a request of TestRequestBody was sent as,
// apart from its body.
func checkRequest(t *testing.T, seen providertest.Request) {
	if seen.Method != http.MethodPost || seen.URL.Path != "/api/chat" {
		t.Errorf("got %s %s, want POST /api/chat", seen.Method, seen.URL.Path)
	}
	if v := seen.Header.Get("Authorization"); v != "" {
		t.Errorf("got Authorization %q, want none without a key", v)
	}
	if v := seen.Header.Get("Content-Type"); v != "application/json" {
		t.Errorf("got content-type %q, want application/json", v)
	}
}

func TestHostURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "http://localhost:11434"},
		{"0.0.0.0:11434", "http://0.0.0.0:11434"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{"example.com", "http://example.com:11434"},
		{":8080", "http://127.0.0.1:8080"},
		{"::1", "http://[::1]:11434"},
		{"[::1]:9000", "http://[::1]:9000"},
		{`"127.0.0.1:11434"`, "http://127.0.0.1:11434"},
		{"https://ollama.example.com", "https://ollama.example.com"},
		{"http://gpu-box:11434/", "http://gpu-box:11434"},
		{"https://proxy.example/ollama/api", "https://proxy.example/ollama"},
		{"gpu-box:11434/ollama", "http://gpu-box:11434/ollama"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			u, err := HostURL("OLLAMA_HOST", tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := u.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"ftp://x", "host:99999", "host:port", "http://x/?key=1", "http://"} {
		t.Run("invalid "+bad, func(t *testing.T) {
			if _, err := HostURL("OLLAMA_HOST", bad); err == nil || !strings.HasPrefix(err.Error(), "OLLAMA_HOST: ") {
				t.Errorf("got %v, want an error naming OLLAMA_HOST", err)
			}
		})
	}
}

func TestOpenServerAndKey(t *testing.T) {
	srv := fakeOllama(t, 200, providertest.Fixture(t, "chat.json"))
	hostport := strings.TrimPrefix(srv.URL, "http://")
	tests := []struct {
		name     string
		settings map[string]any
		env      map[string]string
		wantAuth string
	}{
		{"OLLAMA_HOST without a scheme", nil, map[string]string{"OLLAMA_HOST": hostport}, ""},
		{"base_url wins over OLLAMA_HOST", map[string]any{"base_url": srv.URL}, map[string]string{"OLLAMA_HOST": "127.0.0.1:1"}, ""},
		{"api_key_env sends a bearer token", map[string]any{"base_url": srv.URL, "api_key_env": "OLLAMA_API_KEY"}, map[string]string{"OLLAMA_API_KEY": testKey}, "Bearer " + testKey},
		{"headers are sent", map[string]any{"base_url": srv.URL, "headers": map[string]any{"X-Team": "canary"}}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := provider.Open("ollama/qwen3:8b", provider.Options{Settings: tc.settings, Getenv: func(k string) string { return tc.env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Generate(context.Background(), providertest.PlainRequest()); err != nil {
				t.Fatal(err)
			}
			seen := srv.Last(t)
			if m := seen.JSON(t)["model"]; m != "qwen3:8b" {
				t.Errorf("got model %v, want qwen3:8b", m)
			}
			if a := seen.Header.Get("Authorization"); a != tc.wantAuth {
				t.Errorf("got Authorization %q, want %q", a, tc.wantAuth)
			}
			if h, ok := tc.settings["headers"].(map[string]any); ok {
				if v := seen.Header.Get("X-Team"); v != h["X-Team"] {
					t.Errorf("got X-Team %q, want %q", v, h["X-Team"])
				}
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []providertest.OpenErrorCase{
		{Name: "key variable named but unset", Settings: map[string]any{"api_key_env": "OLLAMA_API_KEY"}, Want: []string{"OLLAMA_API_KEY is not set"}},
		{Name: "bad OLLAMA_HOST", Env: map[string]string{"OLLAMA_HOST": "gpu:notaport"}, Want: []string{"OLLAMA_HOST: want a server address"}},
		{Name: "bad base_url", Settings: map[string]any{"base_url": "ftp://x"}, Want: []string{"setting base_url: want a server address"}},
		{Name: "unknown setting suggests the nearest", Settings: map[string]any{"base_urll": "x"}, Want: []string{`unknown setting "base_urll" (did you mean base_url?)`}},
		{Name: "key pasted into api_key_env is not echoed", Settings: map[string]any{"api_key_env": "ot-test-9a8b7c6d5e4f3a2b1c0d"}, Want: []string{"not the key itself"}},
		{Name: "several problems at once", Settings: map[string]any{"headers": map[string]any{"x": 1}, "base_url": true}, Want: []string{"headers: x: want a string", "base_url: want a string"}},
	}
	providertest.CheckOpenErrors(t, Open, "llama3.2", tests, testKey)
}

func TestResponses(t *testing.T) {
	tests := []providertest.ResponseCase{
		{
			Name:    "chat answer",
			Fixture: "chat.json",
			Want: promptcanary.Response{
				Content: "Hello! How are you today?", FinishReason: "stop",
				PromptTokens: 26, CompletionTokens: 298, TotalTokens: 324, ServedModel: "llama3.2",
			},
		},
		{
			Name:    "tool calls with object and string arguments",
			Fixture: "tool_calls.json",
			Want: promptcanary.Response{
				FinishReason: "stop", PromptTokens: 122, CompletionTokens: 33, TotalTokens: 155, ServedModel: "llama3.2",
				ToolCalls: []promptcanary.ToolCall{
					{Name: "get_current_weather", Arguments: json.RawMessage(`{"format":"celsius","location":"Paris, FR"}`)},
					{ID: "call_k4x9m2", Name: "get_time", Arguments: json.RawMessage(`{"zone":"Europe/Paris"}`)},
				},
			},
		},
		{
			Name:    "thinking is left out of the content",
			Fixture: "thinking.json",
			Want: promptcanary.Response{
				Content: "Paris.", FinishReason: "stop",
				PromptTokens: 18, CompletionTokens: 40, TotalTokens: 58, ServedModel: "qwen3:8b",
			},
		},
		{
			Name:    "a length cut-off keeps its text",
			Fixture: "length.json",
			Want: promptcanary.Response{
				Content: "Once upon a time, in a", FinishReason: "length",
				PromptTokens: 11, CompletionTokens: 8, TotalTokens: 19, ServedModel: "llama3.2:latest",
			},
		},
		{
			Name:    "negative counts from a broken server read as 0",
			Fixture: "negative_counts.json",
			Want: promptcanary.Response{
				Content: "ok", FinishReason: "stop", CompletionTokens: 3, TotalTokens: 3, ServedModel: "llama3.2",
			},
		},
	}
	providertest.CheckResponses(t, ollamaAnswer, tests, generate(""))
}

func TestErrors(t *testing.T) {
	tests := []providertest.ErrorCase{
		{Name: "unknown model is final", Status: 404, Body: providertest.Fixture(t, "error_not_found.json"), WantStatus: 404, Msg: `model "llama9" not found, try pulling it first`},
		{Name: "model without tool support is final", Status: 400, Body: providertest.Fixture(t, "error_tools_unsupported.json"), WantStatus: 400, Msg: "does not support tools"},
		{Name: "runner crash is retryable", Status: 500, Body: providertest.Fixture(t, "error_runner.json"), WantStatus: 500, Retryable: true, Msg: "llama runner process has terminated"},
		{Name: "busy server is retryable", Status: 503, Body: `{"error":"server busy, please try again.  maximum pending requests exceeded"}`, WantStatus: 503, Retryable: true, Msg: "server busy"},
		{Name: "error after the answer began is retryable", Status: 200, Body: providertest.Fixture(t, "error_midstream.json"), Retryable: true, Msg: "an error was encountered while running the model"},
		{Name: "wrong key", Status: 401, Body: `{"error":"unauthorized"}`, WantStatus: 401, Msg: "unauthorized (check the API key)"},
		{Name: "key echoed back is redacted", Status: 401, Body: `{"error":"bad token ` + testKey + `"}`, WantStatus: 401, Msg: "bad token [REDACTED]"},
		{Name: "malformed JSON is retryable", Status: 200, Body: `{"model":"llama3.2","message":{"content":"hi"}}}`, Retryable: true, Msg: "malformed JSON"},
		{Name: "truncated JSON is retryable", Status: 200, Body: providertest.Fixture(t, "chat.json")[:90], Retryable: true, Msg: "malformed JSON"},
		{Name: "wrong shape is final", Status: 200, Body: `{"message":"hi"}`, Msg: "malformed JSON"},
		{Name: "empty content is final", Status: 200, Body: providertest.Fixture(t, "empty.json"), Msg: `response has no message content or tool calls (done_reason "stop")`},
		{Name: "a load-only answer is final", Status: 200, Body: providertest.Fixture(t, "load.json"), Msg: `(done_reason "load")`},
	}
	providertest.CheckErrors(t, ollamaAnswer, tests, generate(testKey), testKey)
}

func TestRateLimited(t *testing.T) {
	srv := providertest.Serve(t, providertest.Answer{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "4"}, Body: `{"error":"too many requests"}`})
	_, err := newClient(t, srv.URL, testKey).Generate(context.Background(), providertest.PlainRequest())
	providertest.CheckError(t, err, providertest.WantError{Status: 429, Retryable: true, After: 4 * time.Second, Msg: "too many requests"}, testKey)
}

func TestDeadline(t *testing.T) {
	providertest.CheckDeadline(t, 20*time.Millisecond, func(ctx context.Context, url string) error {
		_, err := newClient(t, url, testKey).Generate(ctx, providertest.PlainRequest())
		return err
	}, testKey)
}

func TestServerDownIsRetryable(t *testing.T) {
	providertest.CheckServerDown(t, func(url string) error {
		_, err := newClient(t, url, "").Generate(context.Background(), providertest.PlainRequest())
		return err
	}, testKey)
}

// TestManyToolCallsBounded: a /api/chat answer with 20,000 tool calls
// keeps the first toolcall.Max, marked as cut.
// Shape: https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools
func TestManyToolCallsBounded(t *testing.T) {
	c := newClient(t, "", "")
	resp, err := c.decode(providertest.ManyToolCalls(`{"model":"llama3.2","created_at":"2026-12-03T18:00:00Z","message":{"role":"assistant","content":"","tool_calls":[`,
		`]},"done":true,"done_reason":"stop","prompt_eval_count":10,"eval_count":90000}`,
		providertest.Calls(`{"function":{"name":"tool_%[1]d","arguments":{}}}`)))
	providertest.CheckToolCallsBounded(t, resp, err, providertest.ToolName)
}
