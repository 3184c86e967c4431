package execcmd

import (
	"strconv"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// name is the tool the i-th call of the answer below calls.
func name(i int) string { return "tool_" + strconv.Itoa(i) }

// TestManyToolCallsBounded: a command that prints a response object with
// 20,000 tool calls gets the first toolcall.Max kept, marked as cut.
func TestManyToolCallsBounded(t *testing.T) {
	out := providertest.ManyToolCalls(`{"content":"","tool_calls":[`, `]}`,
		func(i int) string { return `{"name":"` + name(i) + `","arguments":{}}` })
	resp, err := parseOutput(out)
	providertest.CheckToolCallsBounded(t, resp, err, name)
}
