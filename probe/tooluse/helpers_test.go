package tooluse

import (
	"encoding/json"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// build makes a probe through the registry, as a suite would.
var build = probetest.New

// run evaluates p on a response with the given content and structured calls.
func run(p probe.Probe, content string, calls ...promptcanary.ToolCall) probe.Result {
	prompt := &promptcanary.Prompt{ID: "p1", Text: "call a tool"}
	resp := &promptcanary.Response{PromptID: "p1", Content: content, ToolCalls: calls}
	return probetest.Eval(p, prompt, resp)
}

// fixture reads testdata/name.
var fixture = probetest.Testdata

// call builds a structured tool call; args is raw JSON.
func call(name, args string) promptcanary.ToolCall {
	tc := promptcanary.ToolCall{ID: "call_" + name, Name: name}
	if args != "" {
		tc.Arguments = json.RawMessage(args)
	}
	return tc
}

// near reports whether two scores are equal up to rounding.
func near(a, b float64) bool {
	d := a - b
	return d < 1e-9 && d > -1e-9
}

// checkJSONFriendly fails when metadata does not survive a JSON round trip.
func checkJSONFriendly(t *testing.T, md map[string]any) {
	t.Helper()
	if _, err := json.Marshal(md); err != nil {
		t.Errorf("metadata is not JSON-friendly: %v", err)
	}
}

// fuzzStrings seeds f with seeds and fuzzes check, a check of one text.
func fuzzStrings(f *testing.F, seeds []string, check func(t *testing.T, s string)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(check)
}
