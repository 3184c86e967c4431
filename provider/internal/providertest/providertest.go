// Package providertest holds what the provider clients' tests share: a
// fake API on loopback that records every request, fixtures from
// testdata/, and the checks every client must pass (failures classified
// for the retry policy, deadlines honoured, no key in any error, a decoder
// that survives any body).
package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/fixture"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
)

// Answer is what a fake API answers to every request.
type Answer struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// ContentType is the Content-Type header; "" means application/json.
	ContentType string
	// Header holds other response headers, such as Retry-After.
	Header map[string]string
	// Body is the response body.
	Body string
	// AnyBody accepts request bodies that are not JSON objects; by default
	// the server fails the test on one, as every model API client sends
	// a JSON object.
	AnyBody bool
}

// Request is what a fake API saw of one request.
type Request struct {
	Method string
	// URL is the request URL as the server saw it: Path, EscapedPath(),
	// RawQuery and Query() tell what the client asked for.
	URL    *url.URL
	Header http.Header
	Body   []byte
}

// JSON decodes the request body as a JSON object, failing the test when
// it is not one.
func (r Request) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("request body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// Server is a fake API that records every request and gives the same
// Answer to each. It is closed when the test ends.
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []Request
}

// Serve starts a Server answering a.
func Serve(t testing.TB, a Answer) *Server {
	t.Helper()
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	if a.ContentType == "" {
		a.ContentType = "application/json"
	}
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !a.AnyBody {
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Errorf("request body is not a JSON object: %v: %s", err, body)
			}
		}
		u := *r.URL
		s.mu.Lock()
		s.reqs = append(s.reqs, Request{Method: r.Method, URL: &u, Header: r.Header.Clone(), Body: body})
		s.mu.Unlock()
		for k, v := range a.Header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", a.ContentType)
		w.WriteHeader(a.Status)
		io.WriteString(w, a.Body)
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests returns every request the server saw, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Last returns the last request the server saw, failing the test when
// there was none.
func (s *Server) Last(t testing.TB) Request {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) == 0 {
		t.Fatal("server saw no request")
	}
	return reqs[len(reqs)-1]
}

// Hang starts a server that answers no request until the client gives up
// (or the test ends), for deadline tests.
func Hang(t testing.TB) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv
}

// ClosedURL returns the URL of a server that is no longer listening, so
// that a call to it fails in the transport.
func ClosedURL(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	u := srv.URL
	srv.Close()
	return u
}

// Fixture returns the content of testdata/name.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	return fixture.Read(t, name)
}

// JSONObject decodes an expected JSON object written in a test, so that
// it compares with Request.JSON.
func JSONObject(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad expected JSON %s: %v", s, err)
	}
	return m
}

// NewRequest returns a request for prompt p with cfg.
func NewRequest(p promptcanary.Prompt, cfg promptcanary.ProviderConfig) *provider.Request {
	return &provider.Request{Prompt: &p, Config: cfg}
}

// CheckResponse checks that got carries the API's body, unchanged, as its
// RawResponse and is otherwise want.
func CheckResponse(t testing.TB, got *promptcanary.Response, body string, want promptcanary.Response) {
	t.Helper()
	if string(got.RawResponse) != body {
		t.Errorf("got raw response %q, want the body as returned", got.RawResponse)
	}
	rest := *got
	rest.RawResponse = nil
	if diff := cmp.Diff(want, rest); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

// NoLeak fails the test when err's message holds any of secrets. A nil
// err holds none.
func NoLeak(t testing.TB, err error, secrets ...string) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range secrets {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error %q leaks %q", err, s)
		}
	}
}

// ErrorContains checks that err is not nil, that its message holds every
// string of want, and none of secrets.
func ErrorContains(t testing.TB, err error, want []string, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("got nil error, want one")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("got %q, want it to contain %q", err, w)
		}
	}
	NoLeak(t, err, secrets...)
}

// WantError is how a failed call must be classified.
type WantError struct {
	Status    int
	Retryable bool
	After     time.Duration
	// Msg is a part of the message.
	Msg string
}

// CheckError checks that err is a *provider.Error classified as want and
// that its message holds none of secrets.
func CheckError(t testing.TB, err error, want WantError, secrets ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("got no error, want one")
	}
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("got %T %v, want *provider.Error", err, err)
	}
	if pe.StatusCode != want.Status || pe.Retryable != want.Retryable || pe.RetryAfter != want.After {
		t.Errorf("got status %d retryable %v after %v, want %d %v %v", pe.StatusCode, pe.Retryable, pe.RetryAfter, want.Status, want.Retryable, want.After)
	}
	if !strings.Contains(pe.Message, want.Msg) {
		t.Errorf("got message %q, want it to contain %q", pe.Message, want.Msg)
	}
	NoLeak(t, err, secrets...)
}

// CheckDeadline calls call with the URL of a server that never answers
// and a context whose deadline passes, and checks that the call returns
// the context's error or a retryable one that holds none of secrets.
func CheckDeadline(t testing.TB, timeout time.Duration, call func(ctx context.Context, baseURL string) error, secrets ...string) {
	t.Helper()
	srv := Hang(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := call(ctx, srv.URL)
	if !errors.Is(err, context.DeadlineExceeded) && !provider.IsRetryable(err) {
		t.Errorf("got %v, want context.DeadlineExceeded or a retryable error", err)
	}
	NoLeak(t, err, secrets...)
}

// CheckServerDown calls call with the URL of a server that is not
// listening and checks that the error is retryable and holds none of
// secrets.
func CheckServerDown(t testing.TB, call func(baseURL string) error, secrets ...string) {
	t.Helper()
	err := call(ClosedURL(t))
	if !provider.IsRetryable(err) {
		t.Errorf("got %v, want a retryable error", err)
	}
	NoLeak(t, err, secrets...)
}

// FuzzDecode fuzzes a response decoder with the JSON fixtures in
// testdata/ and seeds as the corpus: it must never panic, must fail only
// with a *provider.Error, and on success must return tool-call arguments
// that are valid JSON.
func FuzzDecode(f *testing.F, decode func(body []byte) (*promptcanary.Response, error), seeds ...string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := decode(body)
		if err != nil {
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %T, want *provider.Error", err)
			}
			return
		}
		for _, tc := range resp.ToolCalls {
			if !json.Valid(tc.Arguments) {
				t.Fatalf("tool call arguments %q are not valid JSON", tc.Arguments)
			}
		}
	})
}

// CheckRedirects checks a client's redirect policy against two loopback
// servers. A first server answering 307 with the URL of a second one (another
// port: another origin) must make the call fail with a final
// *provider.Error that names the refused redirect, before the second server
// receives any request, and without any of secrets in the error. A 307 to
// another path of the same server must be followed, with credentials, to
// an answer of okBody. open returns the client under test for a base URL.
func CheckRedirects(t *testing.T, open func(t *testing.T, baseURL string) provider.Provider, okBody string, secrets ...string) {
	t.Helper()
	req := NewRequest(promptcanary.Prompt{ID: "p", Text: "hi"}, promptcanary.ProviderConfig{})
	t.Run("another origin is refused", func(t *testing.T) {
		other := Serve(t, Answer{Body: okBody, AnyBody: true})
		first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", other.URL+r.URL.RequestURI())
			w.WriteHeader(http.StatusTemporaryRedirect)
		}))
		t.Cleanup(first.Close)
		_, err := open(t, first.URL).Generate(context.Background(), req)
		if reqs := other.Requests(); len(reqs) != 0 {
			names := slices.Sorted(maps.Keys(reqs[0].Header))
			t.Errorf("the other origin received %d request(s), with the headers %s", len(reqs), strings.Join(names, ", "))
		}
		var pe *provider.Error
		if !errors.As(err, &pe) {
			t.Fatalf("got %T %v, want *provider.Error", err, err)
		}
		if pe.Retryable {
			t.Errorf("got a retryable error, want a final one")
		}
		for _, want := range []string{"refused redirect from " + first.URL + "/", " to " + other.URL + "/", "another origin would receive the credentials (set base_url to the final address)"} {
			if !strings.Contains(pe.Message, want) {
				t.Errorf("got %q, want it to contain %q", pe.Message, want)
			}
		}
		NoLeak(t, err, secrets...)
	})
	t.Run("same origin is followed", func(t *testing.T) {
		var mu sync.Mutex
		var moved http.Header
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/moved/") {
				w.Header().Set("Location", "/moved"+r.URL.RequestURI())
				w.WriteHeader(http.StatusTemporaryRedirect)
				return
			}
			mu.Lock()
			moved = r.Header.Clone()
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, okBody)
		}))
		t.Cleanup(srv.Close)
		resp, err := open(t, srv.URL).Generate(context.Background(), req)
		if err != nil {
			t.Fatalf("got %v, want the moved answer", err)
		}
		if resp == nil {
			t.Fatal("got no response")
		}
		mu.Lock()
		defer mu.Unlock()
		for _, s := range secrets {
			found := false
			for _, vs := range moved {
				for _, v := range vs {
					found = found || strings.Contains(v, s)
				}
			}
			if !found {
				t.Errorf("the moved request lost the credential %q…", s[:4])
			}
		}
	})
}

// RedirectToken is the credential header value CheckClientRedirects sends
// with every request, beside the API key.
const RedirectToken = "hdr-test-1b2c3d4e5f6a7b8c"

// CheckClientRedirects runs CheckRedirects on a model API client opened by
// open(model, opts) with the key in keyEnv and a credential header, through
// one shared *http.Client as the CLI hands over. It also checks that Open
// registered both secrets with the scrubber and left the shared client's
// redirect policy alone. settings are extra settings (api_key_env, …).
func CheckClientRedirects(t *testing.T, open func(model string, opts provider.Options) (provider.Provider, error), model, keyEnv, key, okBody string, settings map[string]any) {
	t.Helper()
	shared := &http.Client{}
	CheckRedirects(t, func(t *testing.T, baseURL string) provider.Provider {
		set := redact.New()
		s := map[string]any{"base_url": baseURL, "headers": map[string]any{"X-Gateway-Token": RedirectToken}}
		maps.Copy(s, settings)
		p, err := open(model, provider.Options{
			Settings:   s,
			Getenv:     func(k string) string { return map[string]string{keyEnv: key}[k] },
			HTTPClient: shared,
			Secrets:    set,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := set.String(key + " " + RedirectToken); got != "[REDACTED] [REDACTED]" {
			t.Errorf("Open registered too few secrets: %q", got)
		}
		return p
	}, okBody, key, RedirectToken)
	if shared.CheckRedirect != nil {
		t.Error("the shared client's redirect policy was changed")
	}
}

// RequestCase is one request a client must send: asked for Prompt with
// Config, it must send Want, a JSON object, as the body.
type RequestCase struct {
	Name   string
	Prompt promptcanary.Prompt
	Config promptcanary.ProviderConfig
	Want   string
}

// CheckRequests runs each case in its own subtest: a fake API answers
// testdata/fixture as base says (Status and Body set), call sends the
// case's request to that server's URL, the body the server saw must be the
// case's Want, and check checks the rest of what it saw (method, path,
// headers).
func CheckRequests(t *testing.T, base Answer, fixture string, cases []RequestCase, call func(t *testing.T, baseURL string, req *provider.Request) error, check func(t *testing.T, seen Request)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			a := base
			a.Status, a.Body = http.StatusOK, Fixture(t, fixture)
			srv := Serve(t, a)
			if err := call(t, srv.URL, NewRequest(tc.Prompt, tc.Config)); err != nil {
				t.Fatal(err)
			}
			seen := srv.Last(t)
			if diff := cmp.Diff(JSONObject(t, tc.Want), seen.JSON(t)); diff != "" {
				t.Errorf("request body (-want +got):\n%s", diff)
			}
			check(t, seen)
		})
	}
}

// CheckAccepted sends each of prompts with cfg to each of models, in
// subtests named model/prompt, through the provider open returns for the
// model (opened once per model, for the whole test): every call must be
// answered with a response that has a finish reason.
func CheckAccepted(t *testing.T, models []string, prompts map[string]promptcanary.Prompt, cfg promptcanary.ProviderConfig, open func(t *testing.T, model string) provider.Provider) {
	t.Helper()
	for _, model := range models {
		p := open(t, model)
		for name, prompt := range prompts {
			t.Run(model+"/"+name, func(t *testing.T) {
				resp, err := p.Generate(context.Background(), NewRequest(prompt, cfg))
				if err != nil {
					t.Fatalf("got error %v, want a measured response", err)
				}
				if resp.FinishReason == "" {
					t.Error("got no finish reason")
				}
			})
		}
	}
}

// OpenErrorCase is a configuration a client must refuse: opened with
// Settings and the variables of Env, it must fail with every string of
// Want in its message.
type OpenErrorCase struct {
	Name     string
	Settings map[string]any
	Env      map[string]string
	Want     []string
}

// CheckOpenErrors runs each case in its own subtest: open, called for
// model as the case says, must fail with the case's strings and none of
// secrets in its message.
func CheckOpenErrors(t *testing.T, open func(model string, opts provider.Options) (provider.Provider, error), model string, cases []OpenErrorCase, secrets ...string) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			_, err := open(model, provider.Options{Settings: tc.Settings, Getenv: func(k string) string { return tc.Env[k] }})
			ErrorContains(t, err, tc.Want, secrets...)
		})
	}
}

// ResponseCase is one answer a client must read: the fake API answers
// testdata/Fixture with 200, and the response must be Want (with the body
// as its RawResponse).
type ResponseCase struct {
	Name    string
	Fixture string
	Want    promptcanary.Response
}

// CheckResponses runs each case in its own subtest: a fake API answers it
// as base says (Status and Body set by the case), and call, given that
// server's URL, must return the case's response.
func CheckResponses(t *testing.T, base Answer, cases []ResponseCase, call func(t *testing.T, baseURL string) (*promptcanary.Response, error)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			body := Fixture(t, tc.Fixture)
			a := base
			a.Status, a.Body = http.StatusOK, body
			got, err := call(t, Serve(t, a).URL)
			if err != nil {
				t.Fatal(err)
			}
			CheckResponse(t, got, body, tc.Want)
		})
	}
}

// ErrorCase is one answer a client must fail on: the fake API answers
// Status, Header and Body, and the call's error must be classified as
// WantStatus, Retryable and After, with Msg in its message.
type ErrorCase struct {
	Name       string
	Status     int
	Header     map[string]string
	Body       string
	WantStatus int
	Retryable  bool
	After      time.Duration
	Msg        string
}

// CheckErrors runs each case in its own subtest: a fake API answers it as
// base says (Status, Header and Body set by the case), and call, given
// that server's URL, must fail as the case says, with none of secrets in
// the error.
func CheckErrors(t *testing.T, base Answer, cases []ErrorCase, call func(t *testing.T, baseURL string) (*promptcanary.Response, error), secrets ...string) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			a := base
			a.Status, a.Header, a.Body = tc.Status, tc.Header, tc.Body
			resp, err := call(t, Serve(t, a).URL)
			if err == nil {
				t.Fatalf("got response %+v, want an error", resp)
			}
			CheckError(t, err, WantError{Status: tc.WantStatus, Retryable: tc.Retryable, After: tc.After, Msg: tc.Msg}, secrets...)
		})
	}
}

// PlainRequest returns a request for a one-word prompt with the zero
// configuration, for tests about what the client does with the answer.
func PlainRequest() *provider.Request {
	return NewRequest(promptcanary.Prompt{Text: "x"}, promptcanary.ProviderConfig{})
}

// Post sends body to url with the headers of header (one with an empty
// value is not sent) and returns the response and its body, read and
// closed: how a stand-in's own tests call it.
func Post(t testing.TB, url, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// Reply starts a server that answers every request with status, header
// and body exactly as given: unlike Serve it sets no Content-Type (Go
// sniffs one) and accepts any request. It is closed when the test ends.
func Reply(t testing.TB, status int, header map[string]string, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// WeatherTool returns the tool the clients' tests declare: get_weather,
// with one required string parameter, location.
func WeatherTool() promptcanary.Tool {
	return promptcanary.Tool{
		Name:        "get_weather",
		Description: "Get the current weather",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"location": map[string]any{"type": "string"}},
			"required":   []any{"location"},
		},
	}
}
