package bedrock

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// response is the part of a Converse answer this client reads.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
type response struct {
	Output struct {
		Message *struct {
			Role    string  `json:"role"`
			Content []block `json:"content"`
		} `json:"message"`
	} `json:"output"`
	StopReason string `json:"stopReason"`
	Usage      struct {
		InputTokens           int `json:"inputTokens"`
		OutputTokens          int `json:"outputTokens"`
		TotalTokens           int `json:"totalTokens"`
		CacheReadInputTokens  int `json:"cacheReadInputTokens"`
		CacheWriteInputTokens int `json:"cacheWriteInputTokens"`
	} `json:"usage"`
	// Message is set when a proxy passes an error through with a 2xx
	// status ({"message": …} is Bedrock's error body).
	Message string `json:"message"`
}

// block is one content block of the answer: text, toolUse, or one this
// client skips (reasoningContent, citations, images…).
type block struct {
	Text    *string `json:"text"`
	ToolUse *struct {
		ToolUseID string          `json:"toolUseId"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"toolUse"`
}

// decode turns a 2xx body into a response. A toolUse of answerTool (the
// forced tool of a structured answer) is the answer's content, not a
// tool call.
func decode(body []byte, answerTool string) (*promptcanary.Response, error) {
	var r response
	if err := apicall.DecodeJSON(body, &r); err != nil {
		return nil, err
	}
	if r.Output.Message == nil && r.StopReason == "" {
		if r.Message != "" {
			return nil, &provider.Error{Message: httpc.Truncate(nil, r.Message, httpc.MaxMessage)}
		}
		return nil, &provider.Error{Message: "response has no output message and no stopReason"}
	}
	out := &promptcanary.Response{
		FinishReason: r.StopReason,
		// Cached prompt tokens are counted apart from inputTokens.
		PromptTokens:     max(0, r.Usage.InputTokens) + max(0, r.Usage.CacheReadInputTokens) + max(0, r.Usage.CacheWriteInputTokens),
		CompletionTokens: max(0, r.Usage.OutputTokens),
		RawResponse:      json.RawMessage(body),
	}
	out.TotalTokens = out.PromptTokens + out.CompletionTokens
	var text strings.Builder
	answered := false
	var blocks []block
	if r.Output.Message != nil {
		blocks = r.Output.Message.Content
	}
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(*b.Text)
		case b.ToolUse != nil && answerTool != "" && b.ToolUse.Name == answerTool:
			// The first call of the answer tool is the answer; a second
			// one is no call of a real tool.
			if !answered {
				answered = true
				text.Reset()
				text.Write(toolcall.Arguments(b.ToolUse.Input))
			}
		case b.ToolUse != nil:
			out.ToolCalls = append(out.ToolCalls, promptcanary.ToolCall{ID: b.ToolUse.ToolUseID, Name: b.ToolUse.Name, Arguments: toolcall.Arguments(b.ToolUse.Input)})
		}
	}
	out.Content = text.String()
	toolcall.Bound(out, len(out.ToolCalls))
	if answered {
		// The forced tool's call is the answer; the model stopped to have
		// it run, which is the end of its turn here.
		out.FinishReason = finishForAnswer(r.StopReason)
	}
	if out.Content == "" && len(out.ToolCalls) == 0 && ordinaryStop(r.StopReason) {
		return nil, &provider.Error{Message: fmt.Sprintf("response has no text or toolUse content (stopReason %q)", r.StopReason)}
	}
	return out, nil
}

// finishForAnswer is the finish reason of a structured answer given
// through the forced tool.
func finishForAnswer(reason string) string {
	if reason == "tool_use" {
		return "end_turn"
	}
	return reason
}

// ordinaryStop reports whether a stop reason claims a complete answer, so
// that an empty one is a failure rather than behaviour to judge (a cut-off
// answer whose budget went to thinking, a guardrail's or a content
// filter's intervention are returned as responses).
func ordinaryStop(reason string) bool {
	switch reason {
	case "", "end_turn", "stop_sequence", "tool_use":
		return true
	}
	return false
}
