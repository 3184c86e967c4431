package openai

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

func TestArguments(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"JSON string holding an object", `"{\"city\": \"Paris\"}"`, `{"city":"Paris"}`},
		{"JSON string holding invalid JSON", `"{\"city\": "`, `"{\"city\": "`},
		{"empty string", `""`, `{}`},
		{"object given directly", `{"city":"Paris"}`, `{"city":"Paris"}`},
		{"null", `null`, ``},
		{"absent", ``, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(arguments(json.RawMessage(tc.in))); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want, wantRefusal string
		wantErr                     bool
	}{
		{name: "string", in: `"Paris"`, want: "Paris"},
		{name: "null", in: `null`},
		{name: "parts", in: `[{"type":"text","text":"Pa"},{"type":"image_url","image_url":{}},{"type":"text","text":"ris"}]`, want: "Paris"},
		{name: "refusal part", in: `[{"type":"refusal","refusal":"I can't help with that."}]`, wantRefusal: "I can't help with that."},
		{name: "number", in: `42`, wantErr: true},
		{name: "object", in: `{"text":"x"}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ref, err := text(json.RawMessage(tc.in))
			if (err != nil) != tc.wantErr {
				t.Fatalf("got error %v, want error %v", err, tc.wantErr)
			}
			if got != tc.want || ref != tc.wantRefusal {
				t.Errorf("got (%q, %q), want (%q, %q)", got, ref, tc.want, tc.wantRefusal)
			}
		})
	}
}

func TestTokenCounts(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    [3]int
		wantErr bool
	}{
		{name: "total computed when missing", body: `{"prompt_tokens":3,"completion_tokens":4}`, want: [3]int{3, 4, 7}},
		{name: "null and fractional", body: `{"prompt_tokens":null,"completion_tokens":4.0,"total_tokens":4}`, want: [3]int{0, 4, 4}},
		{name: "negative is rejected", body: `{"prompt_tokens":-1}`, wantErr: true},
		{name: "string is rejected", body: `{"prompt_tokens":"3"}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}],"usage":` + tc.body + `}`
			resp, err := decode([]byte(body))
			if (err != nil) != tc.wantErr {
				t.Fatalf("got error %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			got := [3]int{resp.PromptTokens, resp.CompletionTokens, resp.TotalTokens}
			if got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLegacyFunctionCall(t *testing.T) {
	body := `{"choices":[{"message":{"content":null,"function_call":{"name":"lookup","arguments":"{\"q\":1}"}},"finish_reason":"function_call"}]}`
	resp, err := decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "lookup" || string(resp.ToolCalls[0].Arguments) != `{"q":1}` {
		t.Errorf("got tool calls %+v, want one lookup call with {\"q\":1}", resp.ToolCalls)
	}
}

func TestIsContentFilter(t *testing.T) {
	tests := []struct {
		name, body string
		want       bool
	}{
		{"azure prompt filter", string(fixture(t, "azure_content_filter_400.json")), true},
		{"code without inner error", `{"error":{"code":"content_filter","message":"The response was filtered"}}`, true},
		{"other bad request", string(fixture(t, "error_400.json")), false},
		{"numeric code", `{"error":{"code":400,"message":"x"}}`, false},
		{"not JSON", `bad request`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := isContentFilter([]byte(tc.body)); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join("testdata", e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"choices":[{"message":{"content":[{"type":"text","text":1}],"tool_calls":[{"function":{"arguments":"\"x\""}}]}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := decode(body)
		if err == nil {
			if resp == nil {
				t.Fatal("got nil response and nil error")
			}
			if !json.Valid(resp.RawResponse) {
				t.Errorf("raw response is not valid JSON: %q", resp.RawResponse)
			}
			for _, tc := range resp.ToolCalls {
				if len(tc.Arguments) > 0 && !json.Valid(tc.Arguments) {
					t.Errorf("tool call arguments are not valid JSON: %q", tc.Arguments)
				}
			}
		}
		isContentFilter(body)
	})
}

// TestManyToolCallsBounded: a chat completion or Responses API answer
// with 20,000 tool calls keeps the first toolcall.Max, marked as cut.
// Shapes: https://platform.openai.com/docs/api-reference/chat/object and
// https://platform.openai.com/docs/api-reference/responses/object
func TestManyToolCallsBounded(t *testing.T) {
	resp, err := decode(providertest.ManyToolCalls(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-5","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[`,
		`]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":90000,"total_tokens":90010}}`,
		providertest.Calls(`{"id":"call_%[1]d","type":"function","function":{"name":"tool_%[1]d","arguments":"{}"}}`)))
	providertest.CheckToolCallsBounded(t, resp, err, providertest.ToolName)

	resp, err = decodeResponse(providertest.ManyToolCalls(`{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"o3-pro","output":[`,
		`],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":90000,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":90010}}`,
		providertest.Calls(`{"type":"function_call","id":"fc_%[1]d","call_id":"call_%[1]d","name":"tool_%[1]d","arguments":"{}","status":"completed"}`)))
	providertest.CheckToolCallsBounded(t, resp, err, providertest.ToolName)
}
