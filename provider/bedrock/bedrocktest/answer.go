package bedrocktest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The markers of the edge cases (see the package doc).
const (
	MarkThrottle  = "[standin:throttle]"
	MarkGuardrail = "[standin:guardrail]"
	MarkFiltered  = "[standin:filtered]"
	MarkMaxTokens = "[standin:max_tokens]"
)

// GuardrailText is what a guardrail that intervened answers (its
// configured "blocked messaging").
const GuardrailText = "Sorry, the model cannot answer this question."

// answer is the stand-in's answer to an accepted call.
func (s *Server) answer(call Call, raw string) Reply {
	if s.Script != nil {
		if r := s.Script(call); r != nil {
			return *r
		}
	}
	last := lastUserText(call.Body)
	if strings.Contains(last, MarkThrottle) && s.firstTime(raw) {
		// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors
		return Reply{Status: http.StatusTooManyRequests, ErrorType: "ThrottlingException", Message: "Too many requests, please wait before trying again."}
	}
	var content []any
	stop := "end_turn"
	switch {
	case strings.Contains(last, MarkGuardrail):
		content, stop = []any{text(GuardrailText)}, "guardrail_intervened"
	case strings.Contains(last, MarkFiltered):
		content, stop = []any{}, "content_filtered"
	case strings.Contains(last, MarkMaxTokens):
		// The whole budget went to thinking: no text at all.
		content, stop = []any{}, "max_tokens"
		if thinkingOn(call.Body) {
			content = []any{map[string]any{"reasoningContent": map[string]any{"reasoningText": map[string]any{"text": "Let me work through this step by step…", "signature": "EqQBCkgIARABGAIiQExampleSignature"}}}}
		}
	default:
		content, stop = reply(call)
	}
	return Reply{Status: http.StatusOK, Body: converse(content, stop, len(raw))}
}

// firstTime reports whether the stand-in sees this request body for the
// first time.
func (s *Server) firstTime(raw string) bool {
	sum := sha256.Sum256([]byte(raw))
	k := string(sum[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.throttled[k] {
		return false
	}
	s.throttled[k] = true
	return true
}

// reply is the ordinary answer: a structured answer when one is asked
// for (outputConfig constrains every answer, the one after a tool result
// too: https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html),
// the result of a tool when the last turn holds one, parallel calls of
// the first tool when tools are offered, else text.
func reply(call Call) ([]any, string) {
	b := call.Body
	if oc, ok := b["outputConfig"].(map[string]any); ok {
		return []any{text(jsonOf(example(nativeSchema(oc))))}, "end_turn"
	}
	if res := lastToolResult(b); res != "" {
		return []any{text("The tool returned: " + res)}, "end_turn"
	}
	tools := toolSpecs(b)
	if len(tools) == 0 {
		return []any{text("Paris is the capital of France. (" + clip(lastUserText(b), 80) + ")")}, "end_turn"
	}
	tc, _ := b["toolConfig"].(map[string]any)
	choice, _ := tc["toolChoice"].(map[string]any)
	if t, ok := choice["tool"].(map[string]any); ok {
		spec := specNamed(tools, t["name"].(string))
		return []any{toolUseBlock("tooluse_forced01", spec)}, "tool_use"
	}
	first := tools[0]
	content := []any{}
	if vendorOf(call.Model) == "anthropic" {
		content = append(content, text("I'll look that up for both."))
	}
	content = append(content, toolUseBlock("tooluse_kXzn5J2bQ1", first), toolUseBlock("tooluse_Hq7vR3mYc2", first))
	return content, "tool_use"
}

// converse wraps content in a Converse response.
func converse(content []any, stop string, inputBytes int) map[string]any {
	out := 0
	for _, c := range content {
		data, _ := json.Marshal(c)
		out += len(data) / 4
	}
	in := inputBytes/4 + 1
	return map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": stop,
		"usage":      map[string]any{"inputTokens": in, "outputTokens": out, "totalTokens": in + out},
		"metrics":    map[string]any{"latencyMs": 412},
	}
}

func text(s string) map[string]any { return map[string]any{"text": s} }

func toolUseBlock(id string, spec map[string]any) map[string]any {
	schema, _ := spec["inputSchema"].(map[string]any)
	js, _ := schema["json"].(map[string]any)
	return map[string]any{"toolUse": map[string]any{"toolUseId": id, "name": spec["name"], "input": example(js)}}
}

// example is a value matching schema: its enum's first value, an object
// with every property, a one-item array, "example", 1, 1.5 or true.
func example(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	switch schema["type"] {
	case "array":
		items, _ := schema["items"].(map[string]any)
		return []any{example(items)}
	case "string":
		return "example"
	case "integer":
		return 1
	case "number":
		return 1.5
	case "boolean":
		return true
	}
	out := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	for k, v := range props {
		sub, _ := v.(map[string]any)
		out[k] = example(sub)
	}
	return out
}

func nativeSchema(oc map[string]any) map[string]any {
	tf, _ := oc["textFormat"].(map[string]any)
	st, _ := tf["structure"].(map[string]any)
	js, _ := st["jsonSchema"].(map[string]any)
	raw, _ := js["schema"].(string)
	var schema map[string]any
	json.Unmarshal([]byte(raw), &schema)
	return schema
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func toolSpecs(b map[string]any) []map[string]any {
	tc, _ := b["toolConfig"].(map[string]any)
	tools, _ := tc["tools"].([]any)
	var out []map[string]any
	for _, t := range tools {
		if spec, ok := t.(map[string]any)["toolSpec"].(map[string]any); ok {
			out = append(out, spec)
		}
	}
	return out
}

func specNamed(specs []map[string]any, name string) map[string]any {
	for _, s := range specs {
		if s["name"] == name {
			return s
		}
	}
	return specs[0]
}

// lastUserText is the text of the last message's text blocks, when it is
// a user message.
func lastUserText(b map[string]any) string {
	m := lastMessage(b)
	if m == nil || m["role"] != "user" {
		return ""
	}
	var parts []string
	for _, c := range blocks(m) {
		if s, ok := c["text"].(string); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// lastToolResult is the first text of the last message's toolResult
// blocks, "" when it has none.
func lastToolResult(b map[string]any) string {
	m := lastMessage(b)
	for _, c := range blocks(m) {
		tr, ok := c["toolResult"].(map[string]any)
		if !ok {
			continue
		}
		list, _ := tr["content"].([]any)
		for _, item := range list {
			if s, ok := item.(map[string]any)["text"].(string); ok {
				return s
			}
		}
		return fmt.Sprint(list)
	}
	return ""
}

func lastMessage(b map[string]any) map[string]any {
	msgs, _ := b["messages"].([]any)
	if len(msgs) == 0 {
		return nil
	}
	m, _ := msgs[len(msgs)-1].(map[string]any)
	return m
}

func blocks(m map[string]any) []map[string]any {
	list, _ := m["content"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, c := range list {
		if cm, ok := c.(map[string]any); ok {
			out = append(out, cm)
		}
	}
	return out
}

func thinkingOn(b map[string]any) bool {
	extra, _ := b["additionalModelRequestFields"].(map[string]any)
	t, _ := extra["thinking"].(map[string]any)
	return t != nil && t["type"] == "enabled"
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
