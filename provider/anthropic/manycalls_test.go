package anthropic

import (
	"strconv"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// name is the tool the i-th call of the answers below calls.
func name(i int) string { return "tool_" + strconv.Itoa(i) }

// TestManyToolCallsBounded: a Messages API answer with 20,000 tool_use
// blocks keeps the first toolcall.Max, marked as cut.
// Shape: https://docs.anthropic.com/en/api/messages
func TestManyToolCallsBounded(t *testing.T) {
	body := providertest.ManyToolCalls(
		`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[`,
		`],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":90000}}`,
		func(i int) string {
			return `{"type":"tool_use","id":"toolu_` + strconv.Itoa(i) + `","name":"` + name(i) + `","input":{}}`
		})
	resp, err := decode(body, "")
	providertest.CheckToolCallsBounded(t, resp, err, name)
}
