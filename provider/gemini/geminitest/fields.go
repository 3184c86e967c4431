package geminitest

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// contents reads the turns: a non-empty list, roles user or model.
// https://ai.google.dev/api/caching#Content ("Must be either 'user' or 'model'")
func (r *Request) contents(raw json.RawMessage, vertex bool) *Error {
	turns, err := list(raw, "contents", contentFields)
	if err != nil {
		return err
	}
	if len(turns) == 0 {
		return invalid("* GenerateContentRequest.contents: contents is not specified")
	}
	for i, t := range turns {
		var role string
		if t["role"] != nil && json.Unmarshal(t["role"], &role) != nil {
			return invalid("Invalid value at 'contents[%d].role' (TYPE_STRING)", i)
		}
		switch {
		case role == "" && (vertex || len(turns) > 1):
			return invalid("Please use a valid role: user, model.")
		case role != "" && role != "user" && role != "model":
			return invalid("Please use a valid role: user, model.")
		}
		ps, err := parts(t["parts"], fmt.Sprintf("contents[%d].parts", i))
		if err != nil {
			return err
		}
		if role == "" {
			role = "user"
		}
		r.Contents = append(r.Contents, Content{Role: role, Parts: ps})
	}
	return nil
}

// parts reads a turn's parts: at least one, each with one kind of data,
// no empty text, functionCall {name, args} and functionResponse {name,
// response} with a JSON object response.
// https://ai.google.dev/api/caching#Part, https://ai.google.dev/api/caching#FunctionResponse
func parts(raw json.RawMessage, at string) ([]Part, *Error) {
	items, err := list(raw, at, partFields)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, invalid("* GenerateContentRequest.%s: contents.parts must not be empty.", at)
	}
	out := make([]Part, len(items))
	for i, m := range items {
		pat := fmt.Sprintf("%s[%d]", at, i)
		if v := m["functionCall"]; v != nil {
			if _, err := object(v, pat+".function_call", callFields); err != nil {
				return nil, err
			}
		}
		if v := m["functionResponse"]; v != nil {
			if _, err := object(v, pat+".function_response", respFields); err != nil {
				return nil, err
			}
		}
		b, _ := json.Marshal(m)
		if json.Unmarshal(b, &out[i]) != nil {
			return nil, invalid("Invalid JSON payload received at '%s'.", pat)
		}
		p := out[i]
		switch {
		case p.Text != nil && *p.Text == "":
			return nil, invalid("Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again.")
		case p.FunctionCall != nil && p.FunctionCall.Name == "":
			return nil, invalid("* GenerateContentRequest.%s.function_call.name: Name cannot be empty.", pat)
		case p.FunctionResponse != nil && (p.FunctionResponse.Name == "" || p.FunctionResponse.Response == nil):
			return nil, invalid("* GenerateContentRequest.%s.function_response: name and a response object are required.", pat)
		}
	}
	return out, nil
}

// tools reads the function declarations and the function calling mode.
// https://ai.google.dev/api/caching#Tool, https://ai.google.dev/api/caching#FunctionCallingConfig
func (r *Request) tools(raw, cfg json.RawMessage) *Error {
	sets, err := list(raw, "tools", toolFields)
	if err != nil {
		return err
	}
	for i, set := range sets {
		decls, err := list(set["functionDeclarations"], fmt.Sprintf("tools[%d].function_declarations", i), declFields)
		if err != nil {
			return err
		}
		for j, d := range decls {
			var name string
			json.Unmarshal(d["name"], &name)
			if name == "" {
				return invalid("* GenerateContentRequest.tools[%d].function_declarations[%d].name: Name cannot be empty.", i, j)
			}
			if d["parameters"] != nil && d["parametersJsonSchema"] != nil {
				return invalid("* GenerateContentRequest.tools[%d].function_declarations[%d]: parameters and parameters_json_schema cannot both be set.", i, j)
			}
			if err := schema(d["parameters"], fmt.Sprintf("tools[%d].function_declarations[%d].parameters", i, j)); err != nil {
				return err
			}
			r.Tools = append(r.Tools, name)
		}
	}
	r.Mode = "AUTO"
	if cfg == nil {
		return nil
	}
	c, err := object(cfg, "tool_config", toolCfgFields)
	if err != nil {
		return err
	}
	if c["functionCallingConfig"] == nil {
		return nil
	}
	if _, err := object(c["functionCallingConfig"], "tool_config.function_calling_config", fcCfgFields); err != nil {
		return err
	}
	var fc struct {
		Mode    string   `json:"mode"`
		Allowed []string `json:"allowedFunctionNames"`
	}
	json.Unmarshal(c["functionCallingConfig"], &fc)
	if !slices.Contains([]string{"AUTO", "ANY", "NONE", "VALIDATED"}, fc.Mode) {
		return invalid("Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), %q", fc.Mode)
	}
	if len(fc.Allowed) > 0 && fc.Mode != "ANY" {
		return invalid("* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: allowed_function_names may only be set when mode is ANY.")
	}
	r.Mode, r.Allowed = fc.Mode, fc.Allowed
	return nil
}

// schema checks a Schema object (responseSchema, parameters): the
// OpenAPI subset only, so JSON Schema keywords such as
// additionalProperties or $ref are unknown names there.
// https://ai.google.dev/api/caching#Schema
func schema(raw json.RawMessage, at string) *Error {
	if raw == nil {
		return nil
	}
	m, err := object(raw, at, schemaFields)
	if err != nil {
		return err
	}
	var t string
	if v := m["type"]; v != nil && json.Unmarshal(v, &t) != nil {
		return invalid("Invalid value at '%s.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), a list", at)
	}
	if v := m["properties"]; v != nil {
		var props map[string]json.RawMessage
		json.Unmarshal(v, &props)
		for _, k := range slices.Sorted(keys(props)) {
			if err := schema(props[k], at+".properties["+k+"].value"); err != nil {
				return err
			}
		}
	}
	if err := schema(m["items"], at+".items"); err != nil {
		return err
	}
	var any []json.RawMessage
	json.Unmarshal(m["anyOf"], &any)
	for i, s := range any {
		if err := schema(s, fmt.Sprintf("%s.any_of[%d]", at, i)); err != nil {
			return err
		}
	}
	return nil
}

// generationConfig checks the sampling and output fields.
// https://ai.google.dev/api/generate-content#generationconfig
func (r *Request) generationConfig(raw json.RawMessage, info Model) *Error {
	r.MaxOutput = info.MaxOutput
	if raw == nil {
		return nil
	}
	g, err := object(raw, "generation_config", genFields)
	if err != nil {
		return err
	}
	var v struct {
		Temperature *float64       `json:"temperature"`
		TopP        *float64       `json:"topP"`
		MaxOutput   *int           `json:"maxOutputTokens"`
		Seed        *float64       `json:"seed"`
		MIMEType    string         `json:"responseMimeType"`
		Schema      map[string]any `json:"responseJsonSchema"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return invalid("Invalid JSON payload received at 'generation_config'.")
	}
	switch {
	case v.Temperature != nil && (*v.Temperature < 0 || *v.Temperature > 2):
		return invalid("* GenerateContentRequest.generation_config.temperature: temperature must be in the range [0.0, 2.0].")
	case v.TopP != nil && (*v.TopP < 0 || *v.TopP > 1):
		return invalid("* GenerateContentRequest.generation_config.top_p: top_p must be in the range [0.0, 1.0].")
	case v.Seed != nil && (*v.Seed != math.Trunc(*v.Seed) || *v.Seed < math.MinInt32 || *v.Seed > math.MaxInt32):
		return invalid("Invalid value at 'generation_config.seed' (TYPE_INT32), %v", *v.Seed)
	case v.MaxOutput != nil && (*v.MaxOutput < 1 || *v.MaxOutput > info.MaxOutput):
		return invalid("The input max_output_tokens value (%d) is out of range: 1 to %d (inclusive).", *v.MaxOutput, info.MaxOutput+1)
	}
	if v.MaxOutput != nil {
		r.MaxOutput = *v.MaxOutput
	}
	if err := r.output(g, v.MIMEType, v.Schema); err != nil {
		return err
	}
	return r.thinking(g["thinkingConfig"], info)
}

// output checks the structured-output fields: responseSchema (the
// OpenAPI subset) or responseJsonSchema (JSON Schema), not both, and
// either only with responseMimeType application/json.
// https://ai.google.dev/gemini-api/docs/structured-output
func (r *Request) output(g map[string]json.RawMessage, mime string, js map[string]any) *Error {
	r.MIMEType = mime
	if g["responseSchema"] != nil && g["responseJsonSchema"] != nil {
		return invalid("* GenerateContentRequest.generation_config.response_schema: response_schema and response_json_schema cannot both be set.")
	}
	if (g["responseSchema"] != nil || g["responseJsonSchema"] != nil) && mime != "application/json" && mime != "text/x.enum" {
		return invalid("* GenerateContentRequest.generation_config.response_mime_type: response_mime_type must be application/json or text/x.enum when a response schema is set.")
	}
	if err := schema(g["responseSchema"], "generation_config.response_schema"); err != nil {
		return err
	}
	r.Schema = js
	if g["responseSchema"] != nil {
		json.Unmarshal(g["responseSchema"], &r.Schema)
	}
	return nil
}

// thinking checks thinkingConfig against the model's budget range.
// https://ai.google.dev/gemini-api/docs/thinking#set-budget
func (r *Request) thinking(raw json.RawMessage, info Model) *Error {
	if raw == nil {
		return nil
	}
	if _, err := object(raw, "generation_config.thinking_config", thinkFields); err != nil {
		return err
	}
	var t struct {
		Budget  *int `json:"thinkingBudget"`
		Include bool `json:"includeThoughts"`
	}
	json.Unmarshal(raw, &t)
	r.IncludeThoughts = t.Include
	if t.Budget == nil {
		return nil
	}
	b := *t.Budget
	switch {
	case b == -1:
	case b == 0 && info.MinBudget > 0:
		return invalid("Budget 0 is invalid. This model only works in thinking mode.")
	case b != 0 && (b < info.MinBudget || b > info.MaxBudget):
		return invalid("The thinking budget %d is invalid. Please choose a value between %d and %d.", b, max(info.MinBudget, 1), info.MaxBudget)
	}
	r.Budget = b
	return nil
}

// checkTurns checks the order of function calls and responses: a turn of
// function responses comes right after the model turn that made the
// calls, with one response per call.
// https://ai.google.dev/gemini-api/docs/function-calling
func (r *Request) checkTurns() *Error {
	for i, c := range r.Contents {
		calls, resps := count(c)
		if calls > 0 && c.Role != "model" {
			return invalid("Please ensure that function call turns come from the model.")
		}
		if resps == 0 {
			continue
		}
		if c.Role != "user" {
			return invalid("Please ensure that function response turns come from the user.")
		}
		var before int
		if i > 0 {
			before, _ = count(r.Contents[i-1])
		}
		if before == 0 {
			return invalid("Please ensure that function response turn comes immediately after a function call turn.")
		}
		if before != resps {
			return invalid("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
		}
	}
	return nil
}

func count(c Content) (calls, resps int) {
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			calls++
		}
		if p.FunctionResponse != nil {
			resps++
		}
	}
	return calls, resps
}
