package openaitest

import (
	"fmt"
	"strings"
)

// parseChat checks a chat completion request's conversation, tools and
// response format.
func parseChat(req *request) *apiError {
	msgs, _ := req.body["messages"].([]any)
	if e := chatConversation(req, msgs); e != nil {
		return e
	}
	tools, _ := req.body["tools"].([]any)
	for i, t := range tools {
		tm, _ := t.(map[string]any)
		fn, _ := tm["function"].(map[string]any)
		if e := req.addTool(fmt.Sprintf("tools[%d].function", i), fn); e != nil {
			return e
		}
	}
	if e := chatToolChoice(req); e != nil {
		return e
	}
	if e := chatFormat(req, msgs); e != nil {
		return e
	}
	req.maxTokens = intOf(req.body["max_completion_tokens"])
	if req.maxTokens == 0 {
		req.maxTokens = intOf(req.body["max_tokens"])
	}
	return nil
}

// chatConversation checks that every tool message answers a call of the
// assistant message right before the tool messages, and that every call
// is answered before the conversation goes on; an assistant message has
// content or tool calls.
// https://platform.openai.com/docs/guides/function-calling#handling-function-calls
func chatConversation(req *request, msgs []any) *apiError {
	var pending []string
	for i, raw := range msgs {
		m, _ := raw.(map[string]any)
		role, _ := m["role"].(string)
		if role != "tool" && len(pending) > 0 {
			return unanswered(fmt.Sprintf("messages.[%d].role", i), pending)
		}
		switch role {
		case "assistant":
			calls, _ := m["tool_calls"].([]any)
			if m["content"] == nil && len(calls) == 0 {
				return badRequest(fmt.Sprintf("messages.[%d].content", i), "", "Invalid value for 'content': expected a string, got null.")
			}
			for _, c := range calls {
				cm, _ := c.(map[string]any)
				id, _ := cm["id"].(string)
				pending = append(pending, id)
			}
		case "tool":
			id, _ := m["tool_call_id"].(string)
			at := indexOf(pending, id)
			if at < 0 {
				return badRequest(fmt.Sprintf("messages.[%d].role", i), "", "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			}
			pending = append(pending[:at], pending[at+1:]...)
		case "user":
			req.lastUser = contentText(m["content"])
		}
		req.afterToolResult = role == "tool"
	}
	if len(pending) > 0 {
		return unanswered("messages", pending)
	}
	return nil
}

func unanswered(param string, ids []string) *apiError {
	return badRequest(param, "", "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", strings.Join(ids, ", "))
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// checkTool checks a function tool's name and, when strict, its schema.
// https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools
// https://platform.openai.com/docs/guides/function-calling#strict-mode
func checkTool(param, name string, params map[string]any, strict bool) *apiError {
	if !toolName.MatchString(name) {
		return badRequest(param+".name", "invalid_value", "Invalid '%s.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param)
	}
	if strict && params != nil {
		return checkStrictSchema(param+".parameters", fmt.Sprintf("function '%s'", name), params)
	}
	return nil
}

// chatToolChoice checks tool_choice against tools.
// https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice
func chatToolChoice(req *request) *apiError {
	tc, ok := req.body["tool_choice"]
	if !ok || tc == nil {
		return nil
	}
	if len(req.tools) == 0 {
		return badRequest("tool_choice", "", "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.")
	}
	switch v := tc.(type) {
	case string:
		if v == "none" {
			req.forced = "none"
		}
	case map[string]any:
		fn, _ := v["function"].(map[string]any)
		name, _ := fn["name"].(string)
		return req.force(name)
	}
	return nil
}

// force records the tool a tool_choice names, which must be offered.
func (req *request) force(name string) *apiError {
	for _, t := range req.tools {
		if t.name == name {
			req.forced = name
			return nil
		}
	}
	return badRequest("tool_choice", "", "Invalid value for 'tool_choice': function '%s' is not among the 'tools'.", name)
}

// chatFormat checks response_format: JSON mode needs the word json in
// the messages; a strict schema follows the structured-output rules.
// https://platform.openai.com/docs/guides/structured-outputs#json-mode
// https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
func chatFormat(req *request, msgs []any) *apiError {
	rf, _ := req.body["response_format"].(map[string]any)
	switch rf["type"] {
	case "json_object":
		if !mentionsJSON(contentTexts(msgs)...) {
			return badRequest("messages", "", "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.")
		}
		req.format = "json_object"
	case "json_schema":
		js, _ := rf["json_schema"].(map[string]any)
		return req.schemaFormat(js, "response_format", "response_format")
	}
	return nil
}

// addTool checks the function definition fn (its name, parameters and
// strict flag), found at path, and offers it.
func (req *request) addTool(path string, fn map[string]any) *apiError {
	name, _ := fn["name"].(string)
	params, _ := fn["parameters"].(map[string]any)
	strict, _ := fn["strict"].(bool)
	if e := checkTool(path, name, params, strict); e != nil {
		return e
	}
	req.tools = append(req.tools, toolDef{name: name, params: params})
	return nil
}

// schemaFormat records the json_schema format f (its name, schema and
// strict flag): a strict schema must follow the structured-output rules.
// Errors name param and the format as field 'NAME'.
func (req *request) schemaFormat(f map[string]any, param, field string) *apiError {
	name, _ := f["name"].(string)
	req.schema, _ = f["schema"].(map[string]any)
	req.format = "json_schema"
	if strict, _ := f["strict"].(bool); strict && req.schema != nil {
		return checkStrictSchema(param, fmt.Sprintf("%s '%s'", field, name), req.schema)
	}
	return nil
}

// contentTexts is the text of each message of msgs.
func contentTexts(msgs []any) []string {
	var texts []string
	for _, raw := range msgs {
		m, _ := raw.(map[string]any)
		texts = append(texts, contentText(m["content"]))
	}
	return texts
}

// contentText is the text of a message content: a string or parts.
func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, p := range v {
			pm, _ := p.(map[string]any)
			s, _ := pm["text"].(string)
			b.WriteString(s)
		}
		return b.String()
	}
	return ""
}

func intOf(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// answerChat builds a chat completion in the API's shape.
// https://platform.openai.com/docs/api-reference/chat/object
func answerChat(req *request, b Behaviour) map[string]any {
	r := compose(req, b)
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
	finish := "stop"
	switch {
	case r.refusal != "":
		msg["refusal"] = r.refusal
	case r.length:
		msg["content"] = r.text
		finish = "length"
	case len(r.calls) > 0:
		calls := make([]any, len(r.calls))
		for i, c := range r.calls {
			calls[i] = map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}}
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	default:
		msg["content"] = r.text
	}
	return map[string]any{
		"id": "chatcmpl-standin" + r.seq, "object": "chat.completion", "created": created,
		"model": served(req.model), "service_tier": "default", "system_fingerprint": "fp_standin",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finish}},
		"usage": map[string]any{
			"prompt_tokens": r.promptTokens, "completion_tokens": r.outputTokens, "total_tokens": r.promptTokens + r.outputTokens,
			"prompt_tokens_details":     map[string]any{"cached_tokens": 0, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": r.reasoningTokens, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
		},
	}
}
