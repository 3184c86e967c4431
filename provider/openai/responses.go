package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
	"github.com/promptcanary/promptcanary/provider/modelrules"
)

// generateResponses sends one Responses API request.
// https://platform.openai.com/docs/api-reference/responses/create
func (c *Client) generateResponses(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	hr, err := apicall.Do(ctx, c.http, http.MethodPost, c.url, c.responsesBody(req))
	if err != nil {
		return nil, err
	}
	resp, err := decodeResponse(hr.Body)
	if err != nil {
		return nil, c.decodeError(err, hr.Status)
	}
	return resp, nil
}

// responsesTool is a function tool of the Responses API: flat, with
// parameters and strict required.
type responsesTool struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
	Strict      bool           `json:"strict"`
}

// responsesBody builds a Responses API request body: the conversation
// as input items, the system prompt as instructions, nothing stored.
// The API has no seed; temperature is sent only to models that take it.
func (c *Client) responsesBody(req *provider.Request) map[string]any {
	p, cfg := req.Prompt, req.Config
	b := make(map[string]any, 8+len(cfg.ExtraParams))
	b["model"] = c.model
	b["input"] = responsesInput(p)
	b["store"] = false
	if p.SystemPrompt != "" {
		b["instructions"] = p.SystemPrompt
	}
	if c.rules.Temperature == nil {
		b["temperature"] = cfg.Temperature
	}
	if cfg.MaxTokens > 0 {
		b["max_output_tokens"] = max(cfg.MaxTokens, modelrules.MinResponsesOutputTokens) // raised as Apply does, for library use
	}
	if len(p.Tools) > 0 {
		tools := make([]responsesTool, len(p.Tools))
		for i, t := range p.Tools {
			params := t.Parameters
			if params == nil {
				params = map[string]any{"type": "object", "properties": map[string]any{}}
			}
			tools[i] = responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params}
		}
		b["tools"] = tools
		switch {
		case p.ToolChoice == "":
		case isMode(p.ToolChoice):
			b["tool_choice"] = p.ToolChoice
		default:
			b["tool_choice"] = map[string]any{"type": "function", "name": p.ToolChoice}
		}
	}
	if f := responseFormat(p.ResponseFormat, false); f != nil {
		b["text"] = map[string]any{"format": f}
	}
	b = c.finish(b, cfg.ExtraParams)
	if c.rules.Temperature != nil {
		// The Responses API refuses any temperature from these models,
		// even their default.
		delete(b, "temperature")
	}
	return b
}

// responsesInput is the conversation as input items: messages for user,
// system and assistant text, a function_call item per assistant tool
// call and a function_call_output item per tool result.
// https://platform.openai.com/docs/guides/function-calling#handling-function-calls
func responsesInput(p *promptcanary.Prompt) []map[string]any {
	turns := p.Conversation()
	items := make([]map[string]any, 0, len(turns))
	for _, m := range turns {
		switch m.Role {
		case promptcanary.RoleTool:
			items = append(items, map[string]any{"type": "function_call_output", "call_id": m.ToolCallID, "output": m.Content})
		case promptcanary.RoleAssistant:
			if m.Content != "" || len(m.ToolCalls) == 0 {
				items = append(items, map[string]any{"role": m.Role, "content": m.Content})
			}
			for _, tc := range m.ToolCalls {
				items = append(items, map[string]any{"type": "function_call", "call_id": tc.ID, "name": tc.Name, "arguments": argumentsText(tc.Arguments)})
			}
		default:
			items = append(items, map[string]any{"role": m.Role, "content": m.Content})
		}
	}
	return items
}

// responseObject is the part of a Responses API answer the client reads.
type responseObject struct {
	ID                string `json:"id"`
	Model             string `json:"model"`
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Output []outputItem `json:"output"`
	Usage  struct {
		InputTokens  count `json:"input_tokens"`
		OutputTokens count `json:"output_tokens"`
		TotalTokens  count `json:"total_tokens"`
		// https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
		OutputTokensDetails struct {
			ReasoningTokens count `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

type outputItem struct {
	Type    string `json:"type"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// decodeResponse turns a Responses API answer into a response: the
// output_text of message items is Content, function_call items are
// ToolCalls, a refusal is Content with FinishReason "refusal", and an
// incomplete answer finishes "length" (max_output_tokens) or
// "content_filter". Reasoning items (summaries) stay in the raw response.
func decodeResponse(body []byte) (*promptcanary.Response, error) {
	var ro responseObject
	if err := apicall.DecodeJSON(body, &ro); err != nil {
		return nil, err
	}
	if ro.Status == "failed" || ro.Error != nil && ro.Error.Message != "" {
		msg := "response failed"
		retry := false
		if ro.Error != nil {
			msg += ": " + ro.Error.Message
			retry = ro.Error.Code == "server_error" || ro.Error.Code == "rate_limit_exceeded"
		}
		return nil, &provider.Error{Retryable: retry, Message: msg}
	}
	var text, refusal strings.Builder
	resp := &promptcanary.Response{
		PromptTokens: int(ro.Usage.InputTokens), CompletionTokens: int(ro.Usage.OutputTokens), TotalTokens: int(ro.Usage.TotalTokens),
		ReasoningTokens: max(0, int(ro.Usage.OutputTokensDetails.ReasoningTokens)),
		ServedModel:     ro.Model, ResponseID: ro.ID, RawResponse: rawJSON(body),
	}
	calls := 0
	for _, it := range ro.Output {
		switch it.Type {
		case "message":
			for _, part := range it.Content {
				text.WriteString(part.Text)
				refusal.WriteString(part.Refusal)
			}
		case "function_call":
			if calls++; calls <= toolcall.Max {
				resp.ToolCalls = append(resp.ToolCalls, promptcanary.ToolCall{ID: it.CallID, Name: it.Name, Arguments: arguments(it.Arguments)})
			}
		}
	}
	toolcall.Bound(resp, calls)
	if resp.TotalTokens == 0 {
		resp.TotalTokens = resp.PromptTokens + resp.CompletionTokens
	}
	resp.Content = text.String()
	return resp, finishResponse(resp, &ro, refusal.String())
}

// finishResponse sets the finish reason from the status, and refuses an
// answer that is neither text, a refusal, tool calls nor cut off.
func finishResponse(resp *promptcanary.Response, ro *responseObject, refusal string) error {
	switch {
	case ro.Status == "incomplete":
		resp.FinishReason = "length"
		if ro.IncompleteDetails != nil && ro.IncompleteDetails.Reason == "content_filter" {
			resp.FinishReason = "content_filter"
		}
		return nil
	case ro.Status != "completed":
		return &provider.Error{Message: fmt.Sprintf("response status %q: want completed or incomplete", ro.Status)}
	case resp.Content == "" && refusal != "":
		resp.Content, resp.FinishReason = refusal, FinishRefusal
	case len(resp.ToolCalls) > 0:
		resp.FinishReason = "tool_calls"
	case resp.Content == "":
		return &provider.Error{Message: "response has no output text, refusal or function call"}
	default:
		resp.FinishReason = "stop"
	}
	return nil
}
