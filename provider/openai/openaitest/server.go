// Package openaitest is a strict local stand-in for the OpenAI API, for
// tests of the openai client and for CLI transcripts. It serves
// POST /v1/chat/completions and POST /v1/responses and rejects what the
// real API rejects: every request body is validated against the official
// OpenAPI schemas (CreateChatCompletionRequest, CreateResponse, embedded
// from github.com/openai/openai-openapi), unknown parameters are refused,
// the documented per-model rules apply (reasoning models take no
// temperature but 1, no top_p and no max_tokens; pro and codex models are
// served by the Responses API only), a bearer key is required, and
// conversations must be consistent (a tool result answers an earlier call).
// Errors come in the real {"error":{message,type,param,code}} shape.
//
// Answers are in the real shapes too, and a test picks the edge case per
// model with Set: plain text, JSON, parallel tool calls, a refusal, an
// answer whose whole budget went to reasoning, or HTTP 429 with the
// rate-limit headers.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// DefaultKey is the API key a Server expects unless told otherwise.
const DefaultKey = "sk-standin-0123456789abcdefDO-NOT-LEAK"

// Behaviour selects how the stand-in answers a model.
type Behaviour string

// The behaviours a test can pick with Set.
const (
	// Auto answers as a model would: a tool call when tools are offered
	// and the conversation does not end with a tool result, JSON when
	// structured output is asked for, text otherwise.
	Auto Behaviour = "auto"
	// Text always answers plain text.
	Text Behaviour = "text"
	// JSON answers a JSON object (matching the asked schema, if any).
	JSON Behaviour = "json"
	// ParallelTools answers two tool calls at once.
	ParallelTools Behaviour = "parallel_tools"
	// Refusal answers a refusal: chat's message.refusal with null
	// content, the Responses API's refusal content part.
	// https://platform.openai.com/docs/guides/structured-outputs#refusals
	Refusal Behaviour = "refusal"
	// Length spends the whole output budget on reasoning: empty content
	// with finish_reason "length" (chat) or status "incomplete" with
	// reason max_output_tokens (responses).
	// https://platform.openai.com/docs/guides/reasoning#allocating-space-for-reasoning
	Length Behaviour = "length"
	// RateLimited answers HTTP 429 with retry-after and
	// x-ratelimit-reset-* headers.
	// https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
	RateLimited Behaviour = "rate_limited"
	// ManyTools answers ManyToolCalls parallel tool calls at once, as a
	// model caught in a loop might; the API sets no limit on their number
	// in an answer (parallel_tool_calls only allows more than one).
	// https://platform.openai.com/docs/guides/function-calling#parallel-function-calling
	ManyTools Behaviour = "many_tools"
)

// ManyToolCalls is the number of tool calls a ManyTools answer holds.
const ManyToolCalls = 20000

// Behaviours lists every behaviour, for usage messages.
var Behaviours = []Behaviour{Auto, Text, JSON, ParallelTools, Refusal, Length, RateLimited, ManyTools}

// Request is one request the stand-in received, with its verdict.
type Request struct {
	Path string
	// Model is the body's model, "" when there was none.
	Model  string
	Header http.Header
	Body   []byte
	// Status is the status answered; Error the message of a rejection.
	Status int
	Error  string
}

// Server is the stand-in. Its URL plus "/v1" is the base URL to give
// the client. It is safe for concurrent use.
type Server struct {
	*httptest.Server
	// Key is the key expected in "Authorization: Bearer KEY".
	Key string
	// OnRequest, when set before the first request, is called with each
	// request once it is answered (transcripts log them to a file).
	OnRequest func(Request)

	mu        sync.Mutex
	behaviour map[string]Behaviour
	limited   int
	requests  []Request
}

// New starts a stand-in expecting DefaultKey, answering Auto. Close it
// when done.
func New() *Server {
	s := &Server{Key: DefaultKey, behaviour: map[string]Behaviour{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Start is New for a test: the server is closed when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := New()
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the base URL a client is given: the server's URL plus /v1.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Set makes the stand-in answer model with b; model "" sets the default
// for models without their own.
func (s *Server) Set(model string, b Behaviour) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.behaviour[model] = b
}

// RateLimitNext answers the next n accepted requests with HTTP 429
// before answering normally again.
func (s *Server) RateLimitNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited = n
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Rejections returns the requests answered with a 4xx other than 429:
// what the real API would have refused.
func (s *Server) Rejections() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Status >= 400 && r.Status < 500 && r.Status != http.StatusTooManyRequests {
			out = append(out, r)
		}
	}
	return out
}

// Last returns the last request received; ok is false when none came.
func (s *Server) Last() (r Request, ok bool) {
	rs := s.Requests()
	if len(rs) == 0 {
		return Request{}, false
	}
	return rs[len(rs)-1], true
}

// behaviourFor returns model's behaviour and consumes one forced 429.
func (s *Server) behaviourFor(model string) Behaviour {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limited > 0 {
		s.limited--
		return RateLimited
	}
	if b, ok := s.behaviour[model]; ok {
		return b
	}
	if b, ok := s.behaviour[""]; ok {
		return b
	}
	return Auto
}

func (s *Server) record(r *http.Request, body []byte, status int, msg string) {
	var m struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &m)
	req := Request{Path: r.URL.Path, Model: m.Model, Header: r.Header.Clone(), Body: body, Status: status, Error: msg}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if s.OnRequest != nil {
		s.OnRequest(req)
	}
}

// maxBody bounds what the stand-in reads of a request.
const maxBody = 8 << 20

// serve routes, authenticates, validates and answers one request.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxBody))
	var api string
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		api = apiChat
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		api = apiResponses
	default:
		// https://platform.openai.com/docs/guides/error-codes
		e := &apiError{status: http.StatusNotFound, typ: "invalid_request_error",
			message: fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path)}
		s.fail(w, r, body, e)
		return
	}
	if e := s.authenticate(r); e != nil {
		s.fail(w, r, body, e)
		return
	}
	req, e := parse(api, body)
	if e != nil {
		s.fail(w, r, body, e)
		return
	}
	b := s.behaviourFor(req.model)
	if b == RateLimited {
		rateLimit(w, req.model)
		s.record(r, body, http.StatusTooManyRequests, "rate limited")
		return
	}
	answer := answerChat
	if api == apiResponses {
		answer = answerResponses
	}
	out, _ := json.Marshal(answer(req, b))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", "req_standin")
	_, _ = w.Write(out)
	s.record(r, body, http.StatusOK, "")
}

// authenticate requires "Authorization: Bearer KEY".
// https://platform.openai.com/docs/api-reference/authentication
func (s *Server) authenticate(r *http.Request) *apiError {
	h := r.Header.Get("Authorization")
	key, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || strings.TrimSpace(key) == "" {
		return &apiError{status: http.StatusUnauthorized, typ: "invalid_request_error",
			message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys."}
	}
	if key != s.Key {
		return &apiError{status: http.StatusUnauthorized, typ: "invalid_request_error", code: "invalid_api_key",
			message: "Incorrect API key provided: " + mask(key) + ". You can find your API key at https://platform.openai.com/account/api-keys."}
	}
	return nil
}

// mask shows a key as the API does: its start and its last four.
func mask(key string) string {
	if len(key) < 8 {
		return "****"
	}
	return key[:3] + "*****" + key[len(key)-4:]
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, body []byte, e *apiError) {
	e.write(w)
	s.record(r, body, e.status, e.message)
}

// apiError is an error answer in the API's shape.
type apiError struct {
	status                    int
	message, typ, param, code string
}

func (e *apiError) write(w http.ResponseWriter) {
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	out, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": e.message, "type": e.typ, "param": null(e.param), "code": null(e.code),
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_, _ = w.Write(out)
}

// rateLimit answers 429 with the headers the API sends.
// https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers
// https://platform.openai.com/docs/guides/error-codes#api-errors
func rateLimit(w http.ResponseWriter, model string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Ratelimit-Limit-Requests", "500")
	h.Set("X-Ratelimit-Remaining-Requests", "0")
	h.Set("X-Ratelimit-Reset-Requests", "20ms")
	h.Set("X-Ratelimit-Limit-Tokens", "30000")
	h.Set("X-Ratelimit-Remaining-Tokens", "0")
	h.Set("X-Ratelimit-Reset-Tokens", "20ms")
	h.Set("Retry-After-Ms", "20")
	h.Set("Retry-After", "1")
	e := &apiError{status: http.StatusTooManyRequests, typ: "requests", code: "rate_limit_exceeded",
		message: "Rate limit reached for " + model + " in organization org-standin on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 20ms. Visit https://platform.openai.com/account/rate-limits to learn more."}
	e.write(w)
}
