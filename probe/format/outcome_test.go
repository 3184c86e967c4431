package format_test

import (
	"fmt"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/format"
)

// TestSharedOutcomes checks that probes which share the result of an
// outcome judge each response as a new probe would: prompts whose keywords
// differ in turn, responses whose outcomes repeat, and keyword lists too
// long to cache.
func TestSharedOutcomes(t *testing.T) {
	many := []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}
	prompts := []*promptcanary.Prompt{
		{ID: "one", ExpectedKeywords: []string{"Paris", "France"}},
		{ID: "two", ExpectedKeywords: []string{"Oslo"}},
		{ID: "many", ExpectedKeywords: many},
		{ID: "none"},
		{ID: "same as one", ExpectedKeywords: []string{"Paris", "France"}},
	}
	contents := []string{"Paris is in France.", "PARIS", "Oslo a1 a3 a9", "nothing", "", "a1 a2 a3 a4 a5 a6 a7 a8 a9 Oslo France"}
	keywords, _, err := probe.New("keyword_presence", map[string]any{
		"required_keywords": []any{"paris", "Oslo"}, "forbidden_keywords": []any{"France"}})
	if err != nil {
		t.Fatal(err)
	}
	shared := []probe.Probe{&format.ExpectedKeywords{}, keywords}
	for round := range 2 {
		for _, p := range prompts {
			for _, c := range contents {
				r := &promptcanary.Response{Content: c}
				for i, sp := range shared {
					fresh := []probe.Probe{&format.ExpectedKeywords{}, &format.KeywordPresence{
						RequiredKeywords: []string{"paris", "Oslo"}, ForbiddenKeywords: []string{"France"}}}[i]
					got, want := fmt.Sprint(probetest.Eval(sp, p, r)), fmt.Sprint(probetest.Eval(fresh, p, r))
					if got != want {
						t.Errorf("round %d, %T, prompt %s, %q: got %s, want %s", round, sp, p.ID, c, got, want)
					}
				}
			}
		}
	}
}
