package web

import (
	"strings"
	"testing"
)

// TestRunPageShowsCutAnswers: a run whose answers were cut to the bound
// says so on its page, above its drift report as in its own results.
func TestRunPageShowsCutAnswers(t *testing.T) {
	srv, _, mem, f := newTestServer(t, fixtureOptions{})
	for _, id := range []string{f.driftRun, f.cleanRun} {
		mem.mu.Lock()
		r := mem.runs[id]
		if r == nil || len(r.LLMResponses) == 0 {
			mem.mu.Unlock()
			t.Fatalf("fixture run %s has no answers", id)
		}
		resp := &r.LLMResponses[0]
		resp.Content = strings.Repeat("a", 64<<10)
		resp.Truncated, resp.OriginalBytes = true, 5<<20
		want := "answer cut to 64.0 KiB of 5.0 MiB (prompt " + resp.PromptID
		mem.mu.Unlock()
		_, body := get(t, srv, RunPath(id))
		if !strings.Contains(body, want) {
			t.Errorf("the page of run %s does not say %q", id, want)
		}
	}
}
