package ollama

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
	"github.com/promptcanary/promptcanary/provider/ollama/ollamatest"
)

// conversation is a prompt whose answer depends on a tool's result.
var conversation = promptcanary.Prompt{
	ID:           "umbrella",
	SystemPrompt: "You are a travel assistant.",
	Tools:        []promptcanary.Tool{weatherTool},
	Messages: []promptcanary.Message{
		{Role: "user", Content: "Do I need an umbrella in Paris?"},
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{
			{ID: "call_1", Name: "get_current_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
		}},
		{Role: "tool", ToolCallID: "call_1", Name: "get_current_weather", Content: `{"rain_mm": 12}`},
	},
}

func TestConversationBody(t *testing.T) {
	srv := fakeOllama(t, 200, providertest.Fixture(t, "chat.json"))
	p := conversation
	p.ResponseFormat = &promptcanary.ResponseFormat{Type: "json_schema", Name: "advice", Strict: true,
		Schema: map[string]any{"type": "object", "properties": map[string]any{"umbrella": map[string]any{"type": "boolean"}}, "required": []any{"umbrella"}}}
	cfg := promptcanary.ProviderConfig{Temperature: 0.2, ExtraParams: map[string]any{"temperature": nil, "top_k": 40, "keep_alive": nil}}
	if _, err := newClient(t, srv.URL, "").Generate(context.Background(), providertest.NewRequest(p, cfg)); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"llama3.2","stream":false,
		"messages":[
			{"role":"system","content":"You are a travel assistant."},
			{"role":"user","content":"Do I need an umbrella in Paris?"},
			{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"name":"get_current_weather","arguments":{"location":"Paris"}}}]},
			{"role":"tool","content":"{\"rain_mm\": 12}","tool_name":"get_current_weather","tool_call_id":"call_1"}],
		"format":{"type":"object","properties":{"umbrella":{"type":"boolean"}},"required":["umbrella"]},
		"options":{"top_k":40},
		"tools":[` + weatherJSON + `]}`
	if diff := cmp.Diff(providertest.JSONObject(t, want), srv.Last(t).JSON(t)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestJSONObjectFormat(t *testing.T) {
	p := promptcanary.Prompt{Text: "Reply in JSON.", ResponseFormat: &promptcanary.ResponseFormat{Type: "json_object"}}
	body := (&Client{model: "m"}).body(providertest.NewRequest(p, promptcanary.ProviderConfig{}))
	if got := body["format"]; got != "json" {
		t.Errorf("format: got %v, want \"json\"", got)
	}
	noOpts := (&Client{model: "m"}).body(providertest.NewRequest(p, promptcanary.ProviderConfig{ExtraParams: map[string]any{"options": nil}}))
	if _, has := noOpts["options"]; has {
		t.Errorf("extra_params options: null left options in %v", noOpts)
	}
}

// TestStandIn sends a conversation with a tool result and a structured
// output prompt to the strict stand-in, which rejects what Ollama
// rejects.
func TestStandIn(t *testing.T) {
	srv := ollamatest.New()
	defer srv.Close()
	c := newClient(t, srv.URL, "")
	r, err := c.Generate(context.Background(), providertest.NewRequest(conversation, promptcanary.ProviderConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `The get_current_weather tool says: {"rain_mm": 12}`; r.Content != want {
		t.Errorf("answer: got %q, want %q", r.Content, want)
	}
	p := promptcanary.Prompt{Text: "Umbrella?", ResponseFormat: &promptcanary.ResponseFormat{Type: "json_schema",
		Schema: map[string]any{"type": "object", "properties": map[string]any{"umbrella": map[string]any{"type": "boolean"}}, "required": []any{"umbrella"}}}}
	r, err = c.Generate(context.Background(), providertest.NewRequest(p, promptcanary.ProviderConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != `{"umbrella":true}` {
		t.Errorf("structured answer: got %q", r.Content)
	}
	// The stand-in is strict: a call whose arguments are a string is
	// rejected, as by Ollama, and reported as a final error.
	bad := map[string]any{"model": "m", "messages": []any{map[string]any{"role": "assistant", "tool_calls": []any{
		map[string]any{"function": map[string]any{"name": "f", "arguments": `{"a":1}`}}}}}}
	if err := ollamatest.Check(bad); err == nil || !strings.Contains(err.Error(), "cannot unmarshal string") {
		t.Errorf("string arguments: got %v, want an unmarshal error", err)
	}
	for _, body := range []map[string]any{
		{"messages": []any{}},
		{"model": "m", "messages": []any{map[string]any{"role": "function", "content": "x"}}},
		{"model": "m", "format": "yaml"},
		{"model": "m", "messages": []any{map[string]any{"role": "user", "tool_calls": []any{}}}},
	} {
		if ollamatest.Check(body) == nil {
			t.Errorf("stand-in accepted %v", body)
		}
	}
}
