// Package bedrocktest is a strict local stand-in for Amazon Bedrock's
// Converse API, for the bedrock client's tests and the CLI transcripts.
//
// It refuses what Bedrock refuses: a request whose Signature Version 4 is
// missing or wrong (recomputed with the AWS SDK for Go v2's own signer
// from the known test keys), signed for another region or service, with a
// clock more than five minutes off or a session token missing; a body
// that breaks the Converse request's schema or a model's rules. It
// answers in Converse's response shapes, including parallel toolUse
// blocks, guardrail and content-filter stops, a max_tokens stop with no
// text, and ThrottlingException.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
//
// Markers in the last user text choose an edge case: [standin:throttle]
// (429 once per distinct request), [standin:guardrail], [standin:filtered]
// and [standin:max_tokens].
package bedrocktest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary/provider/internal/standinlog"
)

// Region is the stand-in's region unless Start is given another.
const Region = "us-east-1"

// Call is one request the stand-in accepted (signature and body).
type Call struct {
	// Model is the model id from the path, unescaped.
	Model string
	// Path is the request's path as sent, escaped.
	Path string
	// Body is the decoded request body.
	Body map[string]any
	// Header is the request's headers.
	Header http.Header
}

// Reply is an answer a test scripts instead of the stand-in's own: an
// error (Status >= 400, ErrorType and Message) or a response Body.
type Reply struct {
	Status    int
	ErrorType string
	Message   string
	Body      map[string]any
}

// Server is the stand-in. Its fields may be set before the first request.
type Server struct {
	*httptest.Server
	// Region is the region requests must be signed for.
	Region string
	// Now is the server's clock; nil means time.Now.
	Now func() time.Time
	// Script, when set, answers an accepted call in place of the
	// stand-in's own answer when it returns non-nil.
	Script func(Call) *Reply
	// OnRequest, when set before the first request, is called with each
	// request once it is answered, accepted or not (transcripts log them
	// to a file).
	OnRequest standinlog.Func

	mu        sync.Mutex
	keys      map[string]Key
	calls     []Call
	throttled map[string]bool
	n         int
}

// Start starts a stand-in for region ("" means Region) that knows keys
// (none means Static and Session). It is closed by Close.
func Start(region string, keys ...Key) *Server {
	if region == "" {
		region = Region
	}
	if len(keys) == 0 {
		keys = []Key{Static, Session}
	}
	s := &Server{Region: region, keys: map[string]Key{}, throttled: map[string]bool{}}
	for _, k := range keys {
		s.keys[k.AccessKeyID] = k
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Env returns the environment that points the bedrock client at s with
// key: credentials, region and endpoint, and no config files, instance
// metadata, container or web-identity credentials (so that resolving
// credentials never leaves the machine).
func (s *Server) Env(k Key) map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":                      k.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY":                  k.SecretAccessKey,
		"AWS_SESSION_TOKEN":                      k.SessionToken,
		"AWS_REGION":                             s.Region,
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME":       s.URL,
		"AWS_EC2_METADATA_DISABLED":              "true",
		"AWS_CONFIG_FILE":                        "/nonexistent/aws-config",
		"AWS_SHARED_CREDENTIALS_FILE":            "/nonexistent/aws-credentials",
		"AWS_PROFILE":                            "",
		"AWS_DEFAULT_PROFILE":                    "",
		"AWS_DEFAULT_REGION":                     "",
		"AWS_ENDPOINT_URL":                       "",
		"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS":    "",
		"AWS_WEB_IDENTITY_TOKEN_FILE":            "",
		"AWS_ROLE_ARN":                           "",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI":     "",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
		"AWS_CONTAINER_AUTHORIZATION_TOKEN":      "",
	}
}

// Calls returns the calls the stand-in accepted, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

func (s *Server) key(id string) (Key, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[id]
	return k, ok
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// serve handles one request: route, signature, body, then the answer.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 20<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "SerializationException", "could not read the request body")
		return
	}
	w, done := standinlog.Wrap(w, r, body, s.OnRequest)
	defer done()
	model, ok := route(r)
	if !ok {
		writeError(w, http.StatusNotFound, "UnknownOperationException", "")
		return
	}
	if e := s.verify(r, body); e != nil {
		writeError(w, e.status, e.typ, e.reason)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, "UnsupportedMediaTypeException", "Content-Type must be application/json, got "+fmt.Sprintf("%q", ct))
		return
	}
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil || req == nil {
		writeError(w, http.StatusBadRequest, "SerializationException", "Malformed input request: the body is not a JSON object")
		return
	}
	if msg := validate(model, req); msg != "" {
		writeError(w, http.StatusBadRequest, "ValidationException", msg)
		return
	}
	call := Call{Model: model, Path: r.URL.EscapedPath(), Body: req, Header: r.Header.Clone()}
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.n++
	id := fmt.Sprintf("0f5c3a52-7d3e-4c1b-9b1e-%012d", s.n)
	s.mu.Unlock()
	w.Header().Set("X-Amzn-Requestid", id)
	reply := s.answer(call, string(body))
	if reply.Status >= 400 {
		writeError(w, reply.Status, reply.ErrorType, reply.Message)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(reply.Body)
}

// route returns the unescaped model id of POST /model/{modelId}/converse.
func route(r *http.Request) (string, bool) {
	if r.Method != http.MethodPost {
		return "", false
	}
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/model/")
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, "/converse")
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	model, err := url.PathUnescape(id)
	return model, err == nil
}

// writeError writes a Bedrock error: the type in x-amzn-ErrorType (with
// the service's suffix, as AWS sends it) and {"message": …}.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", typ+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"message": msg})
}
