package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/httpc"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// message is one entry of the request's messages.
type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// tool is a tool definition in the Messages API format.
type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"input_schema"`
}

// emptySchema is sent for a tool without parameters: the API requires an
// object schema.
var emptySchema = map[string]any{"type": "object", "properties": map[string]any{}}

// body builds the request body of one call. Extra parameters are merged in
// last, so they override the fields set here.
func (c *Client) body(req *provider.Request) map[string]any {
	p := req.Prompt
	maxTokens := req.Config.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	b := make(map[string]any, 7+len(req.Config.ExtraParams))
	b["model"] = c.model
	b["max_tokens"] = maxTokens
	b["messages"] = []message{{Role: "user", Content: p.Text}}
	b["temperature"] = req.Config.Temperature
	if p.SystemPrompt != "" {
		b["system"] = p.SystemPrompt
	}
	if len(p.Tools) > 0 {
		tools := make([]tool, len(p.Tools))
		for i, t := range p.Tools {
			schema := t.Parameters
			if len(schema) == 0 {
				schema = emptySchema
			}
			tools[i] = tool{Name: t.Name, Description: t.Description, InputSchema: schema}
		}
		b["tools"] = tools
		if tc := toolChoice(p.ToolChoice); tc != nil {
			b["tool_choice"] = tc
		}
	}
	for k, v := range req.Config.ExtraParams {
		b[k] = v
	}
	return b
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

// decode turns a 2xx body into a response.
func decode(body []byte) (*promptcanary.Response, error) {
	var r response
	if err := httpc.DecodeJSON(body, &r); err != nil {
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
			out.ToolCalls = append(out.ToolCalls, promptcanary.ToolCall{ID: b.ID, Name: b.Name, Arguments: toolcall.Arguments(b.Input)})
		}
	}
	out.Content = text.String()
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
