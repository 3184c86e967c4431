package anthropictest

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// readMessages checks the conversation: a non-empty list of user and
// assistant turns that alternate, starting with a user turn; non-empty
// text blocks; tool_use blocks in assistant turns only, each answered by
// a tool_result in the next turn; tool_result blocks in user turns only,
// each answering a tool_use of the turn before.
//
// https://docs.anthropic.com/en/api/messages#body-messages ("Our models
// are trained to operate on alternating user and assistant conversational
// turns"; "the first message must always use the user role"), and
// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks
// ("Tool result blocks must immediately follow their corresponding tool
// use blocks in the message history").
func (r *Request) readMessages(raw map[string]json.RawMessage) *Error {
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if raw["messages"] == nil {
		return invalid("messages: Field required")
	}
	if json.Unmarshal(raw["messages"], &msgs) != nil {
		return invalid("messages: Input should be a valid list")
	}
	if len(msgs) == 0 {
		return invalid("messages: at least one message is required")
	}
	for i, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			return invalid("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		blocks, err := readContent(i, m.Content)
		if err != nil {
			return err
		}
		r.Messages = append(r.Messages, Message{Role: m.Role, Content: blocks})
	}
	if r.Messages[0].Role != "user" {
		return invalid("messages: first message must use the \"user\" role")
	}
	for i := 1; i < len(r.Messages); i++ {
		if r.Messages[i].Role == r.Messages[i-1].Role {
			return invalid("messages: roles must alternate between \"user\" and \"assistant\", but found multiple \"%s\" roles in a row", r.Messages[i].Role)
		}
	}
	return r.checkToolTurns()
}

// toolUseID is the pattern of tool_use.id and tool_result.tool_use_id.
// https://docs.anthropic.com/en/api/messages (content, tool_use: id
// "^[a-zA-Z0-9_-]+$")
var toolUseID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// readContent reads a turn's content: a non-empty string or a list of
// known blocks.
func readContent(i int, raw json.RawMessage) ([]Block, *Error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil, invalid("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		return []Block{{Type: "text", Text: &s}}, nil
	}
	var blocks []Block
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, invalid("messages.%d.content: Input should be a valid string or list of content blocks", i)
	}
	if len(blocks) == 0 {
		return nil, invalid("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
	}
	for j, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text == nil || *b.Text == "" {
				return nil, invalid("messages.%d.content.%d.text: text content blocks must be non-empty", i, j)
			}
		case "tool_use":
			var in map[string]any
			if b.ID == "" || b.Name == "" || json.Unmarshal(b.Input, &in) != nil || in == nil {
				return nil, invalid("messages.%d.content.%d.tool_use: id, name and an object input are required", i, j)
			}
			if !toolUseID.MatchString(b.ID) {
				return nil, invalid("messages.%d.content.%d.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'", i, j)
			}
		case "tool_result":
			if b.ToolUseID == "" {
				return nil, invalid("messages.%d.content.%d.tool_result.tool_use_id: Field required", i, j)
			}
			if !toolUseID.MatchString(b.ToolUseID) {
				return nil, invalid("messages.%d.content.%d.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'", i, j)
			}
		case "thinking", "redacted_thinking", "image", "document":
		default:
			return nil, invalid("messages.%d.content.%d: Input tag '%s' found using 'type' does not match any of the expected tags", i, j, b.Type)
		}
	}
	return blocks, nil
}

// checkToolTurns pairs tool_use and tool_result blocks across turns.
func (r *Request) checkToolTurns() *Error {
	for i, m := range r.Messages {
		var uses, results []string
		for _, b := range m.Content {
			switch b.Type {
			case "tool_use":
				uses = append(uses, b.ID)
			case "tool_result":
				results = append(results, b.ToolUseID)
			}
		}
		if m.Role == "user" && len(uses) > 0 {
			return invalid("messages.%d: tool_use blocks may only appear in assistant messages", i)
		}
		if m.Role == "assistant" && len(results) > 0 {
			return invalid("messages.%d: tool_result blocks may only appear in user messages", i)
		}
		// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-results-from-client-tools:
		// "tool_result blocks must come FIRST in the content array".
		for j := len(results); j < len(m.Content); j++ {
			if m.Content[j].Type == "tool_result" {
				return invalid("messages.%d: `tool_result` blocks must be at the beginning of the user message content, before any other blocks", i)
			}
		}
		var before []string
		if i > 0 {
			before = toolUseIDs(r.Messages[i-1])
		}
		for _, id := range results {
			if !slices.Contains(before, id) {
				return invalid("messages.%d.content: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, id)
			}
		}
		if len(uses) > 0 && i+1 < len(r.Messages) {
			var answered []string
			for _, b := range r.Messages[i+1].Content {
				if b.Type == "tool_result" {
					answered = append(answered, b.ToolUseID)
				}
			}
			for _, id := range uses {
				if !slices.Contains(answered, id) {
					return invalid("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", i, id)
				}
			}
		}
	}
	return nil
}

func toolUseIDs(m Message) []string {
	var out []string
	for _, b := range m.Content {
		if b.Type == "tool_use" {
			out = append(out, b.ID)
		}
	}
	return out
}

// LastUserText is the text of the last user turn, its tool results'
// contents included.
func (r *Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role != "user" {
			continue
		}
		var b strings.Builder
		for _, c := range r.Messages[i].Content {
			if c.Text != nil {
				b.WriteString(*c.Text)
			}
		}
		return b.String()
	}
	return ""
}

// toolResults are the contents of the last turn's tool results.
func (r *Request) toolResults() []string {
	last := r.Messages[len(r.Messages)-1]
	var out []string
	for _, b := range last.Content {
		if b.Type != "tool_result" {
			continue
		}
		var s string
		if json.Unmarshal(b.Content, &s) != nil {
			s = string(b.Content)
		}
		out = append(out, s)
	}
	return out
}
