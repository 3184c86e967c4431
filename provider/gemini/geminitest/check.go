// Package geminitest is a strict local stand-in for the Gemini API's
// generateContent method (and, through Check and Reply, for Gemini on
// Vertex AI), for tests of the gemini and vertex clients and of CLI
// transcripts. It rejects what the real API rejects — unknown field names
// (only the documented lowerCamelCase names are taken), roles other than
// user and model, function responses that do not answer the function call
// turn before them, schema keywords outside the OpenAPI subset in
// responseSchema, thinking budgets a model refuses — with the API's error
// shape, and answers in the API's shapes, edge cases included: parallel
// function calls, safety blocks, and thinking models that spend
// maxOutputTokens on thinking and answer with no parts and finishReason
// MAX_TOKENS.
//
// Rules come from https://ai.google.dev/api/generate-content,
// https://ai.google.dev/gemini-api/docs/structured-output,
// https://ai.google.dev/gemini-api/docs/thinking and
// https://ai.google.dev/gemini-api/docs/function-calling; each is cited
// beside its check.
package geminitest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Error is a refused request: {"error":{"code","message","status"}}.
type Error struct {
	Code    int
	Status  string
	Message string
}

func (e *Error) Error() string { return e.Status + ": " + e.Message }

func invalid(format string, a ...any) *Error {
	return &Error{Code: 400, Status: "INVALID_ARGUMENT", Message: fmt.Sprintf(format, a...)}
}

// Model is what the stand-in knows of a model.
type Model struct {
	// MaxOutput is the largest maxOutputTokens.
	MaxOutput int
	// Thinking: the model thinks by default, within maxOutputTokens.
	Thinking bool
	// MinBudget and MaxBudget bound thinkingBudget (besides -1, dynamic);
	// MinBudget 0 means thinking can be turned off.
	MinBudget, MaxBudget int
}

// Models are the known models.
// https://ai.google.dev/gemini-api/docs/models and, for the budgets,
// https://ai.google.dev/gemini-api/docs/thinking#set-budget (2.5 Pro:
// 128 to 32768, "cannot disable thinking"; 2.5 Flash: 0 to 24576; 2.5
// Flash-Lite: 512 to 24576, 0 turns it off and is its default).
var Models = map[string]Model{
	"gemini-2.5-pro":        {MaxOutput: 65536, Thinking: true, MinBudget: 128, MaxBudget: 32768},
	"gemini-2.5-flash":      {MaxOutput: 65536, Thinking: true, MinBudget: 0, MaxBudget: 24576},
	"gemini-2.5-flash-lite": {MaxOutput: 65536, MinBudget: 0, MaxBudget: 24576},
	"gemini-2.0-flash":      {MaxOutput: 8192},
	"gemini-2.0-flash-lite": {MaxOutput: 8192},
}

// Request is a checked request: what the answer depends on.
type Request struct {
	Model     string
	Contents  []Content
	Tools     []string
	Mode      string
	Allowed   []string
	MaxOutput int
	// Budget is the thinking budget: -1 dynamic, 0 none.
	Budget          int
	IncludeThoughts bool
	MIMEType        string
	Schema          map[string]any
}

// Content is one turn.
type Content struct {
	Role  string `json:"role"`
	Parts []Part `json:"parts"`
}

// Part is one part of a turn.
type Part struct {
	Text         *string `json:"text"`
	FunctionCall *struct {
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse"`
}

// The field names each object takes, in the API's lowerCamelCase.
// https://ai.google.dev/api/generate-content#request-body
var (
	requestFields = []string{"contents", "systemInstruction", "tools", "toolConfig", "safetySettings", "generationConfig", "cachedContent"}
	contentFields = []string{"role", "parts"}
	partFields    = []string{"text", "thought", "thoughtSignature", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult", "videoMetadata"}
	callFields    = []string{"id", "name", "args"}
	respFields    = []string{"id", "name", "response", "willContinue", "scheduling"}
	toolFields    = []string{"functionDeclarations", "googleSearch", "googleSearchRetrieval", "codeExecution", "urlContext", "retrieval"}
	declFields    = []string{"name", "description", "parameters", "parametersJsonSchema", "response", "responseJsonSchema", "behavior"}
	toolCfgFields = []string{"functionCallingConfig", "retrievalConfig"}
	fcCfgFields   = []string{"mode", "allowedFunctionNames"}
	safetyFields  = []string{"category", "threshold", "method"}
	genFields     = []string{"stopSequences", "responseMimeType", "responseSchema", "responseJsonSchema", "responseModalities",
		"candidateCount", "maxOutputTokens", "temperature", "topP", "topK", "seed", "presencePenalty", "frequencyPenalty",
		"responseLogprobs", "logprobs", "enableEnhancedCivicAnswers", "speechConfig", "thinkingConfig", "imageConfig", "mediaResolution"}
	thinkFields = []string{"thinkingBudget", "includeThoughts", "thinkingLevel"}
	// schemaFields are the Schema object's fields, the OpenAPI subset
	// responseSchema and parameters take.
	// https://ai.google.dev/api/caching#Schema
	schemaFields = []string{"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
		"required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
		"default", "items", "minimum", "maximum"}
)

// object decodes raw as an object whose every key is in known; at is the
// field's path in the API's messages ('generation_config'). Only the
// documented lowerCamelCase names are taken: a snake_case name is refused
// like any unknown one, so a client cannot drift from the documented form.
func object(raw json.RawMessage, at string, known []string) (map[string]json.RawMessage, *Error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, invalid("Invalid JSON payload received. Expected an object at '%s'.", at)
	}
	for _, k := range slices.Sorted(keys(m)) {
		if !slices.Contains(known, k) {
			if at == "" {
				return nil, invalid("Invalid JSON payload received. Unknown name %q: Cannot find field.", k)
			}
			return nil, invalid("Invalid JSON payload received. Unknown name %q at '%s': Cannot find field.", k, at)
		}
	}
	return m, nil
}

func keys(m map[string]json.RawMessage) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// list decodes raw as a list of objects, checking each with object.
func list(raw json.RawMessage, at string, known []string) ([]map[string]json.RawMessage, *Error) {
	if raw == nil {
		return nil, nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, invalid("Invalid JSON payload received. Expected a list at '%s'.", at)
	}
	out := make([]map[string]json.RawMessage, len(items))
	for i, it := range items {
		m, err := object(it, fmt.Sprintf("%s[%d]", at, i), known)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

// Check validates a generateContent body for model. vertex requires a
// role on every turn, as Vertex AI does ("role" is required there; the
// Gemini API takes a single turn without one).
// https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Content
func Check(body []byte, model string, vertex bool) (*Request, *Error) {
	info, ok := Models[model]
	if !ok {
		return nil, &Error{Code: 404, Status: "NOT_FOUND", Message: fmt.Sprintf("models/%s is not found for API version v1beta, or is not supported for generateContent.", model)}
	}
	top, err := object(body, "", requestFields)
	if err != nil {
		return nil, err
	}
	r := &Request{Model: model, Budget: -1}
	if !info.Thinking {
		r.Budget = 0
	}
	if err := r.contents(top["contents"], vertex); err != nil {
		return nil, err
	}
	if v := top["systemInstruction"]; v != nil {
		c, err := object(v, "system_instruction", contentFields)
		if err != nil {
			return nil, err
		}
		if _, err := parts(c["parts"], "system_instruction.parts"); err != nil {
			return nil, err
		}
	}
	if err := r.tools(top["tools"], top["toolConfig"]); err != nil {
		return nil, err
	}
	if _, err := list(top["safetySettings"], "safety_settings", safetyFields); err != nil {
		return nil, err
	}
	if err := r.generationConfig(top["generationConfig"], info); err != nil {
		return nil, err
	}
	if len(r.Tools) > 0 && r.MIMEType == "application/json" && strings.HasPrefix(model, "gemini-2") {
		// https://ai.google.dev/gemini-api/docs/structured-output#limitations
		return nil, invalid("Function calling with a response mime type: 'application/json' is unsupported")
	}
	return r, r.checkTurns()
}
