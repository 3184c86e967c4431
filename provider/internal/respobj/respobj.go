// Package respobj decodes the response object: the JSON object with
// "content" that an exec command prints on stdout and that each line of a
// replay file logs. One decoder reads it for both, so that a field means
// the same in both places; Rules holds what the two callers may differ in.
package respobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// Rules are the choices a caller makes where exec and replay read the
// object differently.
type Rules struct {
	// Strict makes a key the decoder does not read an error with a
	// did-you-mean hint, in the object and in each tool call: a replay
	// file is written for PromptCanary, so a typo surfaces. Without it
	// such keys are ignored, since a program may print more.
	Strict bool
	// PromptID, when not nil, receives the required "prompt_id", a
	// non-empty string, read before anything else.
	PromptID *string
	// Sample, when not nil, receives "sample", a non-negative integer,
	// read after the content; it is left as it is when the key is absent
	// or null.
	Sample *int
	// Latency reads "latency_ms", a non-negative number, into the
	// response.
	Latency bool
	// ClampNegative reads a negative token count as 0, as the HTTP
	// clients read a broken program's count, instead of failing.
	ClampNegative bool
	// DecodeArguments reads tool-call arguments with toolcall.AsWritten
	// (a string holding JSON is decoded) instead of keeping them as
	// written.
	DecodeArguments bool
	// ToolCallsShape is the error when "tool_calls" is not an array.
	ToolCallsShape string
}

// keys returns the keys the decoder reads under r, in the order of the
// did-you-mean hints.
func (r Rules) keys() []string {
	keys := make([]string, 0, 12)
	if r.PromptID != nil {
		keys = append(keys, "prompt_id")
	}
	keys = append(keys, "content")
	if r.Sample != nil {
		keys = append(keys, "sample")
	}
	keys = append(keys, "finish_reason", "tool_calls", "prompt_tokens", "completion_tokens", "total_tokens")
	if r.Latency {
		keys = append(keys, "latency_ms")
	}
	return append(keys, "model", "system_fingerprint", "response_id")
}

// toolCallKeys are the keys of a tool call.
var toolCallKeys = []string{"id", "name", "arguments"}

// Decode reads the response object obj (its members as json.Unmarshal
// into a map of raw messages gives them) under r. The finish reason
// defaults to "stop" ("tool_calls" with tool calls) and the total token
// count to the sum of the other two.
func Decode(obj map[string]json.RawMessage, r Rules) (*promptcanary.Response, error) {
	if r.Strict {
		if err := unknownKey(obj, r.keys(), ""); err != nil {
			return nil, err
		}
	}
	if r.PromptID != nil {
		if err := promptID(obj, r.PromptID); err != nil {
			return nil, err
		}
	}
	resp := &promptcanary.Response{}
	if raw, ok := obj["tool_calls"]; ok && !isNull(raw) {
		calls, err := toolCalls(raw, r)
		if err != nil {
			return nil, err
		}
		resp.ToolCalls = calls
	}
	content, ok := obj["content"]
	if !ok {
		return nil, errors.New("missing content")
	}
	// Logged tool-call responses often carry a null content.
	if !(isNull(content) && len(resp.ToolCalls) > 0) {
		if err := stringField(content, "content", &resp.Content); err != nil {
			return nil, err
		}
	}
	if raw, ok := obj["sample"]; ok && r.Sample != nil && !isNull(raw) {
		if err := intField(raw, "sample", r.Sample, false); err != nil {
			return nil, err
		}
	}
	if err := decodeFields(obj, r, resp); err != nil {
		return nil, err
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

// promptID reads the required, non-empty "prompt_id" into dst.
func promptID(obj map[string]json.RawMessage, dst *string) error {
	id, ok := obj["prompt_id"]
	if !ok {
		return errors.New("missing prompt_id")
	}
	if err := stringField(id, "prompt_id", dst); err != nil {
		return err
	}
	if *dst == "" {
		return errors.New("prompt_id must not be empty")
	}
	return nil
}

// decodeFields reads the optional strings, token counts and latency.
func decodeFields(obj map[string]json.RawMessage, r Rules, resp *promptcanary.Response) error {
	// The strings, then the token counts.
	for _, f := range []struct {
		name string
		str  *string
		num  *int
	}{
		{"finish_reason", &resp.FinishReason, nil},
		{"model", &resp.ServedModel, nil},
		{"system_fingerprint", &resp.SystemFingerprint, nil},
		{"response_id", &resp.ResponseID, nil},
		{"prompt_tokens", nil, &resp.PromptTokens},
		{"completion_tokens", nil, &resp.CompletionTokens},
		{"total_tokens", nil, &resp.TotalTokens},
	} {
		raw, ok := obj[f.name]
		if !ok || isNull(raw) {
			continue
		}
		var err error
		if f.str != nil {
			err = stringField(raw, f.name, f.str)
		} else {
			err = intField(raw, f.name, f.num, r.ClampNegative)
		}
		if err != nil {
			return err
		}
	}
	if raw, ok := obj["latency_ms"]; ok && r.Latency && !isNull(raw) {
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil || v < 0 || math.IsInf(v, 0) {
			return errors.New("latency_ms must be a non-negative number")
		}
		resp.LatencyMS = v
	}
	return nil
}

// toolCalls reads [{"name", "arguments", "id"}].
func toolCalls(raw json.RawMessage, r Rules) ([]promptcanary.ToolCall, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, errors.New(r.ToolCallsShape)
	}
	calls := make([]promptcanary.ToolCall, 0, len(items))
	for i, item := range items {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(item, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("tool_calls[%d] must be an object", i)
		}
		if r.Strict {
			if err := unknownKey(obj, toolCallKeys, fmt.Sprintf("tool_calls[%d]: ", i)); err != nil {
				return nil, err
			}
		}
		var tc promptcanary.ToolCall
		name, ok := obj["name"]
		if !ok {
			return nil, fmt.Errorf("tool_calls[%d]: missing name", i)
		}
		if err := stringField(name, fmt.Sprintf("tool_calls[%d].name", i), &tc.Name); err != nil {
			return nil, err
		}
		if tc.Name == "" {
			return nil, fmt.Errorf("tool_calls[%d].name must not be empty", i)
		}
		if raw, ok := obj["id"]; ok && !isNull(raw) {
			if err := stringField(raw, fmt.Sprintf("tool_calls[%d].id", i), &tc.ID); err != nil {
				return nil, err
			}
		}
		if args, ok := obj["arguments"]; ok && !isNull(args) {
			if r.DecodeArguments {
				tc.Arguments = toolcall.AsWritten(args)
			} else {
				tc.Arguments = json.RawMessage(bytes.Clone(args))
			}
		}
		calls = append(calls, tc)
	}
	return calls, nil
}

// unknownKey names the first key of obj, in sorted order, that is not one
// of known, with a did-you-mean hint; prefix locates obj.
func unknownKey(obj map[string]json.RawMessage, known []string, prefix string) error {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(known, k) {
			return fmt.Errorf("%sunknown field %q%s", prefix, k, suggest.Hint(k, known))
		}
	}
	return nil
}

func stringField(raw json.RawMessage, name string, dst *string) error {
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, dst) != nil {
		return fmt.Errorf("%s must be a string", name)
	}
	return nil
}

// intField reads a non-negative integral count no larger than MaxInt32;
// with clamp, a negative one reads as 0.
func intField(raw json.RawMessage, name string, dst *int, clamp bool) error {
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil || v != math.Trunc(v) || v > math.MaxInt32 || v < 0 && !clamp {
		return fmt.Errorf("%s must be a non-negative integer", name)
	}
	*dst = max(0, int(v))
	return nil
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }
