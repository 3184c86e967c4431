package format_test

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/format"
)

func TestKeywordPresence(t *testing.T) {
	mixed := map[string]any{"required_keywords": list("Paris", "France"), "forbidden_keywords": list("London", "I think")}
	runCases(t, "keyword_presence", []evalCase{
		{name: "no checks", built: &format.KeywordPresence{}, content: "anything", pass: true, score: 1,
			meta: map[string]any{"missing_required": strs(), "found_forbidden": strs()}, details: "All 0 keyword checks passed"},
		{name: "all satisfied ignoring case", params: mixed, content: "PARIS is the capital of france.", pass: true, score: 1,
			meta: map[string]any{"missing_required": strs(), "found_forbidden": strs()}, details: "All 4 keyword checks passed"},
		{name: "one required missing", params: mixed, content: "Paris.", score: 0.75,
			meta: map[string]any{"missing_required": strs("France"), "found_forbidden": strs()}, details: `Missing required keywords "France"`},
		{name: "one forbidden present", params: mixed, content: "i think Paris, France.", score: 0.75,
			meta: map[string]any{"missing_required": strs(), "found_forbidden": strs("I think")}, details: `Found forbidden keywords "I think"`},
		{name: "missing and forbidden", params: mixed, content: "London, France", score: 0.5,
			meta:    map[string]any{"missing_required": strs("Paris"), "found_forbidden": strs("London")},
			details: `Missing required keywords "Paris" and found forbidden keywords "London"`},
		{name: "every check violated", params: mixed, content: "I think London", score: 0},
		{name: "case sensitive", params: map[string]any{"required_keywords": list("Paris"), "case_sensitive": true},
			content: "paris", score: 0, meta: map[string]any{"missing_required": strs("Paris"), "found_forbidden": strs()}},
		{name: "case sensitive forbidden differs in case", params: map[string]any{"forbidden_keywords": list("ERROR"), "case_sensitive": true},
			content: "no error here", pass: true, score: 1},
		{name: "substring semantics", params: map[string]any{"required_keywords": list("cat")}, content: "concatenate",
			pass: true, score: 1},
		{name: "unicode ignoring case", params: map[string]any{"required_keywords": list("ÉCOLE")}, content: "une école",
			pass: true, score: 1},
		{name: "only forbidden, absent", params: map[string]any{"forbidden_keywords": list("sorry")}, content: "Here it is.",
			pass: true, score: 1},
		{name: "empty content", params: map[string]any{"required_keywords": list("a", "b")}, content: "", score: 0},
	})
}

func TestKeywordPresenceConfig(t *testing.T) {
	runConfigCases(t, "keyword_presence", []configCase{
		{name: "required_keywords not a list", params: map[string]any{"required_keywords": "Paris"},
			want: []string{"required_keywords"}, msg: `must be a list of strings, got string "Paris"`},
		{name: "both required and forbidden ignoring case",
			params: map[string]any{"required_keywords": list("Paris"), "forbidden_keywords": list("paris")},
			want:   []string{"forbidden_keywords"}, msg: `keyword "paris" is also in required_keywords`},
		{name: "no keywords at all", params: nil,
			want: []string{""}, msg: "nothing to check: required_keywords and forbidden_keywords are both empty", hint: "list at least one keyword"},
		{name: "empty lists", params: map[string]any{"required_keywords": list(), "forbidden_keywords": nil},
			want: []string{""}, msg: "nothing to check"},
		{name: "empty keyword", params: map[string]any{"required_keywords": list("Paris", ""), "forbidden_keywords": list("")},
			want: []string{"forbidden_keywords[0]", "required_keywords[1]"}, msg: "must not be empty", hint: "occurs in every response"},
	})
	if _, _, err := probe.New("keyword_presence", map[string]any{
		"required_keywords": list("Paris"), "forbidden_keywords": list("paris"), "case_sensitive": true,
	}); err != nil {
		t.Errorf("case-sensitive keywords differing in case: got error %v, want nil", err)
	}
}
