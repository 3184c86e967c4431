package openai

import (
	"strconv"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// name is the tool the i-th call of the answers below calls.
func name(i int) string { return "tool_" + strconv.Itoa(i) }

// TestManyToolCallsBounded: a chat completion or Responses API answer
// with 20,000 tool calls keeps the first toolcall.Max, marked as cut.
// Shapes: https://platform.openai.com/docs/api-reference/chat/object and
// https://platform.openai.com/docs/api-reference/responses/object
func TestManyToolCallsBounded(t *testing.T) {
	chat := providertest.ManyToolCalls(
		`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-5","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[`,
		`]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":90000,"total_tokens":90010}}`,
		func(i int) string {
			return `{"id":"call_` + strconv.Itoa(i) + `","type":"function","function":{"name":"` + name(i) + `","arguments":"{}"}}`
		})
	resp, err := decode(chat)
	providertest.CheckToolCallsBounded(t, resp, err, name)

	responses := providertest.ManyToolCalls(
		`{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"o3-pro","output":[`,
		`],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":90000,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":90010}}`,
		func(i int) string {
			return `{"type":"function_call","id":"fc_` + strconv.Itoa(i) + `","call_id":"call_` + strconv.Itoa(i) + `","name":"` + name(i) + `","arguments":"{}","status":"completed"}`
		})
	resp, err = decodeResponse(responses)
	providertest.CheckToolCallsBounded(t, resp, err, name)
}
