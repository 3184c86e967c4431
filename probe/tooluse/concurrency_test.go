package tooluse

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
)

// TestConcurrentEvaluate runs one instance of each probe on many responses
// at once (run with -race); every result must equal the sequential one.
func TestConcurrentEvaluate(t *testing.T) {
	probes := fuzzProbes(t)
	responses := []*promptcanary.Response{
		{Content: fixture(t, "openai_tool_calls.json")},
		{Content: fixture(t, "anthropic_xml.txt")},
		{Content: fixture(t, "prose.txt")},
		{ToolCalls: []promptcanary.ToolCall{call("search", `{"q": "x", "n": 1}`)}},
	}
	probetest.CheckConcurrent(t, probes, &promptcanary.Prompt{ID: "p"}, responses)
}
