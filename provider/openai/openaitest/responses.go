package openaitest

import "fmt"

// parseResponses checks a Responses API request's input items, tools and
// text format.
func parseResponses(req *request) *apiError {
	if e := responsesInput(req); e != nil {
		return e
	}
	tools, _ := req.body["tools"].([]any)
	for i, t := range tools {
		tm, _ := t.(map[string]any)
		if tm["type"] != "function" {
			continue
		}
		if e := req.addTool(fmt.Sprintf("tools[%d]", i), tm); e != nil {
			return e
		}
	}
	switch tc := req.body["tool_choice"].(type) {
	case string:
		if tc == "none" {
			req.forced = "none"
		}
	case map[string]any:
		if tc["type"] == "function" {
			name, _ := tc["name"].(string)
			if e := req.force(name); e != nil {
				return e
			}
		}
	}
	if e := responsesFormat(req); e != nil {
		return e
	}
	req.maxTokens = intOf(req.body["max_output_tokens"])
	return nil
}

// responsesInput checks that every function_call_output answers an
// earlier function_call, and every function_call is answered.
// https://platform.openai.com/docs/guides/function-calling#handling-function-calls
func responsesInput(req *request) *apiError {
	switch in := req.body["input"].(type) {
	case string:
		req.lastUser = in
	case []any:
		calls := map[string]bool{}
		var order []string
		for _, raw := range in {
			m, _ := raw.(map[string]any)
			typ, _ := m["type"].(string)
			id, _ := m["call_id"].(string)
			switch {
			case typ == "function_call":
				calls[id] = false
				order = append(order, id)
			case typ == "function_call_output":
				if _, ok := calls[id]; !ok {
					return badRequest("input", "", "No tool call found for function call output with call_id %s.", id)
				}
				calls[id] = true
			case m["role"] == "user":
				req.lastUser = contentText(m["content"])
			}
			req.afterToolResult = typ == "function_call_output"
		}
		for _, id := range order {
			if !calls[id] {
				return badRequest("input", "", "No tool output found for function call %s.", id)
			}
		}
	}
	return nil
}

// responsesFormat checks text.format as chatFormat checks
// response_format.
// https://platform.openai.com/docs/guides/structured-outputs#json-mode
// https://platform.openai.com/docs/api-reference/responses/create#responses-create-text
func responsesFormat(req *request) *apiError {
	text, _ := req.body["text"].(map[string]any)
	f, _ := text["format"].(map[string]any)
	switch f["type"] {
	case "json_object":
		texts := []string{contentText(req.body["instructions"])}
		if s, ok := req.body["input"].(string); ok {
			texts = append(texts, s)
		}
		in, _ := req.body["input"].([]any)
		if !mentionsJSON(append(texts, contentTexts(in)...)...) {
			return badRequest("text.format", "", "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.")
		}
		req.format = "json_object"
	case "json_schema":
		return req.schemaFormat(f, "text.format.schema", "text.format")
	}
	return nil
}

// answerResponses builds a response object in the API's shape: a
// reasoning item for reasoning models, then a message (output_text or
// refusal) or function_call items; status incomplete when the budget
// went to reasoning.
// https://platform.openai.com/docs/api-reference/responses/object
func answerResponses(req *request, b Behaviour) map[string]any {
	r := compose(req, b)
	output := []any{}
	if modelFacts(req.model).reasoning {
		summary := []any{}
		if !r.length {
			summary = append(summary, map[string]any{"type": "summary_text", "text": "**Answering briefly**\n\nThe stand-in considered the request."})
		}
		output = append(output, map[string]any{"id": "rs_standin" + r.seq, "type": "reasoning", "summary": summary})
	}
	status, incomplete := "completed", any(nil)
	message := func(part map[string]any) map[string]any {
		return map[string]any{"id": "msg_standin" + r.seq, "type": "message", "status": "completed", "role": "assistant", "content": []any{part}}
	}
	switch {
	case r.length:
		status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
		if r.text != "" {
			m := message(map[string]any{"type": "output_text", "text": r.text, "annotations": []any{}, "logprobs": []any{}})
			m["status"] = "incomplete"
			output = append(output, m)
		}
	case r.refusal != "":
		output = append(output, message(map[string]any{"type": "refusal", "refusal": r.refusal}))
	case len(r.calls) > 0:
		for i, c := range r.calls {
			output = append(output, map[string]any{"id": fmt.Sprintf("fc_standin%s_%d", r.seq, i), "type": "function_call", "status": "completed",
				"call_id": c.id, "name": c.name, "arguments": c.args})
		}
	default:
		output = append(output, message(map[string]any{"type": "output_text", "text": r.text, "annotations": []any{}, "logprobs": []any{}}))
	}
	resp := map[string]any{
		"id": "resp_standin" + r.seq, "object": "response", "created_at": created, "status": status,
		"error": nil, "incomplete_details": incomplete, "model": served(req.model), "output": output,
		"instructions": req.body["instructions"], "max_output_tokens": req.body["max_output_tokens"],
		"parallel_tool_calls": true, "previous_response_id": nil, "truncation": "disabled", "metadata": map[string]any{},
		"store": or(req.body["store"], true), "temperature": or(req.body["temperature"], 1.0), "top_p": or(req.body["top_p"], 1.0),
		"tool_choice": or(req.body["tool_choice"], "auto"), "tools": or(req.body["tools"], []any{}),
		"text": or(req.body["text"], map[string]any{"format": map[string]any{"type": "text"}}),
		"usage": map[string]any{
			"input_tokens": r.promptTokens, "input_tokens_details": map[string]any{"cached_tokens": 0, "cache_write_tokens": 0},
			"output_tokens": r.outputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": r.reasoningTokens},
			"total_tokens": r.promptTokens + r.outputTokens,
		},
	}
	if modelFacts(req.model).reasoning {
		resp["reasoning"] = map[string]any{"effort": "medium", "summary": nil}
	}
	return resp
}

func or(v, def any) any {
	if v == nil {
		return def
	}
	return v
}
