package openaitest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// post sends body to path with the key and returns status and body.
func post(t *testing.T, s *Server, path, key, body string) (int, http.Header, []byte) {
	t.Helper()
	auth := ""
	if key != "" {
		auth = "Bearer " + key
	}
	resp, out := providertest.Post(t, s.URL+path, body, map[string]string{"Content-Type": "application/json", "Authorization": auth})
	return resp.StatusCode, resp.Header, out
}

const (
	chat      = "/v1/chat/completions"
	responses = "/v1/responses"
	user      = `[{"role":"user","content":"hi"}]`
)

func TestRejects(t *testing.T) {
	tests := []struct {
		name, path, key, body string
		status                int
		param, code, msg      string
	}{
		{"no key", chat, "-", `{"model":"gpt-4o-mini","messages":` + user + `}`, 401, "", "", "You didn't provide an API key"},
		{"wrong key", chat, "sk-wrong-key-123456", `{"model":"gpt-4o-mini","messages":` + user + `}`, 401, "", "invalid_api_key", "Incorrect API key provided: sk-*****3456"},
		{"unknown path", "/v1/completions", "", `{}`, 404, "", "", "Invalid URL (POST /v1/completions)"},
		{"not json", chat, "", `{"model":`, 400, "", "", "We could not parse the JSON body"},
		{"unknown parameter chat", chat, "", `{"model":"gpt-4o-mini","messages":` + user + `,"temprature":0}`, 400, "", "", "Unrecognized request argument supplied: temprature"},
		{"unknown parameter responses", responses, "", `{"model":"o3-pro","input":"hi","max_tokens":5}`, 400, "max_tokens", "unknown_parameter", "Unknown parameter: 'max_tokens'."},
		{"schema: empty messages", chat, "", `{"model":"gpt-4o-mini","messages":[]}`, 400, "messages", "invalid_value", "minItems"},
		{"schema: bad role", chat, "", `{"model":"gpt-4o-mini","messages":[{"role":"robot","content":"x"}]}`, 400, "messages[0].role", "invalid_value", "Invalid 'messages[0].role'"},
		{"schema: temperature above 2", chat, "", `{"model":"gpt-4o-mini","messages":` + user + `,"temperature":3}`, 400, "temperature", "invalid_value", "maximum"},
		{"schema: max_output_tokens below 16", responses, "", `{"model":"gpt-4o-mini","input":"hi","max_output_tokens":10}`, 400, "max_output_tokens", "invalid_value", "minimum"},
		{"schema: function tool needs strict", responses, "", `{"model":"gpt-4o-mini","input":"hi","tools":[{"type":"function","name":"f","parameters":{}}]}`, 400, "tools[0]", "invalid_value", "strict"},
		{"unknown model", chat, "", `{"model":"gpt-9-turbo","messages":` + user + `}`, 404, "model", "model_not_found", "The model `gpt-9-turbo` does not exist"},
		{"gpt-5 temperature 0", chat, "", `{"model":"gpt-5","messages":` + user + `,"temperature":0}`, 400, "temperature", "unsupported_value", "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."},
		{"o3 max_tokens", chat, "", `{"model":"o3","messages":` + user + `,"max_tokens":100}`, 400, "max_tokens", "unsupported_parameter", "Use 'max_completion_tokens' instead."},
		{"o4-mini top_p", chat, "", `{"model":"o4-mini","messages":` + user + `,"top_p":0.5}`, 400, "top_p", "unsupported_parameter", "Unsupported parameter: 'top_p'"},
		{"gpt-5.4 on responses temperature", responses, "", `{"model":"gpt-5.4","input":"hi","temperature":0}`, 400, "temperature", "unsupported_parameter", "Unsupported parameter: 'temperature'"},
		{"o3-pro on chat", chat, "", `{"model":"o3-pro","messages":` + user + `}`, 404, "model", "", "This model is only supported in v1/responses and not in v1/chat/completions."},
		{"gpt-5-pro on chat", chat, "", `{"model":"gpt-5-pro","messages":` + user + `}`, 404, "model", "", "only supported in v1/responses"},
		{"tool message without call", chat, "", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"c1","content":"r"}]}`, 400, "messages.[1].role", "", "must be a response to a preceeding message with 'tool_calls'"},
		{"tool call unanswered", chat, "", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"well?"}]}`, 400, "messages.[2].role", "", "did not have response messages: c1"},
		{"assistant without content", chat, "", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"},{"role":"assistant"}]}`, 400, "messages.[1].content", "", "expected a string, got null"},
		{"tool_choice without tools", chat, "", `{"model":"gpt-4o-mini","messages":` + user + `,"tool_choice":"auto"}`, 400, "tool_choice", "", "only allowed when 'tools' are specified"},
		{"tool name pattern", chat, "", `{"model":"gpt-4o-mini","messages":` + user + `,"tools":[{"type":"function","function":{"name":"get weather"}}]}`, 400, "tools[0].function.name", "invalid_value", "does not match pattern"},
		{"json mode without the word", chat, "", `{"model":"gpt-4o-mini","messages":` + user + `,"response_format":{"type":"json_object"}}`, 400, "messages", "", "must contain the word 'json'"},
		{"strict schema open object", chat, "", `{"model":"gpt-4o-mini","messages":` + user + `,"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}}}}`, 400, "response_format", "", "'additionalProperties' is required to be supplied and to be false"},
		{"strict schema missing required", responses, "", `{"model":"gpt-4o-mini","input":"hi","text":{"format":{"type":"json_schema","name":"x","strict":true,"schema":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}}}}}`, 400, "text.format.schema", "", "Missing 'a'"},
		{"function_call_output without call", responses, "", `{"model":"gpt-4o-mini","input":[{"role":"user","content":"hi"},{"type":"function_call_output","call_id":"c9","output":"r"}]}`, 400, "input", "", "No tool call found for function call output with call_id c9."},
		{"function_call without output", responses, "", `{"model":"gpt-4o-mini","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]}`, 400, "input", "", "No tool output found for function call c1."},
	}
	s := Start(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := s.Key
			switch tc.key {
			case "-":
				key = ""
			case "":
			default:
				key = tc.key
			}
			status, _, body := post(t, s, tc.path, key, tc.body)
			if status != tc.status {
				t.Fatalf("got status %d, want %d: %s", status, tc.status, body)
			}
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Param   *string `json:"param"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatalf("error body %s: %v", body, err)
			}
			if !strings.Contains(e.Error.Message, tc.msg) {
				t.Errorf("got message %q, want it to contain %q", e.Error.Message, tc.msg)
			}
			if e.Error.Type != "invalid_request_error" {
				t.Errorf("got type %q, want invalid_request_error", e.Error.Type)
			}
			if got := deref(e.Error.Param); got != tc.param {
				t.Errorf("got param %q, want %q", got, tc.param)
			}
			if got := deref(e.Error.Code); got != tc.code {
				t.Errorf("got code %q, want %q", got, tc.code)
			}
		})
	}
	if got := len(s.Rejections()); got != len(tests) {
		t.Errorf("got %d rejections recorded, want %d", got, len(tests))
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestAccepts checks valid requests of every shape the client sends, and
// that every answer, in every behaviour, matches the spec's response
// schema.
func TestAccepts(t *testing.T) {
	tool := `{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true}}`
	rtool := `{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true}`
	bodies := []struct{ path, body string }{
		{chat, `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"s"},{"role":"user","content":"weather? json"}],"temperature":0,"max_tokens":1024,"seed":1,"tools":[` + tool + `],"tool_choice":"auto"}`},
		{chat, `{"model":"gpt-5","messages":[{"role":"developer","content":"s"},{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"sunny"}],"max_completion_tokens":1024,"tools":[` + tool + `]}`},
		{chat, `{"model":"o3","messages":[{"role":"user","content":"give json"}],"temperature":1,"max_completion_tokens":1024,"response_format":{"type":"json_schema","json_schema":{"name":"r","strict":true,"schema":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}}}}`},
		{responses, `{"model":"o3-pro","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"sunny"}],"instructions":"s","max_output_tokens":1024,"store":false,"tools":[` + rtool + `],"tool_choice":{"type":"function","name":"get_weather"}}`},
		{responses, `{"model":"gpt-5-pro","input":[{"role":"user","content":"answer in JSON"}],"max_output_tokens":1024,"store":false,"text":{"format":{"type":"json_object"}}}`},
		{responses, `{"model":"gpt-4o-mini","input":[{"role":"user","content":"hi"}],"temperature":0,"max_output_tokens":16,"tools":[` + rtool + `]}`},
	}
	chatSchema, err := Schema(SchemaChatResponse)
	if err != nil {
		t.Fatal(err)
	}
	respSchema, err := Schema(SchemaResponse)
	if err != nil {
		t.Fatal(err)
	}
	s := Start(t)
	for _, b := range Behaviours {
		if b == RateLimited {
			continue
		}
		s.Set("", b)
		for i, tc := range bodies {
			status, _, body := post(t, s, tc.path, s.Key, tc.body)
			if status != 200 {
				t.Fatalf("%s: request %d: got status %d: %s", b, i, status, body)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			sch := chatSchema
			if tc.path == responses {
				sch = respSchema
			}
			if err := sch.Validate(v); err != nil {
				t.Errorf("%s: answer %d does not match the spec: %v\n%s", b, i, err, body)
			}
		}
	}
}

func TestBehaviours(t *testing.T) {
	s := Start(t)
	body := `{"model":"gpt-5","messages":[{"role":"user","content":"weather in Paris?"}],"max_completion_tokens":300,"tools":[{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"get_time"}}]}`
	answer := func(b Behaviour) map[string]any {
		t.Helper()
		s.Set("gpt-5", b)
		status, _, out := post(t, s, chat, s.Key, body)
		if status != 200 {
			t.Fatalf("%s: got status %d: %s", b, status, out)
		}
		var m struct {
			Choices []map[string]any `json:"choices"`
			Usage   map[string]any   `json:"usage"`
		}
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		m.Choices[0]["usage"] = m.Usage
		return m.Choices[0]
	}
	msg := func(c map[string]any) map[string]any { return c["message"].(map[string]any) }

	c := answer(Auto)
	if c["finish_reason"] != "tool_calls" || len(msg(c)["tool_calls"].([]any)) != 1 {
		t.Errorf("auto with tools: got %v, want one tool call", c)
	}
	c = answer(ParallelTools)
	if calls := msg(c)["tool_calls"].([]any); len(calls) != 2 {
		t.Errorf("parallel: got %d calls, want 2", len(calls))
	}
	c = answer(Refusal)
	if msg(c)["refusal"] != RefusalText || msg(c)["content"] != nil || c["finish_reason"] != "stop" {
		t.Errorf("refusal: got %v", c)
	}
	c = answer(Length)
	details := c["usage"].(map[string]any)["completion_tokens_details"].(map[string]any)
	if msg(c)["content"] != "" || c["finish_reason"] != "length" || details["reasoning_tokens"] != 300.0 {
		t.Errorf("length: got %v", c)
	}
	s.Set("gpt-5", RateLimited)
	status, h, _ := post(t, s, chat, s.Key, body)
	if status != 429 || h.Get("Retry-After") == "" || h.Get("X-Ratelimit-Reset-Requests") == "" {
		t.Errorf("rate limited: got %d %v", status, h)
	}
	s.Set("gpt-5", Text)
	s.RateLimitNext(1)
	if status, _, _ := post(t, s, chat, s.Key, body); status != 429 {
		t.Errorf("RateLimitNext: got %d, want 429", status)
	}
	if status, _, _ := post(t, s, chat, s.Key, body); status != 200 {
		t.Errorf("after RateLimitNext: got %d, want 200", status)
	}
}
