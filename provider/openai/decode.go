package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// FinishRefusal is the finish reason of a response whose answer is a
// refusal (chat's message.refusal, a Responses refusal content part);
// its Content is the refusal's text.
const FinishRefusal = "refusal"

// chatCompletion is the part of a chat completion body the client reads.
type chatCompletion struct {
	ID                string          `json:"id"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []choice        `json:"choices"`
	Usage             usage           `json:"usage"`
	Error             json.RawMessage `json:"error"`
}

type choice struct {
	FinishReason string `json:"finish_reason"`
	Msg          struct {
		Content      json.RawMessage `json:"content"`
		Refusal      string          `json:"refusal"`
		ToolCalls    []toolCall      `json:"tool_calls"`
		FunctionCall *callFunction   `json:"function_call"`
	} `json:"message"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Function callFunction `json:"function"`
}

type callFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type usage struct {
	PromptTokens     count `json:"prompt_tokens"`
	CompletionTokens count `json:"completion_tokens"`
	TotalTokens      count `json:"total_tokens"`
	// https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
	CompletionTokensDetails *struct {
		ReasoningTokens count `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// reasoning is the reasoning tokens the usage reports, 0 when none.
func (u usage) reasoning() int {
	if u.CompletionTokensDetails == nil {
		return 0
	}
	return max(0, int(u.CompletionTokensDetails.ReasoningTokens))
}

// count is a token count that tolerates null and fractional numbers, which
// some compatible servers send.
type count int

func (c *count) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("token count %s: want a number", b)
	}
	if f < 0 || f > math.MaxInt32 || math.IsNaN(f) {
		return fmt.Errorf("token count %s out of range", b)
	}
	*c = count(f)
	return nil
}

// decode turns a chat completion body into a response. Malformed or
// truncated JSON is a retryable *provider.Error; a body without choices or
// without any answer is a final one.
func decode(body []byte) (*promptcanary.Response, error) {
	var cc chatCompletion
	if err := apicall.DecodeJSON(body, &cc); err != nil {
		return nil, err
	}
	if len(cc.Choices) == 0 {
		return nil, noChoices(&cc, body)
	}
	ch := &cc.Choices[0]
	content, refusal, err := text(ch.Msg.Content)
	if err != nil {
		return nil, &provider.Error{Message: "decode response: " + err.Error()}
	}
	finish := ch.FinishReason
	if refusal == "" {
		refusal = ch.Msg.Refusal
	}
	if content == "" && refusal != "" {
		// A refusal is the answer the probes judge: its text, with a
		// finish reason of its own (as Anthropic's stop_reason).
		content, finish = refusal, FinishRefusal
	}
	calls := ch.Msg.ToolCalls
	if len(calls) == 0 && ch.Msg.FunctionCall != nil {
		calls = []toolCall{{Function: *ch.Msg.FunctionCall}}
	}
	resp := &promptcanary.Response{
		Content:           content,
		FinishReason:      finish,
		PromptTokens:      int(cc.Usage.PromptTokens),
		CompletionTokens:  int(cc.Usage.CompletionTokens),
		TotalTokens:       int(cc.Usage.TotalTokens),
		ReasoningTokens:   cc.Usage.reasoning(),
		ServedModel:       cc.Model,
		SystemFingerprint: cc.SystemFingerprint,
		ResponseID:        cc.ID,
		RawResponse:       rawJSON(body),
	}
	if resp.TotalTokens == 0 {
		resp.TotalTokens = resp.PromptTokens + resp.CompletionTokens
	}
	if len(calls) > 0 {
		kept := calls[:min(len(calls), toolcall.Max)]
		resp.ToolCalls = make([]promptcanary.ToolCall, len(kept))
		for i, tc := range kept {
			resp.ToolCalls[i] = promptcanary.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: arguments(tc.Function.Arguments)}
		}
		toolcall.Bound(resp, len(calls))
	}
	if content == "" && len(calls) == 0 {
		switch ch.FinishReason {
		case "content_filter", "length":
			// A filtered answer, or one cut off before any visible text
			// (a reasoning model spending its budget): the probes judge it.
		default:
			return nil, &provider.Error{Message: fmt.Sprintf("response has no content and no tool calls (finish_reason %q)", ch.FinishReason)}
		}
	}
	return resp, nil
}

// noChoices is the error for a body without choices. Some gateways answer
// 200 with an error object; its message and code are kept.
func noChoices(cc *chatCompletion, body []byte) error {
	if len(cc.Error) == 0 || string(cc.Error) == "null" {
		return &provider.Error{Message: "response has no choices"}
	}
	msg := httpc.ErrorMessage(body)
	var e struct {
		Code any `json:"code"`
	}
	_ = json.Unmarshal(cc.Error, &e)
	code, _ := e.Code.(float64)
	return &provider.Error{
		Retryable: code == 429 || code == 408 || code >= 500,
		Message:   "response has no choices: " + msg,
	}
}

// text returns the text of a message's content: a string, null, or an
// array of parts whose text is concatenated. Refusal parts are returned
// apart.
func text(raw json.RawMessage) (content, refusal string, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", "", nil
	}
	switch raw[0] {
	case '"':
		err = json.Unmarshal(raw, &content)
		return content, "", err
	case '[':
		var parts []struct {
			Type    string          `json:"type"`
			Text    json.RawMessage `json:"text"`
			Refusal string          `json:"refusal"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", "", fmt.Errorf("message content parts: %w", err)
		}
		var b, r strings.Builder
		for _, p := range parts {
			var s string
			if len(p.Text) > 0 && json.Unmarshal(p.Text, &s) == nil {
				b.WriteString(s)
			}
			r.WriteString(p.Refusal)
		}
		return b.String(), r.String(), nil
	}
	return "", "", errors.New("message content is neither a string nor an array of parts")
}

// arguments normalises tool call arguments: a JSON string holding JSON is
// decoded and compacted, one holding anything else is kept as a JSON string value, an
// empty string is an empty object, and an object is kept as it is.
func arguments(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '"' {
		return raw
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return json.RawMessage("{}")
	}
	var b bytes.Buffer
	if json.Compact(&b, []byte(t)) == nil {
		return b.Bytes()
	}
	return raw
}

// rawJSON returns body as a raw message when it is valid JSON, else the
// body as a JSON string, so a stored response always marshals.
func rawJSON(body []byte) json.RawMessage {
	if json.Valid(body) {
		return json.RawMessage(body)
	}
	b, _ := json.Marshal(string(body))
	return b
}

// isContentFilter reports whether an HTTP 400 body is Azure's
// content-filter answer: {"error":{"code":"content_filter",…}}.
func isContentFilter(body []byte) bool {
	var v struct {
		Error struct {
			Code       any `json:"code"`
			InnerError struct {
				Code string `json:"code"`
			} `json:"innererror"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	code, _ := v.Error.Code.(string)
	return code == "content_filter" || v.Error.InnerError.Code == "ResponsibleAIPolicyViolation"
}
