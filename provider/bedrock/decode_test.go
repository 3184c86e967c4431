package bedrock

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestDecode reads Converse answers: text, parallel tool calls with
// cached input tokens, a max_tokens stop whose budget went to thinking,
// a guardrail; and refuses an empty answer that claims to be complete.
func TestDecode(t *testing.T) {
	tests := []struct {
		fixture, answerTool string
		want                promptcanary.Response
	}{
		{"text.json", "", promptcanary.Response{Content: "Paris.", FinishReason: "end_turn", PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}},
		{"tool_use.json", "", promptcanary.Response{Content: "I'll check both.", FinishReason: "tool_use", PromptTokens: 400, CompletionTokens: 90, TotalTokens: 490,
			ToolCalls: []promptcanary.ToolCall{{ID: "tooluse_a1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)}, {ID: "tooluse_b2", Name: "get_weather", Arguments: json.RawMessage(`{"location":"London"}`)}}}},
		{"tool_use.json", "get_weather", promptcanary.Response{Content: `{"location":"Paris"}`, FinishReason: "end_turn", PromptTokens: 400, CompletionTokens: 90, TotalTokens: 490}},
		{"thinking_max_tokens.json", "", promptcanary.Response{FinishReason: "max_tokens", PromptTokens: 40, CompletionTokens: 2048, TotalTokens: 2088}},
		{"guardrail.json", "", promptcanary.Response{Content: "Sorry, the model cannot answer this question.", FinishReason: "guardrail_intervened", PromptTokens: 20, TotalTokens: 20}},
	}
	for _, tc := range tests {
		body := providertest.Fixture(t, tc.fixture)
		got, err := decode([]byte(body), tc.answerTool)
		if err != nil {
			t.Fatalf("%s: %v", tc.fixture, err)
		}
		providertest.CheckResponse(t, got, body, tc.want)
	}
	for _, body := range []string{
		`{"output":{"message":{"role":"assistant","content":[]}},"stopReason":"end_turn"}`,
		`{"message":"The security token included in the request is invalid."}`,
		`{"output":{"message":{"role":"assistant","content":[{"text":"cut`,
	} {
		if _, err := decode([]byte(body), ""); err == nil {
			t.Errorf("decode(%s) = nil error, want one", body)
		}
	}
}

// TestFamily: what the client knows of each model's features.
func TestFamily(t *testing.T) {
	tests := []struct {
		model string
		want  family
	}{
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", family{vendor: "anthropic", anthropic: true, forceAny: true, forceTool: true, structured: StructuredNative}},
		{"anthropic.claude-opus-4-1-20250805-v1:0", family{vendor: "anthropic", anthropic: true, forceAny: true, forceTool: true, structured: StructuredTool}},
		{"arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0", family{vendor: "anthropic", anthropic: true, forceAny: true, forceTool: true, structured: StructuredTool}},
		{"global.anthropic.claude-haiku-4-5-20251001-v1:0", family{vendor: "anthropic", anthropic: true, forceAny: true, forceTool: true, structured: StructuredNative}},
		{"us.meta.llama3-3-70b-instruct-v1:0", family{vendor: "meta", structured: StructuredPrompt}},
		{"eu.amazon.nova-pro-v1:0", family{vendor: "amazon", forceAny: true, forceTool: true, structured: StructuredTool}},
		{"mistral.mistral-large-2407-v1:0", family{vendor: "mistral", forceAny: true, structured: StructuredTool}},
		{"qwen.qwen3-32b-v1:0", family{vendor: "qwen", structured: StructuredNative}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, familyOf(tc.model), cmp.AllowUnexported(family{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.model, diff)
		}
	}
}

// TestManyToolCallsBounded: a Converse answer with 20,000 toolUse blocks
// keeps the first toolcall.Max, marked as cut.
// Shape: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
func TestManyToolCallsBounded(t *testing.T) {
	resp, err := decode(providertest.ManyToolCalls(`{"output":{"message":{"role":"assistant","content":[`,
		`]}},"stopReason":"tool_use","usage":{"inputTokens":10,"outputTokens":90000,"totalTokens":90010},"metrics":{"latencyMs":12}}`,
		providertest.Calls(`{"toolUse":{"toolUseId":"tooluse_%[1]d","name":"tool_%[1]d","input":{}}}`)), "")
	providertest.CheckToolCallsBounded(t, resp, err, providertest.ToolName)
}
