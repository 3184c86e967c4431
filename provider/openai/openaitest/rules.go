package openaitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The two APIs the stand-in serves.
const (
	apiChat      = "chat"
	apiResponses = "responses"
)

// request is what the answer builders need of an accepted request.
type request struct {
	api   string
	model string
	body  map[string]any
	tools []toolDef
	// format is "", "json_object" or "json_schema"; schema its schema.
	format string
	schema map[string]any
	// afterToolResult: the conversation ends with a tool result.
	afterToolResult bool
	// lastUser is the text of the last user turn.
	lastUser  string
	maxTokens int
	// forced names the tool a tool_choice forces, "none" or "".
	forced string
}

type toolDef struct {
	name   string
	params map[string]any
}

// badRequest is a 400 invalid_request_error.
func badRequest(param, code, format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, code: code, message: fmt.Sprintf(format, args...)}
}

// parse validates one request body for api and extracts what the answer
// needs. Every check names the documentation it follows.
func parse(api string, body []byte) (*request, *apiError) {
	// https://platform.openai.com/docs/guides/error-codes
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	m, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, badRequest("", "", "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)")
	}
	schemaName := SchemaChatRequest
	if api == apiResponses {
		schemaName = SchemaResponsesRequest
	}
	if e := unknownParams(api, schemaName, m); e != nil {
		return nil, e
	}
	if e := validate(schemaName, v); e != nil {
		return nil, e
	}
	var req request
	if err := json.Unmarshal(body, &req.body); err != nil {
		return nil, badRequest("", "", "We could not parse the JSON body of your request.")
	}
	req.api = api
	req.model, _ = req.body["model"].(string)
	if e := checkModel(api, req.model, req.body); e != nil {
		return nil, e
	}
	var e *apiError
	if api == apiChat {
		e = parseChat(&req)
	} else {
		e = parseResponses(&req)
	}
	if e != nil {
		return nil, e
	}
	return &req, nil
}

// unknownParams refuses top-level keys the API does not know: chat
// completions answer "Unrecognized request argument supplied", the
// Responses API "Unknown parameter".
// https://platform.openai.com/docs/api-reference/chat/create
// https://platform.openai.com/docs/api-reference/responses/create
func unknownParams(api, schemaName string, m map[string]any) *apiError {
	known := topLevel(schemaName)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if slices.Contains(known, k) {
			continue
		}
		if api == apiChat {
			return badRequest("", "", "Unrecognized request argument supplied: %s", k)
		}
		return badRequest(k, "unknown_parameter", "Unknown parameter: '%s'.", k)
	}
	return nil
}

// validate checks v against the named schema of the official spec and
// words the first deepest failure as the API words its own.
func validate(schemaName string, v any) *apiError {
	s, err := Schema(schemaName)
	if err != nil {
		return &apiError{status: http.StatusInternalServerError, typ: "server_error", message: err.Error()}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return badRequest("", "", "Invalid request: %v", err)
	}
	leaf := deepest(ve)
	param := paramPath(leaf.InstanceLocation)
	lines := strings.Split(strings.TrimSpace(leaf.Error()), "\n")
	msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[len(lines)-1]), "-"))
	return badRequest(param, "invalid_value", "Invalid '%s': %s (checked against %s of the OpenAPI spec)", param, msg, schemaName)
}

// deepest returns the failure deepest in the instance, the first of
// equals. Of the branches of a union it prefers those whose
// discriminator ("type" or "role") matched, as the API picks a branch
// by it.
func deepest(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return e
	}
	causes := e.Causes
	var matched []*jsonschema.ValidationError
	for _, c := range causes {
		if !discriminatorMismatch(c) {
			matched = append(matched, c)
		}
	}
	if len(matched) > 0 {
		causes = matched
	}
	var best *jsonschema.ValidationError
	for _, c := range causes {
		if d := deepest(c); best == nil || len(d.InstanceLocation) > len(best.InstanceLocation) {
			best = d
		}
	}
	return best
}

// discriminatorMismatch: e failed on the value of a "type" or "role".
func discriminatorMismatch(e *jsonschema.ValidationError) bool {
	if n := len(e.InstanceLocation); n > 0 && (e.InstanceLocation[n-1] == "type" || e.InstanceLocation[n-1] == "role") {
		switch e.ErrorKind.(type) {
		case *kind.Enum, *kind.Const:
			return true
		}
	}
	for _, c := range e.Causes {
		if discriminatorMismatch(c) {
			return true
		}
	}
	return false
}

// paramPath writes an instance location as the API names parameters:
// messages[0].role.
func paramPath(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}

// facts are what the stand-in knows of a model. They are written here
// from the documentation, apart from provider/modelrules, so a mistake
// there shows up as a rejected request here.
type facts struct {
	// reasoning: o-series and gpt-5 and later, but not the -chat models.
	// https://platform.openai.com/docs/guides/reasoning
	// https://platform.openai.com/docs/models/gpt-5-chat-latest
	reasoning bool
	// responsesOnly: pro, codex, deep-research and computer-use models.
	// https://platform.openai.com/docs/models/o3-pro
	// https://platform.openai.com/docs/models/gpt-5-pro
	// https://platform.openai.com/docs/models/gpt-5-codex
	responsesOnly bool
}

var reasoningName = regexp.MustCompile(`^(o[1-9]|gpt-([5-9]|[1-9][0-9])(\.[0-9]+)?)(-|$)|^codex-mini`)

func modelFacts(model string) facts {
	m := strings.ToLower(model)
	f := facts{reasoning: reasoningName.MatchString(m) && !strings.Contains(m, "-chat")}
	for _, s := range []string{"-pro", "codex", "deep-research", "computer-use"} {
		if strings.Contains(m, s) {
			f.responsesOnly = true
		}
	}
	return f
}

// knownModel: the model names of the spec (ModelIdsShared and
// ModelIdsResponses), their dated snapshots, and fine-tuned models.
// https://platform.openai.com/docs/models
func knownModel(model string) bool {
	if strings.HasPrefix(model, "ft:") {
		return true
	}
	return slices.Contains(specModels(), model)
}

// checkModel applies the per-model rules of api.
func checkModel(api, model string, body map[string]any) *apiError {
	if !knownModel(model) {
		// https://platform.openai.com/docs/guides/error-codes#api-errors
		return &apiError{status: http.StatusNotFound, typ: "invalid_request_error", param: "model", code: "model_not_found",
			message: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", model)}
	}
	f := modelFacts(model)
	if api == apiChat && f.responsesOnly {
		// Observed answer: https://github.com/pgadmin-org/pgadmin4/issues/9795
		// https://platform.openai.com/docs/models/o3-pro (endpoints: Responses only)
		return &apiError{status: http.StatusNotFound, typ: "invalid_request_error", param: "model",
			message: "This model is only supported in v1/responses and not in v1/chat/completions."}
	}
	if !f.reasoning {
		return nil
	}
	// Reasoning models: only the default temperature 1, no top_p, no
	// max_tokens, none of the penalties or logprobs.
	// https://platform.openai.com/docs/guides/reasoning
	// https://learn.microsoft.com/en-us/azure/ai-foundry/openai/how-to/reasoning#not-supported
	// https://platform.openai.com/docs/api-reference/chat/create#chat-create-max_tokens
	if t, ok := body["temperature"]; ok && t != nil {
		if api == apiResponses {
			return unsupportedParam("temperature")
		}
		if n, _ := t.(float64); n != 1 {
			return badRequest("temperature", "unsupported_value",
				"Unsupported value: 'temperature' does not support %v with this model. Only the default (1) value is supported.", t)
		}
	}
	if v, ok := body["max_tokens"]; ok && v != nil {
		return badRequest("max_tokens", "unsupported_parameter",
			"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
	}
	for _, p := range []string{"top_p", "presence_penalty", "frequency_penalty", "logprobs", "top_logprobs", "logit_bias"} {
		if v, ok := body[p]; ok && v != nil {
			return unsupportedParam(p)
		}
	}
	return nil
}

func unsupportedParam(p string) *apiError {
	return badRequest(p, "unsupported_parameter", "Unsupported parameter: '%s' is not supported with this model.", p)
}

// toolName is the pattern of function names.
// https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkStrictSchema applies the rules of strict structured outputs to
// schema: every object sets additionalProperties false and requires
// every property.
// https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
func checkStrictSchema(param, what string, schema map[string]any) *apiError {
	var walk func(s map[string]any, ctx string) *apiError
	walk = func(s map[string]any, ctx string) *apiError {
		if isObject(s) {
			if ap, ok := s["additionalProperties"].(bool); !ok || ap {
				return badRequest(param, "", "Invalid schema for %s: In context=(%s), 'additionalProperties' is required to be supplied and to be false.", what, ctx)
			}
			props, _ := s["properties"].(map[string]any)
			req, _ := s["required"].([]any)
			for _, k := range slices.Sorted(maps.Keys(props)) {
				if !slices.Contains(req, any(k)) {
					return badRequest(param, "", "Invalid schema for %s: In context=(%s), 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", what, ctx, k)
				}
			}
		}
		for _, k := range []string{"properties", "$defs", "definitions"} {
			sub, _ := s[k].(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(sub)) {
				if m, ok := sub[name].(map[string]any); ok {
					if e := walk(m, strings.TrimPrefix(ctx+", '"+k+"', '"+name+"'", ", ")); e != nil {
						return e
					}
				}
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			return walk(items, strings.TrimPrefix(ctx+", 'items'", ", "))
		}
		return nil
	}
	return walk(schema, "")
}

func isObject(s map[string]any) bool {
	switch t := s["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// mentionsJSON: JSON mode needs the word "json" in the conversation.
// https://platform.openai.com/docs/guides/structured-outputs#json-mode
func mentionsJSON(texts ...string) bool {
	for _, t := range texts {
		if strings.Contains(strings.ToLower(t), "json") {
			return true
		}
	}
	return false
}
