package anthropictest

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/promptcanary/promptcanary/provider/internal/standinlog"
)

// Server is the stand-in for https://api.anthropic.com: POST /v1/messages
// with the headers the API requires, the key in x-api-key. Start it with
// NewServer.
type Server struct{ standinlog.Server }

// NewServer starts a stand-in accepting key; Close it when done.
func NewServer(key string) *Server { return standinlog.Start(&Server{}, key) }

// ServeHTTP checks one request and answers it.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, w, done := s.Begin(w, req)
	defer done()
	if req.Method != http.MethodPost || req.URL.Path != "/v1/messages" {
		WriteError(w, &Error{Status: 404, Type: "not_found_error", Message: "Not found"})
		return
	}
	if err := checkHeaders(req.Header, s.Key); err != nil {
		WriteError(w, err)
		return
	}
	r, err := Check(body, "")
	if err != nil {
		WriteError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_standin")
	w.Write(Reply(r))
}

// checkHeaders requires x-api-key (the key), anthropic-version and a JSON
// content-type. https://docs.anthropic.com/en/api/overview#authentication
// ("x-api-key", "anthropic-version", "content-type": required headers)
func checkHeaders(h http.Header, key string) *Error {
	switch got := h.Get("x-api-key"); {
	case got == "":
		return &Error{Status: 401, Type: "authentication_error", Message: "x-api-key header is required"}
	case got != key:
		return &Error{Status: 401, Type: "authentication_error", Message: "invalid x-api-key"}
	}
	if h.Get("anthropic-version") == "" {
		return invalid("anthropic-version: header is required")
	}
	return CheckContentType(h)
}

// CheckContentType requires a JSON body.
func CheckContentType(h http.Header) *Error {
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != "application/json" {
		return invalid("content-type: want application/json")
	}
	return nil
}

// WriteError writes e in the API's error shape.
// https://docs.anthropic.com/en/api/errors
func WriteError(w http.ResponseWriter, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	json.NewEncoder(w).Encode(map[string]any{
		"type":       "error",
		"error":      map[string]string{"type": e.Type, "message": e.Message},
		"request_id": "req_standin",
	})
}

// Reply is the answer to a checked request, in the API's response shape.
// What it answers depends on the request:
//   - a last user turn containing "refuse": stop_reason "refusal", no content;
//   - tool results in the last turn: a text answer quoting them;
//   - tools, unless tool_choice is none: a tool_use block per tool called
//     (every tool at once for auto and any, the named one for tool), with
//     input made from the schema's required properties;
//   - extended thinking: a thinking block first; with "think hard" in the
//     prompt thinking spends the whole budget, and when max_tokens leaves
//     no room for the answer the content is the thinking block alone with
//     stop_reason "max_tokens", as the API does;
//   - otherwise a short text.
func Reply(r *Request) []byte {
	text := strings.ToLower(r.LastUserText())
	var content []map[string]any
	stop, out := "end_turn", 0
	if r.Budget > 0 {
		spent := 120
		if strings.Contains(text, "think hard") {
			spent = r.Budget
		}
		content = append(content, map[string]any{"type": "thinking", "thinking": "Let me think about this.", "signature": "EqQBCgIYAhIMstandin"})
		out += spent
	}
	answer, calls, stop2 := reply(r, text)
	if r.Budget > 0 && out+answerTokens(answer, calls) > r.MaxTokens {
		return message(r, content, "max_tokens", r.MaxTokens)
	}
	if answer != "" {
		if words := strings.Fields(answer); len(words) > r.MaxTokens {
			answer, stop2 = strings.Join(words[:r.MaxTokens], " "), "max_tokens"
		}
		content = append(content, map[string]any{"type": "text", "text": answer})
	}
	content = append(content, calls...)
	if stop2 == "refusal" {
		content = []map[string]any{}
	}
	stop = stop2
	return message(r, content, stop, out+answerTokens(answer, calls))
}

// reply picks the answer's text, tool calls and stop reason.
func reply(r *Request, text string) (string, []map[string]any, string) {
	if strings.Contains(text, "refuse") {
		return "", nil, "refusal"
	}
	typ, _ := r.ToolChoice["type"].(string)
	forced := typ == "tool" || typ == "any"
	if res := r.toolResults(); len(res) > 0 && !forced {
		return "The tool returned: " + strings.Join(res, "; "), nil, "end_turn"
	}
	if len(r.Tools) == 0 || typ == "none" {
		if strings.Contains(text, "capital of france") {
			return "Paris.", nil, "end_turn"
		}
		return "Understood. Here is a short answer.", nil, "end_turn"
	}
	var calls []map[string]any
	for i, t := range r.Tools {
		if typ == "tool" && t.Name != r.ToolChoice["name"] {
			continue
		}
		calls = append(calls, map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_standin%02d", i), "name": t.Name, "input": Input(t.InputSchema),
		})
	}
	lead := "I'll call the tools."
	if forced {
		lead = "" // a forced call comes without text
	}
	return lead, calls, "tool_use"
}

func answerTokens(answer string, calls []map[string]any) int {
	return len(strings.Fields(answer)) + 10*len(calls)
}

// message writes the response object.
func message(r *Request, content []map[string]any, stop string, out int) []byte {
	in := 8
	for _, m := range r.Messages {
		for _, b := range m.Content {
			if b.Text != nil {
				in += len(strings.Fields(*b.Text))
			}
			in += len(b.Content) / 4
		}
	}
	body, _ := json.Marshal(map[string]any{
		"id": "msg_01StandIn", "type": "message", "role": "assistant", "model": servedModel(r.Model),
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "output_tokens": out, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "service_tier": "standard"},
	})
	return body
}

// Input is a value matching schema: each required property with a value
// of its type (the first of an enum), other properties left out.
func Input(schema map[string]any) map[string]any { return standinlog.Required(schema, Value) }

// Value is a value of the type schema names.
func Value(schema map[string]any) any {
	if e, ok := schema["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch t, _ := schema["type"].(string); t {
	case "number", "integer":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return Input(schema)
	}
	return "Paris"
}
