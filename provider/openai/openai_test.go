package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// testKey is echoed back by the fake servers, so a leak would show.
const testKey = "sk-test-DO-NOT-LEAK-0123456789"

// newServer starts a fake Chat Completions server answering every request
// with status, headers and body.
func newServer(t *testing.T, status int, header map[string]string, body []byte) *providertest.Server {
	return providertest.Serve(t, providertest.Answer{Status: status, Header: header, Body: string(body)})
}

// redirect is a transport that sends every request to target while
// recording the URL the client asked for, so default base URLs can be
// tested without leaving loopback.
type redirect struct {
	target *url.URL
	mu     sync.Mutex
	urls   []string
}

func (rt *redirect) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.mu.Lock()
	rt.urls = append(rt.urls, r.URL.String())
	rt.mu.Unlock()
	r2 := r.Clone(r.Context())
	r2.URL.Scheme = rt.target.Scheme
	r2.URL.Host = rt.target.Host
	r2.Host = ""
	return http.DefaultTransport.RoundTrip(r2)
}

func (rt *redirect) last() string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.urls) == 0 {
		return ""
	}
	return rt.urls[len(rt.urls)-1]
}

func redirectTo(t *testing.T, s *providertest.Server) (*redirect, *http.Client) {
	t.Helper()
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	rt := &redirect{target: u}
	return rt, &http.Client{Transport: rt}
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	return []byte(providertest.Fixture(t, name))
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func open(t *testing.T, spec string, opts provider.Options) provider.Provider {
	t.Helper()
	p, err := provider.Open(spec, opts)
	if err != nil {
		t.Fatalf("open %s: %v", spec, err)
	}
	return p
}

func seed(v int64) *int64 { return &v }

// weatherPrompt declares one tool and forces it by name.
func weatherPrompt() *promptcanary.Prompt {
	return &promptcanary.Prompt{
		ID:           "weather",
		Text:         "What is the weather in Paris?",
		SystemPrompt: "You are a terse assistant.",
		Tools: []promptcanary.Tool{{
			Name:        "get_weather",
			Description: "Current weather for a city.",
			Parameters: map[string]any{
				"type":       "object",
				"properties": map[string]any{"city": map[string]any{"type": "string"}},
				"required":   []any{"city"},
			},
		}},
		ToolChoice: "get_weather",
	}
}

// generateRequestCase is one case of TestGenerateRequest.
type generateRequestCase struct {
	name     string
	spec     string
	env      map[string]string
	settings map[string]any
	// redirect sends the request to the default base URL.
	redirect   bool
	wantURL    string // full URL asked for (redirect) or path and query
	wantHeader map[string]string
	noHeader   []string
	wantBody   map[string]any
}

// wantChatBody is the body every case of TestGenerateRequest sends, but
// for the model and the names the API gives max_tokens and the seed.
func wantChatBody(model, maxTokens, seed string) map[string]any {
	wantTools := []any{map[string]any{
		"type": "function",
		"function": map[string]any{
			"name":        "get_weather",
			"description": "Current weather for a city.",
			"parameters": map[string]any{
				"type":       "object",
				"properties": map[string]any{"city": map[string]any{"type": "string"}},
				"required":   []any{"city"},
			},
		},
	}}
	wantMessages := []any{
		map[string]any{"role": "system", "content": "You are a terse assistant."},
		map[string]any{"role": "user", "content": "What is the weather in Paris?"},
	}
	wantChoice := map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}
	return map[string]any{
		"model": model, "messages": wantMessages, "temperature": 0.0,
		maxTokens: 256.0, seed: 42.0,
		"tools": wantTools, "tool_choice": wantChoice, "top_p": 0.5,
	}
}

// generateRequestCases are the cases of TestGenerateRequest.
var generateRequestCases = []generateRequestCase{
	{
		name:       "openai default base sends max_completion_tokens",
		spec:       "openai/gpt-4o",
		env:        map[string]string{"OPENAI_API_KEY": testKey},
		redirect:   true,
		wantURL:    "https://api.openai.com/v1/chat/completions",
		wantHeader: map[string]string{"Authorization": "Bearer " + testKey, "Content-Type": "application/json"},
		noHeader:   []string{"Api-Key"},
		wantBody:   wantChatBody("gpt-4o", "max_completion_tokens", "seed"),
	},
	{
		name:       "openai custom base sends max_tokens",
		spec:       "openai/llama3",
		settings:   map[string]any{"base_url": "BASE/v1"},
		wantURL:    "/v1/chat/completions",
		wantHeader: map[string]string{"Content-Type": "application/json"},
		noHeader:   []string{"Authorization", "Api-Key"},
		wantBody:   wantChatBody("llama3", "max_tokens", "seed"),
	},
	{
		name:       "groq shortcut",
		spec:       "groq/llama-3.3-70b-versatile",
		env:        map[string]string{"GROQ_API_KEY": testKey},
		redirect:   true,
		wantURL:    "https://api.groq.com/openai/v1/chat/completions",
		wantHeader: map[string]string{"Authorization": "Bearer " + testKey},
		wantBody:   wantChatBody("llama-3.3-70b-versatile", "max_tokens", "seed"),
	},
	{
		name:       "mistral names the seed random_seed",
		spec:       "mistral/mistral-small-latest",
		env:        map[string]string{"MISTRAL_API_KEY": testKey},
		redirect:   true,
		wantURL:    "https://api.mistral.ai/v1/chat/completions",
		wantHeader: map[string]string{"Authorization": "Bearer " + testKey},
		wantBody:   wantChatBody("mistral-small-latest", "max_tokens", "random_seed"),
	},
	{
		name:       "azure deployment URL, api-version and api-key header",
		spec:       "azure/my-gpt4o",
		env:        map[string]string{"AZURE_OPENAI_API_KEY": testKey, "AZURE_OPENAI_ENDPOINT": "https://contoso.openai.azure.com/"},
		redirect:   true,
		wantURL:    "https://contoso.openai.azure.com/openai/deployments/my-gpt4o/chat/completions?api-version=" + DefaultAzureAPIVersion,
		wantHeader: map[string]string{"Api-Key": testKey},
		noHeader:   []string{"Authorization"},
		wantBody:   wantChatBody("my-gpt4o", "max_completion_tokens", "seed"),
	},
	{
		name:       "azure api_version setting and headers setting",
		spec:       "azure/dep",
		env:        map[string]string{"AZURE_OPENAI_API_KEY": testKey, "AZURE_OPENAI_API_VERSION": "2024-06-01"},
		settings:   map[string]any{"base_url": "BASE", "api_version": "2025-04-01-preview", "headers": map[string]any{"X-Ms-Client-Request-Id": "req-1"}},
		wantURL:    "/openai/deployments/dep/chat/completions?api-version=2025-04-01-preview",
		wantHeader: map[string]string{"Api-Key": testKey, "X-Ms-Client-Request-Id": "req-1"},
		noHeader:   []string{"Authorization"},
		wantBody:   wantChatBody("dep", "max_completion_tokens", "seed"),
	},
	{
		name:       "max_tokens_field setting and api_key_env",
		spec:       "openai/gpt-4o",
		env:        map[string]string{"MY_KEY": testKey},
		settings:   map[string]any{"base_url": "BASE/v1/", "max_tokens_field": "max_completion_tokens", "api_key_env": "MY_KEY"},
		wantURL:    "/v1/chat/completions",
		wantHeader: map[string]string{"Authorization": "Bearer " + testKey},
		wantBody:   wantChatBody("gpt-4o", "max_completion_tokens", "seed"),
	},
}

func TestGenerateRequest(t *testing.T) {
	for _, tc := range generateRequestCases {
		t.Run(tc.name, tc.run)
	}
}

// run sends the case's request and checks it.
func (tc generateRequestCase) run(t *testing.T) {
	s := newServer(t, 200, nil, fixture(t, "chat.json"))
	opts := provider.Options{Getenv: env(tc.env), Settings: map[string]any{}}
	for k, v := range tc.settings {
		if str, ok := v.(string); ok {
			v = strings.Replace(str, "BASE", s.URL, 1)
		}
		opts.Settings[k] = v
	}
	var rt *redirect
	if tc.redirect {
		rt, opts.HTTPClient = redirectTo(t, s)
	}
	p := open(t, tc.spec, opts)
	_, err := p.Generate(context.Background(), &provider.Request{
		Prompt: weatherPrompt(),
		Config: promptcanary.ProviderConfig{
			ModelID: tc.spec, Temperature: 0, MaxTokens: 256, Seed: seed(42),
			ExtraParams: map[string]any{"top_p": 0.5},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Last(t)
	if got.Method != http.MethodPost {
		t.Errorf("got method %s, want POST", got.Method)
	}
	gotURL := got.URL.Path
	if q := got.URL.Query(); len(q) > 0 {
		gotURL += "?" + q.Encode()
	}
	if rt != nil {
		gotURL = rt.last()
	}
	if gotURL != tc.wantURL {
		t.Errorf("got URL %s, want %s", gotURL, tc.wantURL)
	}
	for k, v := range tc.wantHeader {
		if g := got.Header.Get(k); g != v {
			t.Errorf("got header %s %q, want %q", k, g, v)
		}
	}
	for _, k := range tc.noHeader {
		if g := got.Header.Get(k); g != "" {
			t.Errorf("got header %s %q, want none", k, g)
		}
	}
	if diff := cmp.Diff(tc.wantBody, got.JSON(t)); diff != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", diff)
	}
}

func TestGenerateRequestOptionalFields(t *testing.T) {
	tests := []struct {
		name       string
		prompt     *promptcanary.Prompt
		cfg        promptcanary.ProviderConfig
		want       map[string]any
		wantAbsent []string
	}{
		{
			name:       "no system prompt, no seed, no max tokens, no tools",
			prompt:     &promptcanary.Prompt{Text: "hi"},
			cfg:        promptcanary.ProviderConfig{Temperature: 0.7},
			want:       map[string]any{"messages": []any{map[string]any{"role": "user", "content": "hi"}}, "temperature": 0.7},
			wantAbsent: []string{"seed", "max_tokens", "max_completion_tokens", "tools", "tool_choice"},
		},
		{
			name:       "tool choice mode string, tool without parameters",
			prompt:     &promptcanary.Prompt{Text: "hi", Tools: []promptcanary.Tool{{Name: "now"}}, ToolChoice: "required"},
			want:       map[string]any{"tool_choice": "required", "tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "now"}}}},
			wantAbsent: []string{"seed"},
		},
		{
			name:       "tools without a tool choice send none",
			prompt:     &promptcanary.Prompt{Text: "hi", Tools: []promptcanary.Tool{{Name: "now"}}},
			wantAbsent: []string{"tool_choice"},
		},
		{
			name:       "tool choice without tools is not sent",
			prompt:     &promptcanary.Prompt{Text: "hi", ToolChoice: "auto"},
			wantAbsent: []string{"tool_choice", "tools"},
		},
		{
			name:   "extra params override the client's own keys",
			prompt: &promptcanary.Prompt{Text: "hi"},
			cfg:    promptcanary.ProviderConfig{MaxTokens: 10, ExtraParams: map[string]any{"max_tokens": 99, "model": "other", "response_format": map[string]any{"type": "json_object"}}},
			want:   map[string]any{"max_tokens": 99.0, "model": "other", "response_format": map[string]any{"type": "json_object"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, 200, nil, fixture(t, "chat.json"))
			p := open(t, "together/meta-llama/Llama-3.3-70B-Instruct-Turbo", provider.Options{
				Getenv: env(map[string]string{"TOGETHER_API_KEY": testKey}), Settings: map[string]any{"base_url": s.URL},
			})
			if _, err := p.Generate(context.Background(), &provider.Request{Prompt: tc.prompt, Config: tc.cfg}); err != nil {
				t.Fatal(err)
			}
			body := s.Last(t).JSON(t)
			for k, v := range tc.want {
				if diff := cmp.Diff(v, body[k]); diff != "" {
					t.Errorf("body[%s] mismatch (-want +got):\n%s", k, diff)
				}
			}
			for _, k := range tc.wantAbsent {
				if v, ok := body[k]; ok {
					t.Errorf("got body[%s] = %v, want absent", k, v)
				}
			}
		})
	}
}

// generateResponseCase is one case of TestGenerateResponse.
type generateResponseCase struct {
	name    string
	spec    string
	status  int
	fixture string
	want    promptcanary.Response
}

// generateResponseCases are the cases of TestGenerateResponse.
var generateResponseCases = []generateResponseCase{
	{
		name: "text answer", spec: "openai/gpt-4o", status: 200, fixture: "chat.json",
		want: promptcanary.Response{
			Content: "The capital of France is Paris.", FinishReason: "stop",
			PromptTokens: 1117, CompletionTokens: 46, TotalTokens: 1163,
			ServedModel: "gpt-4o-2024-08-06", SystemFingerprint: "fp_fc9f1d7035",
			ResponseID: "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
		},
	},
	{
		name: "tool calls with string arguments", spec: "openai/gpt-4o-mini", status: 200, fixture: "tool_calls.json",
		want: promptcanary.Response{
			FinishReason: "tool_calls", PromptTokens: 82, CompletionTokens: 17, TotalTokens: 99,
			ServedModel: "gpt-4o-mini-2024-07-18", SystemFingerprint: "fp_44709d6fcb", ResponseID: "chatcmpl-abc123",
			ToolCalls: []promptcanary.ToolCall{
				{ID: "call_abc123", Name: "get_current_weather", Arguments: json.RawMessage(`{"location":"Boston, MA"}`)},
				{ID: "call_def456", Name: "get_time", Arguments: json.RawMessage(`{}`)},
			},
		},
	},
	{
		name: "refusal becomes the content, finishing refusal", spec: "openai/gpt-4o", status: 200, fixture: "refusal.json",
		want: promptcanary.Response{
			Content: "I'm sorry, I can't assist with that request.", FinishReason: FinishRefusal,
			PromptTokens: 20, CompletionTokens: 10, TotalTokens: 30,
			ServedModel: "gpt-4o-2024-08-06", SystemFingerprint: "fp_fc9f1d7035", ResponseID: "chatcmpl-refusal1",
		},
	},
	{
		name: "content as an array of parts", spec: "mistral/magistral-medium-latest", status: 200, fixture: "mistral_parts.json",
		want: promptcanary.Response{
			Content: "The capital of France is Paris.", FinishReason: "stop",
			PromptTokens: 12, CompletionTokens: 40, TotalTokens: 52,
			ServedModel: "magistral-medium-2507", ResponseID: "a9b5e3f0c3b64d0f8b6a6d3a2e1f0c9d",
		},
	},
	{
		name: "azure filtered completion is a response", spec: "azure/dep", status: 200, fixture: "azure_filtered.json",
		want: promptcanary.Response{
			FinishReason: "content_filter", PromptTokens: 25, TotalTokens: 25,
			ServedModel: "gpt-4o-2024-11-20", SystemFingerprint: "fp_ee1d74bde0", ResponseID: "chatcmpl-AzureFiltered01",
		},
	},
	{
		name: "azure 400 content_filter is a filtered response", spec: "azure/dep", status: 400, fixture: "azure_content_filter_400.json",
		want: promptcanary.Response{FinishReason: "content_filter"},
	},
	{
		name: "reasoning model cut off before any text", spec: "openai/o4-mini", status: 200, fixture: "length_empty.json",
		want: promptcanary.Response{
			FinishReason: "length", PromptTokens: 30, CompletionTokens: 64, TotalTokens: 94, ReasoningTokens: 64,
			ServedModel: "o4-mini-2025-04-16", ResponseID: "chatcmpl-len01",
		},
	},
}

func TestGenerateResponse(t *testing.T) {
	for _, tc := range generateResponseCases {
		t.Run(tc.name, tc.run)
	}
}

// run answers with the case's fixture and checks what the client read.
func (tc generateResponseCase) run(t *testing.T) {
	body := fixture(t, tc.fixture)
	s := newServer(t, tc.status, nil, body)
	p := open(t, tc.spec, provider.Options{
		Getenv:   env(map[string]string{"OPENAI_API_KEY": testKey, "MISTRAL_API_KEY": testKey, "AZURE_OPENAI_API_KEY": testKey}),
		Settings: map[string]any{"base_url": s.URL},
	})
	got, err := p.Generate(context.Background(), &provider.Request{
		Prompt: &promptcanary.Prompt{ID: "p", Text: "What is the capital of France?"},
		Config: promptcanary.ProviderConfig{ModelID: tc.spec},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := tc.want
	want.ProviderModelID = tc.spec
	if !json.Valid(got.RawResponse) || !strings.Contains(string(got.RawResponse), `"`) {
		t.Errorf("got raw response %q, want the JSON body", got.RawResponse)
	}
	var gotRaw, wantRaw any
	json.Unmarshal(got.RawResponse, &gotRaw)
	json.Unmarshal(body, &wantRaw)
	if diff := cmp.Diff(wantRaw, gotRaw); diff != "" {
		t.Errorf("raw response mismatch (-want +got):\n%s", diff)
	}
	got.RawResponse = nil
	if diff := cmp.Diff(&want, got, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" {
		t.Errorf("response mismatch (-want +got):\n%s", diff)
	}
}

func TestGenerateFailures(t *testing.T) {
	tests := []struct {
		name          string
		status        int
		header        map[string]string
		fixture       string
		wantStatus    int
		wantRetryable bool
		wantAfter     time.Duration
		wantMsg       string
	}{
		{name: "rate limited with Retry-After", status: 429, header: map[string]string{"Retry-After": "7"}, fixture: "error_429.json",
			wantStatus: 429, wantRetryable: true, wantAfter: 7 * time.Second, wantMsg: "requests: Rate limit reached for gpt-4o"},
		{name: "server error", status: 500, fixture: "error_500.json",
			wantStatus: 500, wantRetryable: true, wantMsg: "server_error: The server had an error"},
		{name: "wrong key", status: 401, fixture: "error_401.json",
			wantStatus: 401, wantMsg: "invalid_request_error: Incorrect API key provided: [REDACTED]"},
		{name: "bad request is final", status: 400, fixture: "error_400.json",
			wantStatus: 400, wantMsg: "invalid_request_error: Unsupported parameter: 'max_tokens'"},
		{name: "malformed JSON", status: 200, fixture: "not_json.html",
			wantStatus: 200, wantRetryable: true, wantMsg: "malformed JSON response"},
		{name: "truncated JSON", status: 200, fixture: "truncated.json",
			wantStatus: 200, wantRetryable: true, wantMsg: "malformed JSON response"},
		{name: "empty choices", status: 200, fixture: "empty_choices.json",
			wantStatus: 200, wantMsg: "response has no choices"},
		{name: "no content and no tool calls", status: 200, fixture: "empty_content.json",
			wantStatus: 200, wantMsg: `response has no content and no tool calls (finish_reason "stop")`},
		{name: "gateway error inside a 200", status: 200, fixture: "openrouter_error_200.json",
			wantStatus: 200, wantRetryable: true, wantMsg: "response has no choices: Provider returned error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.status, tc.header, fixture(t, tc.fixture))
			p := open(t, "openrouter/openai/gpt-4o", provider.Options{
				Getenv:   env(map[string]string{"OPENROUTER_API_KEY": testKey}),
				Settings: map[string]any{"base_url": s.URL + "/api/v1"},
			})
			resp, err := p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}})
			if err == nil {
				t.Fatalf("got response %+v, want an error", resp)
			}
			providertest.CheckError(t, err, providertest.WantError{Status: tc.wantStatus, Retryable: tc.wantRetryable, After: tc.wantAfter, Msg: tc.wantMsg}, testKey)
		})
	}
}

func TestGenerateWrongKeyHint(t *testing.T) {
	s := newServer(t, 401, nil, fixture(t, "error_401.json"))
	p := open(t, "xai/grok-4", provider.Options{
		Getenv: env(map[string]string{"XAI_API_KEY": testKey}), Settings: map[string]any{"base_url": s.URL},
	})
	_, err := p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}})
	if err == nil || !strings.Contains(err.Error(), "(check the API key)") {
		t.Errorf("got %v, want a hint to check the API key", err)
	}
	if provider.IsRetryable(err) {
		t.Errorf("got retryable, want a final error for 401")
	}
	providertest.NoLeak(t, err, testKey)
}

func TestGenerateDeadline(t *testing.T) {
	providertest.CheckDeadline(t, 20*time.Millisecond, func(ctx context.Context, url string) error {
		p := open(t, "openai/gpt-4o", provider.Options{
			Getenv: env(map[string]string{"OPENAI_API_KEY": testKey}), Settings: map[string]any{"base_url": url},
		})
		_, err := p.Generate(ctx, &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}})
		return err
	}, testKey)
}

func TestGenerateTransportErrorIsRetryable(t *testing.T) {
	providertest.CheckServerDown(t, func(url string) error {
		p := open(t, "groq/llama", provider.Options{
			Getenv: env(map[string]string{"GROQ_API_KEY": testKey}), Settings: map[string]any{"base_url": url},
		})
		_, err := p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}})
		return err
	}, testKey)
}

func TestGenerateMissingPrompt(t *testing.T) {
	c, err := New(Config{Name: "openai", Model: "gpt-4o", APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Generate(context.Background(), &provider.Request{}); err == nil || err.Error() != "generate: missing prompt" {
		t.Errorf("got %v, want generate: missing prompt", err)
	}
}

// TestEachSampleSendsItsOwnSeed checks that the samples of a prompt are
// separate draws: sample k sends the configured seed plus k, so an API
// that honours seeds does not repeat the first sample's answer.
func TestEachSampleSendsItsOwnSeed(t *testing.T) {
	s := newServer(t, 200, nil, fixture(t, "chat.json"))
	p := open(t, "openai/gpt-4o", provider.Options{Getenv: env(map[string]string{"OPENAI_API_KEY": testKey}),
		Settings: map[string]any{"base_url": s.URL}})
	for sample, want := range map[int]float64{0: 42, 1: 43, 7: 49} {
		_, err := p.Generate(context.Background(), &provider.Request{Prompt: weatherPrompt(), Sample: sample,
			Config: promptcanary.ProviderConfig{ModelID: "openai/gpt-4o", MaxTokens: 16, Seed: seed(42)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Last(t).JSON(t)["seed"]; got != want {
			t.Errorf("sample %d sent seed %v, want %v", sample, got, want)
		}
	}
}
