package bedrock_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/bedrock"
	"github.com/promptcanary/promptcanary/provider/bedrock/bedrocktest"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
	"github.com/promptcanary/promptcanary/provider/modelrules"
)

// The models of the tests: a Claude inference profile and a Llama one.
const (
	claude   = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	claude37 = "us.anthropic.claude-3-7-sonnet-20250219-v1:0"
	llama    = "us.meta.llama3-3-70b-instruct-v1:0"
)

// defaults are canary.yaml's default sampling parameters.
func defaults() promptcanary.ProviderConfig {
	seed := int64(42)
	return promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 1024, Seed: &seed, ExtraParams: map[string]any{}}
}

// standin starts the stand-in and points the environment at it with key.
func standin(t *testing.T, key bedrocktest.Key) *bedrocktest.Server {
	t.Helper()
	srv := bedrocktest.Start("")
	t.Cleanup(srv.Close)
	for k, v := range srv.Env(key) {
		t.Setenv(k, v)
	}
	return srv
}

// open opens bedrock/model with settings, collecting secrets in set.
func open(t *testing.T, model string, settings map[string]any, set *redact.Set) provider.Provider {
	t.Helper()
	p, err := provider.Open("bedrock/"+model, provider.Options{Settings: settings, Secrets: set})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// generate sends p with cfg through a client of model.
func generate(t *testing.T, model string, p promptcanary.Prompt, cfg promptcanary.ProviderConfig) (*promptcanary.Response, error) {
	t.Helper()
	return open(t, model, nil, nil).Generate(context.Background(), providertest.NewRequest(p, cfg))
}

// sent is the last request body the stand-in accepted.
func sent(t *testing.T, srv *bedrocktest.Server) map[string]any {
	t.Helper()
	calls := srv.Calls()
	if len(calls) == 0 {
		t.Fatal("the stand-in accepted no call")
	}
	return calls[len(calls)-1].Body
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

var weather = providertest.WeatherTool()

// TestDefaults sends canary.yaml's defaults to a Bedrock Claude and a
// Bedrock Llama model: both accept them, and the answer is read.
func TestDefaults(t *testing.T) {
	for _, model := range []string{claude, llama} {
		t.Run(model, func(t *testing.T) {
			srv := standin(t, bedrocktest.Static)
			resp, err := generate(t, model, promptcanary.Prompt{Text: "What is the capital of France?", SystemPrompt: "Be brief."}, defaults())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(resp.Content, "Paris is the capital of France.") || resp.FinishReason != "end_turn" {
				t.Errorf("got %q (%s)", resp.Content, resp.FinishReason)
			}
			if resp.PromptTokens <= 0 || resp.CompletionTokens <= 0 || resp.TotalTokens != resp.PromptTokens+resp.CompletionTokens {
				t.Errorf("got tokens %d + %d = %d", resp.PromptTokens, resp.CompletionTokens, resp.TotalTokens)
			}
			if !strings.HasPrefix(resp.ResponseID, "0f5c3a52-") || !json.Valid(resp.RawResponse) {
				t.Errorf("got response id %q, raw %s", resp.ResponseID, resp.RawResponse)
			}
			want := `{"inferenceConfig":{"maxTokens":1024,"temperature":0},"messages":[{"content":[{"text":"What is the capital of France?"}],"role":"user"}],"system":[{"text":"Be brief."}]}`
			if got := asJSON(t, sent(t, srv)); got != want {
				t.Errorf("sent %s\nwant %s", got, want)
			}
			if got := srv.Calls()[0].Model; got != model {
				t.Errorf("the stand-in saw model %q, want %q", got, model)
			}
		})
	}
}

// TestToolCalls reads two parallel toolUse blocks as two tool calls, and
// maps tool_choice to what each model takes.
func TestToolCalls(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	p := promptcanary.Prompt{Text: "Weather in Paris and London?", Tools: []promptcanary.Tool{weather}, ToolChoice: "required"}
	resp, err := generate(t, claude, p, defaults())
	if err != nil {
		t.Fatal(err)
	}
	want := []promptcanary.ToolCall{
		{ID: "tooluse_kXzn5J2bQ1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"example"}`)},
		{ID: "tooluse_Hq7vR3mYc2", Name: "get_weather", Arguments: json.RawMessage(`{"location":"example"}`)},
	}
	if diff := cmp.Diff(want, resp.ToolCalls); diff != "" || resp.FinishReason != "tool_use" || resp.Content != "I'll look that up for both." {
		t.Errorf("tool calls (-want +got):\n%s\ncontent %q finish %q", diff, resp.Content, resp.FinishReason)
	}
	tc := asJSON(t, sent(t, srv)["toolConfig"])
	if wantTC := `{"toolChoice":{"any":{}},"tools":[{"toolSpec":{"description":"Get the current weather","inputSchema":{"json":{"properties":{"location":{"type":"string"}},"required":["location"],"type":"object"}},"name":"get_weather"}}]}`; tc != wantTC {
		t.Errorf("sent toolConfig %s\nwant %s", tc, wantTC)
	}

	// Llama takes tools but no forced choice: auto sends none, required
	// fails before anything is sent.
	p.ToolChoice = "auto"
	if _, err := generate(t, llama, p, defaults()); err != nil {
		t.Fatalf("auto: %v", err)
	}
	if got := asJSON(t, sent(t, srv)["toolConfig"]); strings.Contains(got, "toolChoice") {
		t.Errorf("sent %s to Llama, want no toolChoice", got)
	}
	before := len(srv.Calls())
	p.ToolChoice = "required"
	_, err = generate(t, llama, p, defaults())
	providertest.CheckError(t, err, providertest.WantError{Msg: "API_runtime_ToolChoice.html); use tool_choice: auto"})
	if len(srv.Calls()) != before {
		t.Error("a forced tool choice Llama cannot take was sent")
	}
}

// TestToolResult sends a conversation whose assistant turn called two
// tools: both results go in one user message, and the answer is read.
func TestToolResult(t *testing.T) {
	for _, model := range []string{claude, llama} {
		t.Run(model, func(t *testing.T) {
			srv := standin(t, bedrocktest.Static)
			p := promptcanary.Prompt{
				Text:  "Weather in Paris and Rome?",
				Tools: []promptcanary.Tool{weather},
				Messages: []promptcanary.Message{
					{Role: "assistant", ToolCalls: []promptcanary.ToolCall{
						{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
						{ID: "call_2", Name: "get_weather", Arguments: json.RawMessage(`"{\"location\":\"Rome\"}"`)},
					}},
					{Role: "tool", ToolCallID: "call_1", Name: "get_weather", Content: "18C and sunny"},
					{Role: "tool", ToolCallID: "call_2", Name: "get_weather", Content: ""},
				},
			}
			resp, err := generate(t, model, p, defaults())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != "The tool returned: 18C and sunny" || len(resp.ToolCalls) != 0 {
				t.Errorf("got %q, %v", resp.Content, resp.ToolCalls)
			}
			want := `[{"content":[{"text":"Weather in Paris and Rome?"}],"role":"user"},` +
				`{"content":[{"toolUse":{"input":{"location":"Paris"},"name":"get_weather","toolUseId":"call_1"}},{"toolUse":{"input":{"location":"Rome"},"name":"get_weather","toolUseId":"call_2"}}],"role":"assistant"},` +
				`{"content":[{"toolResult":{"content":[{"text":"18C and sunny"}],"toolUseId":"call_1"}},{"toolResult":{"content":[{"text":"(no output)"}],"toolUseId":"call_2"}}],"role":"user"}]`
			if got := asJSON(t, sent(t, srv)["messages"]); got != want {
				t.Errorf("sent %s\nwant %s", got, want)
			}
		})
	}
}

// TestHandWrittenToolIDs: a suite's IDs outside Converse's toolUseId
// pattern ("weather.1", "call 2") go out as the same safe ID in the
// toolUse and its toolResult, which the stand-in accepts.
func TestHandWrittenToolIDs(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	p := promptcanary.Prompt{Text: "Weather?", Tools: []promptcanary.Tool{weather}, Messages: []promptcanary.Message{
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{
			{ID: "weather.1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)},
			{ID: "call 2", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Rome"}`)}}},
		{Role: "tool", ToolCallID: "call 2", Content: "sun"},
		{Role: "tool", ToolCallID: "weather.1", Content: "rain"},
	}}
	if _, err := generate(t, claude, p, defaults()); err != nil {
		t.Fatal(err)
	}
	got := asJSON(t, sent(t, srv)["messages"])
	for _, id := range []string{"weather.1", "call 2"} {
		if want := `"toolUseId":"` + toolcall.SafeID(id) + `"`; strings.Count(got, want) != 2 {
			t.Errorf("want %s in the toolUse and the toolResult: %s", want, got)
		}
	}
}

// TestToolHistoryWithoutTools declares the tools a conversation's calls
// used when the prompt offers none: Converse requires a toolConfig with
// toolUse and toolResult blocks.
func TestToolHistoryWithoutTools(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	p := promptcanary.Prompt{Text: "Weather?", Messages: []promptcanary.Message{
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{{ID: "c1", Name: "lookup"}}},
		{Role: "tool", ToolCallID: "c1", Name: "lookup", Content: "rain"},
	}}
	if _, err := generate(t, claude, p, defaults()); err != nil {
		t.Fatal(err)
	}
	want := `{"tools":[{"toolSpec":{"inputSchema":{"json":{"properties":{},"type":"object"}},"name":"lookup"}}]}`
	if got := asJSON(t, sent(t, srv)["toolConfig"]); got != want {
		t.Errorf("sent %s, want %s", got, want)
	}
}

var answerSchema = &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONSchema, Name: "capital", Strict: true, Schema: map[string]any{
	"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"},
}}

// TestStructuredOutput sends a response_format in each model's form:
// native outputConfig to Claude 4.5, a forced tool to Claude 3.7, an
// instruction to Llama; each answer's JSON is the content.
func TestStructuredOutput(t *testing.T) {
	tests := []struct {
		model, want, key, sent string
	}{
		{claude, `{"city":"example"}`, "outputConfig", `{"textFormat":{"structure":{"jsonSchema":{"name":"capital","schema":"{\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"],\"type\":\"object\"}"}},"type":"json_schema"}}`},
		{claude37, `{"city":"example"}`, "toolConfig", `{"toolChoice":{"tool":{"name":"capital"}},"tools":[{"toolSpec":{"description":"Give the answer: its input is the whole answer, as JSON.","inputSchema":{"json":{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}},"name":"capital"}}]}`},
		{llama, "Paris is the capital of France. (Capital of France?)", "system", `[{"text":"Answer with one JSON value only, without any other text or code fences, matching this JSON Schema: {\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"],\"type\":\"object\"}"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			srv := standin(t, bedrocktest.Static)
			resp, err := generate(t, tc.model, promptcanary.Prompt{Text: "Capital of France?", ResponseFormat: answerSchema}, defaults())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != tc.want || len(resp.ToolCalls) != 0 || resp.FinishReason != "end_turn" {
				t.Errorf("got %q, %v, %s; want %q", resp.Content, resp.ToolCalls, resp.FinishReason, tc.want)
			}
			if got := asJSON(t, sent(t, srv)[tc.key]); got != tc.sent {
				t.Errorf("sent %s %s\nwant %s", tc.key, got, tc.sent)
			}
		})
	}
}

// thinkingConfig is the suite defaults for model with extended thinking
// of budget tokens within maxTokens, made acceptable by the model rules as
// the run engine does.
func thinkingConfig(t *testing.T, model string, maxTokens, budget int) promptcanary.ProviderConfig {
	t.Helper()
	cfg := defaults()
	cfg.ModelID = "bedrock/" + model
	cfg.MaxTokens = maxTokens
	cfg.ExtraParams = map[string]any{"thinking": map[string]any{"type": "enabled", "budget_tokens": budget}}
	cfg, _, err := modelrules.Apply(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestStructuredToolWithThinking: with Claude's extended thinking, which
// refuses a forced tool, the answer tool is offered without toolChoice.
func TestStructuredToolWithThinking(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	cfg := thinkingConfig(t, claude37, 4096, 2048)
	resp, err := generate(t, claude37, promptcanary.Prompt{Text: "Capital of France?", ResponseFormat: answerSchema}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := asJSON(t, sent(t, srv)["toolConfig"]); strings.Contains(got, "toolChoice") {
		t.Errorf("sent %s, want no toolChoice", got)
	}
	if resp.Content != `{"city":"example"}` || len(resp.ToolCalls) != 0 {
		t.Errorf("got %q, %v", resp.Content, resp.ToolCalls)
	}
}

// TestStructuredSetting: structured_output: native is refused by the
// stand-in for Llama as by Bedrock, and the 400 says so.
func TestStructuredSetting(t *testing.T) {
	standin(t, bedrocktest.Static)
	p := open(t, llama, map[string]any{"structured_output": "native"}, nil)
	_, err := p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "x", ResponseFormat: answerSchema}, defaults()))
	providertest.CheckError(t, err, providertest.WantError{Status: 400, Msg: "doesn't support the outputConfig.textFormat field"})
}

// TestStops reads a guardrail's intervention, a content filter and a
// budget spent on thinking as measured responses, not errors.
func TestStops(t *testing.T) {
	thinking := thinkingConfig(t, claude, 2048, 1024)
	tests := []struct {
		mark, finish, content string
		cfg                   promptcanary.ProviderConfig
	}{
		{bedrocktest.MarkGuardrail, "guardrail_intervened", bedrocktest.GuardrailText, defaults()},
		{bedrocktest.MarkFiltered, "content_filtered", "", defaults()},
		{bedrocktest.MarkMaxTokens, "max_tokens", "", thinking},
	}
	for _, tc := range tests {
		t.Run(tc.finish, func(t *testing.T) {
			srv := standin(t, bedrocktest.Static)
			resp, err := generate(t, claude, promptcanary.Prompt{Text: "Tell me. " + tc.mark}, tc.cfg)
			if err != nil {
				t.Fatalf("got %v, want a measured response", err)
			}
			if resp.FinishReason != tc.finish || resp.Content != tc.content {
				t.Errorf("got %q (%s), want %q (%s)", resp.Content, resp.FinishReason, tc.content, tc.finish)
			}
			if tc.cfg.ExtraParams["thinking"] != nil {
				// Thinking takes no temperature but 1: the rules sent 1, not 0.
				want := `{"maxTokens":2048,"temperature":1}`
				if got := asJSON(t, sent(t, srv)["inferenceConfig"]); got != want {
					t.Errorf("sent inferenceConfig %s, want %s", got, want)
				}
			}
		})
	}
}

// TestExtraParams: top_k goes to additionalModelRequestFields, top_p and
// stop sequences to inferenceConfig, and null removes a parameter.
func TestExtraParams(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	cfg := defaults()
	cfg.ExtraParams = map[string]any{"top_k": 40, "temperature": nil, "top_p": 0.9, "stop_sequences": []any{"END"}}
	if _, err := generate(t, claude, promptcanary.Prompt{Text: "hi"}, cfg); err != nil {
		t.Fatal(err)
	}
	body := sent(t, srv)
	got := asJSON(t, map[string]any{"a": body["additionalModelRequestFields"], "i": body["inferenceConfig"]})
	if want := `{"a":{"top_k":40},"i":{"maxTokens":1024,"stopSequences":["END"],"topP":0.9}}`; got != want {
		t.Errorf("sent %s, want %s", got, want)
	}
	// Claude Sonnet 4.5 refuses temperature with top_p, as the stand-in
	// shows.
	cfg.ExtraParams = map[string]any{"top_p": 0.9}
	_, err := generate(t, claude, promptcanary.Prompt{Text: "hi"}, cfg)
	providertest.CheckError(t, err, providertest.WantError{Status: 400, Msg: "`temperature` and `top_p` cannot both be specified"})
}

// TestBareModelID: a model served only through inference profiles gets
// Bedrock's 400 and a hint naming the fix.
func TestBareModelID(t *testing.T) {
	standin(t, bedrocktest.Static)
	_, err := generate(t, "anthropic.claude-sonnet-4-5-20250929-v1:0", promptcanary.Prompt{Text: "hi"}, defaults())
	providertest.CheckError(t, err, providertest.WantError{Status: 400, Msg: "use an inference profile id, for example bedrock/us.MODEL_ID"})
}

// TestThrottled: a ThrottlingException is a retryable 429.
func TestThrottled(t *testing.T) {
	standin(t, bedrocktest.Static)
	p := open(t, llama, nil, nil)
	req := providertest.NewRequest(promptcanary.Prompt{Text: "busy " + bedrocktest.MarkThrottle}, defaults())
	_, err := p.Generate(context.Background(), req)
	providertest.CheckError(t, err, providertest.WantError{Status: 429, Retryable: true, Msg: "ThrottlingException: Too many requests, please wait before trying again."})
	if _, err := p.Generate(context.Background(), req); err != nil {
		t.Errorf("the retry got %v", err)
	}
}

// TestModelIDEscaped: the model id's colon reaches the path as %3A, as
// the AWS SDKs send it (and sign it).
func TestModelIDEscaped(t *testing.T) {
	srv := standin(t, bedrocktest.Static)
	if _, err := generate(t, claude, promptcanary.Prompt{Text: "hi"}, defaults()); err != nil {
		t.Fatal(err)
	}
	if got, want := srv.Calls()[0].Path, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse"; got != want {
		t.Errorf("got path %q, want %q", got, want)
	}
	if got := bedrock.BaseModel(claude); got != "anthropic.claude-sonnet-4-5-20250929-v1:0" {
		t.Errorf("BaseModel = %q", got)
	}
}

// TestErrors classifies Bedrock's errors for the retry policy, with the
// x-amzn-ErrorType before the message.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors
func TestErrors(t *testing.T) {
	tests := []struct {
		status    int
		typ, msg  string
		retryable bool
	}{
		{429, "ModelNotReadyException", "Model is not ready for inference. Wait and try your request again.", true},
		{503, "ServiceUnavailableException", "Bedrock is unable to process your request.", true},
		{500, "InternalServerException", "The server encountered an error processing your request.", true},
		{408, "ModelTimeoutException", "Model has timed out in processing the request.", true},
		{424, "ModelErrorException", "The model returned an error.", false},
		{400, "ServiceQuotaExceededException", "Your request exceeds the service quota for your account.", false},
		{404, "ResourceNotFoundException", "Could not resolve the foundation model from the provided model identifier.", false},
	}
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			srv := standin(t, bedrocktest.Static)
			srv.Script = func(bedrocktest.Call) *bedrocktest.Reply {
				return &bedrocktest.Reply{Status: tc.status, ErrorType: tc.typ, Message: tc.msg}
			}
			_, err := generate(t, llama, promptcanary.Prompt{Text: "hi"}, defaults())
			providertest.CheckError(t, err, providertest.WantError{Status: tc.status, Retryable: tc.retryable, Msg: tc.typ + ": " + tc.msg})
		})
	}
}
