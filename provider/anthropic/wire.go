package anthropic

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
	"github.com/promptcanary/promptcanary/provider/internal/turns"
)

// message is one entry of the request's messages. Content is a string
// for a turn of plain text, else a list of blocks.
type message struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// contentBlock is one block of a request turn: text, an assistant's
// tool_use, or a user's tool_result.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

// tool is a tool definition in the Messages API format.
type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
}

// body builds the request body of one call. Extra parameters are merged in
// last, so they override the fields set here; a nil one removes the field.
func (c *Client) body(req *provider.Request) map[string]any {
	p := req.Prompt
	maxTokens := req.Config.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	extra := req.Config.ExtraParams
	b := make(map[string]any, 8+len(extra))
	if c.bodyVersion != "" {
		b["anthropic_version"] = c.bodyVersion
	} else {
		b["model"] = c.model
	}
	b["max_tokens"] = maxTokens
	system, msgs := conversation(p)
	b["messages"] = msgs
	if sendsTemperature(c.model, extra) {
		b["temperature"] = req.Config.Temperature
	}
	if system != "" {
		b["system"] = system
	}
	tools, choice := tools(p, thinking(extra))
	if len(tools) > 0 {
		b["tools"] = tools
		if choice != nil {
			b["tool_choice"] = choice
		}
	}
	for k, v := range extra {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	return b
}

// tools are the prompt's tools plus, for structured output, the forced
// tool whose input is the answer (see outputTool), with the tool_choice
// to send (nil for none).
func tools(p *promptcanary.Prompt, thinking bool) ([]tool, map[string]string) {
	var out []tool
	for _, t := range p.Tools {
		out = append(out, tool{Name: t.Name, Description: t.Description, InputSchema: toolcall.Parameters(t.Parameters)})
	}
	choice := toolChoice(p.ToolChoice)
	if f := p.ResponseFormat; f != nil {
		out = append(out, outputTool(f))
		// Extended thinking refuses a forced tool: "Thinking may not be
		// enabled when tool_choice forces tool use."
		// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#extended-thinking-with-tool-use
		choice = map[string]string{"type": "tool", "name": f.SchemaName()}
		if thinking {
			choice = map[string]string{"type": "auto"}
		}
	}
	return out, choice
}

// outputTool is the tool that carries structured output: the Messages API
// has no response_format, so the answer's schema becomes a tool's
// input_schema and the call is forced with tool_choice {"type":"tool"}, as
// Anthropic documents for JSON output
// (https://docs.anthropic.com/en/docs/test-and-evaluate/strengthen-guardrails/increase-consistency#specify-the-desired-output-format,
// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use).
// Its input becomes the response's content.
func outputTool(f *promptcanary.ResponseFormat) tool {
	schema := f.Schema
	if f.Type != promptcanary.FormatJSONSchema || len(schema) == 0 {
		schema = map[string]any{"type": "object", "additionalProperties": true}
	}
	return tool{Name: f.SchemaName(), Description: "Give your answer as this tool's input, a JSON object.", InputSchema: schema}
}

// thinking reports whether the extra parameters enable extended thinking.
func thinking(extra map[string]any) bool {
	t, ok := extra["thinking"].(map[string]any)
	return ok && t["type"] == "enabled"
}

// sendsTemperature reports whether the run's temperature is sent. With
// extended thinking the API takes no temperature but 1 ("temperature may
// only be set to 1 when thinking is enabled",
// https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#feature-compatibility),
// and Claude Sonnet 4.5, Opus 4.1 and Haiku 4.5 refuse temperature
// together with top_p
// (https://docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-4):
// then the run's temperature is left out, unless extra_params sets one.
func sendsTemperature(model string, extra map[string]any) bool {
	if thinking(extra) {
		return false
	}
	if v, ok := extra["top_p"]; ok && v != nil && NoTemperatureWithTopP(model) {
		return false
	}
	return true
}

// NoTemperatureWithTopP reports whether model refuses temperature and
// top_p in one request: Claude Sonnet 4.5, Opus 4.1 and Haiku 4.5 and
// their dated, Vertex and Bedrock names ("claude-sonnet-4-5@20250929").
// https://docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-4
func NoTemperatureWithTopP(model string) bool {
	m := strings.ToLower(model)
	for _, f := range []string{"claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"} {
		if strings.Contains(m, f) {
			return true
		}
	}
	return false
}

// conversation maps the prompt's turns to the Messages API: system turns
// join the system prompt, tool calls become tool_use blocks of the
// assistant turn, and tool results tool_result blocks of a user turn.
// Consecutive turns of one role are merged into one message, so that
// roles alternate and every tool_result answers the turn before.
func conversation(p *promptcanary.Prompt) (string, []message) {
	system, merged := turns.Merge(p, turnBlocks)
	out := make([]message, len(merged))
	for i, turn := range merged {
		blocks := turn.Blocks
		// "tool_result blocks must come FIRST in the content array":
		// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-results-from-client-tools
		slices.SortStableFunc(blocks, func(a, b contentBlock) int {
			return cmp.Compare(blockOrder(a), blockOrder(b))
		})
		out[i] = message{Role: "user", Content: blocks}
		if turn.Assistant {
			out[i].Role = "assistant"
		}
		if len(blocks) == 1 && blocks[0].Type == "text" {
			out[i].Content = blocks[0].Text
		}
	}
	return system, out
}

// blockOrder puts tool_result blocks before the others.
func blockOrder(b contentBlock) int {
	if b.Type == "tool_result" {
		return 0
	}
	return 1
}

// turnBlocks are the content blocks of one turn; empty text is left out,
// as the API refuses empty text blocks.
func turnBlocks(m promptcanary.Message) []contentBlock {
	if m.Role == promptcanary.RoleTool {
		return []contentBlock{{Type: "tool_result", ToolUseID: toolcall.SafeID(m.ToolCallID), Content: m.Content}}
	}
	var out []contentBlock
	if m.Content != "" {
		out = append(out, contentBlock{Type: "text", Text: m.Content})
	}
	if m.Role != promptcanary.RoleAssistant {
		return out
	}
	for _, tc := range m.ToolCalls {
		out = append(out, contentBlock{Type: "tool_use", ID: toolcall.SafeID(tc.ID), Name: tc.Name, Input: objectArguments(tc.Arguments)})
	}
	return out
}

// objectArguments is a call's arguments as the JSON object tool_use input
// must be: "{}" for none, and any other value under "arguments".
func objectArguments(raw json.RawMessage) json.RawMessage {
	a := toolcall.Arguments(raw)
	if len(a) > 0 && a[0] == '{' {
		return a
	}
	return json.RawMessage(`{"arguments":` + string(a) + `}`)
}

// toolChoice maps a prompt's tool_choice to the Messages API's object; nil
// means the field is not sent (the API's default is auto).
func toolChoice(choice string) map[string]string {
	switch choice {
	case "":
		return nil
	case "auto", "none":
		return map[string]string{"type": choice}
	case "required":
		return map[string]string{"type": "any"}
	default:
		return map[string]string{"type": "tool", "name": choice}
	}
}

// response is the part of a Messages API answer this client reads.
type response struct {
	Type       string  `json:"type"`
	ID         string  `json:"id"`
	Model      string  `json:"model"`
	Content    []block `json:"content"`
	StopReason string  `json:"stop_reason"`
	Usage      struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	} `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// block is one content block of the answer.
type block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// decode turns a 2xx body into a response. A tool_use block of the tool
// named output (the structured-output tool, "" for none) is the answer:
// its input becomes the content.
func decode(body []byte, output string) (*promptcanary.Response, error) {
	var r response
	if err := apicall.DecodeJSON(body, &r); err != nil {
		return nil, err
	}
	if r.Type == "error" || r.Error != nil {
		// A proxy may pass an error through with a 2xx status.
		var typ, msg string
		if r.Error != nil {
			typ, msg = r.Error.Type, r.Error.Message
		}
		return nil, &provider.Error{
			Retryable: typ == "overloaded_error" || typ == "api_error" || typ == "rate_limit_error",
			Message:   httpc.Truncate(nil, strings.TrimPrefix(typ+": "+msg, ": "), httpc.MaxMessage),
		}
	}
	out := &promptcanary.Response{
		FinishReason: r.StopReason,
		// Cached prompt tokens are counted apart from input_tokens.
		PromptTokens:     max(0, r.Usage.InputTokens) + max(0, r.Usage.CacheCreationInputTokens) + max(0, r.Usage.CacheReadInputTokens),
		CompletionTokens: max(0, r.Usage.OutputTokens),
		ServedModel:      r.Model,
		ResponseID:       r.ID,
		RawResponse:      json.RawMessage(body),
	}
	out.TotalTokens = out.PromptTokens + out.CompletionTokens
	var text strings.Builder
	for i := range r.Content {
		b := &r.Content[i]
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if output != "" && b.Name == output {
				text.Write(toolcall.Arguments(b.Input))
				continue
			}
			out.ToolCalls = append(out.ToolCalls, promptcanary.ToolCall{ID: b.ID, Name: b.Name, Arguments: toolcall.Arguments(b.Input)})
		}
	}
	out.Content = text.String()
	toolcall.Bound(out, len(out.ToolCalls))
	if out.Content == "" && len(out.ToolCalls) == 0 && ordinaryStop(r.StopReason) {
		if len(r.Content) == 0 {
			return nil, &provider.Error{Message: fmt.Sprintf("response has no content blocks (stop_reason %q)", r.StopReason)}
		}
		return nil, &provider.Error{Message: fmt.Sprintf("response has no text or tool_use content (stop_reason %q)", r.StopReason)}
	}
	return out, nil
}

// ordinaryStop reports whether a stop reason claims a complete answer, so
// that an empty one is a failure rather than behaviour to judge (a refusal
// or a max_tokens cut-off with no text is returned as a response).
func ordinaryStop(reason string) bool {
	switch reason {
	case "", "end_turn", "stop_sequence", "tool_use":
		return true
	}
	return false
}
