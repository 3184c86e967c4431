// Package ollamatest is a stand-in for Ollama's /api/chat, as strict as
// the server about what it can check without a model: it rejects the
// requests the documented request schema rules out, and answers the
// others the way Ollama does (one JSON object with "stream": false).
//
// Rules, from https://github.com/ollama/ollama/blob/main/docs/api.md
// (Generate a chat completion) and the server's api.ChatRequest type:
//   - model is required ("model is required", HTTP 400); a model the
//     server does not have answers HTTP 404 (model "x" not found).
//   - messages: objects with role system, user, assistant or tool and a
//     string content; tool_calls only on assistant messages, each with
//     function.name and function.arguments as a JSON object (the server
//     decodes it into a map, so a string is a 400).
//   - format: "json" or a JSON schema object.
//   - options: an object; stream: a boolean (this stand-in answers only
//     "stream": false, which PromptCanary always sends).
package ollamatest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	"github.com/promptcanary/promptcanary/provider/internal/standinlog"
)

// Server is a running stand-in. Requests holds every request body it
// accepted, in order.
type Server struct {
	*httptest.Server
	// Models are the models the server has; empty means any.
	Models []string
	// OnRequest, when set, is called with the body of every accepted
	// request (a transcript logs them to a file to grep).
	OnRequest func(body []byte)
	mu        sync.Mutex
	bodies    []map[string]any
}

// New starts a stand-in; close it with Close.
func New() *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns the bodies of the accepted requests, in order.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bodies)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(data, &body); err != nil {
		fail(w, http.StatusBadRequest, "invalid request: "+err.Error())
		return
	}
	if err := Check(body); err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	model := body["model"].(string)
	if len(s.Models) > 0 && !slices.Contains(s.Models, model) {
		fail(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", model))
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	if s.OnRequest != nil {
		s.OnRequest(data)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(answer(body))
}

func fail(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// roles are the documented message roles.
var roles = []string{"system", "user", "assistant", "tool"}

// Check returns why Ollama would reject a chat request body, nil when it
// would take it.
func Check(body map[string]any) error {
	if m, ok := body["model"].(string); !ok || m == "" {
		return fmt.Errorf("model is required")
	}
	if v, ok := body["stream"]; ok && v != false {
		return fmt.Errorf("stand-in answers only \"stream\": false, got %v", v)
	}
	msgs, ok := body["messages"].([]any)
	if !ok && body["messages"] != nil {
		return fmt.Errorf("json: cannot unmarshal %T into Go struct field ChatRequest.messages of type []api.Message", body["messages"])
	}
	for i, m := range msgs {
		if err := checkMessage(m); err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
	}
	if f, ok := body["format"]; ok {
		switch v := f.(type) {
		case string:
			if v != "json" && v != "" {
				return fmt.Errorf("invalid format: %q: use \"json\" or a JSON schema", v)
			}
		case map[string]any:
		default:
			return fmt.Errorf("invalid format: %v: use \"json\" or a JSON schema", f)
		}
	}
	if o, ok := body["options"]; ok {
		if _, isMap := o.(map[string]any); !isMap {
			return fmt.Errorf("json: cannot unmarshal %T into Go struct field ChatRequest.options of type map[string]interface {}", o)
		}
	}
	return nil
}

// checkMessage checks one chat message.
func checkMessage(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("json: cannot unmarshal %T into Go value of type api.Message", v)
	}
	role, _ := m["role"].(string)
	if !slices.Contains(roles, role) {
		return fmt.Errorf("invalid role %q: use one of %s", role, strings.Join(roles, ", "))
	}
	if c, ok := m["content"]; ok {
		if _, isStr := c.(string); !isStr {
			return fmt.Errorf("json: cannot unmarshal %T into Go struct field Message.content of type string", c)
		}
	}
	calls, has := m["tool_calls"]
	if !has {
		return nil
	}
	if role != "assistant" {
		return fmt.Errorf("tool_calls on a %s message", role)
	}
	list, ok := calls.([]any)
	if !ok {
		return fmt.Errorf("json: cannot unmarshal %T into Go struct field Message.tool_calls of type []api.ToolCall", calls)
	}
	for j, c := range list {
		call, _ := c.(map[string]any)
		fn, _ := call["function"].(map[string]any)
		if name, _ := fn["name"].(string); name == "" {
			return fmt.Errorf("tool_calls[%d]: function.name is required", j)
		}
		if _, isObj := fn["arguments"].(map[string]any); !isObj {
			return fmt.Errorf("tool_calls[%d]: json: cannot unmarshal %T into Go struct field ToolCallFunction.function.arguments of type api.ToolCallFunctionArguments", j, fn["arguments"])
		}
	}
	return nil
}

// answer is the reply to an accepted request: JSON when a format was
// asked for, else a text that quotes the last tool result, else a
// greeting.
func answer(body map[string]any) map[string]any {
	content := "Hello! How are you today?"
	msgs, _ := body["messages"].([]any)
	if len(msgs) > 0 {
		last, _ := msgs[len(msgs)-1].(map[string]any)
		if last["role"] == "tool" {
			content = fmt.Sprintf("The %v tool says: %v", last["tool_name"], last["content"])
		}
	}
	switch f := body["format"].(type) {
	case string:
		if f == "json" {
			content = `{"answer": "hello"}`
		}
	case map[string]any:
		b, _ := json.Marshal(Example(f))
		content = string(b)
	}
	return map[string]any{
		"model": body["model"], "created_at": "2026-12-03T12:00:00.000000Z",
		"message":     map[string]any{"role": "assistant", "content": content},
		"done_reason": "stop", "done": true,
		"prompt_eval_count": 26, "eval_count": 12,
	}
}

// Example returns a value of the schema's shape: each required property
// of an object with a value of its type.
func Example(schema map[string]any) any {
	switch schema["type"] {
	case "object":
		return standinlog.Required(schema, Example)
	case "array":
		return []any{}
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "null":
		return nil
	}
	if e, ok := schema["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	return "text"
}
