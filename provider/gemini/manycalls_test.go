package gemini

import (
	"strconv"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// name is the tool the i-th call of the answers below calls.
func name(i int) string { return "tool_" + strconv.Itoa(i) }

// TestManyToolCallsBounded: a generateContent answer with 20,000
// functionCall parts keeps the first toolcall.Max, marked as cut.
// Shape: https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse
func TestManyToolCallsBounded(t *testing.T) {
	body := providertest.ManyToolCalls(
		`{"candidates":[{"content":{"role":"model","parts":[`,
		`]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":90000,"totalTokenCount":90010},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`,
		func(i int) string { return `{"functionCall":{"name":"` + name(i) + `","args":{}}}` })
	resp, err := decode(body)
	providertest.CheckToolCallsBounded(t, resp, err, name)
}
