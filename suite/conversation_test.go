package suite

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
)

func TestLoadConversation(t *testing.T) {
	s := load(t, "valid-conversation.yaml")
	if got, want := len(s.Prompts), 3; got != want {
		t.Fatalf("got %d prompts, want %d", got, want)
	}
	weather := s.Prompts[0]
	if got, want := weather.SystemPrompt, "You are a travel assistant."; got != want {
		t.Errorf("system prompt from the system turn: got %q, want %q", got, want)
	}
	if weather.Text != "" {
		t.Errorf("text: got %q, want none", weather.Text)
	}
	want := []promptcanary.Message{
		{Role: "user", Content: "Should I take an umbrella in Paris today?"},
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{
			{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)},
			{ID: "w2", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Lyon"}`)},
		}},
		{Role: "tool", ToolCallID: "w2", Name: "get_weather", Content: `{"city":"Lyon","rain_mm":0}`},
		{Role: "tool", ToolCallID: "call_1", Name: "get_weather", Content: `{"city": "Paris", "rain_mm": 12}`},
	}
	if diff := cmp.Diff(want, weather.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}

	invoice := s.Prompts[1]
	if got, want := len(invoice.Conversation()), 3; got != want {
		t.Errorf("conversation of text + 2 turns: got %d turns, want %d", got, want)
	}
	wantFormat := &promptcanary.ResponseFormat{Type: "json_schema", Name: "invoice", Strict: true, Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"number": map[string]any{"type": "integer"},
			"total":  map[string]any{"type": "number"},
		},
		"required":             []any{"number", "total"},
		"additionalProperties": false,
	}}
	if diff := cmp.Diff(wantFormat, invoice.ResponseFormat); diff != "" {
		t.Errorf("response_format (-want +got):\n%s", diff)
	}

	derived := s.Prompts[2]
	if !strings.HasPrefix(derived.ID, "reply-in-json-with-your-") {
		t.Errorf("derived id %q: want the slug of the first user turn", derived.ID)
	}
	if got := derived.ResponseFormat; got == nil || got.Type != "json_object" {
		t.Errorf("response_format: got %+v, want json_object", got)
	}
}

func TestExtraParamsKeepNull(t *testing.T) {
	s := load(t, "valid-conversation.yaml")
	got := s.Providers[0].ExtraParams
	if diff := cmp.Diff(map[string]any{"temperature": nil, "num_ctx": 8192}, got); diff != "" {
		t.Errorf("extra_params (-want +got):\n%s", diff)
	}
	if _, isSetting := s.Providers[0].Settings["extra_params"]; isSetting {
		t.Errorf("extra_params left among the provider settings: %v", s.Providers[0].Settings)
	}
	// A null value is a change of the request: it changes the hash.
	withNull := promptcanary.ProviderConfig{ModelID: "ollama/llama3.2", ExtraParams: got}
	without := promptcanary.ProviderConfig{ModelID: "ollama/llama3.2", ExtraParams: map[string]any{"num_ctx": 8192}}
	if s.Hash(withNull) == s.Hash(without) {
		t.Error("extra_params temperature: null hashes like no such key")
	}
}

// TestConversationIDs checks that automatic call ids skip the explicit
// ones, wherever these are.
func TestConversationIDs(t *testing.T) {
	s := parse(t, `probes: [test_plain]
prompts:
  - tools: [{name: f}]
    messages:
      - {role: user, content: go}
      - role: assistant
        tool_calls: [{name: f}, {name: f}]
      - {role: tool, content: a}
      - {role: tool, content: b}
      - {role: user, content: again}
      - role: assistant
        tool_calls: [{name: f, id: call_2}]
      - {role: tool, tool_call_id: call_2, content: c}
`)
	var got []string
	for _, m := range s.Prompts[0].Messages {
		for _, c := range m.ToolCalls {
			got = append(got, c.ID+"="+string(c.Arguments))
		}
		if m.Role == "tool" {
			got = append(got, m.Content+"->"+m.ToolCallID+"/"+m.Name)
		}
	}
	want := []string{"call_1={}", "call_3={}", "a->call_1/f", "b->call_3/f", "call_2={}", "c->call_2/f"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestConversationHash checks that every part of a conversation and of
// the response format counts in the prompt hash, and that an explicit id
// keeps the prompt while its turns change.
func TestConversationHash(t *testing.T) {
	const src = `probes: [test_plain]
prompts:
  - id: conv
    tools: [{name: get_weather}]
    messages:
      - {role: user, content: "Umbrella today?"}
      - role: assistant
        tool_calls: [{name: get_weather, arguments: {city: Paris}}]
      - {role: tool, content: rain}
    response_format: {type: json_schema, strict: true, schema: {type: object, required: [umbrella]}}
`
	cfg := promptcanary.ProviderConfig{ModelID: "sim/stable"}
	s := parse(t, src)
	h, ph := s.Hash(cfg), s.PromptHash("conv", cfg)
	edits := []struct{ name, old, new string }{
		{"user turn", "Umbrella today", "Umbrella tomorrow"},
		{"call arguments", "{city: Paris}", "{city: Lyon}"},
		{"tool result", "content: rain", "content: sun"},
		{"call id", "{name: get_weather, arguments", "{id: w1, name: get_weather, arguments"},
		{"schema", "required: [umbrella]", "required: [umbrella, why]"},
		{"strict", "strict: true", "strict: false"},
		{"format type", "{type: json_schema, strict: true, schema: {type: object, required: [umbrella]}}", "{type: json_object}\n    system_prompt: Answer in JSON."},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			edited := strings.Replace(src, e.old, e.new, 1)
			if edited == src {
				t.Fatal("the edit changed nothing")
			}
			got := parse(t, edited)
			if got.Hash(cfg) == h {
				t.Error("suite hash unchanged")
			}
			if got.PromptHash("conv", cfg) == ph {
				t.Error("prompt hash unchanged")
			}
		})
	}
	// A text prompt hashes as before messages existed: no new keys.
	plain := parse(t, "probes: [test_plain]\nprompts: [hi]\n")
	if b, _ := json.Marshal(canonPrompt(&plain.Prompts[0])); strings.Contains(string(b), "messages") || strings.Contains(string(b), "response_format") {
		t.Errorf("text prompt canonical form %s has the new keys", b)
	}
}
