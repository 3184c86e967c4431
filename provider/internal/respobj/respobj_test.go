package respobj

import (
	"encoding/json"
	"strconv"
	"testing"
)

// TestRules checks each rule on one object, with and without it.
func TestRules(t *testing.T) {
	var id string
	sample := -1
	tests := []struct {
		name, obj string
		rules     Rules
		want      string // the error, or the response's fields as %+v of a few
	}{
		{"strict refuses an unknown key", `{"content":"x","contnet":1}`, Rules{Strict: true}, `unknown field "contnet" (did you mean content?)`},
		{"lax ignores it", `{"content":"x","contnet":1}`, Rules{}, "x 0 0 stop"},
		{"strict tool call key", `{"content":"x","tool_calls":[{"name":"f","args":1}]}`, Rules{Strict: true}, `tool_calls[0]: unknown field "args"`},
		{"negative count fails", `{"content":"x","prompt_tokens":-2}`, Rules{}, "prompt_tokens must be a non-negative integer"},
		{"negative count clamped", `{"content":"x","prompt_tokens":-2,"completion_tokens":3}`, Rules{ClampNegative: true}, "x 0 3 stop"},
		{"prompt id required", `{"content":"x"}`, Rules{PromptID: &id}, "missing prompt_id"},
		{"prompt id empty", `{"prompt_id":"","content":"x"}`, Rules{PromptID: &id}, "prompt_id must not be empty"},
		{"sample read", `{"content":"x","sample":1.5}`, Rules{Sample: &sample}, "sample must be a non-negative integer"},
		{"sample ignored without the rule", `{"content":"x","sample":1.5}`, Rules{}, "x 0 0 stop"},
		{"latency read", `{"content":"x","latency_ms":-1}`, Rules{Latency: true}, "latency_ms must be a non-negative number"},
		{"null content without tool calls", `{"content":null}`, Rules{}, "content must be a string"},
		{"null content with tool calls", `{"content":null,"tool_calls":[{"name":"f"}]}`, Rules{}, " 0 0 tool_calls"},
		{"tool calls shape", `{"content":"x","tool_calls":{}}`, Rules{ToolCallsShape: "shape"}, "shape"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.obj), &obj); err != nil {
				t.Fatal(err)
			}
			resp, err := Decode(obj, tc.rules)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = resp.Content + " " + itoa(resp.PromptTokens) + " " + itoa(resp.CompletionTokens) + " " + resp.FinishReason
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestArguments checks that arguments written as a JSON string are
// decoded only under DecodeArguments.
func TestArguments(t *testing.T) {
	obj := map[string]json.RawMessage{"content": json.RawMessage(`""`), "tool_calls": json.RawMessage(`[{"name":"f","arguments":"{\"a\":1}"}]`)}
	for _, tc := range []struct {
		decode bool
		want   string
	}{{false, `"{\"a\":1}"`}, {true, `{"a":1}`}} {
		resp, err := Decode(obj, Rules{DecodeArguments: tc.decode})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(resp.ToolCalls[0].Arguments); got != tc.want {
			t.Errorf("DecodeArguments %v: got %s, want %s", tc.decode, got, tc.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
