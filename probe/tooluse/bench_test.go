package tooluse

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

func benchmarkProbe(b *testing.B, p probe.Probe, r *promptcanary.Response) {
	probetest.Bench(b, p, &promptcanary.Prompt{ID: "p"}, r)
}

func benchSchema(b *testing.B) probe.Probe {
	return build(b, "tool_call_schema", map[string]any{"schema": map[string]any{
		"name": "search_web", "required_args": []any{"query"}, "forbidden_args": []any{"api_key"},
		"arg_types": map[string]any{"query": "string", "limit": "integer"}}})
}

func BenchmarkSchemaOpenAIContent(b *testing.B) {
	benchmarkProbe(b, benchSchema(b), &promptcanary.Response{Content: fixture(b, "openai_tool_calls.json")})
}

func BenchmarkSchemaStructured(b *testing.B) {
	r := &promptcanary.Response{ToolCalls: []promptcanary.ToolCall{call("search_web", `{"query": "go fuzzing", "limit": 5}`)}}
	benchmarkProbe(b, benchSchema(b), r)
}

func BenchmarkSchemaProse(b *testing.B) {
	content := strings.Repeat(fixture(b, "prose.txt"), 40)
	benchmarkProbe(b, benchSchema(b), &promptcanary.Response{Content: content})
}

func BenchmarkPresenceText(b *testing.B) {
	benchmarkProbe(b, build(b, "tool_call_presence", nil), &promptcanary.Response{Content: fixture(b, "anthropic_xml.txt")})
}

func BenchmarkNameList(b *testing.B) {
	p := build(b, "tool_call_name", map[string]any{"expected_name": "get_weather"})
	benchmarkProbe(b, p, &promptcanary.Response{Content: fixture(b, "call_list.json")})
}

func BenchmarkArgsLargeJSON(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"tool_calls": [`)
	for i := range 200 {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"function": {"name": "f", "arguments": "{\"query\": \"x\", \"limit\": 5}"}}`)
	}
	sb.WriteString(`]}`)
	p := build(b, "tool_call_args", map[string]any{"required_args": []any{"query"}})
	benchmarkProbe(b, p, &promptcanary.Response{Content: sb.String()})
}

// BenchmarkSchemaNewShapes judges answers that hold a call, one after the
// other, with the probe's results of earlier shapes of call turned off:
// what each answer costs when its shape was not seen before.
func BenchmarkSchemaNewShapes(b *testing.B) {
	p := benchSchema(b).(*Schema)
	p.results = nil
	var rs []*promptcanary.Response
	for _, f := range []string{"openai_tool_calls.json", "simple_call.json", "call_list.json", "anthropic_call.json", "anthropic_xml.txt"} {
		rs = append(rs, &promptcanary.Response{Content: fixture(b, f)})
	}
	rs = append(rs, &promptcanary.Response{ToolCalls: []promptcanary.ToolCall{call("search_web", `{"query": "go fuzzing", "limit": 5}`)}})
	prompt := &promptcanary.Prompt{ID: "p"}
	b.ReportAllocs()
	j := 0
	for b.Loop() {
		probetest.Eval(p, prompt, rs[j])
		if j++; j == len(rs) {
			j = 0
		}
	}
}
