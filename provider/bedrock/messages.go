package bedrock

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// emptyResult stands in for a tool result without text: Converse refuses
// a blank text block.
const emptyResult = "(no output)"

// messages turns the conversation into Converse messages: consecutive
// turns of one role become one message (Converse wants the roles to
// alternate), tool turns become toolResult blocks of a user message, and
// system turns are returned apart, for "system". It also returns the
// names of the tools the conversation's calls used.
func messages(conv []promptcanary.Message) (msgs []object, system []object, used []string, err error) {
	seen := map[string]bool{}
	add := func(role string, blocks ...object) {
		if len(blocks) == 0 {
			return
		}
		if n := len(msgs); n > 0 && msgs[n-1]["role"] == role {
			msgs[n-1]["content"] = append(msgs[n-1]["content"].([]object), blocks...)
			return
		}
		msgs = append(msgs, object{"role": role, "content": blocks})
	}
	for i, m := range conv {
		switch m.Role {
		case promptcanary.RoleSystem:
			system = append(system, textBlocks(m.Content)...)
		case promptcanary.RoleUser:
			add("user", textBlocks(m.Content)...)
		case promptcanary.RoleAssistant:
			blocks := textBlocks(m.Content)
			for _, call := range m.ToolCalls {
				input, err := toolInput(call.Arguments)
				if err != nil {
					return nil, nil, nil, &provider.Error{Message: fmt.Sprintf("messages[%d]: tool call %q: %v", i, call.Name, err)}
				}
				blocks = append(blocks, object{"toolUse": object{"toolUseId": toolcall.SafeID(call.ID), "name": call.Name, "input": input}})
				if !seen[call.Name] {
					seen[call.Name] = true
					used = append(used, call.Name)
				}
			}
			add("assistant", blocks...)
		case promptcanary.RoleTool:
			text := m.Content
			if strings.TrimSpace(text) == "" {
				text = emptyResult
			}
			add("user", object{"toolResult": object{"toolUseId": toolcall.SafeID(m.ToolCallID), "content": []object{{"text": text}}}})
			if m.Name != "" && !seen[m.Name] {
				seen[m.Name] = true
				used = append(used, m.Name)
			}
		default:
			return nil, nil, nil, &provider.Error{Message: fmt.Sprintf("messages[%d]: unknown role %q", i, m.Role)}
		}
	}
	return msgs, system, used, nil
}

// textBlocks is a text block for s, none when s is blank (Converse
// refuses a blank text block).
func textBlocks(s string) []object {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []object{{"text": s}}
}

// toolInput is a tool call's arguments as the JSON object Converse's
// toolUse.input takes; no arguments is {}.
func toolInput(args json.RawMessage) (map[string]any, error) {
	if len(args) == 0 {
		return map[string]any{}, nil
	}
	var in map[string]any
	var str string
	if json.Unmarshal(args, &str) == nil {
		// Arguments as a JSON string holding the object, as OpenAI sends them.
		args = json.RawMessage(str)
	}
	if err := json.Unmarshal(args, &in); err != nil || in == nil {
		return nil, fmt.Errorf("arguments are not a JSON object")
	}
	return in, nil
}
