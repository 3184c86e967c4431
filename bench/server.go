package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// completionsPath is the one route the fake server answers.
const completionsPath = "/v1/chat/completions"

// maxRequestBody bounds a request body read by the fake server.
const maxRequestBody = 1 << 20

// serverConfig shapes the fake server's answers.
type serverConfig struct {
	// Latency is how long the server takes to answer; Jitter spreads it
	// uniformly over [Latency-Jitter, Latency+Jitter], floored at 0.
	Latency, Jitter time.Duration
	// Fail429, Fail500 and FailTimeout are the fractions of requests
	// answered 429, answered 500, or never answered (the server holds the
	// request until the client gives up). Their sum is at most 1.
	Fail429, Fail500, FailTimeout float64
	// RetryAfter is the delay named in a 429's retry-after-ms header
	// (and, rounded up to whole seconds, in Retry-After).
	RetryAfter time.Duration
	// Seed makes the choice of failing requests and the jitter repeatable.
	Seed uint64
}

// outcome is what the server does with one request.
type outcome int

const (
	answer outcome = iota
	rateLimit
	serverError
	hang
)

// serverCounts are the requests the fake server saw, by outcome.
type serverCounts struct {
	Requests, OK, RateLimited, ServerErrors, Hung int64
	// Conns is the TCP connections the server accepted.
	Conns int64
}

// fakeServer is an OpenAI-compatible Chat Completions server with
// configurable latency and failure injection. It is safe for concurrent use.
type fakeServer struct {
	cfg  serverConfig
	stop chan struct{}

	mu  sync.Mutex
	rng *rand.Rand

	requests, ok, rateLimited, serverErrors, hung, conns atomic.Int64
}

// newFakeServer returns a server for cfg; call shutdown before closing the
// listener so held requests return.
func newFakeServer(cfg serverConfig) *fakeServer {
	return &fakeServer{
		cfg:  cfg,
		stop: make(chan struct{}),
		rng:  rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)),
	}
}

// shutdown releases every held request; it is safe to call once.
func (s *fakeServer) shutdown() { close(s.stop) }

// counts returns the requests seen so far.
func (s *fakeServer) counts() serverCounts {
	return serverCounts{
		Requests:     s.requests.Load(),
		OK:           s.ok.Load(),
		RateLimited:  s.rateLimited.Load(),
		ServerErrors: s.serverErrors.Load(),
		Hung:         s.hung.Load(),
		Conns:        s.conns.Load(),
	}
}

// connState counts new connections; install it as http.Server.ConnState.
func (s *fakeServer) connState(_ net.Conn, st http.ConnState) {
	if st == http.StateNew {
		s.conns.Add(1)
	}
}

// start serves s on a loopback port.
func (s *fakeServer) start() *httptest.Server {
	srv := httptest.NewUnstartedServer(s)
	srv.Config.ConnState = s.connState
	srv.Start()
	return srv
}

// pick draws the outcome and latency of one request.
func (s *fakeServer) pick() (outcome, time.Duration) {
	s.mu.Lock()
	u := s.rng.Float64()
	j := s.rng.Float64()
	s.mu.Unlock()
	return decide(u, s.cfg), jittered(s.cfg.Latency, s.cfg.Jitter, j)
}

// decide maps a uniform draw u in [0, 1) to an outcome: the first
// FailTimeout of the interval hangs, the next Fail429 is rate limited, the
// next Fail500 fails, the rest is answered.
func decide(u float64, cfg serverConfig) outcome {
	switch {
	case u < cfg.FailTimeout:
		return hang
	case u < cfg.FailTimeout+cfg.Fail429:
		return rateLimit
	case u < cfg.FailTimeout+cfg.Fail429+cfg.Fail500:
		return serverError
	}
	return answer
}

// jittered spreads latency uniformly over ±jitter using a draw u in [0, 1).
func jittered(latency, jitter time.Duration, u float64) time.Duration {
	if jitter <= 0 {
		return latency
	}
	d := latency + time.Duration((2*u-1)*float64(jitter))
	return max(d, 0)
}

// chatRequest is the part of a request the server reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// The answer body, in the shape of the real API's.
type (
	chatResponse struct {
		ID                string       `json:"id"`
		Object            string       `json:"object"`
		Created           int64        `json:"created"`
		Model             string       `json:"model"`
		SystemFingerprint string       `json:"system_fingerprint"`
		Choices           []chatChoice `json:"choices"`
		Usage             chatUsage    `json:"usage"`
	}
	chatChoice struct {
		Index        int         `json:"index"`
		Message      chatMessage `json:"message"`
		Logprobs     *struct{}   `json:"logprobs"`
		FinishReason string      `json:"finish_reason"`
	}
	chatMessage struct {
		Role    string  `json:"role"`
		Content string  `json:"content"`
		Refusal *string `json:"refusal"`
	}
	chatUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
	apiError struct {
		Error apiErrorBody `json:"error"`
	}
	apiErrorBody struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    string  `json:"code"`
	}
)

// benchFingerprint is the system_fingerprint of every answer.
const benchFingerprint = "fp_bench0001"

// ServeHTTP answers POST /v1/chat/completions.
func (s *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != completionsPath {
		writeError(w, http.StatusNotFound, "invalid_request_error", "not_found", "unknown path "+strconv.Quote(r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST")
		return
	}
	n := s.requests.Add(1)
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxRequestBody)).Decode(&req); err != nil || req.Model == "" || len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid_body", "request body must be a JSON object with model and messages")
		return
	}
	out, delay := s.pick()
	if out == hang {
		s.hung.Add(1)
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
		return
	}
	if !s.wait(r, delay) {
		return
	}
	switch out {
	case rateLimit:
		s.rateLimited.Add(1)
		h := w.Header()
		h.Set("Retry-After-Ms", strconv.FormatInt(s.cfg.RetryAfter.Milliseconds(), 10))
		h.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(s.cfg.RetryAfter.Seconds())), 10))
		writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded",
			"Rate limit reached for bench-model on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again shortly.")
	case serverError:
		s.serverErrors.Add(1)
		writeError(w, http.StatusInternalServerError, "server_error", "",
			"The server had an error while processing your request. Sorry about that!")
	default:
		s.ok.Add(1)
		writeJSON(w, http.StatusOK, completion(n, &req))
	}
}

// wait sleeps d unless the client goes away or the server stops first; it
// reports whether the request should still be answered.
func (s *fakeServer) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.stop:
	}
	return false
}

// completion builds the answer to the n-th request: a small JSON object as
// content, usage estimated from the words sent.
func completion(n int64, req *chatRequest) chatResponse {
	words := 0
	for _, m := range req.Messages {
		words += len(strings.Fields(m.Content))
	}
	promptTokens := words*4/3 + 8
	content := fmt.Sprintf(`{"answer": %d, "status": "ok", "tags": ["bench", "canary"]}`, n%1000)
	const completionTokens = 18
	return chatResponse{
		ID:                fmt.Sprintf("chatcmpl-bench%012d", n),
		Object:            "chat.completion",
		Created:           1735689600 + n,
		Model:             req.Model,
		SystemFingerprint: benchFingerprint,
		Choices: []chatChoice{{
			Message:      chatMessage{Role: "assistant", Content: content},
			FinishReason: "stop",
		}},
		Usage: chatUsage{PromptTokens: promptTokens, CompletionTokens: completionTokens, TotalTokens: promptTokens + completionTokens},
	}
}

func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeJSON(w, status, apiError{Error: apiErrorBody{Message: msg, Type: typ, Code: code}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
