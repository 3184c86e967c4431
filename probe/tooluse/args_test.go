package tooluse

import (
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

func TestArgKeyExtraction(t *testing.T) {
	checkExtracted(t, "tool_call_args", map[string]any{"required_args": []any{"zzz"}}, "extracted_keys", []extractCase{
		{"openai arguments string", `{"tool_calls": [{"function": {"name": "f", "arguments": "{\"b\": 1, \"a\": 2}"}}]}`, nil, []string{"a", "b"}, "json"},
		{"arguments object", `{"name": "f", "arguments": {"q": 1}}`, nil, []string{"q"}, "json"},
		{"parameters", `{"name": "f", "parameters": {"p": 1}}`, nil, []string{"p"}, "json"},
		{"simple args", `{"function": "f", "args": {"x": 1, "y": 2}}`, nil, []string{"x", "y"}, "json"},
		{"anthropic input", `{"name": "f", "input": {"i": "v"}}`, nil, []string{"i"}, "json"},
		{"several containers in one object", `{"arguments": {"a": 1}, "input": {"b": 1}}`, nil, []string{"a", "b"}, "json"},
		{"nested containers", `{"input": {"outer": {"args": {"inner": 1}}}}`, nil, []string{"inner", "outer"}, "json"},
		{"list of calls, union", `[{"name": "f", "input": {"a": 1}}, {"name": "g", "arguments": "{\"b\": 2, \"a\": 3}"}]`, nil, []string{"a", "b"}, "json"},
		{"string that is not an object", `{"arguments": "[1, 2]", "x": 1}`, nil, []string{"x"}, "text"},
		{"string that is not json", `{"arguments": "query=go"}`, nil, []string{}, "none"},
		{"empty arguments fall back to text", `{"function": "f", "args": {}}`, nil, []string{"args"}, "text"},
		// Text fallback on content that is not JSON.
		{"text keys", `Call: {"name": "f", "arguments": {"query": "go", "limit": 5, "safe": true, "tags": [1], "opts": {}}}`, nil, []string{"limit", "opts", "query", "safe", "tags"}, "text"},
		{"text excludes structural keys", `x {"function": "f", "type": "t", "id": "1", "role": "r", "content": "c", "tool_calls": [`, nil, []string{}, "none"},
		{"text is case-sensitive for literals", `x {"flag": True, "n": 3}`, nil, []string{"n"}, "text"},
		{"text ignores null values", `x {"a": null}`, nil, []string{}, "none"},
		{"prose", "No call here.", nil, []string{}, "none"},
		// Structured calls.
		{"structured object", `{"input": {"ignored": 1}}`, []promptcanary.ToolCall{call("f", `{"b": 1, "a": 2}`)}, []string{"a", "b"}, "structured"},
		{"structured json string", "", []promptcanary.ToolCall{call("f", `"{\"q\": \"x\"}"`)}, []string{"q"}, "structured"},
		{"structured union of calls", "", []promptcanary.ToolCall{call("f", `{"a": 1}`), call("g", `{"b": 1, "a": 1}`)}, []string{"a", "b"}, "structured"},
		{"structured top-level keys only", "", []promptcanary.ToolCall{call("f", `{"a": {"input": {"z": 1}}}`)}, []string{"a"}, "structured"},
		{"structured invalid arguments", `{"input": {"ignored": 1}}`, []promptcanary.ToolCall{call("f", `{"a": `)}, []string{}, "structured"},
		{"structured no arguments", "", []promptcanary.ToolCall{call("f", "")}, []string{}, "structured"},
		{"structured array arguments", "", []promptcanary.ToolCall{call("f", `[1]`)}, []string{}, "structured"},
	})
}

func TestArgsScore(t *testing.T) {
	tests := []struct {
		name          string
		required      []any
		forbidden     []any
		content       string
		calls         []promptcanary.ToolCall
		wantPass      bool
		wantScore     float64
		wantMissing   []string
		wantForbidden []string
		inDetails     string
	}{
		{"all present", []any{"query", "limit"}, nil, `{"name": "f", "arguments": {"query": "x", "limit": 1}}`, nil, true, 1, []string{}, []string{}, "All 2 required"},
		{"one of two missing", []any{"query", "limit"}, nil, `{"name": "f", "arguments": {"query": "x"}}`, nil, false, 0.5, []string{"limit"}, []string{}, `Missing arguments: "limit".`},
		{"missing in required order", []any{"c", "a", "b"}, nil, `{"arguments": {"b": 1}}`, nil, false, 1.0 / 3, []string{"c", "a"}, []string{}, `"c", "a"`},
		{"forbidden halves the score", []any{"query"}, []any{"api_key"}, `{"arguments": {"query": "x", "api_key": "k"}}`, nil, false, 0.5, []string{}, []string{"api_key"}, "Forbidden arguments present: \"api_key\"."},
		{"forbidden and missing", []any{"query", "limit"}, []any{"api_key"}, `{"arguments": {"query": "x", "api_key": "k"}}`, nil, false, 0.25, []string{"limit"}, []string{"api_key"}, "Missing arguments"},
		{"forbidden absent", []any{"query"}, []any{"api_key"}, `{"arguments": {"query": "x"}}`, nil, true, 1, []string{}, []string{}, "All 1 required"},
		{"no keys and none required", []any{}, []any{"api_key"}, "plain prose", nil, true, 1, []string{}, []string{}, "No arguments required"},
		{"nothing found", []any{"query"}, nil, "plain prose", nil, false, 0, []string{"query"}, []string{}, "Missing"},
		// Unlike the reference, which scores this pass 0 (found 0 of
		// max(0, 1)), a pass scores 1 (probe/DEVIATIONS.md).
		{"keys but none required", []any{}, nil, `{"arguments": {"query": "x"}}`, nil, true, 1, []string{}, []string{}, "No arguments required"},
		{"keys but none required, forbidden absent", []any{}, []any{"api_key"}, `{"arguments": {"query": "x"}}`, nil, true, 1, []string{}, []string{}, "no forbidden argument present"},
		{"keys but none required, forbidden present", []any{}, []any{"query"}, `{"arguments": {"query": "x"}}`, nil, false, 0.5, []string{}, []string{"query"}, "Forbidden"},
		{"structured precedence", []any{"query"}, nil, `{"arguments": {"query": "x"}}`, []promptcanary.ToolCall{call("f", `{"q": "x"}`)}, false, 0, []string{"query"}, []string{}, "Missing"},
		{"structured json string arguments", []any{"query"}, []any{"api_key"}, "", []promptcanary.ToolCall{call("f", `"{\"query\": \"x\", \"api_key\": \"k\"}"`)}, false, 0.5, []string{}, []string{"api_key"}, "Forbidden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"required_args": tc.required}
			if tc.forbidden != nil {
				params["forbidden_args"] = tc.forbidden
			}
			var p probe.Probe = &Args{Required: []string{}, Forbidden: []string{}}
			if len(tc.required)+len(tc.forbidden) > 0 { // New rejects a probe that checks nothing
				p = build(t, "tool_call_args", params)
			}
			res := run(p, tc.content, tc.calls...)
			if res.Passed != tc.wantPass {
				t.Errorf("passed: got %v, want %v (%s)", res.Passed, tc.wantPass, res.Details)
			}
			if !near(res.Score, tc.wantScore) {
				t.Errorf("score: got %v, want %v", res.Score, tc.wantScore)
			}
			if got := res.Metadata["missing"].([]string); !slices.Equal(got, tc.wantMissing) || got == nil {
				t.Errorf("missing: got %#v, want %#v", got, tc.wantMissing)
			}
			if got := res.Metadata["forbidden_found"].([]string); !slices.Equal(got, tc.wantForbidden) || got == nil {
				t.Errorf("forbidden_found: got %#v, want %#v", got, tc.wantForbidden)
			}
			if !strings.Contains(res.Details, tc.inDetails) {
				t.Errorf("details: got %q, want it to contain %q", res.Details, tc.inDetails)
			}
			if len(res.Metadata) != 4 {
				t.Errorf("metadata keys: got %v, want extracted_keys, missing, forbidden_found, source", res.Metadata)
			}
			checkJSONFriendly(t, res.Metadata)
		})
	}
}
