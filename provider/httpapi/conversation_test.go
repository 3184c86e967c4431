package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

// TestConversationTemplate sends a conversation with a tool result and a
// structured output request through {{messages}}, {{response_format}}
// and {{prompt}}, and removes a templated key with a null extra param.
func TestConversationTemplate(t *testing.T) {
	srv := recorder(t, 200, `{"answer":"ok"}`)
	settings := map[string]any{
		"url": srv.URL + "/chat",
		"body": map[string]any{
			"history":     "{{messages}}",
			"format":      "{{response_format}}",
			"latest":      "{{prompt}}",
			"as_text":     "turns={{messages}}",
			"temperature": "{{temperature}}",
		},
		"response": map[string]any{"text": "answer"},
	}
	p, err := provider.Open("http/app", provider.Options{Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	prompt := &promptcanary.Prompt{ID: "umbrella", Text: "Hi <b>", Messages: []promptcanary.Message{
		{Role: "assistant", Content: "Where are you?"},
		{Role: "user", Content: "Paris"},
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}}},
		{Role: "tool", ToolCallID: "call_1", Name: "get_weather", Content: "rain"},
	}, ResponseFormat: &promptcanary.ResponseFormat{Type: "json_object"}}
	req := request(prompt)
	req.Config.ExtraParams = map[string]any{"temperature": nil}
	if _, err := p.Generate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(srv.Last(t).Body, &got); err != nil {
		t.Fatal(err)
	}
	history := []any{
		map[string]any{"role": "user", "content": "Hi <b>"},
		map[string]any{"role": "assistant", "content": "Where are you?"},
		map[string]any{"role": "user", "content": "Paris"},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_1", "name": "get_weather", "arguments": map[string]any{"city": "Paris"}}}},
		map[string]any{"role": "tool", "content": "rain", "tool_call_id": "call_1", "name": "get_weather"},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(prompt.Conversation())
	text := bytes.TrimSpace(buf.Bytes())
	want := map[string]any{
		"history": history,
		"format":  map[string]any{"type": "json_object"},
		"latest":  "Paris",
		"as_text": "turns=" + string(text),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}

	// Without a format, {{response_format}} is null and {{messages}} the
	// text as the one user turn.
	plain := request(&promptcanary.Prompt{ID: "p", Text: "hello"})
	if _, err := p.Generate(context.Background(), plain); err != nil {
		t.Fatal(err)
	}
	got = nil
	json.Unmarshal(srv.Last(t).Body, &got)
	if got["format"] != nil || !cmp.Equal(got["history"], []any{map[string]any{"role": "user", "content": "hello"}}) || got["temperature"] != 0.7 {
		t.Errorf("plain prompt body: got %v", got)
	}
}
