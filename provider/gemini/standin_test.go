package gemini

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/gemini/geminitest"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// defaults are canary.yaml's defaults: temperature 0, max_tokens 1024.
var defaults = promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 1024}

func standIn(t *testing.T, model string) (*geminitest.Server, *Client) {
	t.Helper()
	srv := geminitest.NewServer(testKey)
	t.Cleanup(srv.Close)
	c, err := New(Config{Model: model, APIKey: testKey, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// conversationPrompt is an agent canary: the model called two tools in
// parallel, they answered, and the model must answer from them.
var conversationPrompt = promptcanary.Prompt{
	SystemPrompt: "You are terse.",
	Text:         "What is the weather in Paris and the time?",
	Tools:        []promptcanary.Tool{weatherTool, {Name: "get_time"}},
	Messages: []promptcanary.Message{
		{Role: promptcanary.RoleAssistant, ToolCalls: []promptcanary.ToolCall{
			{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
			{ID: "call_2", Name: "get_time"},
		}},
		{Role: promptcanary.RoleTool, ToolCallID: "call_1", Name: "get_weather", Content: `{"temp_c":18}`},
		{Role: promptcanary.RoleTool, ToolCallID: "call_2", Content: "14:05"},
		{Role: promptcanary.RoleSystem, Content: "Answer in one line."},
	},
}

var citySchema = map[string]any{
	"type":       "object",
	"properties": map[string]any{"city": map[string]any{"type": "string"}, "population": map[string]any{"type": "integer"}},
	"required":   []any{"city", "population"},
}

var strictCitySchema = map[string]any{
	"type":                 "object",
	"properties":           map[string]any{"city": map[string]any{"type": []any{"string", "null"}}},
	"required":             []any{"city"},
	"additionalProperties": false,
}

func TestStandInAcceptsDefaults(t *testing.T) {
	prompts := map[string]promptcanary.Prompt{
		"plain":        {Text: "What is the capital of France?", SystemPrompt: "Be brief."},
		"tools":        {Text: "Weather in Paris?", Tools: []promptcanary.Tool{weatherTool, strictTool}, ToolChoice: "required"},
		"conversation": conversationPrompt,
		"json_schema":  {Text: "A city as JSON.", ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONSchema, Schema: citySchema}},
		"strict":       {Text: "A city as JSON.", ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONSchema, Schema: strictCitySchema, Strict: true}},
		"json_object":  {Text: "Any JSON object.", ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONObject}},
		"tools_json":   {Text: "Weather as JSON.", Tools: []promptcanary.Tool{weatherTool}, ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONObject}},
		"safety":       {Text: "Please refuse this."},
		"blocked":      {Text: "A blocked prompt."},
		"thinking":     {Text: "Think hard: is 2^61-1 prime?"},
	}
	providertest.CheckAccepted(t, []string{"gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.0-flash"}, prompts, defaults, func(t *testing.T, model string) provider.Provider {
		_, c := standIn(t, model)
		return c
	})
}

func TestConversationRoundTrip(t *testing.T) {
	srv, c := standIn(t, "gemini-2.5-flash")
	resp, err := c.Generate(context.Background(), providertest.NewRequest(conversationPrompt, defaults))
	if err != nil {
		t.Fatal(err)
	}
	if want := `The tools returned: {"temp_c":18}; {"output":"14:05"}`; resp.Content != want {
		t.Errorf("got content %q, want %q", resp.Content, want)
	}
	var body struct {
		Contents          json.RawMessage `json:"contents"`
		SystemInstruction json.RawMessage `json:"systemInstruction"`
	}
	json.Unmarshal(srv.Bodies()[0], &body)
	wantContents := `[{"role":"user","parts":[{"text":"What is the weather in Paris and the time?"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"location":"Paris"}}},{"functionCall":{"name":"get_time","args":{}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temp_c":18}}},{"functionResponse":{"name":"get_time","response":{"output":"14:05"}}}]}]`
	if string(body.Contents) != wantContents {
		t.Errorf("contents:\n got %s\nwant %s", body.Contents, wantContents)
	}
	if want := `{"parts":[{"text":"You are terse.\n\nAnswer in one line."}]}`; string(body.SystemInstruction) != want {
		t.Errorf("got systemInstruction %s, want %s", body.SystemInstruction, want)
	}
}

func TestStructuredOutputIsNative(t *testing.T) {
	tests := []struct {
		name      string
		format    promptcanary.ResponseFormat
		wantField string
		want      string
	}{
		{"OpenAPI subset as responseSchema", promptcanary.ResponseFormat{Type: promptcanary.FormatJSONSchema, Schema: citySchema}, "responseSchema", `{"city":"Paris","population":1}`},
		{"JSON Schema as responseJsonSchema", promptcanary.ResponseFormat{Type: promptcanary.FormatJSONSchema, Schema: strictCitySchema}, "responseJsonSchema", `{"city":{}}`},
		{"json_object as the MIME type alone", promptcanary.ResponseFormat{Type: promptcanary.FormatJSONObject}, "", `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := standIn(t, "gemini-2.5-flash")
			resp, err := c.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "A city.", ResponseFormat: &tc.format}, defaults))
			if err != nil {
				t.Fatal(err)
			}
			var body struct {
				GC map[string]any `json:"generationConfig"`
			}
			json.Unmarshal(srv.Bodies()[0], &body)
			if body.GC["responseMimeType"] != "application/json" {
				t.Errorf("got responseMimeType %v, want application/json", body.GC["responseMimeType"])
			}
			for _, f := range []string{"responseSchema", "responseJsonSchema"} {
				if _, has := body.GC[f]; has != (f == tc.wantField) {
					t.Errorf("%s sent: %v, want %v", f, has, f == tc.wantField)
				}
			}
			if resp.Content != tc.want {
				t.Errorf("got content %q, want %q", resp.Content, tc.want)
			}
		})
	}
}

func TestAnswersThatAreNotErrors(t *testing.T) {
	tests := []struct {
		name, model, text string
		cfg               promptcanary.ProviderConfig
		wantFinish        string
		wantContent       string
		wantCalls         int
	}{
		{"thinking spent maxOutputTokens", "gemini-2.5-pro", "Think hard about this.", defaults, "MAX_TOKENS", "", 0},
		{"thought parts are not content", "gemini-2.5-flash", "What is the capital of France?",
			promptcanary.ProviderConfig{MaxTokens: 1024, ExtraParams: map[string]any{"thinking_config": map[string]any{"includeThoughts": true}}}, "STOP", "Paris.", 0},
		{"safety block", "gemini-2.5-flash", "Please refuse.", defaults, "SAFETY", "", 0},
		{"blocked prompt", "gemini-2.5-flash", "A blocked prompt.", defaults, "blocked:PROHIBITED_CONTENT", "", 0},
		{"thinking off on flash", "gemini-2.5-flash", "Think hard about this.",
			promptcanary.ProviderConfig{MaxTokens: 1024, ExtraParams: map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": 0}}}, "STOP", "Understood. Here is a short answer.", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := standIn(t, tc.model)
			resp, err := c.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: tc.text}, tc.cfg))
			if err != nil {
				t.Fatalf("got error %v, want a measured response", err)
			}
			if resp.FinishReason != tc.wantFinish || resp.Content != tc.wantContent || len(resp.ToolCalls) != tc.wantCalls {
				t.Errorf("got finish %q, content %q, %d calls; want %q, %q, %d", resp.FinishReason, resp.Content, len(resp.ToolCalls), tc.wantFinish, tc.wantContent, tc.wantCalls)
			}
		})
	}
}

func TestParallelFunctionCalls(t *testing.T) {
	_, c := standIn(t, "gemini-2.5-flash")
	resp, err := c.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "Weather?", Tools: []promptcanary.Tool{weatherTool, {Name: "get_time"}}}, defaults))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].Name != "get_weather" || resp.ToolCalls[1].Name != "get_time" {
		t.Errorf("got tool calls %+v, want get_weather and get_time", resp.ToolCalls)
	}
}

func TestStandInRefusals(t *testing.T) {
	tests := []struct {
		name  string
		model string
		extra map[string]any
		want  string
	}{
		{"null removes temperature", "gemini-2.5-flash", map[string]any{"temperature": nil}, ""},
		{"unknown field", "gemini-2.5-flash", map[string]any{"generationConfig": map[string]any{"max_tokens": 5}}, `Unknown name "maxTokens" at 'generation_config'`},
		{"2.5 Pro cannot stop thinking", "gemini-2.5-pro", map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": 0}}, "only works in thinking mode"},
		{"budget above the range", "gemini-2.5-flash", map[string]any{"thinkingConfig": map[string]any{"thinkingBudget": 30000}}, "thinking budget 30000 is invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := standIn(t, tc.model)
			cfg := defaults
			cfg.ExtraParams = tc.extra
			_, err := c.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, cfg))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(srv.Bodies()[0]), "temperature") {
					t.Errorf("got %s, want no temperature", srv.Bodies()[0])
				}
				return
			}
			pe, ok := err.(*provider.Error)
			if !ok || pe.StatusCode != 400 || !strings.Contains(pe.Message, tc.want) {
				t.Errorf("got %v, want HTTP 400 containing %q", err, tc.want)
			}
		})
	}
}

// TestReasoningTokens: usageMetadata.thoughtsTokenCount is read as the
// reasoning tokens, counted within the completion tokens.
func TestReasoningTokens(t *testing.T) {
	_, c := standIn(t, "gemini-2.5-pro")
	resp, err := c.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "What is the capital of France?"}, defaults))
	if err != nil {
		t.Fatal(err)
	}
	if resp.ReasoningTokens != 200 || resp.CompletionTokens <= 200 {
		t.Errorf("got %d reasoning tokens of %d completion tokens, want 200 within them", resp.ReasoningTokens, resp.CompletionTokens)
	}
}
