package httpapi

import (
	"context"
	"strconv"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// name is the tool the i-th call of the answer below calls.
func name(i int) string { return "tool_" + strconv.Itoa(i) }

// TestManyToolCallsBounded: an endpoint answering 20,000 tool calls at the
// tool_calls path gets the first toolcall.Max kept, marked as cut.
func TestManyToolCallsBounded(t *testing.T) {
	body := providertest.ManyToolCalls(`{"text":"","calls":[`, `]}`,
		func(i int) string { return `{"name":"` + name(i) + `","arguments":{}}` })
	srv := recorder(t, 200, string(body))
	c, err := New("app", Config{URL: srv.URL, Response: Paths{Text: "text", ToolCalls: "calls"}}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Generate(context.Background(), request(&promptcanary.Prompt{ID: "p", Text: "hi"}))
	providertest.CheckToolCallsBounded(t, resp, err, name)
}
