package format_test

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/format"
)

func TestRegistered(t *testing.T) {
	cases := []probetest.Registered{
		{ID: "json_validity", Name: "JSON Validity"},
		{ID: "json_schema", Name: "JSON Schema", Raw: map[string]any{"required_keys": list("a")}},
		{ID: "json_key_order", Name: "JSON Key Order", Raw: map[string]any{"expected_order": list("a", "b")}},
		{ID: "response_length", Name: "Response Length"},
		{ID: "markdown_headers", Name: "Markdown Headers", Raw: map[string]any{"expected_headers": list("A")}},
		{ID: "keyword_presence", Name: "Keyword Presence", Raw: map[string]any{"required_keywords": list("a")}},
		{ID: "expected_keywords", Name: "Expected Keywords (from prompt)"},
	}
	for i := range cases {
		cases[i].Category = promptcanary.CategoryFormat
	}
	probetest.CheckRegistered(t, cases)
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		id   string
		raw  map[string]any
		want probe.Params
	}{
		{"json_validity", nil, probe.Params{}},
		{"json_schema", map[string]any{"required_keys": list("a")},
			probe.Params{"required_keys": []string{"a"}, "forbidden_keys": []string{}, "score_per_key": true}},
		{"json_key_order", map[string]any{"expected_order": list("a", "b")},
			probe.Params{"expected_order": []string{"a", "b"}}},
		{"response_length", nil, probe.Params{"min_chars": 1, "tolerance": 0.5}},
		{"markdown_headers", map[string]any{"expected_headers": list("A")},
			probe.Params{"expected_headers": []string{"A"}, "case_sensitive": false}},
		{"keyword_presence", map[string]any{"forbidden_keywords": list("x")},
			probe.Params{"required_keywords": []string{}, "forbidden_keywords": []string{"x"}, "case_sensitive": false}},
		{"expected_keywords", nil, probe.Params{}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			_, got, err := probe.New(tc.id, tc.raw)
			if err != nil {
				t.Fatalf("probe.New: got error %v, want nil", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("params mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStructsMatchRegistry checks that a probe built directly from its
// exported type behaves like the one built from YAML parameters.
func TestStructsMatchRegistry(t *testing.T) {
	resp := &promptcanary.Response{Content: "```json\n{\"b\": 1, \"a\": 2, \"x\": 3}\n```"}
	prompt := &promptcanary.Prompt{ID: "p", ExpectedKeywords: []string{"json", "zebra"}}
	tests := []struct {
		name   string
		direct probe.Probe
		id     string
		raw    map[string]any
	}{
		{"validity", &format.JSONValidity{}, "json_validity", nil},
		{"schema", &format.JSONSchema{RequiredKeys: []string{"a", "c"}, ForbiddenKeys: []string{"x"}},
			"json_schema", map[string]any{"required_keys": list("a", "c"), "forbidden_keys": list("x")}},
		{"schema all or nothing", &format.JSONSchema{RequiredKeys: []string{"a", "c"}, AllOrNothing: true},
			"json_schema", map[string]any{"required_keys": list("a", "c"), "score_per_key": false}},
		{"key order", &format.JSONKeyOrder{ExpectedOrder: []string{"a", "b"}},
			"json_key_order", map[string]any{"expected_order": list("a", "b")}},
		{"length", &format.ResponseLength{MinChars: 1, BaselineChars: 20},
			"response_length", map[string]any{"baseline_chars": 20}},
		{"headers", &format.MarkdownHeaders{ExpectedHeaders: []string{"A"}},
			"markdown_headers", map[string]any{"expected_headers": list("A")}},
		{"keywords", &format.KeywordPresence{RequiredKeywords: []string{"JSON"}, ForbiddenKeywords: []string{"x"}},
			"keyword_presence", map[string]any{"required_keywords": list("JSON"), "forbidden_keywords": list("x")}},
		{"expected keywords", &format.ExpectedKeywords{}, "expected_keywords", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := probetest.Eval(mustNew(t, tc.id, tc.raw), prompt, resp)
			got := probetest.Eval(tc.direct, prompt, resp)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("direct struct differs from registry probe (-registry +direct):\n%s", diff)
			}
		})
	}
}
