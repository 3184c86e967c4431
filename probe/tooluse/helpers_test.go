package tooluse

import (
	"encoding/json"
	"slices"
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

// extractCase is a response and what a probe must extract from it: the
// values of a list in its metadata, and where they were found.
type extractCase struct {
	name    string
	content string
	calls   []promptcanary.ToolCall
	want    []string
	source  string
}

// checkExtracted builds probe id with params for each case, evaluates it on
// the case's response and checks metadata key, a list never nil, and
// "source".
func checkExtracted(t *testing.T, id string, params map[string]any, key string, cases []extractCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(build(t, id, params), tc.content, tc.calls...)
			got := res.Metadata[key].([]string)
			if !slices.Equal(got, tc.want) || got == nil {
				t.Errorf("%s: got %#v, want %#v", key, got, tc.want)
			}
			if src := res.Metadata["source"]; src != tc.source {
				t.Errorf("source: got %v, want %v", src, tc.source)
			}
		})
	}
}
