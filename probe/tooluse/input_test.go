package tooluse

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// TestResultsOwnTheirValues checks that a result keeps its values while the
// probes go on judging other responses with the input they share: no
// metadata slice may be the shared input's.
func TestResultsOwnTheirValues(t *testing.T) {
	probes := fuzzProbes(t)
	prompt := &promptcanary.Prompt{ID: "p"}
	var responses []*promptcanary.Response
	for i := range 6 {
		responses = append(responses,
			&promptcanary.Response{Content: fmt.Sprintf(`{"name": "f%d", "arguments": {"k%d": 1, "city": "x"}}`, i, i)},
			&promptcanary.Response{Content: fmt.Sprintf(`"function": "g%d", "arguments": {"a%d": 1}`, i, i)},
			&promptcanary.Response{ToolCalls: []promptcanary.ToolCall{call(fmt.Sprintf("h%d", i), fmt.Sprintf(`{"b%d": 2}`, i))}})
	}
	var kept [][]probe.Result
	for _, r := range responses {
		var rs []probe.Result
		for _, p := range probes {
			rs = append(rs, probetest.Eval(p, prompt, r))
		}
		kept = append(kept, rs)
	}
	// What each result must read, written down before any comparison.
	want := make([][]string, len(responses))
	for i, r := range responses {
		for _, p := range probes {
			want[i] = append(want[i], fmt.Sprint(probetest.Eval(&isolated{p}, prompt, r)))
		}
	}
	for i := range responses {
		for j, p := range probes {
			if got := fmt.Sprint(kept[i][j]); got != want[i][j] {
				t.Errorf("%T on response %d: kept result changed to\n%s\nwant\n%s", p, i, got, want[i][j])
			}
		}
	}
}

// isolated evaluates its probe on a copy of the response, so it never
// finds another evaluation's input.
type isolated struct{ probe.Probe }

func (p *isolated) Evaluate(ctx context.Context, in probe.Input) probe.Result {
	c := *in.Response
	c.Content = string(append([]byte(nil), c.Content...))
	in.Response = &c
	return p.Probe.Evaluate(ctx, in)
}

// TestArgumentsChangedInPlace checks that a response whose tool-call
// arguments are rewritten in place after a probe judged it (a buffer the
// caller reuses) is judged afresh: the input the probes share keeps its
// own copy of the calls, so it does not take the new arguments for the
// ones it worked out.
func TestArgumentsChangedInPlace(t *testing.T) {
	p := build(t, "tool_call_schema", map[string]any{"schema": map[string]any{
		"name": "search", "required_args": []any{"q"}, "arg_types": map[string]any{"q": "string"}}})
	prompt := &promptcanary.Prompt{ID: "p"}
	args := []byte(`{"q": "x"}`)
	r := &promptcanary.Response{ToolCalls: []promptcanary.ToolCall{{Name: "search", Arguments: args}}}
	if res := probetest.Eval(p, prompt, r); !res.Passed {
		t.Fatalf("valid call failed: %s", res.Details)
	}
	in := getInput(r)
	if len(in.calls) != 1 || &in.calls[0].Arguments[0] == &args[0] {
		t.Fatal("the input shares the caller's arguments buffer")
	}
	in.release()
	copy(args, `{"q": 1  }`) // same length, same buffer
	res := probetest.Eval(p, prompt, r)
	if res.Passed || !strings.Contains(res.Details, `"q"`) {
		t.Fatalf("after the arguments changed to %s: %+v", args, res)
	}
	copy(args, `not json!!`)
	if res := probetest.Eval(p, prompt, r); !strings.Contains(res.Details, "not JSON") {
		t.Fatalf("after the arguments changed to %s: %s", args, res.Details)
	}
}
