package custom_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// fuzzExprs are fixed expressions of every shape: bool and double, over
// content, json (which may be null or of any type), tool calls and usage.
var fuzzExprs = []map[string]any{
	{"expr": `content.lowerAscii().contains("paris") && !content.matches("(?i)as an ai")`},
	{"expr": `json != null && type(json) == map && has(json.city) && json.city == "Paris"`},
	{"expr": `json.?city.orValue("") == "Paris" || json.?items.orValue([]).size() > 2`},
	{"expr": `json.city == "Paris"`}, // an error on anything but an object with city
	{"expr": `double(json.score)`, "pass_score": 0.5},
	{"expr": `math.least(1.0, double(content.split(" ").size()) / 50.0)`, "pass_score": 0.2},
	{"expr": `content.size() == 0 ? 0.0 : double(content.indexOf("{") + 1) / double(content.size() + 1)`, "pass_score": 0.0},
	{"expr": `tool_calls.all(c, c.name.matches("^[a-z_]+$") && (c.arguments == null || type(c.arguments) == map))`},
	{"expr": `content.trim().substring(0, 1) == "{"`}, // an error on an empty answer
	{"expr": `int(content) > 3`},
	{"expr": `completion_tokens <= 400 && finish_reason != "length" && prompt.id == "p"`},
}

var fuzzContents = []string{
	"",
	"Paris is the capital of France.",
	"```json\n{\"city\": \"Paris\", \"score\": 0.9}\n```",
	`{"score": 1e308}`,
	`{"score": -1}`,
	`{"score": "high"}`,
	`[1, 2, {"city": null}]`,
	`"just a string"`,
	`null`,
	"12",
	`{"a":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`,
	"As an AI, I cannot \xff\xfe answer",
	"{\"city\": \"\\ud800\", \"items\": [1,2,3]}",
}

// FuzzExpr evaluates fixed expressions on arbitrary answers and tool-call
// arguments: never a panic, a score in [0,1] with a sentence of details,
// and a verdict that agrees with the score.
func FuzzExpr(f *testing.F) {
	for _, c := range fuzzContents {
		f.Add(c, `{"city": "Oslo"}`)
	}
	f.Add("x", "")
	f.Add("x", "not json")
	probes := make([]probe.Probe, len(fuzzExprs))
	for i, raw := range fuzzExprs {
		probes[i] = probetest.New(f, "expr", raw)
	}
	prompt := &promptcanary.Prompt{ID: "p", Text: "Capital?", Tags: []string{"geo"}}
	f.Fuzz(func(t *testing.T, content, args string) {
		resp := &promptcanary.Response{Content: content, CompletionTokens: len(content) / 4, FinishReason: "stop",
			ToolCalls: []promptcanary.ToolCall{{Name: "get_weather", Arguments: json.RawMessage(args)}}}
		for i, p := range probes {
			res := p.Evaluate(context.Background(), probe.Input{Prompt: prompt, Response: resp})
			if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 || res.Details == "" {
				t.Fatalf("%v on %q: got score %v, details %q", fuzzExprs[i]["expr"], content, res.Score, res.Details)
			}
			if _, failed := res.Metadata["error"]; failed && (res.Passed || res.Score != 0) {
				t.Fatalf("%v on %q: an error that passed: %+v", fuzzExprs[i]["expr"], content, res)
			}
			if _, isScore := fuzzExprs[i]["pass_score"]; !isScore && res.Passed != (res.Score == 1) {
				t.Fatalf("%v on %q: a bool verdict with score %v, passed %v", fuzzExprs[i]["expr"], content, res.Score, res.Passed)
			}
		}
	})
}
