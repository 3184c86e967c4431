package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestRunShowsCutAnswers: a run whose answers were cut to the bound says
// so in every format a person reads, with what was kept and how large
// the answer was.
func TestRunShowsCutAnswers(t *testing.T) {
	kept := strings.Repeat("a", 1<<20)
	res := func(sample int) promptcanary.ProbeResult {
		return promptcanary.ProbeResult{ProbeID: "len", ProbeName: "Length", Category: promptcanary.CategoryFormat, PromptID: "p1", Sample: sample, Passed: true, Score: 1}
	}
	one := &promptcanary.Run{RunID: "r1", SuiteName: "s", Samples: 2,
		ProbeResults: []promptcanary.ProbeResult{res(0), res(1)},
		LLMResponses: []promptcanary.Response{
			{PromptID: "p1", Sample: 0, Content: kept, Truncated: true, OriginalBytes: 5 << 20},
			{PromptID: "p1", Sample: 1, Content: "short"},
		}}
	two := &promptcanary.Run{RunID: "r2", SuiteName: "s", Samples: 2,
		ProbeResults: []promptcanary.ProbeResult{res(0), res(1)},
		LLMResponses: []promptcanary.Response{
			{PromptID: "p1", Sample: 0, Content: kept, Truncated: true, OriginalBytes: 5 << 20},
			{PromptID: "p1", Sample: 1, Content: kept[:1000], Truncated: true, OriginalBytes: 3 << 20},
		}}
	// Answers whose tool calls were cut (not their text) are counted
	// apart: summing them with the byte cuts said "cut to at most 0 B
	// (the largest was 0 B)".
	calls := func(n int) []promptcanary.ToolCall { return make([]promptcanary.ToolCall, n) }
	three := &promptcanary.Run{RunID: "r3", SuiteName: "s", Samples: 3,
		ProbeResults: []promptcanary.ProbeResult{res(0), res(1), res(2)},
		LLMResponses: []promptcanary.Response{
			{PromptID: "p1", Sample: 0, ToolCalls: calls(128), Truncated: true, OriginalToolCalls: 20000},
			{PromptID: "p1", Sample: 1, ToolCalls: calls(128), Truncated: true, OriginalToolCalls: 500},
			{PromptID: "p1", Sample: 2, Content: kept[:1000], Truncated: true, OriginalBytes: 3 << 20},
		}}
	tests := []struct {
		name string
		run  *promptcanary.Run
		want string
	}{
		{"one answer", one, "answer cut to 1.0 MiB of 5.0 MiB (prompt p1, sample 0); probes judged the part kept"},
		{"two answers", two, "2 of 2 answers cut to at most 1.0 MiB (the largest was 5.0 MiB); probes judged the part kept"},
		{"tool calls", three, "1 of 3 answers cut to at most 1000 B (the largest was 3.0 MiB); tool calls of 2 of 3 answers cut to the first 128 (the most was 20000); probes judged the part kept"},
	}
	for _, tc := range tests {
		for _, f := range []Format{Terminal, Markdown, HTML} {
			t.Run(tc.name+"/"+string(f), func(t *testing.T) {
				var buf bytes.Buffer
				if err := Run(&buf, f, tc.run, Options{Width: 200}); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(buf.String(), tc.want) {
					t.Errorf("%s output does not say %q", f, tc.want)
				}
			})
		}
	}
}
