package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// secretToken is the value of APP_TOKEN in tests; it must never appear in
// an error.
const secretToken = "tok-3f9a7c1e5b2d4f6a8c0e"

// env returns a Getenv over m.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// loadSettings decodes a testdata YAML file as canary.yaml would.
func loadSettings(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatalf("decode %s: %v", file, err)
	}
	return m
}

// recorder is a test server that records every request and answers with a
// fixed status and body. Request bodies may be anything: a template need
// not produce a JSON object, and a GET sends none.
func recorder(t *testing.T, status int, respBody string) *providertest.Server {
	return providertest.Serve(t, providertest.Answer{Status: status, Body: respBody, AnyBody: true})
}

func request(p *promptcanary.Prompt) *provider.Request {
	seed := int64(42)
	return &provider.Request{
		Prompt: p,
		Config: promptcanary.ProviderConfig{ModelID: "http/app", Temperature: 0.7, MaxTokens: 256, Seed: &seed},
		Sample: 3,
	}
}

// trickyPrompt holds everything that breaks text-pasted JSON.
const trickyPrompt = "Say \"hi\"\nthen {{system}} and {{prompt_id}}\t\\ \"}, \"injected\": true, \"x\": {\"" + "\u2028<b>&</b>"

// generateRequestCase is one case of TestGenerateRequest.
type generateRequestCase struct {
	name      string
	settings  map[string]any
	extra     map[string]any
	noSeed    bool
	wantMeth  string
	wantPath  string
	wantQuery string
	wantBody  any // decoded JSON; nil means no body
	wantHdr   map[string]string
}

// generateRequestCases are the cases of TestGenerateRequest.
var generateRequestCases = []generateRequestCase{
	{
		name:     "default body",
		settings: map[string]any{"response": map[string]any{"text": "answer"}},
		wantMeth: "POST",
		wantPath: "/chat",
		wantBody: map[string]any{"prompt": trickyPrompt, "system": "Be brief."},
		wantHdr:  map[string]string{"Content-Type": "application/json", "Accept": "application/json"},
	},
	{
		name: "template with every placeholder",
		settings: map[string]any{
			"body": map[string]any{
				"question": "{{prompt}}",
				"context": map[string]any{
					"instructions": "{{ system }}",
					"ref":          "canary-{{prompt_id}}-{{sample}}",
					"mixed":        "t={{temperature}} n={{max_tokens}} s={{seed}}",
				},
				"options": map[string]any{
					"temperature": "{{temperature}}",
					"max_tokens":  "{{max_tokens}}",
					"seed":        "{{seed}}",
					"sample":      "{{sample}}",
					"stream":      false,
					"tags":        []any{"canary", 1, 2.5, nil},
				},
			},
			"response": map[string]any{"text": "answer"},
		},
		wantMeth: "POST",
		wantPath: "/chat",
		wantBody: map[string]any{
			"question": trickyPrompt,
			"context": map[string]any{
				"instructions": "Be brief.",
				"ref":          "canary-p1-3",
				"mixed":        "t=0.7 n=256 s=42",
			},
			"options": map[string]any{
				"temperature": 0.7, "max_tokens": 256.0, "seed": 42.0, "sample": 3.0,
				"stream": false, "tags": []any{"canary", 1.0, 2.5, nil},
			},
		},
	},
	{
		name: "unset seed is null",
		settings: map[string]any{
			"body":     map[string]any{"seed": "{{seed}}", "text": "seed={{seed}}"},
			"response": map[string]any{"text": "answer"},
		},
		noSeed:   true,
		wantMeth: "POST",
		wantPath: "/chat",
		wantBody: map[string]any{"seed": nil, "text": "seed="},
	},
	{
		name: "extra params merge at top level",
		settings: map[string]any{
			"body":     map[string]any{"prompt": "{{prompt}}", "mode": "fast"},
			"response": map[string]any{"text": "answer"},
		},
		extra:    map[string]any{"mode": "accurate", "user": map[string]any{"id": 7}},
		wantMeth: "POST",
		wantPath: "/chat",
		wantBody: map[string]any{"prompt": trickyPrompt, "mode": "accurate", "user": map[string]any{"id": 7.0}},
	},
	{
		name: "array body",
		settings: map[string]any{
			"body":     []any{map[string]any{"role": "system", "content": "{{system}}"}, map[string]any{"role": "user", "content": "{{prompt}}"}},
			"response": map[string]any{"text": "answer"},
		},
		extra:    map[string]any{"ignored": true},
		wantMeth: "POST",
		wantPath: "/chat",
		wantBody: []any{map[string]any{"role": "system", "content": "Be brief."}, map[string]any{"role": "user", "content": trickyPrompt}},
	},
	{
		name: "headers with env substitution and method",
		settings: map[string]any{
			"method": "put",
			"headers": map[string]any{
				"Authorization": "Bearer ${APP_TOKEN}",
				"X-Version":     2,
				"Content-Type":  "application/json; charset=utf-8",
			},
			"response": map[string]any{"text": "answer"},
		},
		wantMeth: "PUT",
		wantPath: "/chat",
		wantBody: map[string]any{"prompt": trickyPrompt, "system": "Be brief."},
		wantHdr: map[string]string{
			"Authorization": "Bearer " + secretToken,
			"X-Version":     "2",
			"Content-Type":  "application/json; charset=utf-8",
		},
	},
	{
		name: "get with placeholders in the url",
		settings: map[string]any{
			"url":      "{{SERVER}}/ask/{{prompt_id}}?q={{prompt}}&n={{max_tokens}}",
			"method":   "GET",
			"response": map[string]any{"text": "answer"},
		},
		wantMeth:  "GET",
		wantPath:  "/ask/p1",
		wantQuery: "q=" + url.QueryEscape(trickyPrompt) + "&n=256",
	},
}

func TestGenerateRequest(t *testing.T) {
	for _, tc := range generateRequestCases {
		t.Run(tc.name, tc.run)
	}
}

// run sends the case's request and checks it.
func (tc generateRequestCase) run(t *testing.T) {
	srv := recorder(t, 200, `{"answer":"ok"}`)
	settings := map[string]any{"url": srv.URL + "/chat"}
	for k, v := range tc.settings {
		settings[k] = v
	}
	if u, ok := settings["url"].(string); ok {
		settings["url"] = strings.Replace(u, "{{SERVER}}", srv.URL, 1)
	}
	p, err := provider.Open("http/app", provider.Options{Settings: settings, Getenv: env(map[string]string{"APP_TOKEN": secretToken})})
	if err != nil {
		t.Fatal(err)
	}
	req := request(&promptcanary.Prompt{ID: "p1", Text: trickyPrompt, SystemPrompt: "Be brief."})
	req.Config.ExtraParams = tc.extra
	if tc.noSeed {
		req.Config.Seed = nil
	}
	resp, err := p.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "ok" {
		t.Errorf("got content %q, want %q", resp.Content, "ok")
	}
	got := srv.Last(t)
	if got.Method != tc.wantMeth || got.URL.Path != tc.wantPath || got.URL.RawQuery != tc.wantQuery {
		t.Errorf("got %s %s ?%s, want %s %s ?%s", got.Method, got.URL.Path, got.URL.RawQuery, tc.wantMeth, tc.wantPath, tc.wantQuery)
	}
	if tc.wantBody == nil {
		if len(got.Body) != 0 {
			t.Errorf("got body %q, want none", got.Body)
		}
	} else {
		var body any
		if err := json.Unmarshal(got.Body, &body); err != nil {
			t.Fatalf("body %q is not JSON: %v", got.Body, err)
		}
		if d := cmp.Diff(tc.wantBody, body); d != "" {
			t.Errorf("body mismatch (-want +got):\n%s", d)
		}
	}
	for k, want := range tc.wantHdr {
		if vs := got.Header.Values(k); len(vs) != 1 || vs[0] != want {
			t.Errorf("got header %s %q, want [%q]", k, vs, want)
		}
	}
}

func TestOpenFullSettings(t *testing.T) {
	srv := recorder(t, 201, `{"data":{"answer":"Paris","stop_reason":"end_turn","actions":[{"name":"lookup","arguments":{"city":"Paris"}}]},"usage":{"input":11,"output":2},"meta":{"model":"app-v3"}}`)
	getenv := env(map[string]string{"APP_URL": srv.URL, "APP_TENANT": "acme", "APP_TOKEN": secretToken})
	p, err := provider.Open("http/app", provider.Options{Settings: loadSettings(t, "valid-full.yaml"), Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Generate(context.Background(), request(&promptcanary.Prompt{ID: "capital", Text: "Capital of France?", SystemPrompt: "One word."}))
	if err != nil {
		t.Fatal(err)
	}
	want := &promptcanary.Response{
		Content: "Paris", FinishReason: "end_turn", PromptTokens: 11, CompletionTokens: 2, TotalTokens: 13,
		ServedModel: "app-v3",
		ToolCalls:   []promptcanary.ToolCall{{Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris"}`)}},
	}
	resp.RawResponse = nil
	if d := cmp.Diff(want, resp); d != "" {
		t.Errorf("response mismatch (-want +got):\n%s", d)
	}
	got := srv.Last(t)
	if got.Method != "PUT" || got.URL.Path != "/api/chat" || got.URL.RawQuery != "tenant=acme" {
		t.Errorf("got %s %s?%s, want PUT /api/chat?tenant=acme", got.Method, got.URL.Path, got.URL.RawQuery)
	}
	if h := got.Header.Get("Authorization"); h != "Bearer "+secretToken {
		t.Errorf("got Authorization %q, want the substituted token", h)
	}
	if h := got.Header.Get("X-Canary"); h != "1" {
		t.Errorf("got X-Canary %q, want %q", h, "1")
	}
	var body map[string]any
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	wantBody := map[string]any{
		"question": "Capital of France?",
		"context":  map[string]any{"instructions": "One word.", "ref": "canary-capital-3"},
		"options": map[string]any{"temperature": 0.7, "max_tokens": 256.0, "seed": 42.0, "stream": false,
			"tags": []any{"canary", 1.0, 2.5, nil}},
	}
	if d := cmp.Diff(wantBody, body); d != "" {
		t.Errorf("body mismatch (-want +got):\n%s", d)
	}
}

// responsePathCase is one case of TestResponsePaths.
type responsePathCase struct {
	name          string
	paths         Paths
	body          string
	want          *promptcanary.Response
	wantErr       string
	wantRetryable bool
}

func TestResponsePaths(t *testing.T) {
	openai := `{"id":"chatcmpl-1","model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}`
	openaiTools := `{"model":"gpt-4o","choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"noop","arguments":"not json"}}]},"finish_reason":"tool_calls"}]}`
	full := Paths{
		Text: "choices.0.message.content", PromptTokens: "usage.prompt_tokens", CompletionTokens: "usage.completion_tokens",
		FinishReason: "choices.0.finish_reason", Model: "model", ToolCalls: "choices.0.message.tool_calls",
	}
	tests := []responsePathCase{
		{name: "openai shape", paths: full, body: openai, want: &promptcanary.Response{
			Content: "Hello!", FinishReason: "stop", PromptTokens: 9, CompletionTokens: 3, TotalTokens: 12, ServedModel: "gpt-4o-2024-08-06"}},
		{name: "openai tool calls with null content", paths: Paths{Text: full.Text, ToolCalls: full.ToolCalls, FinishReason: full.FinishReason}, body: openaiTools,
			want: &promptcanary.Response{FinishReason: "tool_calls", ToolCalls: []promptcanary.ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
				{ID: "call_2", Name: "noop", Arguments: json.RawMessage(`"not json"`)},
			}}},
		{name: "simple key", paths: Paths{Text: "data.answer"}, body: `{"data":{"answer":"42"}}`, want: &promptcanary.Response{Content: "42"}},
		{name: "leading dot", paths: Paths{Text: ".data.answer"}, body: `{"data":{"answer":"x"}}`, want: &promptcanary.Response{Content: "x"}},
		{name: "negative index", paths: Paths{Text: "messages.-1.text"}, body: `{"messages":[{"text":"a"},{"text":"b"}]}`, want: &promptcanary.Response{Content: "b"}},
		{name: "escaped dot in key", paths: Paths{Text: `meta\.v2.text`}, body: `{"meta.v2":{"text":"dotted"}}`, want: &promptcanary.Response{Content: "dotted"}},
		{name: "integer key in object", paths: Paths{Text: "byid.0"}, body: `{"byid":{"0":"zero"}}`, want: &promptcanary.Response{Content: "zero"}},
		{name: "root plain text", paths: Paths{Text: "."}, body: "Hello there.\n", want: &promptcanary.Response{Content: "Hello there."}},
		{name: "empty path plain text", paths: Paths{Text: ""}, body: "line one\r\nline two\r\n", want: &promptcanary.Response{Content: "line one\r\nline two"}},
		{name: "root JSON string", paths: Paths{Text: "."}, body: `"quoted answer"`, want: &promptcanary.Response{Content: "quoted answer"}},
		{name: "root JSON object", paths: Paths{Text: "."}, body: `{"a": 1}`, want: &promptcanary.Response{Content: `{"a": 1}`}},
		{name: "object leaf as JSON text", paths: Paths{Text: "result"}, body: `{"result":{"ok":true,"items":[1,2]}}`, want: &promptcanary.Response{Content: `{"ok":true,"items":[1,2]}`}},
		{name: "null text", paths: Paths{Text: "answer"}, body: `{"answer":null}`, want: &promptcanary.Response{}},
		{name: "number text", paths: Paths{Text: "answer"}, body: `{"answer":42.5}`, want: &promptcanary.Response{Content: "42.5"}},
		{name: "token counts as strings", paths: Paths{Text: "a", PromptTokens: "u.in", CompletionTokens: "u.out"}, body: `{"a":"x","u":{"in":"12","out":3.0}}`,
			want: &promptcanary.Response{Content: "x", PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}},
		{name: "optional fields absent", paths: full, body: `{"choices":[{"message":{"content":"hi"}}],"usage":{}}`, want: &promptcanary.Response{Content: "hi"}},
		{name: "optional fields null", paths: full, body: `{"model":null,"choices":[{"message":{"content":"hi","tool_calls":null},"finish_reason":null}],"usage":{"prompt_tokens":null}}`,
			want: &promptcanary.Response{Content: "hi"}},
		{name: "plain tool call shape", paths: Paths{Text: "t", ToolCalls: "calls"}, body: `{"t":"","calls":[{"name":"search","arguments":{"q":"x"}},{"name":"ping"}]}`,
			want: &promptcanary.Response{ToolCalls: []promptcanary.ToolCall{{Name: "search", Arguments: json.RawMessage(`{"q":"x"}`)}, {Name: "ping"}}}},

		{name: "missing root key", paths: full, body: `{"output":"hi"}`, wantErr: `response path "choices.0.message.content": no key "choices"`},
		{name: "missing nested key", paths: full, body: `{"choices":[{"text":"hi"}]}`, wantErr: `response path "choices.0.message.content": no key "message" in "choices.0"`},
		{name: "missing text leaf", paths: Paths{Text: "data.answer"}, body: `{"data":{}}`, wantErr: `response path "data.answer": no key "answer" in "data"`},
		{name: "empty array", paths: full, body: `{"choices":[]}`, wantErr: `response path "choices.0.message.content": no index 0 in "choices" (0 elements)`},
		{name: "key on array", paths: Paths{Text: "choices.first"}, body: `{"choices":["a"]}`, wantErr: `response path "choices.first": "first" is not an array index, and "choices" is an array`},
		{name: "key on string", paths: Paths{Text: "data.answer"}, body: `{"data":"flat"}`, wantErr: `response path "data.answer": no key "answer": "data" is a string, not an object`},
		{name: "key on null", paths: Paths{Text: "data.answer"}, body: `{"data":null}`, wantErr: `response path "data.answer": no key "answer": "data" is null, not an object`},
		{name: "key on root array", paths: Paths{Text: "answer"}, body: `["x"]`, wantErr: `response path "answer": "answer" is not an array index, and the response is an array`},
		{name: "optional parent missing", paths: Paths{Text: "a", PromptTokens: "usage.prompt_tokens"}, body: `{"a":"x"}`, wantErr: `response path "usage.prompt_tokens": no key "usage"`},
		{name: "negative token count reads as 0", paths: Paths{Text: "a", PromptTokens: "n", CompletionTokens: "m"}, body: `{"a":"x","n":-3,"m":4}`,
			want: &promptcanary.Response{Content: "x", CompletionTokens: 4, TotalTokens: 4}},
		{name: "bad token count", paths: Paths{Text: "a", PromptTokens: "n"}, body: `{"a":"x","n":"many"}`, wantErr: `response path "n": want a non-negative integer, got "many"`},
		{name: "fractional token count", paths: Paths{Text: "a", CompletionTokens: "n"}, body: `{"a":"x","n":"1.5"}`, wantErr: `response path "n": want a non-negative integer, got "1.5"`},
		{name: "finish reason object", paths: Paths{Text: "a", FinishReason: "f"}, body: `{"a":"x","f":{"r":1}}`, wantErr: `response path "f": want a string, got an object`},
		{name: "tool calls not an array", paths: Paths{Text: "a", ToolCalls: "c"}, body: `{"a":"x","c":{"name":"f"}}`, wantErr: `response path "c": want an array of tool calls, got an object`},
		{name: "tool call without name", paths: Paths{Text: "a", ToolCalls: "c"}, body: `{"a":"x","c":[{"arguments":{}}]}`, wantErr: `response path "c": tool call 0: want a non-empty string name`},
		{name: "plain text with a path", paths: Paths{Text: "answer"}, body: "<html>oops</html>", wantRetryable: true,
			wantErr: "malformed JSON response: invalid character '<' looking for beginning of value"},
		{name: "plain text with optional path", paths: Paths{Text: ".", Model: "model"}, body: "hello", wantRetryable: true,
			wantErr: "malformed JSON response: invalid character 'h' looking for beginning of value"},
		{name: "truncated JSON", paths: full, body: `{"choices":[{"message":{"content":"Hel`, wantRetryable: true,
			wantErr: "malformed JSON response: unexpected end of JSON input"},
		{name: "empty body with a path", paths: full, body: ``, wantRetryable: true,
			wantErr: "malformed JSON response: unexpected end of JSON input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.run)
	}
}

// run answers with the case's body and checks what the client read.
func (tc responsePathCase) run(t *testing.T) {
	srv := recorder(t, 200, tc.body)
	c, err := New("app", Config{URL: srv.URL, Response: tc.paths}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), request(&promptcanary.Prompt{ID: "p", Text: "hi"}))
	if tc.wantErr != "" {
		var pe *provider.Error
		if !errors.As(err, &pe) {
			t.Fatalf("got %v, want *provider.Error %q", err, tc.wantErr)
		}
		if pe.Message != tc.wantErr || pe.Retryable != tc.wantRetryable {
			t.Errorf("got %q retryable %v, want %q retryable %v", pe.Message, pe.Retryable, tc.wantErr, tc.wantRetryable)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	wantRaw := json.Valid([]byte(tc.body))
	if gotRaw := resp.RawResponse != nil; gotRaw != wantRaw {
		t.Errorf("got RawResponse set %v, want %v", gotRaw, wantRaw)
	} else if wantRaw && string(resp.RawResponse) != tc.body {
		t.Errorf("got RawResponse %s, want %s", resp.RawResponse, tc.body)
	}
	resp.RawResponse = nil
	if d := cmp.Diff(tc.want, resp); d != "" {
		t.Errorf("response mismatch (-want +got):\n%s", d)
	}
}

func TestStatusCodes(t *testing.T) {
	tests := []struct {
		name          string
		accept        []int
		status        int
		header        map[string]string
		body          string
		wantErr       string
		wantRetryable bool
		wantAfter     time.Duration
	}{
		{name: "accepted 200", status: 200, body: `{"answer":"ok"}`},
		{name: "201 not accepted by default", status: 201, body: `{"answer":"ok"}`, wantErr: "HTTP 201: Created"},
		{name: "201 accepted when listed", accept: []int{200, 201}, status: 201, body: `{"answer":"ok"}`},
		{name: "error status accepted when listed", accept: []int{422}, status: 422, body: `{"answer":"refused"}`},
		{name: "200 not accepted when list excludes it", accept: []int{202}, status: 200, body: `{"answer":"ok"}`, wantErr: "HTTP 200: OK"},
		{name: "rate limited", status: 429, header: map[string]string{"Retry-After": "7"}, body: `{"error":"slow down"}`,
			wantErr: "HTTP 429: slow down", wantRetryable: true, wantAfter: 7 * time.Second},
		{name: "server error", status: 500, body: `{"message":"boom"}`, wantErr: "HTTP 500: boom", wantRetryable: true},
		{name: "bad gateway html", status: 502, body: `<html>bad gateway</html>`, wantErr: "HTTP 502: <html>bad gateway</html>", wantRetryable: true},
		{name: "bad request is final", status: 400, body: `{"detail":"prompt too long"}`, wantErr: "HTTP 400: prompt too long"},
		{name: "unauthorized echoes the token", status: 401, body: `{"error":"invalid token ` + secretToken + `"}`,
			wantErr: "HTTP 401: invalid token [REDACTED] (check the API key)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.Reply(t, tc.status, tc.header, tc.body)
			c, err := New("app", Config{
				URL: srv.URL, Headers: map[string]string{"X-Token": "${APP_TOKEN}"},
				Response: Paths{Text: "answer"}, Status: tc.accept,
			}, env(map[string]string{"APP_TOKEN": secretToken}))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Generate(context.Background(), request(&promptcanary.Prompt{ID: "p", Text: "hi"}))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				if resp.Content == "" {
					t.Errorf("got empty content, want the answer")
				}
				return
			}
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want *provider.Error", err)
			}
			if pe.Error() != tc.wantErr || pe.Retryable != tc.wantRetryable || pe.RetryAfter != tc.wantAfter {
				t.Errorf("got {%q %v %v}, want {%q %v %v}", pe.Error(), pe.Retryable, pe.RetryAfter, tc.wantErr, tc.wantRetryable, tc.wantAfter)
			}
			providertest.NoLeak(t, err, secretToken)
		})
	}
}

func TestOpenInvalid(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"invalid-unknown-key.yaml", `unknown key "heders" (did you mean headers?)`},
		{"invalid-body-typo.yaml", `unknown key "bpdy" (did you mean body?)`},
		{"invalid-unknown-placeholder-id.yaml", `body.ref: unknown placeholder {{urompt_id}} (did you mean {{prompt_id}}?); known: {{prompt}}, {{system}}, {{prompt_id}}, {{sample}}, {{temperature}}, {{max_tokens}}, {{seed}}, {{messages}}, {{response_format}}`},
		{"invalid-response-unknown-key.yaml", `response: unknown key "txt" (did you mean text?)` + "\n" +
			`response.text is required: the path to the answer in the response body, for example choices.0.message.content, or "." for the whole body`},
		{"invalid-missing-url.yaml", `url is required: the address of the endpoint, for example https://app.example.com/api/chat`},
		{"invalid-missing-text.yaml", `response.text is required: the path to the answer in the response body, for example choices.0.message.content, or "." for the whole body`},
		{"invalid-missing-env.yaml", `header "Authorization": environment variable APP_TOKEN is not set` + "\n" +
			`header "X-Tenant": environment variable APP_TENANT is not set`},
		{"invalid-env-reference.yaml", `header "Authorization": invalid ${…} reference: want ${NAME} with NAME made of letters, digits and underscores`},
		{"invalid-unknown-placeholder.yaml", `body.messages[0].content: unknown placeholder {{promt}} (did you mean {{prompt}}?); known: {{prompt}}, {{system}}, {{prompt_id}}, {{sample}}, {{temperature}}, {{max_tokens}}, {{seed}}, {{messages}}, {{response_format}}`},
		{"invalid-path.yaml", `response.text: path "choices..message": empty segment` + "\n" +
			`response.model: path "meta\\x": a backslash must escape a dot or a backslash`},
		{"invalid-status.yaml", "status: item 1: want an HTTP status code from 100 to 599, got 42\nitem 2: want an HTTP status code from 100 to 599, got ok"},
		{"invalid-get-with-body.yaml", `body: a GET request sends no body; put placeholders such as {{prompt}} in the url instead`},
		{"invalid-method.yaml", `method "PO ST": want an HTTP method such as POST or GET`},
		{"invalid-url-scheme.yaml", `url "ftp://app.example.com/chat": want an absolute http:// or https:// URL`},
		{"invalid-header-name.yaml", `header "X Bad": invalid header name`},
		{"invalid-types.yaml", "url: want a string, got a list\n" +
			"url is required: the address of the endpoint, for example https://app.example.com/api/chat\n" +
			"headers: want a mapping of names to values, got a string\n" +
			"response: want a mapping with text and optional prompt_tokens, completion_tokens, finish_reason, model, tool_calls, got a string\n" +
			`response.text is required: the path to the answer in the response body, for example choices.0.message.content, or "." for the whole body`},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, err := Open("app", provider.Options{Settings: loadSettings(t, tc.file), Getenv: env(nil)})
			if err == nil {
				t.Fatalf("got no error, want %q", tc.want)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("got error\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestOpenWithoutSettings(t *testing.T) {
	_, err := provider.Open("http/support-bot", provider.Options{})
	want := `open provider http/support-bot: no settings for "support-bot": describe the endpoint in canary.yaml under providers: with id: http/support-bot, url: and response: {text: …}`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestNewPrefixesErrors(t *testing.T) {
	_, err := New("bot", Config{URL: "https://x.example/${NOPE}"}, env(nil))
	want := `http provider "bot": url: environment variable NOPE is not set`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestSecretsNeverInErrors(t *testing.T) {
	// The app misbehaves in every way while echoing the token it received.
	handlers := map[string]http.HandlerFunc{
		"500 echo": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			io.WriteString(w, `{"error":{"message":"bad header `+r.Header.Get("X-Api-Key")+`"}}`)
		},
		"403 plain echo": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(403)
			io.WriteString(w, "forbidden for "+r.Header.Get("X-Api-Key"))
		},
		"200 non-JSON echo": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "token "+r.Header.Get("X-Api-Key"))
		},
		"200 wrong shape": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"`+r.Header.Get("X-Api-Key")+`":1}`)
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			c, err := New("app", Config{
				URL: srv.URL, Headers: map[string]string{"X-Api-Key": "${APP_TOKEN}"}, Response: Paths{Text: "answer"},
			}, env(map[string]string{"APP_TOKEN": secretToken}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Generate(context.Background(), request(&promptcanary.Prompt{ID: "p", Text: "hi"}))
			if err == nil {
				t.Fatal("got no error, want one")
			}
			providertest.NoLeak(t, err, secretToken)
		})
	}
	t.Run("connection refused", func(t *testing.T) {
		providertest.CheckServerDown(t, func(u string) error {
			c, err := New("app", Config{URL: u + "/?key=${APP_TOKEN}", Headers: map[string]string{"X-Api-Key": "${APP_TOKEN}"}, Response: Paths{Text: "a"}},
				env(map[string]string{"APP_TOKEN": secretToken}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Generate(context.Background(), request(&promptcanary.Prompt{ID: "p", Text: "hi"}))
			return err
		}, secretToken)
	})
	t.Run("open error names the variable only", func(t *testing.T) {
		_, err := New("app", Config{URL: "https://x.example", Headers: map[string]string{
			"A": "${APP_TOKEN}", "B": "${MISSING}",
		}, Response: Paths{Text: "a"}}, env(map[string]string{"APP_TOKEN": secretToken}))
		if err == nil || !strings.Contains(err.Error(), "MISSING is not set") {
			t.Fatalf("got %v, want an error naming MISSING", err)
		}
		providertest.NoLeak(t, err, secretToken)
	})
}

func TestDeadline(t *testing.T) {
	providertest.CheckDeadline(t, 50*time.Millisecond, func(ctx context.Context, url string) error {
		c, err := New("app", Config{URL: url, Response: Paths{Text: "a"}}, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Generate(ctx, request(&promptcanary.Prompt{ID: "p", Text: "hi"}))
		return err
	})
}

func TestGoConfig(t *testing.T) {
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	srv := recorder(t, 200, `{"reply":{"text":"fine"}}`)
	c, err := New("app", Config{
		URL:      srv.URL,
		Body:     struct{ Messages []message }{[]message{{"user", "{{prompt}}"}}},
		Response: Paths{Text: "reply.text"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "app" {
		t.Errorf("got name %q, want %q", c.Name(), "app")
	}
	resp, err := c.Generate(context.Background(), request(&promptcanary.Prompt{ID: "p", Text: "a <b> & c"}))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "fine" {
		t.Errorf("got %q, want %q", resp.Content, "fine")
	}
	got := srv.Last(t)
	if want := `{"Messages":[{"content":"a <b> & c","role":"user"}]}`; string(got.Body) != want {
		t.Errorf("got body %s, want %s", got.Body, want)
	}
}

func TestConcurrentGenerate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Prompt string }
		json.NewDecoder(r.Body).Decode(&in)
		json.NewEncoder(w).Encode(map[string]string{"answer": "re: " + in.Prompt})
	}))
	defer srv.Close()
	c, err := New("app", Config{URL: srv.URL, Response: Paths{Text: "answer"}}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			prompt := strings.Repeat("x", i)
			resp, err := c.Generate(context.Background(), request(&promptcanary.Prompt{ID: "p", Text: prompt}))
			if err != nil {
				t.Error(err)
				return
			}
			if want := "re: " + prompt; resp.Content != want {
				t.Errorf("got %q, want %q", resp.Content, want)
			}
		})
	}
	wg.Wait()
}

func TestGenerateWithoutPrompt(t *testing.T) {
	c, err := New("app", Config{URL: "http://127.0.0.1:1", Response: Paths{Text: "a"}}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), &provider.Request{})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Retryable {
		t.Errorf("got %v, want a final *provider.Error", err)
	}
}

// TestManyToolCallsBounded: an endpoint answering 20,000 tool calls at the
// tool_calls path gets the first toolcall.Max kept, marked as cut.
func TestManyToolCallsBounded(t *testing.T) {
	srv := recorder(t, 200, string(providertest.ManyToolCalls(`{"text":"","calls":[`, `]}`,
		providertest.Calls(`{"name":"tool_%[1]d","arguments":{}}`))))
	c, err := New("app", Config{URL: srv.URL, Response: Paths{Text: "text", ToolCalls: "calls"}}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), request(&promptcanary.Prompt{ID: "p", Text: "hi"}))
	providertest.CheckToolCallsBounded(t, resp, err, providertest.ToolName)
}
