package geminitest

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/promptcanary/promptcanary/provider/internal/standinlog"
)

// Server is the stand-in for https://generativelanguage.googleapis.com:
// POST /v1beta/models/MODEL:generateContent with the key in
// x-goog-api-key. Start it with NewServer.
type Server struct{ standinlog.Server }

// NewServer starts a stand-in accepting key; Close it when done.
func NewServer(key string) *Server { return standinlog.Start(&Server{}, key) }

// ServeHTTP checks one request and answers it.
func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, w, done := s.Begin(w, req)
	defer done()
	rest, ok := strings.CutPrefix(req.URL.Path, "/v1beta/models/")
	model, found := strings.CutSuffix(rest, ":generateContent")
	if req.Method != http.MethodPost || !ok || !found {
		WriteError(w, &Error{Code: 404, Status: "NOT_FOUND", Message: "The requested URL " + req.URL.Path + " was not found on this server."})
		return
	}
	// https://ai.google.dev/api#authentication: the key in x-goog-api-key
	// (or ?key=, which leaks into logs and is not accepted here).
	switch got := req.Header.Get("x-goog-api-key"); {
	case got == "":
		WriteError(w, &Error{Code: 403, Status: "PERMISSION_DENIED", Message: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."})
		return
	case got != s.Key:
		WriteError(w, &Error{Code: 400, Status: "INVALID_ARGUMENT", Message: "API key not valid. Please pass a valid API key."})
		return
	}
	if err := CheckContentType(req.Header); err != nil {
		WriteError(w, err)
		return
	}
	r, err := Check(body, model, false)
	if err != nil {
		WriteError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Write(Reply(r))
}

// CheckContentType requires a JSON body.
func CheckContentType(h http.Header) *Error {
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != "application/json" {
		return invalid("Invalid JSON payload received. Content-Type must be application/json.")
	}
	return nil
}

// WriteError writes e in the API's error shape.
// https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
func WriteError(w http.ResponseWriter, e *Error) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(e.Code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": e.Code, "message": e.Message, "status": e.Status}})
}

// Reply is the answer to a checked request, in the API's response shape.
// What it answers depends on the request:
//   - a last user turn containing "blocked prompt": no candidates and
//     promptFeedback.blockReason PROHIBITED_CONTENT;
//   - one containing "refuse": a candidate with no content and
//     finishReason SAFETY;
//   - a thinking model thinks first, within maxOutputTokens: 200 tokens,
//     or 8000 with "think hard" in the prompt (the budget when one is
//     set); when that leaves no room for the answer the candidate has no
//     parts and finishReason MAX_TOKENS, as the API answers;
//   - function responses in the last turn: a text quoting them;
//   - tools in mode AUTO or ANY: one functionCall part per tool called
//     (every allowed tool at once);
//   - responseMimeType application/json: JSON made from the schema;
//   - otherwise a short text.
func Reply(r *Request) []byte {
	text := strings.ToLower(r.lastUserText())
	usage := map[string]any{"promptTokenCount": r.promptTokens()}
	out := map[string]any{"usageMetadata": usage, "modelVersion": r.Model, "responseId": "standin-response-1"}
	if strings.Contains(text, "blocked prompt") {
		out["promptFeedback"] = map[string]any{"blockReason": "PROHIBITED_CONTENT"}
		usage["totalTokenCount"] = usage["promptTokenCount"]
		return marshal(out)
	}
	thoughts := 0
	if r.Budget != 0 {
		thoughts = 200
		if strings.Contains(text, "think hard") {
			thoughts = 8000
		}
		if r.Budget > 0 {
			thoughts = min(thoughts, r.Budget)
		}
		usage["thoughtsTokenCount"] = min(thoughts, r.MaxOutput)
	}
	cand := map[string]any{"index": 0}
	out["candidates"] = []any{cand}
	parts, finish := r.answer(text)
	answerTokens := 0
	for _, p := range parts {
		answerTokens += 8
		if t, ok := p["text"].(string); ok {
			answerTokens += len(strings.Fields(t))
		}
	}
	switch {
	case finish == "SAFETY":
		cand["finishReason"] = "SAFETY"
		cand["safetyRatings"] = []any{map[string]any{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}}
	case thoughts+answerTokens > r.MaxOutput:
		// The budget went to thinking: content without parts.
		cand["content"] = map[string]any{"role": "model"}
		cand["finishReason"] = "MAX_TOKENS"
	default:
		if r.IncludeThoughts && thoughts > 0 {
			parts = append([]map[string]any{{"text": "**Thinking** about the answer.", "thought": true}}, parts...)
		}
		cand["content"] = map[string]any{"role": "model", "parts": parts}
		cand["finishReason"] = finish
		usage["candidatesTokenCount"] = answerTokens
	}
	usage["totalTokenCount"] = r.promptTokens() + min(thoughts, r.MaxOutput) + answerTokens
	return marshal(out)
}

func marshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// answer picks the parts of the answer and the finish reason.
func (r *Request) answer(text string) ([]map[string]any, string) {
	if strings.Contains(text, "refuse") {
		return nil, "SAFETY"
	}
	if res := r.functionResponses(); len(res) > 0 && r.Mode != "ANY" {
		return []map[string]any{{"text": "The tools returned: " + strings.Join(res, "; ")}}, "STOP"
	}
	if len(r.Tools) > 0 && (r.Mode == "AUTO" || r.Mode == "ANY" || r.Mode == "VALIDATED") {
		var parts []map[string]any
		for _, name := range r.Tools {
			if len(r.Allowed) > 0 && !contains(r.Allowed, name) {
				continue
			}
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": name, "args": map[string]any{"location": "Paris"}}})
		}
		return parts, "STOP"
	}
	if r.MIMEType == "application/json" {
		return []map[string]any{{"text": string(marshal(Value(r.Schema)))}}, "STOP"
	}
	if strings.Contains(text, "capital of france") {
		return []map[string]any{{"text": "Paris."}}, "STOP"
	}
	return []map[string]any{{"text": "Understood. Here is a short answer."}}, "STOP"
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// lastUserText is the text of the last user turn.
func (r *Request) lastUserText() string {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		if r.Contents[i].Role != "user" {
			continue
		}
		var b strings.Builder
		for _, p := range r.Contents[i].Parts {
			if p.Text != nil {
				b.WriteString(*p.Text)
			}
		}
		return b.String()
	}
	return ""
}

// functionResponses are the responses in the last turn, as JSON.
func (r *Request) functionResponses() []string {
	var out []string
	for _, p := range r.Contents[len(r.Contents)-1].Parts {
		if p.FunctionResponse != nil {
			out = append(out, string(marshal(p.FunctionResponse.Response)))
		}
	}
	return out
}

func (r *Request) promptTokens() int {
	n := 4
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p.Text != nil {
				n += len(strings.Fields(*p.Text))
			}
		}
	}
	return n
}

// Value is a JSON value matching schema (a Schema or a JSON Schema): an
// object with its required properties, the first of an enum, or a value
// of the named type.
func Value(schema map[string]any) any {
	if e, ok := schema["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	t, _ := schema["type"].(string)
	switch strings.ToLower(t) {
	case "number", "integer":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	case "string":
		return "Paris"
	}
	return standinlog.Required(schema, Value)
}
