package execcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// parseOutput reads the command's stdout: a JSON object with a "content"
// key is a response object, anything else is the answer text.
func parseOutput(out []byte) (*promptcanary.Response, error) {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var obj map[string]json.RawMessage
		if json.Unmarshal(trimmed, &obj) == nil {
			if _, ok := obj["content"]; ok {
				resp, err := responseObject(obj)
				if err != nil {
					return nil, &provider.Error{Message: "stdout: " + err.Error()}
				}
				resp.RawResponse = json.RawMessage(trimmed)
				return resp, nil
			}
		}
	}
	s := string(out)
	if t, ok := strings.CutSuffix(s, "\n"); ok {
		s = strings.TrimSuffix(t, "\r")
	}
	return &promptcanary.Response{Content: s}, nil
}

// responseObject reads a response object like a replay line; keys it does
// not know are ignored, since an application may print more.
func responseObject(obj map[string]json.RawMessage) (*promptcanary.Response, error) {
	resp := &promptcanary.Response{}
	if raw, ok := obj["tool_calls"]; ok && !isNull(raw) {
		calls, err := toolCalls(raw)
		if err != nil {
			return nil, err
		}
		resp.ToolCalls = calls
		toolcall.Bound(resp, len(calls))
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{"content", &resp.Content},
		{"finish_reason", &resp.FinishReason},
		{"model", &resp.ServedModel},
		{"system_fingerprint", &resp.SystemFingerprint},
		{"response_id", &resp.ResponseID},
	} {
		if raw, ok := obj[f.name]; ok && !isNull(raw) {
			if err := json.Unmarshal(raw, f.dst); err != nil {
				return nil, fmt.Errorf("%s must be a string", f.name)
			}
		}
	}
	for _, f := range []struct {
		name string
		dst  *int
	}{
		{"prompt_tokens", &resp.PromptTokens},
		{"completion_tokens", &resp.CompletionTokens},
		{"total_tokens", &resp.TotalTokens},
	} {
		if raw, ok := obj[f.name]; ok && !isNull(raw) {
			var v float64
			if err := json.Unmarshal(raw, &v); err != nil || v != math.Trunc(v) || v > math.MaxInt32 {
				return nil, fmt.Errorf("%s must be a non-negative integer", f.name)
			}
			// A negative count from a broken program reads as 0, as in the
			// HTTP clients.
			*f.dst = max(0, int(v))
		}
	}
	if resp.TotalTokens == 0 {
		resp.TotalTokens = resp.PromptTokens + resp.CompletionTokens
	}
	if resp.FinishReason == "" {
		resp.FinishReason = "stop"
		if len(resp.ToolCalls) > 0 {
			resp.FinishReason = "tool_calls"
		}
	}
	return resp, nil
}

// toolCalls reads [{"name", "arguments", "id"}]; arguments given as a
// JSON-encoded string are decoded, and a string that is not JSON is kept
// as a JSON string value.
func toolCalls(raw json.RawMessage) ([]promptcanary.ToolCall, error) {
	var items []struct {
		ID        *string         `json:"id"`
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, errors.New("tool_calls must be an array of {name, arguments} objects")
	}
	calls := make([]promptcanary.ToolCall, 0, len(items))
	for i, it := range items {
		if it.Name == nil || *it.Name == "" {
			return nil, fmt.Errorf("tool_calls[%d]: missing name", i)
		}
		tc := promptcanary.ToolCall{Name: *it.Name}
		if it.ID != nil {
			tc.ID = *it.ID
		}
		tc.Arguments = toolcall.AsWritten(it.Arguments)
		calls = append(calls, tc)
	}
	return calls, nil
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }
