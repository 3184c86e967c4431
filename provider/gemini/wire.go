package gemini

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
	"github.com/promptcanary/promptcanary/provider/internal/turns"
)

// content is one turn of the conversation, or the system instruction.
type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is one piece of a turn: text, a function call of the model, or a
// function's response; text, thought summaries and function calls are
// read from answers.
type part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// functionResponse is a tool's result sent back to the model: response
// must be a JSON object.
type functionResponse struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// functionDeclaration is a tool in the Gemini format. Exactly one of
// Parameters and ParametersJSONSchema is set for a tool with parameters.
type functionDeclaration struct {
	Name                 string         `json:"name"`
	Description          string         `json:"description,omitempty"`
	Parameters           map[string]any `json:"parameters,omitempty"`
	ParametersJSONSchema map[string]any `json:"parametersJsonSchema,omitempty"`
}

type toolSet struct {
	FunctionDeclarations []functionDeclaration `json:"functionDeclarations"`
}

type functionCallingConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type toolConfig struct {
	FunctionCallingConfig functionCallingConfig `json:"functionCallingConfig"`
}

// generationConfigFields are the GenerationConfig fields an extra
// parameter may name; they are routed into generationConfig.
var generationConfigFields = map[string]bool{
	"stopSequences": true, "responseMimeType": true, "responseSchema": true,
	"responseJsonSchema": true, "responseModalities": true, "candidateCount": true,
	"maxOutputTokens": true, "temperature": true, "topP": true, "topK": true,
	"seed": true, "presencePenalty": true, "frequencyPenalty": true,
	"responseLogprobs": true, "logprobs": true, "enableEnhancedCivicAnswers": true,
	"speechConfig": true, "thinkingConfig": true, "imageConfig": true,
	"mediaResolution": true,
}

// body builds the request body of one call. Extra parameters override
// the fields set here; a nil one removes the field.
func (c *Client) body(req *provider.Request) map[string]any {
	p := req.Prompt
	b := make(map[string]any, 5)
	system, turns := conversation(p)
	b["contents"] = turns
	if system != "" {
		b["systemInstruction"] = content{Parts: []part{{Text: system}}}
	}
	gc := map[string]any{"temperature": req.Config.Temperature}
	if req.Config.MaxTokens > 0 {
		gc["maxOutputTokens"] = req.Config.MaxTokens
	}
	if seed, ok := req.CallSeed(); ok {
		gc["seed"] = seed
	}
	if len(p.Tools) == 0 || !c.toolsOrJSON {
		// Gemini 2.x refuses function calling with a JSON MIME type
		// ("Function calling with a response mime type:
		// 'application/json' is unsupported"); with tools, the probes
		// judge the JSON of the final answer instead.
		// https://ai.google.dev/gemini-api/docs/structured-output#limitations
		responseFormat(gc, p.ResponseFormat)
	}
	if len(p.Tools) > 0 {
		decls := make([]functionDeclaration, len(p.Tools))
		for i, t := range p.Tools {
			decls[i] = functionDeclaration{Name: t.Name, Description: t.Description}
			switch {
			case len(t.Parameters) == 0:
			case openAPISchema(t.Parameters):
				decls[i].Parameters = t.Parameters
			default:
				decls[i].ParametersJSONSchema = t.Parameters
			}
		}
		b["tools"] = []toolSet{{FunctionDeclarations: decls}}
		if tc := toolChoice(p.ToolChoice); tc != nil {
			b["toolConfig"] = tc
		}
	}
	mergeExtra(b, gc, req.Config.ExtraParams)
	if _, replaced := b["generationConfig"]; !replaced {
		b["generationConfig"] = gc
	}
	return b
}

// mergeExtra merges the extra parameters into the body b and its
// generationConfig gc; a nil value removes the field.
func mergeExtra(b, gc map[string]any, extra map[string]any) {
	set := func(m map[string]any, k string, v any) {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		v := extra[k]
		key := camel(k)
		switch m, isMap := v.(map[string]any); {
		case key == "generationConfig" && isMap:
			for gk, gv := range m {
				set(gc, camel(gk), gv)
			}
		case generationConfigFields[key]:
			set(gc, key, v)
		default:
			set(b, key, v)
		}
	}
}

// responseFormat asks for structured output in the API's native form:
// responseMimeType application/json, with the schema as responseSchema
// when it stays within the OpenAPI subset that field takes, and as
// responseJsonSchema (which takes JSON Schema, additionalProperties and
// type lists included) otherwise.
// https://ai.google.dev/gemini-api/docs/structured-output
func responseFormat(gc map[string]any, f *promptcanary.ResponseFormat) {
	if f == nil {
		return
	}
	gc["responseMimeType"] = "application/json"
	if f.Type != promptcanary.FormatJSONSchema || len(f.Schema) == 0 {
		return
	}
	if openAPISchema(f.Schema) {
		gc["responseSchema"] = f.Schema
	} else {
		gc["responseJsonSchema"] = f.Schema
	}
}

// conversation maps the prompt's turns to contents: user turns as text
// parts of role "user", assistant turns as text and functionCall parts of
// role "model", tool turns as functionResponse parts {name, response} of
// role "user", and system turns added to the system instruction.
// Consecutive turns of one role are merged, so the responses to parallel
// calls come in one turn, right after the turn that made the calls.
func conversation(p *promptcanary.Prompt) (string, []content) {
	names := map[string]string{} // tool call ID → tool name
	system, merged := turns.Merge(p, func(m promptcanary.Message) []part {
		for _, tc := range m.ToolCalls {
			names[tc.ID] = tc.Name
		}
		if m.Role == promptcanary.RoleTool && m.Name == "" {
			m.Name = names[m.ToolCallID]
		}
		return turnParts(m)
	})
	out := make([]content, len(merged))
	for i, turn := range merged {
		out[i] = content{Role: "user", Parts: turn.Blocks}
		if turn.Assistant {
			out[i].Role = "model"
		}
	}
	return system, out
}

// turnParts are the parts of one turn; empty text is left out.
func turnParts(m promptcanary.Message) []part {
	if m.Role == promptcanary.RoleTool {
		return []part{{FunctionResponse: &functionResponse{Name: m.Name, Response: toolResult(m.Content)}}}
	}
	var out []part
	if m.Content != "" {
		out = append(out, part{Text: m.Content})
	}
	if m.Role != promptcanary.RoleAssistant {
		return out
	}
	for _, tc := range m.ToolCalls {
		args := toolcall.Arguments(tc.Arguments)
		if args[0] != '{' {
			args = json.RawMessage(`{"arguments":` + string(args) + `}`)
		}
		out = append(out, part{FunctionCall: &functionCall{Name: tc.Name, Args: args}})
	}
	return out
}

// toolResult is a tool's result as the object functionResponse.response
// must be: a JSON object as it is, anything else under "output" ("Use
// 'output' key to specify function output"; FunctionResponse in
// https://ai.google.dev/api/caching#FunctionResponse).
func toolResult(s string) json.RawMessage {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	v, _ := json.Marshal(map[string]string{"output": s})
	return v
}

// toolChoice maps a prompt's tool_choice to a toolConfig; nil means none
// is sent (the API's default is AUTO).
func toolChoice(choice string) *toolConfig {
	var fc functionCallingConfig
	switch choice {
	case "":
		return nil
	case "auto":
		fc.Mode = "AUTO"
	case "none":
		fc.Mode = "NONE"
	case "required":
		fc.Mode = "ANY"
	default:
		fc.Mode, fc.AllowedFunctionNames = "ANY", []string{choice}
	}
	return &toolConfig{FunctionCallingConfig: fc}
}

// camel turns snake_case into lowerCamelCase; other keys are unchanged.
func camel(k string) string {
	if !strings.Contains(k, "_") {
		return k
	}
	var b strings.Builder
	up := false
	for _, r := range k {
		switch {
		case r == '_':
			up = b.Len() > 0
		case up && r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
			up = false
		default:
			b.WriteRune(r)
			up = false
		}
	}
	return b.String()
}

// openAPIKeys are the Schema fields of the "parameters" field (a subset of
// OpenAPI 3.0).
var openAPIKeys = map[string]bool{
	"type": true, "format": true, "title": true, "description": true, "nullable": true,
	"enum": true, "maxItems": true, "minItems": true, "properties": true, "required": true,
	"minProperties": true, "maxProperties": true, "minLength": true, "maxLength": true,
	"pattern": true, "example": true, "anyOf": true, "propertyOrdering": true,
	"default": true, "items": true, "minimum": true, "maximum": true,
}

var openAPITypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "array": true, "object": true}

// isOpenAPISchema reports whether v is a schema object within what
// "parameters" accepts.
func isOpenAPISchema(v any) bool {
	s, ok := v.(map[string]any)
	return ok && openAPISchema(s)
}

// allIn reports whether v is a list whose every element is ok.
func allIn(v any, ok func(any) bool) bool {
	list, isList := v.([]any)
	return isList && !slices.ContainsFunc(list, func(e any) bool { return !ok(e) })
}

// openAPISchema reports whether s stays within what "parameters" accepts.
func openAPISchema(s map[string]any) bool {
	for k, v := range s {
		if !openAPIKeys[k] {
			return false
		}
		switch k {
		case "type":
			t, ok := v.(string)
			if !ok || !openAPITypes[strings.ToLower(t)] {
				return false
			}
		case "enum":
			if !allIn(v, func(e any) bool { _, ok := e.(string); return ok }) {
				return false
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return false
			}
			for _, ps := range props {
				if !isOpenAPISchema(ps) {
					return false
				}
			}
		case "items":
			if !isOpenAPISchema(v) {
				return false
			}
		case "anyOf":
			if !allIn(v, isOpenAPISchema) {
				return false
			}
		}
	}
	return true
}

// response is the part of a GenerateContentResponse this client reads.
type response struct {
	Candidates     []candidate `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
		TotalTokenCount      int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string    `json:"modelVersion"`
	ResponseID   string    `json:"responseId"`
	Error        *apiError `json:"error"`
}

type candidate struct {
	Content *struct {
		Parts []part `json:"parts"`
	} `json:"content"`
	FinishReason string `json:"finishReason"`
}

// apiError is the body of a failed call: {"error": {...}}.
type apiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Type       string `json:"@type"`
		Reason     string `json:"reason"`
		RetryDelay string `json:"retryDelay"`
	} `json:"details"`
}

// decode turns a 200 body into a response.
func decode(body []byte) (*promptcanary.Response, error) {
	var r response
	if err := apicall.DecodeJSON(body, &r); err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, &provider.Error{StatusCode: r.Error.Code, Retryable: r.Error.Code == 429 || r.Error.Code >= 500, Message: httpc.Truncate(nil, r.Error.text(), httpc.MaxMessage)}
	}
	u := &r.UsageMetadata
	out := &promptcanary.Response{
		PromptTokens: max(0, u.PromptTokenCount),
		// Thinking tokens are output tokens, billed as such.
		CompletionTokens: max(0, u.CandidatesTokenCount) + max(0, u.ThoughtsTokenCount),
		TotalTokens:      max(0, u.TotalTokenCount),
		// https://ai.google.dev/api/generate-content#UsageMetadata
		ReasoningTokens: max(0, u.ThoughtsTokenCount),
		ServedModel:     r.ModelVersion,
		ResponseID:      r.ResponseID,
		RawResponse:     json.RawMessage(body),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.PromptTokens + out.CompletionTokens
	}
	if len(r.Candidates) == 0 {
		if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
			out.FinishReason = "blocked:" + r.PromptFeedback.BlockReason
			return out, nil
		}
		return nil, &provider.Error{Message: "response has no candidates"}
	}
	c := &r.Candidates[0]
	out.FinishReason = c.FinishReason
	var text strings.Builder
	if c.Content != nil {
		for i := range c.Content.Parts {
			pt := &c.Content.Parts[i]
			if fc := pt.FunctionCall; fc != nil {
				out.ToolCalls = append(out.ToolCalls, promptcanary.ToolCall{ID: fc.ID, Name: fc.Name, Arguments: toolcall.Arguments(fc.Args)})
				continue
			}
			if !pt.Thought {
				text.WriteString(pt.Text)
			}
		}
	}
	out.Content = text.String()
	toolcall.Bound(out, len(out.ToolCalls))
	if out.Content == "" && len(out.ToolCalls) == 0 && (c.FinishReason == "" || c.FinishReason == "STOP") {
		return nil, &provider.Error{Message: fmt.Sprintf("candidate has no text or functionCall parts (finishReason %q)", c.FinishReason)}
	}
	return out, nil
}

// text renders an API error as "STATUS: message".
func (e *apiError) text() string {
	msg := e.Message
	if e.Status != "" {
		msg = strings.TrimSuffix(e.Status+": "+msg, ": ")
	}
	for _, d := range e.Details {
		if d.Reason == "API_KEY_INVALID" {
			return msg + " (check the API key)"
		}
	}
	return msg
}

// errorMessage extracts the message of an error body for httpc; "" lets
// httpc fall back to its common shapes.
func errorMessage(body []byte) string {
	var v struct {
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || v.Error == nil || v.Error.Message == "" {
		return ""
	}
	return v.Error.text()
}

// rateLimited builds the retryable error of a 429 answer, taking the delay
// from a Retry-After header or else from the body's RetryInfo.
func (c *Client) rateLimited(resp *httpc.Response) *provider.Error {
	e := &provider.Error{StatusCode: resp.Status, Retryable: true, RetryAfter: httpc.RetryAfter(resp.Header, time.Now())}
	var v struct {
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(resp.Body, &v) == nil && v.Error != nil {
		e.Message = c.http.Message(v.Error.text())
		if e.RetryAfter == 0 {
			for _, d := range v.Error.Details {
				if delay, err := time.ParseDuration(d.RetryDelay); err == nil && delay > 0 {
					e.RetryAfter = min(delay, httpc.MaxRetryAfter)
					break
				}
			}
		}
	}
	if e.Message == "" {
		e.Message = c.http.Message(httpc.ErrorMessage(resp.Body))
	}
	if e.Message == "" {
		e.Message = "Too Many Requests"
	}
	return e
}
