package format_test

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/format"
)

func TestExpectedKeywords(t *testing.T) {
	runCases(t, "expected_keywords", []evalCase{
		{name: "none declared skips", content: "anything", pass: true, score: 1,
			meta: map[string]any{"missing": strs()}, details: "skipped"},
		{name: "none declared on empty content", content: "", pass: true, score: 1},
		{name: "all found ignoring case", keywords: []string{"Paris", "CAPITAL"}, content: "The capital is paris.",
			pass: true, score: 1, meta: map[string]any{"missing": strs()}, details: "All 2 expected keywords were found"},
		{name: "one of three missing", keywords: []string{"Paris", "France", "Seine"}, content: "Paris, France",
			score: 2.0 / 3, meta: map[string]any{"missing": strs("Seine")}, details: `Missing 1 of 3 expected keywords: "Seine"`},
		{name: "all missing", keywords: []string{"a", "b"}, content: "xyz", score: 0,
			meta: map[string]any{"missing": strs("a", "b")}},
		{name: "substring semantics", keywords: []string{"form"}, content: "information", pass: true, score: 1},
	})
}

func TestExpectedKeywordsNilPrompt(t *testing.T) {
	got := probetest.Eval(mustNew(t, "expected_keywords", nil), nil, &promptcanary.Response{Content: "x"})
	if !got.Passed || got.Score != 1 {
		t.Errorf("nil prompt: got passed %v score %v, want true 1", got.Passed, got.Score)
	}
}

func TestExpectedKeywordsConfig(t *testing.T) {
	runConfigCases(t, "expected_keywords", []configCase{
		{name: "takes no parameters", params: map[string]any{"keywords": list("a")}, want: []string{"keywords"},
			hint: "expected_keywords takes no parameters"},
	})
}

func TestExpectedKeywordsSkips(t *testing.T) {
	var sk probe.Skipper = &format.ExpectedKeywords{}
	if reason, hint := sk.Skips(&promptcanary.Prompt{ExpectedKeywords: []string{"Paris"}}); reason != "" || hint != "" {
		t.Errorf("prompt with keywords: got (%q, %q), want nothing skipped", reason, hint)
	}
	for _, p := range []*promptcanary.Prompt{nil, {}, {ExpectedKeywords: []string{}}} {
		if reason, hint := sk.Skips(p); reason != "no expected_keywords declared" || hint == "" {
			t.Errorf("prompt %+v: got (%q, %q), want the reason and a hint", p, reason, hint)
		}
	}
}
