package tooluse

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func TestNameExtraction(t *testing.T) {
	checkExtracted(t, "tool_call_name", map[string]any{"expected_name": "zzz"}, "extracted_names", []extractCase{
		{"openai tool_calls", `{"tool_calls": [{"function": {"name": "a", "arguments": "{}"}}, {"function": {"name": "b"}}]}`, nil, []string{"a", "b"}, "json"},
		{"function object", `{"function": {"name": "a"}, "tool_calls": [{"function": {"name": "b"}}]}`, nil, []string{"a", "b"}, "json"},
		{"function object wins over name", `{"function": {"name": "a"}, "name": "b"}`, nil, []string{"a"}, "json"},
		{"anthropic name/input", `{"name": "a", "input": {"q": 1}}`, nil, []string{"a"}, "json"},
		{"list of function objects", `[{"function": {"name": "a"}}, {"function": {"name": "b"}}, {"function": {"name": "a"}}]`, nil, []string{"a", "b"}, "json"},
		{"dedup keeps order", `{"tool_calls": [{"function": {"name": "b"}}, {"function": {"name": "a"}}, {"function": {"name": "b"}}]}`, nil, []string{"b", "a"}, "json"},
		{"json leading and trailing space", "\n  {\"name\": \"a\"}\n", nil, []string{"a"}, "json"},
		// The simple format has a string function: the text pattern finds it.
		{"simple function/args", `{"function": "a", "args": {"x": 1}}`, nil, []string{"a"}, "text"},
		// List items of the Anthropic style are found by the text pattern too.
		{"list of name/input", `[{"name": "a", "input": {}}, {"name": "b", "input": {}}]`, nil, []string{"a", "b"}, "text"},
		{"text function key", `I will call "function": "lookup" now`, nil, []string{"lookup"}, "text"},
		{"text name key case-insensitive", `"NAME" : " spaced "`, nil, []string{"spaced"}, "text"},
		{"text first pattern before second", "<function_calls><invoke><tool_name>x</tool_name></invoke></function_calls> \"name\": \"y\"", nil, []string{"y", "x"}, "text"},
		{"text invoke block", "<function_calls>\n  <invoke>\n<tool_name> search </tool_name>", nil, []string{"search"}, "text"},
		{"text blank name skipped", `"name": "  "`, nil, []string{}, "none"},
		{"non-string name", `{"name": 5}`, nil, []string{}, "none"},
		{"tool_calls not a list", `{"tool_calls": "a"}`, nil, []string{}, "none"},
		{"function not an object in list", `[{"function": "a"}]`, nil, []string{"a"}, "text"},
		{"prose", "Paris is the capital.", nil, []string{}, "none"},
		// Structured calls take precedence over the content.
		{"structured", "", []promptcanary.ToolCall{call("x", ""), call("y", ""), call("x", "")}, []string{"x", "y"}, "structured"},
		{"structured over text", `{"name": "y"}`, []promptcanary.ToolCall{call("x", `{}`)}, []string{"x"}, "structured"},
		{"structured without names", `{"name": "y"}`, []promptcanary.ToolCall{call("", `{}`)}, []string{}, "structured"},
	})
}

func TestNameScore(t *testing.T) {
	tests := []struct {
		name      string
		params    map[string]any
		content   string
		calls     []promptcanary.ToolCall
		wantPass  bool
		wantScore float64
		inDetails string
	}{
		{"match", nil, `{"name": "search_web"}`, nil, true, 1, "Correct"},
		{"case-insensitive by default", nil, `{"name": "Search_Web"}`, nil, true, 1, "Correct"},
		{"case-sensitive mismatch", map[string]any{"case_sensitive": true}, `{"name": "Search_Web"}`, nil, false, 0.3, "Wrong"},
		{"case-sensitive match", map[string]any{"case_sensitive": true}, `{"name": "search_web"}`, nil, true, 1, "Correct"},
		{"wrong name", nil, `{"name": "web_search"}`, nil, false, 0.3, `expected "search_web"`},
		{"alias", map[string]any{"allow_aliases": []any{"web_search"}}, `{"name": "WEB_SEARCH"}`, nil, true, 1, "Correct"},
		{"alias case-sensitive", map[string]any{"allow_aliases": []any{"web_search"}, "case_sensitive": true}, `{"name": "WEB_SEARCH"}`, nil, false, 0.3, "Wrong"},
		{"any of several names", nil, `[{"function": {"name": "other"}}, {"function": {"name": "search_web"}}]`, nil, true, 1, "Correct"},
		{"no call", nil, "I cannot call tools.", nil, false, 0, "No function call"},
		{"structured says x, text mentions expected", nil, `{"name": "search_web"}`, []promptcanary.ToolCall{call("get_weather", `{}`)}, false, 0.3, `"get_weather"`},
		{"structured says expected, text mentions y", nil, `{"name": "get_weather"}`, []promptcanary.ToolCall{call("search_web", `{}`)}, true, 1, "Correct"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"expected_name": "search_web"}
			for k, v := range tc.params {
				params[k] = v
			}
			res := run(build(t, "tool_call_name", params), tc.content, tc.calls...)
			if res.Passed != tc.wantPass {
				t.Errorf("passed: got %v, want %v (%s)", res.Passed, tc.wantPass, res.Details)
			}
			if res.Score != tc.wantScore {
				t.Errorf("score: got %v, want %v", res.Score, tc.wantScore)
			}
			if !strings.Contains(res.Details, tc.inDetails) {
				t.Errorf("details: got %q, want it to contain %q", res.Details, tc.inDetails)
			}
			if got := res.Metadata["expected"]; got != "search_web" {
				t.Errorf("expected: got %v, want search_web", got)
			}
			if len(res.Metadata) != 3 {
				t.Errorf("metadata keys: got %v, want extracted_names, expected, source", res.Metadata)
			}
			checkJSONFriendly(t, res.Metadata)
		})
	}
}

func TestNameDetailsAreBounded(t *testing.T) {
	long := strings.Repeat("x", 10000)
	var b strings.Builder
	b.WriteString(`{"tool_calls": [`)
	for i := range 50 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"function": {"name": "` + long + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `"}}`)
	}
	b.WriteString(`]}`)
	res := run(build(t, "tool_call_name", map[string]any{"expected_name": "f"}), b.String())
	if got := len(res.Metadata["extracted_names"].([]string)); got != 50 {
		t.Errorf("extracted names: got %d, want 50", got)
	}
	if len(res.Details) > 2000 {
		t.Errorf("details length: got %d, want at most 2000", len(res.Details))
	}
	if !strings.Contains(res.Details, "and 42 more") {
		t.Errorf("details: got %q, want it to say how many names are not shown", res.Details)
	}
}
