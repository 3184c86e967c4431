package openai

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

// function is a tool in the request's tools list.
type function struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

type tool struct {
	Type     string   `json:"type"`
	Function function `json:"function"`
}

// chatMessage is one message of a chat completion request. Content is a
// string, or null for an assistant message that only calls tools.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

// chatFunction is a call's function; Arguments is a JSON text in a string.
type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatBody builds a chat completion request body. ExtraParams are merged
// last (see finish).
func (c *Client) chatBody(req *provider.Request) map[string]any {
	p, cfg := req.Prompt, req.Config
	b := make(map[string]any, 8+len(cfg.ExtraParams))
	b["model"] = c.model
	b["messages"] = chatMessages(p)
	b["temperature"] = cfg.Temperature
	if cfg.MaxTokens > 0 {
		b[c.maxTokensField] = cfg.MaxTokens
	}
	if seed, ok := req.CallSeed(); ok {
		b[c.seedField] = seed
	}
	if len(p.Tools) > 0 {
		tools := make([]tool, len(p.Tools))
		for i, t := range p.Tools {
			tools[i] = tool{Type: "function", Function: function{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}
		}
		b["tools"] = tools
		if tc := toolChoice(p.ToolChoice); tc != nil {
			b["tool_choice"] = tc
		}
	}
	if rf := responseFormat(p.ResponseFormat, true); rf != nil {
		b["response_format"] = rf
	}
	return c.finish(b, cfg.ExtraParams)
}

// finish merges the extra parameters into b (a nil value removes the
// key) and then drops what the model refuses: a temperature other than
// the one it takes, top_p when it takes none. The run's header says what
// was adjusted; the client only keeps every request valid.
func (c *Client) finish(b, extra map[string]any) map[string]any {
	for k, v := range extra {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	if t := c.rules.Temperature; t != nil {
		if v, ok := b["temperature"]; ok && !sameNumber(v, *t) {
			delete(b, "temperature")
		}
	}
	if c.rules.NoTopP {
		delete(b, "top_p")
	}
	return b
}

// sameNumber reports whether v is the number want.
func sameNumber(v any, want float64) bool {
	switch n := v.(type) {
	case float64:
		return n == want
	case float32:
		return float64(n) == want
	case int:
		return float64(n) == want
	case int64:
		return float64(n) == want
	}
	return false
}

// chatMessages is the system prompt as a system message, then the
// prompt's conversation: user and system turns, assistant turns with
// their tool calls, tool results answering a call by its id. "system"
// is sent rather than "developer": OpenAI treats it as a developer
// message for reasoning models, and every compatible server knows it.
// https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages
func chatMessages(p *promptcanary.Prompt) []chatMessage {
	turns := p.Conversation()
	msgs := make([]chatMessage, 0, 1+len(turns))
	if p.SystemPrompt != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: ptr(p.SystemPrompt)})
	}
	for _, m := range turns {
		cm := chatMessage{Role: m.Role, Content: ptr(m.Content)}
		switch m.Role {
		case promptcanary.RoleAssistant:
			for _, tc := range m.ToolCalls {
				cm.ToolCalls = append(cm.ToolCalls, chatToolCall{ID: tc.ID, Type: "function",
					Function: chatFunction{Name: tc.Name, Arguments: argumentsText(tc.Arguments)}})
			}
			if m.Content == "" && len(cm.ToolCalls) > 0 {
				cm.Content = nil
			}
		case promptcanary.RoleTool:
			cm.ToolCallID = m.ToolCallID
		}
		msgs = append(msgs, cm)
	}
	return msgs
}

func ptr(s string) *string { return &s }

// argumentsText is a tool call's arguments as the JSON text the API
// carries in a string: "{}" when there are none.
func argumentsText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// responseFormat maps a prompt's structured-output request to the format
// both APIs take, nil for text: {"type":"json_object"}, or a json_schema
// format with the schema's name, the schema and the strict flag, which
// chat completions nest under "json_schema" (response_format) and the
// Responses API lists beside the type (text.format).
// https://platform.openai.com/docs/guides/structured-outputs
func responseFormat(f *promptcanary.ResponseFormat, chat bool) map[string]any {
	if f == nil {
		return nil
	}
	switch f.Type {
	case promptcanary.FormatJSONObject:
		return map[string]any{"type": "json_object"}
	case promptcanary.FormatJSONSchema:
		js := map[string]any{"name": f.SchemaName(), "schema": f.Schema}
		if f.Strict {
			js["strict"] = true
		}
		if chat {
			return map[string]any{"type": "json_schema", "json_schema": js}
		}
		js["type"] = "json_schema"
		return js
	}
	return nil
}

// toolChoice maps a prompt's tool choice to the wire value: a mode string or
// a named function; nil sends none.
func toolChoice(s string) any {
	switch s {
	case "":
		return nil
	case "auto", "none", "required":
		return s
	}
	return map[string]any{"type": "function", "function": map[string]string{"name": s}}
}

// isMode reports whether a tool choice is a mode rather than a name.
func isMode(s string) bool {
	return s == "auto" || s == "none" || s == "required" || strings.TrimSpace(s) == ""
}
