package sim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// umbrella is a conversation whose answer depends on a tool's result.
func umbrella() *promptcanary.Prompt {
	return &promptcanary.Prompt{ID: "umbrella", Tools: weatherTools, Messages: []promptcanary.Message{
		{Role: "user", Content: "Do I need an umbrella in Paris today?"},
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
		{Role: "tool", ToolCallID: "call_1", Name: "get_weather", Content: `{"rain_mm": 12, "conditions": "heavy rain"}`},
	}}
}

func TestConversationAnswersFromToolResult(t *testing.T) {
	for _, model := range []string{"stable", "noisy"} {
		r := gen(t, open(t, model), umbrella(), 0, seed(1), 0)
		if len(r.ToolCalls) != 0 {
			t.Errorf("%s: called %v again after its result came", model, r.ToolCalls)
		}
		if !strings.Contains(r.Content, "heavy rain") || !strings.Contains(r.Content, "get_weather") {
			t.Errorf("%s: answer %q does not use the tool result", model, r.Content)
		}
		if r.PromptTokens <= tokens(countWords("Do I need an umbrella in Paris today?")) {
			t.Errorf("%s: prompt tokens %d count only the question", model, r.PromptTokens)
		}
	}
	// Another result gives another answer.
	other := umbrella()
	other.Messages[2].Content = `{"rain_mm": 0, "conditions": "sunny"}`
	if r := gen(t, open(t, "stable"), other, 0, seed(1), 0); !strings.Contains(r.Content, "sunny") {
		t.Errorf("answer %q does not follow the new result", r.Content)
	}
}

func TestConversationAnswersLastUserTurn(t *testing.T) {
	p := &promptcanary.Prompt{ID: "c", Tools: weatherTools, Messages: []promptcanary.Message{
		{Role: "user", Content: "Hi there."},
		{Role: "assistant", Content: "Hello! How can I help?"},
		{Role: "user", Content: "What is the weather in Paris?"},
	}}
	r := gen(t, open(t, "stable"), p, 0, seed(1), 0)
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "get_weather" {
		t.Errorf("got %+v, want a get_weather call for the last user turn", r)
	}
}

func TestStructuredOutput(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"umbrella": map[string]any{"type": "boolean"},
			"reason":   map[string]any{"type": "string"},
			"rain_mm":  map[string]any{"type": "integer", "minimum": 0},
		},
		"required":             []any{"umbrella", "reason", "rain_mm"},
		"additionalProperties": false,
	}
	p := &promptcanary.Prompt{ID: "s", Text: "Should I take an umbrella in Paris today?",
		ResponseFormat: &promptcanary.ResponseFormat{Type: "json_schema", Strict: true, Schema: schema}}
	for _, model := range []string{"stable", "drifted", "noisy", "subtle"} {
		for sample := range 5 {
			r := gen(t, open(t, model), p, 0.7, seed(3), sample)
			var got map[string]any
			if err := json.Unmarshal([]byte(r.Content), &got); err != nil {
				t.Fatalf("%s sample %d: answer %q is not bare JSON: %v", model, sample, r.Content, err)
			}
			types := jsonTypes(t, []byte(r.Content))
			if types["umbrella"] != "boolean" || types["reason"] != "string" || types["rain_mm"] != "integer" {
				t.Errorf("%s sample %d: %s does not follow the schema (%v)", model, sample, r.Content, types)
			}
		}
	}
	obj := &promptcanary.Prompt{ID: "o", Text: "Name the capital of France.", ResponseFormat: &promptcanary.ResponseFormat{Type: "json_object"}}
	r := gen(t, open(t, "stable"), obj, 0, seed(1), 0)
	var v map[string]any
	if err := json.Unmarshal([]byte(r.Content), &v); err != nil {
		t.Errorf("json_object answer %q is not a JSON object: %v", r.Content, err)
	}
}
