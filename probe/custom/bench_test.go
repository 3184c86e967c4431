package custom_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// benchJSON is a fenced JSON object of about 4 KB, a typical structured
// answer.
var benchJSON = func() string {
	var b strings.Builder
	b.WriteString("```json\n{\"city\": \"Paris\", \"confidence\": 0.92")
	for i := range 40 {
		fmt.Fprintf(&b, ",\n  \"field_%02d\": {\"text\": \"value number %d with some words\", \"tags\": [1, 2.5, true, null]}", i, i)
	}
	b.WriteString("\n}\n```")
	return b.String()
}()

// benchProse is an answer of about 2 KB of prose.
var benchProse = strings.Repeat("Paris is the capital and most populous city of France, on the Seine. ", 30)

func benchProbe(b *testing.B, p probe.Probe, content string) {
	b.Helper()
	probetest.Bench(b, p, &promptcanary.Prompt{ID: "capital", Text: "Capital of France?", Tags: []string{"geo"}},
		&promptcanary.Response{Content: content, FinishReason: "stop", CompletionTokens: 300, LatencyMS: 800,
			ToolCalls: []promptcanary.ToolCall{{Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)}}})
}

func BenchmarkExpr(b *testing.B) {
	cases := []struct {
		name, content string
		raw           map[string]any
	}{
		{"contains", benchProse, map[string]any{"expr": `content.lowerAscii().contains("capital of france")`}},
		{"matches", benchProse, map[string]any{"expr": `content.matches("(?i)\\bparis\\b") && !content.matches("(?i)as an ai")`}},
		{"usage", benchProse, map[string]any{"expr": `completion_tokens <= 400 && finish_reason == "stop" && latency_ms < 2000.0`}},
		{"json_field", benchJSON, map[string]any{"expr": `json.city == "Paris" && json.field_39.tags.size() == 4`}},
		{"json_score", benchJSON, map[string]any{"expr": `double(json.confidence)`, "pass_score": 0.8}},
		{"tool_calls", benchProse, map[string]any{"expr": `tool_calls.exists(c, c.name == "get_weather" && c.arguments.city == "Paris")`}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchProbe(b, probetest.New(b, "expr", c.raw), c.content) })
	}
}

// BenchmarkExprCompile measures loading one expr probe.
func BenchmarkExprCompile(b *testing.B) {
	raw := map[string]any{"expr": `json.?city.orValue("") == "Paris" && content.matches("(?i)paris") && completion_tokens < 400`}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := probe.New("expr", raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExec measures one call of a command that reads the input and
// answers: mostly the cost of starting a process.
func BenchmarkExec(b *testing.B) {
	p := execProbe(b, "judge", map[string]any{"HELPER_WANT": "Paris"}, nil)
	benchProbe(b, p, benchProse)
}
