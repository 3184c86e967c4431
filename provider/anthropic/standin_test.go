package anthropic

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/anthropic/anthropictest"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// defaults are canary.yaml's defaults: temperature 0, max_tokens 1024.
var defaults = promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 1024}

func standIn(t *testing.T, model string) (*anthropictest.Server, *Client) {
	t.Helper()
	srv := anthropictest.NewServer(testKey)
	t.Cleanup(srv.Close)
	c, err := New(Config{Model: model, APIKey: testKey, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// conversationPrompt is an agent canary: the model called a tool (two in
// parallel), the tools answered, and the model must answer from them.
var conversationPrompt = promptcanary.Prompt{
	SystemPrompt: "You are terse.",
	Text:         "What is the weather in Paris and the time?",
	Tools:        []promptcanary.Tool{weatherTool, {Name: "get_time"}},
	Messages: []promptcanary.Message{
		{Role: promptcanary.RoleAssistant, Content: "Checking.", ToolCalls: []promptcanary.ToolCall{
			{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
			{ID: "call_2", Name: "get_time"},
		}},
		{Role: promptcanary.RoleTool, ToolCallID: "call_1", Name: "get_weather", Content: "18C and sunny"},
		{Role: promptcanary.RoleTool, ToolCallID: "call_2", Name: "get_time", Content: "14:05"},
		{Role: promptcanary.RoleSystem, Content: "Answer in one line."},
	},
}

// userBetweenResults has a user's text between two tool results: the
// merged user turn must still start with its tool_result blocks.
var userBetweenResults = promptcanary.Prompt{
	Text:  "Weather and time?",
	Tools: conversationPrompt.Tools,
	Messages: []promptcanary.Message{
		conversationPrompt.Messages[0],
		conversationPrompt.Messages[1],
		{Role: promptcanary.RoleUser, Content: "Be brief."},
		conversationPrompt.Messages[2],
	},
}

// TestStandInAcceptsDefaults sends every kind of prompt with canary.yaml
// defaults to the strict stand-in, for each of today's models: every
// request must be accepted and every answer measured.
func TestStandInAcceptsDefaults(t *testing.T) {
	prompts := map[string]promptcanary.Prompt{
		"plain":        {Text: "What is the capital of France?", SystemPrompt: "Be brief."},
		"tools":        {Text: "Weather in Paris?", Tools: []promptcanary.Tool{weatherTool, {Name: "get_time"}}},
		"conversation": conversationPrompt,
		"user_between": userBetweenResults,
		"json":         {Text: "Give me a city as JSON.", ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONSchema, Name: "city", Schema: citySchema, Strict: true}},
		"json_object":  {Text: "Any JSON object.", ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONObject}},
		"refusal":      {Text: "Please refuse this."},
	}
	providertest.CheckAccepted(t, []string{"claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"}, prompts, defaults, func(t *testing.T, model string) provider.Provider {
		_, c := standIn(t, model)
		return c
	})
}

var citySchema = map[string]any{
	"type":                 "object",
	"properties":           map[string]any{"city": map[string]any{"type": "string"}, "population": map[string]any{"type": "integer"}},
	"required":             []any{"city", "population"},
	"additionalProperties": false,
}

func TestConversationRoundTrip(t *testing.T) {
	srv, c := standIn(t, "claude-sonnet-4-5")
	resp, err := c.Generate(context.Background(), providertest.NewRequest(conversationPrompt, defaults))
	if err != nil {
		t.Fatal(err)
	}
	if want := "The tool returned: 18C and sunny; 14:05"; resp.Content != want {
		t.Errorf("got content %q, want %q", resp.Content, want)
	}
	want := `{"model":"claude-sonnet-4-5","max_tokens":1024,"temperature":0,
		"system":"You are terse.\n\nAnswer in one line.",
		"messages":[
			{"role":"user","content":"What is the weather in Paris and the time?"},
			{"role":"assistant","content":[{"type":"text","text":"Checking."},
				{"type":"tool_use","id":"call_1","name":"get_weather","input":{"location":"Paris"}},
				{"type":"tool_use","id":"call_2","name":"get_time","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"18C and sunny"},
				{"type":"tool_result","tool_use_id":"call_2","content":"14:05"}]}],
		"tools":[{"name":"get_weather","description":"Get the current weather",
			"input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}},
			{"name":"get_time","input_schema":{"type":"object","properties":{}}}]}`
	checkBody(t, srv.Bodies()[0], want)
}

// TestConversationHandWrittenIDs: IDs a suite may hold ("weather.1",
// "call 2") are outside the pattern the API takes for tool_use ids; each
// is sent as the same safe ID in its tool_use and its tool_result.
func TestConversationHandWrittenIDs(t *testing.T) {
	srv, c := standIn(t, "claude-sonnet-4-5")
	p := promptcanary.Prompt{Text: "Weather and time?", Tools: conversationPrompt.Tools, Messages: []promptcanary.Message{
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{
			{ID: "weather.1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
			{ID: "call 2", Name: "get_time"}}},
		{Role: "tool", ToolCallID: "call 2", Content: "14:05"},
		{Role: "tool", ToolCallID: "weather.1", Content: "rain"},
	}}
	if _, err := c.Generate(context.Background(), providertest.NewRequest(p, defaults)); err != nil {
		t.Fatal(err)
	}
	body := string(srv.Bodies()[0])
	weather, call2 := toolcall.SafeID("weather.1"), toolcall.SafeID("call 2")
	for _, want := range []string{`"id":"` + weather + `"`, `"tool_use_id":"` + weather + `"`, `"id":"` + call2 + `"`, `"tool_use_id":"` + call2 + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("request lacks %s: %s", want, body)
		}
	}
}

func checkBody(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gs, _ := json.Marshal(g)
	ws, _ := json.Marshal(w)
	if string(gs) != string(ws) {
		t.Errorf("request body:\n got %s\nwant %s", gs, ws)
	}
}

func TestStructuredOutputIsAForcedTool(t *testing.T) {
	srv, c := standIn(t, "claude-opus-4-1")
	p := promptcanary.Prompt{Text: "A city as JSON.", ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONSchema, Name: "city", Schema: citySchema}}
	resp, err := c.Generate(context.Background(), providertest.NewRequest(p, defaults))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != `{"city":"Paris","population":1}` || len(resp.ToolCalls) != 0 {
		t.Errorf("got content %q and tool calls %v, want the tool's input as content and no tool call", resp.Content, resp.ToolCalls)
	}
	var body map[string]any
	json.Unmarshal(srv.Bodies()[0], &body)
	if tc, _ := json.Marshal(body["tool_choice"]); string(tc) != `{"name":"city","type":"tool"}` {
		t.Errorf("got tool_choice %s, want the forced city tool", tc)
	}
}

func TestAnswersThatAreNotErrors(t *testing.T) {
	thinking := map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 1024}}
	tests := []struct {
		name       string
		prompt     promptcanary.Prompt
		cfg        promptcanary.ProviderConfig
		wantFinish string
		wantText   string
		wantCalls  int
	}{
		{"refusal", promptcanary.Prompt{Text: "Please refuse."}, defaults, "refusal", "", 0},
		{"parallel tool calls", promptcanary.Prompt{Text: "Weather?", Tools: []promptcanary.Tool{weatherTool, {Name: "get_time"}}}, defaults, "tool_use", "I'll call the tools.", 2},
		{"thinking left out of the content", promptcanary.Prompt{Text: "What is the capital of France?"},
			promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 2048, ExtraParams: thinking}, "end_turn", "Paris.", 0},
		{"thinking spent the whole budget", promptcanary.Prompt{Text: "Think hard: what is 2+2?"},
			promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 1025, ExtraParams: thinking}, "max_tokens", "", 0},
		{"structured output with thinking is not forced", promptcanary.Prompt{Text: "A city.", ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONObject}},
			promptcanary.ProviderConfig{MaxTokens: 2048, ExtraParams: thinking}, "tool_use", `I'll call the tools.{}`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, c := standIn(t, "claude-sonnet-4-5")
			resp, err := c.Generate(context.Background(), providertest.NewRequest(tc.prompt, tc.cfg))
			if err != nil {
				t.Fatalf("got error %v, want a measured response", err)
			}
			if resp.FinishReason != tc.wantFinish || resp.Content != tc.wantText || len(resp.ToolCalls) != tc.wantCalls {
				t.Errorf("got finish %q, content %q, %d tool calls; want %q, %q, %d", resp.FinishReason, resp.Content, len(resp.ToolCalls), tc.wantFinish, tc.wantText, tc.wantCalls)
			}
		})
	}
}

func TestExtraParamsAgainstModelRules(t *testing.T) {
	tests := []struct {
		name    string
		extra   map[string]any
		wantErr string
	}{
		{"top_p alone drops the default temperature", map[string]any{"top_p": 0.9}, ""},
		{"temperature and top_p both asked for are refused", map[string]any{"top_p": 0.9, "temperature": 0.5}, "temperature and top_p cannot both be specified for this model"},
		{"null removes temperature", map[string]any{"temperature": nil}, ""},
		{"thinking budget below 1024", map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 500}}, "greater than or equal to 1024"},
		{"thinking budget not below max_tokens", map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 1024}}, "`max_tokens` must be greater than `thinking.budget_tokens`"},
		{"thinking with an explicit temperature", map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": 1024}, "max_tokens": 2000, "temperature": 0.2}, "may only be set to 1"},
		{"unknown field", map[string]any{"frequency_penalty": 0.1}, "frequency_penalty: Extra inputs are not permitted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := standIn(t, "claude-sonnet-4-5")
			cfg := defaults
			cfg.ExtraParams = tc.extra
			_, err := c.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, cfg))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				var body map[string]any
				json.Unmarshal(srv.Bodies()[0], &body)
				if _, ok := body["temperature"]; ok {
					t.Errorf("got temperature %v sent, want none", body["temperature"])
				}
				return
			}
			pe, ok := err.(*provider.Error)
			if !ok || pe.StatusCode != 400 || pe.Retryable || !strings.Contains(pe.Message, tc.wantErr) {
				t.Errorf("got %v, want a final HTTP 400 containing %q", err, tc.wantErr)
			}
		})
	}
}
