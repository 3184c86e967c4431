package custom_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	_ "github.com/promptcanary/promptcanary/probe/custom"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	"github.com/promptcanary/promptcanary/suite"
)

// problems returns "param: msg | hint" for every *probe.ParamError in err
// and fails the test on any other error.
func problems(t *testing.T, err error) []string {
	t.Helper()
	params, other := probe.ParamErrors(err)
	for _, e := range other {
		t.Errorf("error %v (%T): want a *probe.ParamError", e, e)
	}
	var out []string
	for _, pe := range params {
		out = append(out, pe.Error()+" | "+pe.Hint)
	}
	return out
}

// problemCase is parameters a probe type must reject, with the problems
// (as problems words them) it must report.
type problemCase struct {
	name string
	raw  map[string]any
	want []string
}

// checkProblems checks that building a probe of type id from each case's
// parameters fails with exactly its problems.
func checkProblems(t *testing.T, id string, cases []problemCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, _, err := probe.New(id, tc.raw)
			if err == nil {
				t.Fatalf("got probe %v, want an error", p)
			}
			if diff := cmp.Diff(tc.want, problems(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExprLoadErrors(t *testing.T) {
	tests := []problemCase{
		{"undeclared variable", map[string]any{"expr": `size(contnet) > 3`}, []string{
			"expr: line 1, column 6: undeclared reference to 'contnet' | did you mean content? the variables are content, json, tool_calls, finish_reason, prompt_tokens, completion_tokens, total_tokens, latency_ms, prompt",
		}},
		{"errors on later lines, all of them", map[string]any{"expr": "content.contains(\"a\") &&\n  finish_reasn == \"stop\" &&\n   bogus > 1"}, []string{
			"expr: line 2, column 3: undeclared reference to 'finish_reasn' | did you mean finish_reason? the variables are content, json, tool_calls, finish_reason, prompt_tokens, completion_tokens, total_tokens, latency_ms, prompt",
			`expr: line 3, column 4: undeclared reference to 'bogus' | the variables are content, json, tool_calls, finish_reason, prompt_tokens, completion_tokens, total_tokens, latency_ms, prompt; quote text as "…"`,
		}},
		{"syntax error", map[string]any{"expr": `content.size() >`}, []string{
			"expr: line 1, column 17: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER} | see the CEL language definition: https://github.com/google/cel-spec/blob/master/doc/langdef.md",
		}},
		{"no matching overload", map[string]any{"expr": `content > 3`}, []string{
			"expr: line 1, column 9: found no matching overload for '_>_' applied to '(string, int)' | the types do not fit: convert with double(), int() or string(); json values are dyn, compare them or convert them",
		}},
		{"int result", map[string]any{"expr": `content.size()`}, []string{
			"expr: must return a bool or a double, got int | compare it (completion_tokens < 300) or make it a double score (double(x) / 10.0)",
		}},
		{"dyn result", map[string]any{"expr": `json.score`}, []string{
			"expr: must return a bool or a double, got dyn | the type is known only at run time: convert or compare it, for example double(json.score) or json.ok == true",
		}},
		{"string result", map[string]any{"expr": `content`}, []string{
			`expr: must return a bool or a double, got string | compare the value to something, for example content.size() > 0 or json.status == "ok"`,
		}},
		{"bad constant regex", map[string]any{"expr": `content.matches("[a-")`}, []string{
			"expr: error parsing regexp: missing closing ]: `[a-` | fix the pattern; matches() takes RE2 syntax (https://github.com/google/re2/wiki/Syntax)",
		}},
		{"blank expression", map[string]any{"expr": " \n"}, []string{
			`expr: must not be empty | write a CEL expression, for example content.contains("Paris")`,
		}},
		{"pass_score with a bool expression", map[string]any{"expr": `content != ""`, "pass_score": 0.5}, []string{
			"pass_score: applies only to an expression that returns a double; this one returns a bool | remove pass_score, or make the expression return a score in [0,1]",
		}},
		{"pass_score out of range, empty description", map[string]any{"expr": `1.0`, "pass_score": 1.5, "description": " "}, []string{
			"description: must not be empty | say in words what the expression checks, or remove description",
			"pass_score: out of range: got 1.5, allowed 0 to 1 | use a score from 0 to 1, for example 0.8",
		}},
		{"missing expr, unknown parameter", map[string]any{"expression": "true"}, []string{
			"expression: unknown parameter for expr | known parameters: expr, pass_score, description",
			"expr: required parameter is missing | " + `a CEL expression returning a bool or a score in [0,1], for example content.contains("Paris")`,
		}},
	}
	checkProblems(t, "expr", tests)
}

// TestExprSuiteLocation checks that a compile error reaches the user with
// canary.yaml's line and the expression's own line and column.
func TestExprSuiteLocation(t *testing.T) {
	doc := `name: t
prompts: [hi]
probes:
  - {type: expr, expr: "true"}
  - type: expr
    expr: |
      content.size() > 0 &&
        contnet.contains("x")
`
	_, err := suite.Parse("canary.yaml", []byte(doc))
	var ve *suite.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *suite.ValidationError", err)
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.Error())
	}
	want := []string{"canary.yaml:6: probes[1] (expr).expr: line 2, column 3: undeclared reference to 'contnet'"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestExprEvaluate(t *testing.T) {
	prompt := &promptcanary.Prompt{ID: "capital", Text: "Capital of France?", Tags: []string{"geo", "smoke"}}
	full := &promptcanary.Response{
		Content:      "```json\n{\"city\": \"Paris\", \"confidence\": 0.8, \"sources\": [\"a\", \"b\"], \"n\": 3}\n```",
		FinishReason: "stop", PromptTokens: 12, CompletionTokens: 30, TotalTokens: 42, LatencyMS: 812.5,
		ToolCalls: []promptcanary.ToolCall{
			{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Oslo", "days": 2}`)},
			{ID: "c2", Name: "noop"},
			{ID: "c3", Name: "broken", Arguments: json.RawMessage(`{"city": `)},
		},
	}
	prose := &promptcanary.Response{Content: "Paris is the capital of France.", FinishReason: "length"}
	tests := []struct {
		name   string
		raw    map[string]any
		resp   *promptcanary.Response
		pass   bool
		score  float64
		meta   map[string]any
		detail string
	}{
		{"bool true", map[string]any{"expr": `content.lowerAscii().contains("paris")`}, prose, true, 1,
			map[string]any{"result": true}, `Expression held: content.lowerAscii().contains("paris").`},
		{"bool false with description", map[string]any{"expr": `finish_reason == "stop"`, "description": "the answer was not cut"}, prose, false, 0,
			map[string]any{"result": false}, "Expression did not hold: the answer was not cut."},
		{"json fields through a fence", map[string]any{"expr": `json.city == "Paris" && json.sources.size() == 2 && json.n == 3 && json.n > 2`}, full, true, 1,
			map[string]any{"result": true}, "held"},
		{"json is null for prose", map[string]any{"expr": `json == null`}, prose, true, 1, map[string]any{"result": true}, "held"},
		{"optional key on prose json", map[string]any{"expr": `json.?city.orValue("none") == "none"`}, prose, true, 1, map[string]any{"result": true}, "held"},
		{"has() on json", map[string]any{"expr": `has(json.city) && !has(json.country)`}, full, true, 1, map[string]any{"result": true}, "held"},
		{"tool calls", map[string]any{"expr": `tool_calls.size() == 3 && tool_calls[0].name == "get_weather" && tool_calls[0].arguments.city == "Oslo" && tool_calls[0].id == "c1" && tool_calls[1].arguments == {} && tool_calls[2].arguments == null`}, full, true, 1,
			map[string]any{"result": true}, "held"},
		{"tool call exists", map[string]any{"expr": `tool_calls.exists(c, c.name == "get_weather" && double(c.arguments.days) >= 2.0)`}, full, true, 1,
			map[string]any{"result": true}, "held"},
		{"usage and latency", map[string]any{"expr": `prompt_tokens == 12 && completion_tokens == 30 && total_tokens == 42 && latency_ms < 1000.0 && finish_reason == "stop"`}, full, true, 1,
			map[string]any{"result": true}, "held"},
		{"prompt", map[string]any{"expr": `prompt.id == "capital" && prompt.text.startsWith("Capital") && "geo" in prompt.tags`}, full, true, 1,
			map[string]any{"result": true}, "held"},
		{"string extensions", map[string]any{"expr": `content.split(" ").size() == 6 && content.indexOf("capital") == 13 && content.trim().endsWith(".") && content.matches("^Paris")`}, prose, true, 1,
			map[string]any{"result": true}, "held"},
		{"double score passes at default", map[string]any{"expr": `double(json.confidence) + 0.2`}, full, true, 1,
			map[string]any{"result": 1.0, "pass_score": 1.0}, "Expression scored 1, which passes at >= 1: double(json.confidence) + 0.2."},
		{"double score below pass_score", map[string]any{"expr": `double(json.confidence)`, "pass_score": 0.9, "description": "model is confident"}, full, false, 0.8,
			map[string]any{"result": 0.8, "pass_score": 0.9}, "Expression scored 0.8, which fails at >= 0.9: model is confident."},
		{"double score at pass_score", map[string]any{"expr": `math.least(1.0, double(size(content)) / 62.0)`, "pass_score": 0.5}, prose, true, 0.5,
			map[string]any{"result": 0.5, "pass_score": 0.5}, "passes at >= 0.5"},
		{"zero pass_score passes a zero score", map[string]any{"expr": `0.0`, "pass_score": 0.0}, prose, true, 0,
			map[string]any{"result": 0.0, "pass_score": 0.0}, "passes"},
		{"runtime error: key of null json", map[string]any{"expr": `json.city == "Paris"`}, prose, false, 0,
			map[string]any{"error": "no such key: city"}, `Expression could not be judged: json.city == "Paris": no such key: city.`},
		{"runtime error: bad conversion", map[string]any{"expr": `int(content) > 2`}, prose, false, 0,
			map[string]any{"error": "type conversion error from 'string' to 'int'"}, "could not be judged"},
		{"runtime error: wrong dyn type", map[string]any{"expr": `double(json.city) > 0.5`}, full, false, 0,
			map[string]any{"error": "type conversion error from 'string' to 'double'"}, "could not be judged"},
		{"runtime error: division by zero", map[string]any{"expr": `completion_tokens / 0 > 1`}, prose, false, 0,
			map[string]any{"error": "division by zero"}, "could not be judged"},
		{"score above 1", map[string]any{"expr": `double(completion_tokens) / 10.0`}, full, false, 0,
			map[string]any{"error": "score 3 is outside [0,1]"}, "score 3 is outside [0,1]"},
		{"score NaN", map[string]any{"expr": `0.0 / 0.0`}, prose, false, 0,
			map[string]any{"error": "score NaN is outside [0,1]"}, "outside [0,1]"},
		{"long expression is cut in details", map[string]any{"expr": `content != "` + strings.Repeat("x", 100) + `"`}, prose, true, 1,
			map[string]any{"result": true}, `Expression held: content != "` + strings.Repeat("x", 68) + "….",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := probetest.New(t, "expr", tc.raw)
			res := probetest.Eval(p, prompt, tc.resp)
			probetest.CheckVerdict(t, res, tc.pass, tc.score)
			if diff := cmp.Diff(tc.meta, res.Metadata); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
			if !strings.Contains(res.Details, tc.detail) {
				t.Errorf("details: got %q, want it to contain %q", res.Details, tc.detail)
			}
		})
	}
}

// TestExprCostLimit checks that an expression whose work grows with the
// square of the answer stops at the cost limit with an error result.
func TestExprCostLimit(t *testing.T) {
	p := probetest.New(t, "expr", map[string]any{
		// Each step scans the whole answer, so the cost limit is reached
		// after a few hundred steps, long before the time limit, even
		// under the race detector.
		"expr": `content.split("").all(a, !content.contains(a + "!!"))`,
	})
	res := probetest.Eval(p, &promptcanary.Prompt{}, &promptcanary.Response{Content: strings.Repeat("ab", 20_000)})
	probetest.CheckVerdict(t, res, false, 0)
	want := "operation cancelled: actual cost limit exceeded (the limit is 1000000)"
	if got := res.Metadata["error"]; got != want {
		t.Errorf("error: got %q, want %q", got, want)
	}
	// The same expression on a short answer stays within the limit.
	res = probetest.Eval(p, &promptcanary.Prompt{}, &promptcanary.Response{Content: "abc"})
	probetest.CheckVerdict(t, res, true, 1)
}

// TestExprCostLimitLinear checks that an expression without a
// comprehension whose work grows with the answer is still held to the
// cost limit: only expressions whose cost CEL bounds run untracked.
func TestExprCostLimitLinear(t *testing.T) {
	long := &promptcanary.Response{Content: strings.Repeat("ab", 6_000_000)}
	for _, expr := range []string{`content.contains("zz")`, `content.matches("zz")`, `json == null && content.indexOf("zz") < 0`} {
		p := probetest.New(t, "expr", map[string]any{"expr": expr})
		res := probetest.Eval(p, &promptcanary.Prompt{}, long)
		if got, want := res.Metadata["error"], "operation cancelled: actual cost limit exceeded (the limit is 1000000)"; got != want {
			t.Errorf("%s: error %q, want %q", expr, got, want)
		}
	}
	// A bounded expression judges the same long answer.
	p := probetest.New(t, "expr", map[string]any{"expr": `content.size() > 100 && completion_tokens == 0`})
	probetest.CheckVerdict(t, probetest.Eval(p, &promptcanary.Prompt{}, long), true, 1)
}

// TestExprNil checks that a nil prompt or response is judged as empty.
func TestExprNil(t *testing.T) {
	p := probetest.New(t, "expr", map[string]any{"expr": `content == "" && json == null && tool_calls.size() == 0 && prompt.id == "" && prompt.tags.size() == 0`})
	probetest.CheckVerdict(t, p.Evaluate(context.Background(), probe.Input{}), true, 1)
}

// TestExprConcurrent evaluates one probe from many goroutines, each with
// its own answer; run with -race.
func TestExprConcurrent(t *testing.T) {
	p := probetest.New(t, "expr", map[string]any{"expr": `json.?n.orValue(-1.0) == double(prompt_tokens)`})
	probetest.Concurrently(64, func(i int) {
		r := &promptcanary.Response{Content: fmt.Sprintf(`{"n": %d}`, i), PromptTokens: i - i%2}
		res := p.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: r})
		if want := i%2 == 0; res.Passed != want {
			t.Errorf("answer %d: got passed %v, want %v (%s)", i, res.Passed, want, res.Details)
		}
	})
}

// TestExprTimeLimit: a comprehension over every word of a long answer stays
// under the cost limit but would take seconds; the time limit stops it
// with an error result.
func TestExprTimeLimit(t *testing.T) {
	p := probetest.New(t, "expr", map[string]any{"expr": `content.split(" ").exists(w, w == "zzz")`})
	long := strings.Repeat("lorem ipsum dolor ", 80_000) // 240,000 words
	res := probetest.Eval(p, &promptcanary.Prompt{ID: "p"}, &promptcanary.Response{Content: long})
	if res.Passed {
		t.Fatalf("got a pass, want the time limit to stop the evaluation: %+v", res.Details)
	}
	if msg, _ := res.Metadata["error"].(string); !strings.Contains(msg, "evaluation took longer than") && !strings.Contains(msg, "cost limit") {
		t.Errorf("got error %q, want the time (or cost) limit named", msg)
	}
}

// TestExprConversation: an expression sees a conversation prompt's turns,
// so it can check the answer against a tool's result.
func TestExprConversation(t *testing.T) {
	p := &promptcanary.Prompt{ID: "umbrella", Messages: []promptcanary.Message{
		{Role: "user", Content: "Umbrella in Oslo?"},
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: []byte(`{"city":"Oslo"}`)}}},
		{Role: "tool", ToolCallID: "call_1", Name: "get_weather", Content: "heavy rain"},
	}}
	expr := probetest.New(t, "expr", map[string]any{"expr": `prompt.messages.size() == 3 && prompt.messages[1].tool_calls[0].arguments.city == "Oslo" && ` +
		`prompt.messages[2].name == "get_weather" && content.contains("umbrella") == prompt.messages[2].content.contains("rain")`})
	res := probetest.Eval(expr, p, &promptcanary.Response{Content: "Yes, take an umbrella."})
	probetest.CheckVerdict(t, res, true, 1)
}
