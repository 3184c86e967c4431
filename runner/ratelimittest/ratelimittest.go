// Package ratelimittest is a stand-in for OpenAI's chat completions API
// that turns a fixed share of the calls away with HTTP 429, as an account
// near its rate limits sees it: each 429 names its delay in retry-after-ms
// and Retry-After, or only in the x-ratelimit-reset-* headers
// (https://platform.openai.com/docs/guides/rate-limits). It checks each
// request as the real API does (the parameters of
// CreateChatCompletionRequest in the official OpenAPI document,
// openai/openai-openapi 2.3.0, and
// https://platform.openai.com/docs/api-reference/chat/create) and answers
// the others with a chat.completion. The run engine's tests, the CLI
// transcripts and the benchmark use it.
package ratelimittest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config shapes a stand-in.
type Config struct {
	// Percent of the requests answered 429, 0 to 100: request n (from 0)
	// is refused when ⌊(n+1)·Percent/100⌋ > ⌊n·Percent/100⌋, so that the
	// refusals are spread evenly and exactly Percent of every 100.
	Percent int
	// Delay is the wait each 429 asks for; 0 means 20 ms.
	Delay time.Duration
	// Key is the API key a request must carry as a bearer token.
	Key string
	// Answer is the content of every answer; "" means "4".
	Answer string
	// Latency delays every answer, 429s included.
	Latency time.Duration
}

// Server is a running stand-in.
type Server struct {
	*httptest.Server
	cfg Config
	// n numbers the requests that passed the checks.
	n atomic.Int64
	// Counts of what the server answered.
	ok, limited, rejected atomic.Int64
	mu                    sync.Mutex
	inflight, maxInflight int
}

// Start serves a stand-in for cfg on a loopback port; Close it when done.
// Its chat completions URL is URL + "/v1/chat/completions".
func Start(cfg Config) *Server {
	if cfg.Delay <= 0 {
		cfg.Delay = 20 * time.Millisecond
	}
	if cfg.Answer == "" {
		cfg.Answer = "4"
	}
	cfg.Percent = min(max(cfg.Percent, 0), 100)
	s := &Server{cfg: cfg}
	s.Server = httptest.NewServer(s)
	return s
}

// Counts are what a stand-in answered.
type Counts struct {
	// OK, Limited and Rejected count the answers, 429s and requests
	// refused as invalid (4xx other than 429).
	OK, Limited, Rejected int
	// MaxInflight is the most requests it held at once.
	MaxInflight int
}

// Counts returns what s answered so far.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Counts{OK: int(s.ok.Load()), Limited: int(s.limited.Load()), Rejected: int(s.rejected.Load()), MaxInflight: s.maxInflight}
}

// ServeHTTP answers POST /v1/chat/completions.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.inflight++
	s.maxInflight = max(s.maxInflight, s.inflight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inflight--
		s.mu.Unlock()
	}()
	model, status, err := s.check(r)
	if err != nil {
		s.rejected.Add(1)
		writeError(w, status, err)
		return
	}
	if s.cfg.Latency > 0 {
		select {
		case <-time.After(s.cfg.Latency):
		case <-r.Context().Done():
			return
		}
	}
	n := s.n.Add(1) - 1
	if refused(n, s.cfg.Percent) {
		s.limited.Add(1)
		s.rateLimit(w, n, model)
		return
	}
	s.ok.Add(1)
	writeJSON(w, http.StatusOK, completion(n, model, s.cfg.Answer))
}

// refused reports whether request n is among the percent refused.
func refused(n int64, percent int) bool {
	p := int64(percent)
	return (n+1)*p/100 > n*p/100
}

// apiError is an error of OpenAI's shape with its status.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func (e *apiError) Error() string { return e.Message }

// invalid is a 400 invalid_request_error about param.
func invalid(param, code, format string, args ...any) *apiError {
	e := &apiError{Message: fmt.Sprintf(format, args...), Type: "invalid_request_error"}
	if param != "" {
		e.Param = &param
	}
	if code != "" {
		e.Code = &code
	}
	return e
}

// check validates the request as the real API would and returns its model.
func (s *Server) check(r *http.Request) (string, int, *apiError) {
	if r.URL.Path != "/v1/chat/completions" {
		return "", http.StatusNotFound, invalid("", "unknown_url", "Invalid URL (%s %s)", r.Method, r.URL.Path)
	}
	if r.Method != http.MethodPost {
		return "", http.StatusMethodNotAllowed, invalid("", "method_not_allowed", "Invalid method for URL (%s %s)", r.Method, r.URL.Path)
	}
	if r.Header.Get("Authorization") != "Bearer "+s.cfg.Key {
		return "", http.StatusUnauthorized, invalid("", "invalid_api_key", "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.")
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return "", http.StatusBadRequest, invalid("", "", "Invalid Content-Type header (%q), expected application/json", ct)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return "", http.StatusBadRequest, invalid("", "", "could not read the body")
	}
	model, e := checkBody(body)
	if e != nil {
		return "", http.StatusBadRequest, e
	}
	return model, 0, nil
}

// params are the properties of CreateChatCompletionRequest in the
// official OpenAPI document (openai/openai-openapi 2.3.0); the real API
// refuses any other ("Unrecognized request argument supplied").
var params = map[string]bool{
	"audio": true, "frequency_penalty": true, "function_call": true, "functions": true, "logit_bias": true,
	"logprobs": true, "max_completion_tokens": true, "max_tokens": true, "messages": true, "metadata": true,
	"modalities": true, "model": true, "moderation": true, "n": true, "parallel_tool_calls": true,
	"prediction": true, "presence_penalty": true, "prompt_cache_key": true, "prompt_cache_options": true,
	"prompt_cache_retention": true, "reasoning_effort": true, "response_format": true, "safety_identifier": true,
	"seed": true, "service_tier": true, "stop": true, "store": true, "stream": true, "stream_options": true,
	"temperature": true, "tool_choice": true, "tools": true, "top_logprobs": true, "top_p": true, "user": true,
	"verbosity": true, "web_search_options": true,
}

// checkBody validates a request body against the schema's rules for the
// parameters a client sends and returns the model.
func checkBody(body []byte) (string, *apiError) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil || req == nil {
		return "", invalid("", "", "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)")
	}
	for k := range req {
		if !params[k] {
			return "", invalid(k, "", "Unrecognized request argument supplied: %s", k)
		}
	}
	var model string
	if json.Unmarshal(req["model"], &model) != nil || model == "" {
		return "", invalid("model", "", "you must provide a model parameter")
	}
	if e := checkMessages(req["messages"]); e != nil {
		return "", e
	}
	for _, r := range []struct {
		name     string
		min, max float64
		integer  bool
	}{
		{"temperature", 0, 2, false}, {"top_p", 0, 1, false}, {"n", 1, 128, true},
		{"max_tokens", 1, math.MaxInt32, true}, {"max_completion_tokens", 1, math.MaxInt32, true},
		{"presence_penalty", -2, 2, false}, {"frequency_penalty", -2, 2, false}, {"seed", math.MinInt64, math.MaxInt64, true},
	} {
		if e := checkNumber(req, r.name, r.min, r.max, r.integer); e != nil {
			return "", e
		}
	}
	// The real API's answer to both, as users report it
	// (https://github.com/langchain-ai/langgraph/issues/5943).
	if req["max_tokens"] != nil && req["max_completion_tokens"] != nil && string(req["max_tokens"]) != "null" && string(req["max_completion_tokens"]) != "null" {
		return "", invalid("max_tokens", "invalid_parameter_combination", "Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.")
	}
	return model, nil
}

// checkNumber checks that req's name, when present and not null, is a
// number (an integer when integer) in [lo, hi].
func checkNumber(req map[string]json.RawMessage, name string, lo, hi float64, integer bool) *apiError {
	raw, ok := req[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	var v float64
	if json.Unmarshal(raw, &v) != nil {
		return invalid(name, "invalid_type", "Invalid type for '%s': expected a number, but got %s instead.", name, raw)
	}
	if integer && v != math.Trunc(v) {
		return invalid(name, "invalid_type", "Invalid type for '%s': expected an integer, but got a decimal number instead.", name)
	}
	if v < lo {
		return invalid(name, "decimal_below_min_value", "Invalid '%s': decimal below minimum value. Expected a value >= %g, but got %g instead.", name, lo, v)
	}
	if v > hi {
		return invalid(name, "decimal_above_max_value", "Invalid '%s': decimal above maximum value. Expected a value <= %g, but got %g instead.", name, hi, v)
	}
	return nil
}

// roles are the roles of ChatCompletionRequestMessage's variants.
var roles = map[string]bool{"developer": true, "system": true, "user": true, "assistant": true, "tool": true, "function": true}

// checkMessages checks the messages array: at least one, each with a
// known role and the content the role requires.
func checkMessages(raw json.RawMessage) *apiError {
	var msgs []map[string]json.RawMessage
	if raw == nil {
		return invalid("messages", "", "Missing required parameter: 'messages'.")
	}
	if json.Unmarshal(raw, &msgs) != nil {
		return invalid("messages", "invalid_type", "Invalid type for 'messages': expected an array of objects.")
	}
	if len(msgs) == 0 {
		return invalid("messages", "empty_array", "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	}
	for i, m := range msgs {
		var role string
		_ = json.Unmarshal(m["role"], &role)
		param := fmt.Sprintf("messages.[%d].role", i)
		if !roles[role] {
			return invalid(param, "invalid_value", "Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", role)
		}
		content, has := m["content"]
		switch {
		case role == "assistant" && (!has || string(content) == "null") && m["tool_calls"] != nil:
		case !has:
			return invalid(fmt.Sprintf("messages.[%d].content", i), "", "Missing required parameter: 'messages.[%d].content'.", i)
		case content[0] != '"' && content[0] != '[':
			return invalid(fmt.Sprintf("messages.[%d].content", i), "invalid_type", "Invalid type for 'messages.[%d].content': expected one of a string or array of objects, but got %s instead.", i, content)
		}
		if role == "tool" && m["tool_call_id"] == nil {
			return invalid(fmt.Sprintf("messages.[%d].tool_call_id", i), "", "Missing required parameter: 'messages.[%d].tool_call_id'.", i)
		}
	}
	return nil
}

// rateLimit answers request n with a 429 as OpenAI does: its error body,
// and the delay in retry-after-ms and Retry-After for even requests, in
// the x-ratelimit-* headers only (the requests window exhausted, the
// tokens one not) for odd ones.
func (s *Server) rateLimit(w http.ResponseWriter, n int64, model string) {
	h := w.Header()
	d := s.cfg.Delay
	h.Set("x-ratelimit-limit-requests", "500")
	h.Set("x-ratelimit-limit-tokens", "200000")
	h.Set("x-ratelimit-remaining-tokens", "199000")
	h.Set("x-ratelimit-reset-tokens", "6m0s")
	if n%2 == 0 {
		h.Set("retry-after-ms", strconv.FormatInt(max(d.Milliseconds(), 1), 10))
		h.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(d.Seconds())), 10))
		h.Set("x-ratelimit-remaining-requests", "1")
		h.Set("x-ratelimit-reset-requests", "1s")
	} else {
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("x-ratelimit-reset-requests", d.String())
	}
	code := "rate_limit_exceeded"
	writeError(w, http.StatusTooManyRequests, &apiError{
		Message: fmt.Sprintf("Rate limit reached for %s in organization org-standin on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in %v. Visit https://platform.openai.com/account/rate-limits to learn more.", model, d),
		Type:    "requests", Code: &code,
	})
}

// completion is the chat.completion answering request n.
func completion(n int64, model, answer string) map[string]any {
	return map[string]any{
		"id":                 fmt.Sprintf("chatcmpl-standin%08d", n),
		"object":             "chat.completion",
		"created":            1764763200 + n,
		"model":              model,
		"system_fingerprint": "fp_standin01",
		"service_tier":       "default",
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": answer, "refusal": nil, "annotations": []any{}},
			"logprobs":      nil,
			"finish_reason": "stop",
		}},
		"usage": map[string]any{"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
	}
}

func writeError(w http.ResponseWriter, status int, e *apiError) {
	writeJSON(w, status, map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
