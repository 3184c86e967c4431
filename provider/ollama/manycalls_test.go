package ollama

import (
	"strconv"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// name is the tool the i-th call of the answers below calls.
func name(i int) string { return "tool_" + strconv.Itoa(i) }

// TestManyToolCallsBounded: a /api/chat answer with 20,000 tool calls
// keeps the first toolcall.Max, marked as cut.
// Shape: https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools
func TestManyToolCallsBounded(t *testing.T) {
	c, err := New(Config{Model: "llama3.2"})
	if err != nil {
		t.Fatal(err)
	}
	body := providertest.ManyToolCalls(
		`{"model":"llama3.2","created_at":"2026-12-03T18:00:00Z","message":{"role":"assistant","content":"","tool_calls":[`,
		`]},"done":true,"done_reason":"stop","prompt_eval_count":10,"eval_count":90000}`,
		func(i int) string { return `{"function":{"name":"` + name(i) + `","arguments":{}}}` })
	resp, err := c.decode(body)
	providertest.CheckToolCallsBounded(t, resp, err, name)
}
