package tooluse

import (
	"testing"

	"github.com/promptcanary/promptcanary"
)

func TestPresence(t *testing.T) {
	tests := []struct {
		name       string
		params     map[string]any
		content    string
		calls      []promptcanary.ToolCall
		wantPass   bool
		wantDetect bool
		wantSource string
	}{
		{"openai tool_calls object", nil, `{"tool_calls": []}`, nil, true, true, "json"},
		{"function key", nil, `{"function": {"name": "f"}}`, nil, true, true, "json"},
		{"name key", nil, `  {"name": "f", "input": {}}  `, nil, true, true, "json"},
		{"list with function item", nil, `[1, {"function": "f"}]`, nil, true, true, "json"},
		{"list with name item", nil, `[{"name": "f"}]`, nil, true, true, "json"},
		{"list without call items", nil, `[{"id": 1}, "name"]`, nil, false, false, "none"},
		{"object without call keys", nil, `{"answer": 42}`, nil, false, false, "none"},
		{"prose", nil, "The capital of France is Paris.", nil, false, false, "none"},
		{"empty", nil, "", nil, false, false, "none"},
		// Text fallbacks, one per pattern.
		{"text function key", nil, `Calling {"function" : "f"`, nil, true, true, "text"},
		{"text tool_calls key", nil, `here: "tool_calls": [`, nil, true, true, "text"},
		{"text name then arguments", nil, `"name": "search", "arguments": {}`, nil, true, true, "text"},
		{"text tool_call tag", nil, "<tool_call>{}</tool_call>", nil, true, true, "text"},
		{"text function_calls tag", nil, "<FUNCTION_CALLS>", nil, true, true, "text"},
		{"text functions dot call", nil, "I will run functions.search(query)", nil, true, true, "text"},
		{"text function dot call", nil, "function.lookup(x)", nil, true, true, "text"},
		{"text function_calls inside fenced json", nil, "```json\n{\"function\": \"f\"}\n```", nil, true, true, "text"},
		{"auto falls back to text after json without keys", nil, `{"note": "<tool_call>"}`, nil, true, true, "text"},
		// Strategies.
		{"json strategy ignores text", map[string]any{"strategy": "json"}, "<tool_call>", nil, false, false, "none"},
		{"json strategy detects json", map[string]any{"strategy": "json"}, `{"name": "f"}`, nil, true, true, "json"},
		{"text strategy ignores json keys", map[string]any{"strategy": "text"}, `{"name": 1}`, nil, false, false, "none"},
		{"text strategy detects text", map[string]any{"strategy": "text"}, `{"name": "f", "arguments": {}}`, nil, true, true, "text"},
		// Structured calls.
		{"structured", nil, "", []promptcanary.ToolCall{call("f", `{}`)}, true, true, "structured"},
		{"structured with text strategy", map[string]any{"strategy": "text"}, "plain words", []promptcanary.ToolCall{call("f", "")}, true, true, "structured"},
		// Expecting no call.
		{"expect none and none", map[string]any{"expect_tool_call": false}, "Just an answer.", nil, true, false, "none"},
		{"expect none but json", map[string]any{"expect_tool_call": false}, `{"name": "f"}`, nil, false, true, "json"},
		{"expect none but structured", map[string]any{"expect_tool_call": false}, "Just an answer.", []promptcanary.ToolCall{call("f", "")}, false, true, "structured"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(build(t, "tool_call_presence", tc.params), tc.content, tc.calls...)
			if res.Passed != tc.wantPass {
				t.Errorf("passed: got %v, want %v (%s)", res.Passed, tc.wantPass, res.Details)
			}
			wantScore := 0.0
			if tc.wantPass {
				wantScore = 1
			}
			if res.Score != wantScore {
				t.Errorf("score: got %v, want %v", res.Score, wantScore)
			}
			if got := res.Metadata["tool_call_detected"]; got != tc.wantDetect {
				t.Errorf("tool_call_detected: got %v, want %v", got, tc.wantDetect)
			}
			if got := res.Metadata["source"]; got != tc.wantSource {
				t.Errorf("source: got %v, want %v", got, tc.wantSource)
			}
			wantStrategy := "auto"
			if s, ok := tc.params["strategy"]; ok {
				wantStrategy = s.(string)
			}
			if got := res.Metadata["strategy"]; got != wantStrategy {
				t.Errorf("strategy: got %v, want %v", got, wantStrategy)
			}
			if len(res.Metadata) != 3 {
				t.Errorf("metadata keys: got %v, want tool_call_detected, strategy, source", res.Metadata)
			}
			if res.Details == "" {
				t.Error("details: got empty, want a sentence")
			}
		})
	}
}

func TestPresenceUnsetStrategyIsAuto(t *testing.T) {
	for _, strategy := range []Strategy{"", "xml"} {
		p := &Presence{Expect: true, Strategy: strategy}
		for _, content := range []string{`{"name": "f"}`, "<tool_call>"} {
			res := run(p, content)
			if !res.Passed {
				t.Errorf("strategy %q, content %q: got passed false, want true", strategy, content)
			}
			if got := res.Metadata["strategy"]; got != "auto" {
				t.Errorf("strategy %q: got metadata %v, want auto", strategy, got)
			}
		}
	}
}
