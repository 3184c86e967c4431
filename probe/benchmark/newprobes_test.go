package benchmark_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
	// The families of the probes added after the original 19, except
	// similarity, exec and llm_judge, which compare with other answers or
	// call out of the process.
	_ "github.com/promptcanary/promptcanary/probe/custom"
	_ "github.com/promptcanary/promptcanary/probe/match"
	_ "github.com/promptcanary/promptcanary/probe/meta"
	_ "github.com/promptcanary/promptcanary/probe/schema"
)

// personSchema is the JSON Schema json_schema_full checks in the benchmark:
// the shape of the corpus's person records.
var personSchema = map[string]any{
	"$schema":  "https://json-schema.org/draft/2020-12/schema",
	"type":     "object",
	"required": []any{"name", "born"},
	"properties": map[string]any{
		"name":      map[string]any{"type": "string", "minLength": 1},
		"born":      map[string]any{"type": "integer", "minimum": 0, "maximum": 2100},
		"city":      map[string]any{"type": "string"},
		"field":     map[string]any{"type": "string"},
		"known_for": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	},
}

// newConfigs are the built-in probe types added after the original 19 that
// judge one response on their own, with realistic parameters. The expr
// configs are three typical expressions: over the text and usage, over the
// parsed JSON, and a score.
var newConfigs = []config{
	{"regex", "regex", map[string]any{"must_match": []any{`\b(?:Oslo|Paris|Lisbon)\b`}, "must_not_match": []any{`(?:as an ai|language model)`}, "flags": "i"}},
	{"regex/anchored", "regex", map[string]any{"must_match": []any{`^\s*[\[{]`}}},
	{"contains", "contains", map[string]any{"values": []any{"Oslo", "step", "JSON"}, "case_sensitive": false}},
	{"contains/not", "contains", map[string]any{"values": []any{"I'm sorry", "I cannot", "as an AI"}, "not": true}},
	{"equals", "equals", map[string]any{"values": []any{"yes", "no"}, "case_sensitive": false}},
	{"starts_with", "starts_with", map[string]any{"values": []any{"Sure", "Of course", "As an AI"}, "not": true}},
	{"ends_with", "ends_with", map[string]any{"values": []any{".", "}", "]"}, "mode": "any"}},
	{"latency", "latency", map[string]any{"max_ms": 2000}},
	{"tokens", "tokens", map[string]any{"max_completion_tokens": 400, "max_total_tokens": 1000}},
	{"cost", "cost", map[string]any{"max_usd": 0.0002}},
	{"finish_reason", "finish_reason", map[string]any{"forbidden": []any{"length", "content_filter"}}},
	{"json_schema_full", "json_schema_full", map[string]any{"schema": personSchema}},
	{"expr/text", "expr", map[string]any{"expr": `content.size() < 4000 && !content.lowerAscii().contains("as an ai") && completion_tokens <= 400`}},
	{"expr/json", "expr", map[string]any{"expr": `json != null && json.?name.orValue("") != ""`}},
	{"expr/score", "expr", map[string]any{"expr": `math.least(1.0, double(content.size()) / 500.0)`, "pass_score": 0.5}},
}

// newGoldenConfigs are newConfigs plus the other settings whose code paths
// differ.
var newGoldenConfigs = append(slices.Clone(newConfigs), []config{
	{"regex/not", "regex", map[string]any{"must_match": []any{`(?m)^\d+\.`, `step`}, "must_not_match": []any{`(?s)<thinking>.*</thinking>`}, "not": true}},
	{"regex/literal", "regex", map[string]any{"must_match": []any{`"name"\s*:`, `get_weather`}, "must_not_match": []any{`Kelvin|ſ`}}},
	{"contains/all", "contains", map[string]any{"values": []any{"oslo", "the"}, "mode": "all", "case_sensitive": false}},
	{"contains/sensitive", "contains", map[string]any{"values": []any{"Step", "é"}}},
	{"equals/not", "equals", map[string]any{"values": []any{"Yes."}, "not": true, "trim": false}},
	{"starts_with/any", "starts_with", map[string]any{"values": []any{"{", "[", "```"}, "case_sensitive": false}},
	{"ends_with/all", "ends_with", map[string]any{"values": []any{"}", "\"}"}, "mode": "all", "trim": true}},
	{"finish_reason/allowed", "finish_reason", map[string]any{"allowed": []any{"stop", "tool_calls"}}},
	{"tokens/completion", "tokens", map[string]any{"max_completion_tokens": 50}},
	{"cost/unknown", "cost", map[string]any{"max_usd": 1}},
	{"json_schema_full/strict", "json_schema_full", map[string]any{"schema": map[string]any{
		"type": "object", "required": []any{"name", "city"}, "additionalProperties": false,
		"properties": map[string]any{"name": map[string]any{"type": "string", "pattern": "^[A-Z]"}, "city": map[string]any{"enum": []any{"Oslo", "Paris"}}}}}},
	{"json_schema_full/array", "json_schema_full", map[string]any{"schema": map[string]any{
		"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "minItems": 2,
		"items": map[string]any{"type": "object", "required": []any{"city"}, "properties": map[string]any{"temp_c": map[string]any{"type": "number", "multipleOf": 0.5}}}}}},
	{"expr/tool_calls", "expr", map[string]any{"expr": `tool_calls.exists(c, c.name == "get_weather" && c.arguments != null && c.arguments.?city.orValue("") == "Oslo")`}},
	{"expr/prompt", "expr", map[string]any{"expr": `prompt.id == "p" && finish_reason == "stop" && latency_ms < 2000.0 && total_tokens > prompt_tokens`}},
	{"expr/matches", "expr", map[string]any{"expr": `content.matches("(?i)\\bstep\\s+\\d") || json.?items.orValue([]).size() > 1`}},
}...)

// usage gives a response the metadata a provider reports, derived from its
// content so that every run judges the same responses: a model id with a
// known price, token counts, a latency and a finish reason.
func usage(r *promptcanary.Response) {
	n := len(r.Content)
	r.ProviderModelID = "openai/gpt-4o-mini"
	r.PromptTokens = 120
	r.CompletionTokens = n/4 + 1
	r.TotalTokens = r.PromptTokens + r.CompletionTokens
	r.LatencyMS = 300 + 1.5*float64(n)
	r.FinishReason = "stop"
	if n%5 == 0 {
		r.FinishReason = "length"
	}
}

// structuredCalls are the tool calls the golden responses carry in turn:
// arguments as an object, as a JSON string, not JSON, absent and null, and
// two calls.
var structuredCalls = [][]promptcanary.ToolCall{
	{{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Oslo", "unit": "celsius"}`)}},
	{{ID: "c2", Name: "Weather", Arguments: json.RawMessage(`"{\"city\": \"Paris\", \"api_key\": 3}"`)}},
	{{ID: "c3", Name: "search", Arguments: json.RawMessage(`not json`)}},
	{{ID: "c4", Name: "get_weather"}},
	{{ID: "c5", Name: "", Arguments: json.RawMessage(`null`)}},
	{{ID: "c6", Name: "get_time", Arguments: json.RawMessage(`{"tz": "UTC"}`)}, {ID: "c7", Name: "get_weather", Arguments: json.RawMessage(` {"city": 7} `)}},
}

// goldenResponse is text i of the extended golden test: the content with
// usage, and every fourth response with structured tool calls.
func goldenResponse(i int, content string) *promptcanary.Response {
	r := &promptcanary.Response{PromptID: prompt.ID, Content: content}
	usage(r)
	if i%4 == 0 {
		r.ToolCalls = structuredCalls[(i/4)%len(structuredCalls)]
	}
	return r
}

var newGoldenFile = filepath.Join("testdata", "golden_new.txt")

// TestVerdictsUnchangedExtended is TestVerdictsUnchanged for the probes
// added after the original 19, and for all probes on responses that carry
// usage and structured tool calls: it compares every result with
// testdata/golden_new.txt, which the probes wrote before they were
// optimised.
func TestVerdictsUnchangedExtended(t *testing.T) {
	checkGolden(t, newGoldenFile, append(slices.Clone(goldenConfigs), newGoldenConfigs...), goldenResponse, "the unoptimised probes")
}
