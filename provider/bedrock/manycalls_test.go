package bedrock

import (
	"strconv"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// name is the tool the i-th call of the answers below calls.
func name(i int) string { return "tool_" + strconv.Itoa(i) }

// TestManyToolCallsBounded: a Converse answer with 20,000 toolUse blocks
// keeps the first toolcall.Max, marked as cut.
// Shape: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
func TestManyToolCallsBounded(t *testing.T) {
	body := providertest.ManyToolCalls(
		`{"output":{"message":{"role":"assistant","content":[`,
		`]}},"stopReason":"tool_use","usage":{"inputTokens":10,"outputTokens":90000,"totalTokens":90010},"metrics":{"latencyMs":12}}`,
		func(i int) string {
			return `{"toolUse":{"toolUseId":"tooluse_` + strconv.Itoa(i) + `","name":"` + name(i) + `","input":{}}}`
		})
	resp, err := decode(body, "")
	providertest.CheckToolCallsBounded(t, resp, err, name)
}
