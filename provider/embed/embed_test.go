package embed

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

const testKey = "sk-embedtest-0123456789abcdef"

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// openAt opens spec against a fake server at baseURL.
func openAt(t *testing.T, spec, baseURL string) Embedder {
	t.Helper()
	e, err := Open(spec, provider.Options{
		Settings: map[string]any{"base_url": baseURL},
		Getenv:   env(map[string]string{"OPENAI_API_KEY": testKey}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestOpenAIWireFormat(t *testing.T) {
	// The vectors come back out of order, as the API allows: index says
	// which text each is.
	srv := providertest.Serve(t, providertest.Answer{Body: `{"object":"list","model":"text-embedding-3-small",
		"data":[{"object":"embedding","index":1,"embedding":[0,1]},{"object":"embedding","index":0,"embedding":[1,0]}],
		"usage":{"prompt_tokens":7,"total_tokens":7}}`})
	e := openAt(t, "openai/text-embedding-3-small", srv.URL+"/v1")
	res, err := e.Embed(context.Background(), []string{"Paris", "Lyon"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Result{Vectors: [][]float64{{1, 0}, {0, 1}}, Tokens: 7}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	req := srv.Last(t)
	if req.Method != "POST" || req.URL.Path != "/v1/embeddings" {
		t.Errorf("got %s %s, want POST /v1/embeddings", req.Method, req.URL.Path)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization: got %q, want the bearer key", got)
	}
	if diff := cmp.Diff(providertest.JSONObject(t, `{"model":"text-embedding-3-small","input":["Paris","Lyon"]}`), req.JSON(t)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestOllamaWireFormat(t *testing.T) {
	srv := providertest.Serve(t, providertest.Answer{Body: `{"model":"nomic-embed-text","embeddings":[[0.5,0.5,0],[0,0,2]],"prompt_eval_count":4}`})
	// OLLAMA_HOST without a scheme, as the ollama command reads it.
	host := strings.TrimPrefix(srv.URL, "http://")
	e, err := Open("ollama/nomic-embed-text", provider.Options{Getenv: env(map[string]string{"OLLAMA_HOST": host})})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Embed(context.Background(), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Result{Vectors: [][]float64{{0.5, 0.5, 0}, {0, 0, 2}}, Tokens: 4}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	req := srv.Last(t)
	if req.URL.Path != "/api/embed" {
		t.Errorf("got path %s, want /api/embed", req.URL.Path)
	}
	if req.Header.Get("Authorization") != "" {
		t.Error("a key was sent to a local Ollama that needs none")
	}
	if diff := cmp.Diff(providertest.JSONObject(t, `{"model":"nomic-embed-text","input":["a","b"]}`), req.JSON(t)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

// TestErrors checks how each failure is classified for the run engine's
// retries, and that no key leaks into any message.
func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		spec   string
		answer providertest.Answer
		want   providertest.WantError
	}{
		{"rate limited", "openai/m", providertest.Answer{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: `{"error":{"message":"Rate limit reached","type":"requests"}}`},
			providertest.WantError{Status: 429, Retryable: true, After: 7 * time.Second, Msg: "requests: Rate limit reached"}},
		{"server error", "openai/m", providertest.Answer{Status: 500, Body: `{"error":{"message":"boom"}}`},
			providertest.WantError{Status: 500, Retryable: true, Msg: "boom"}},
		{"bad request is final", "openai/m", providertest.Answer{Status: 400, Body: `{"error":{"message":"'$.input' is invalid, key ` + testKey + `"}}`},
			providertest.WantError{Status: 400, Msg: "'$.input' is invalid"}},
		{"unknown ollama model", "ollama/nope", providertest.Answer{Status: 404, Body: `{"error":"model \"nope\" not found, try pulling it first"}`},
			providertest.WantError{Status: 404, Msg: `model "nope" not found`}},
		{"truncated body", "openai/m", providertest.Answer{Body: `{"data":[{"index":0,"embedding":[1,`},
			providertest.WantError{Status: 200, Retryable: true, Msg: "malformed JSON response"}},
		{"too few vectors", "openai/m", providertest.Answer{Body: `{"data":[{"index":0,"embedding":[1]}]}`},
			providertest.WantError{Msg: "malformed embeddings response: 1 vectors for 2 texts"}},
		{"an index twice", "openai/m", providertest.Answer{Body: `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`},
			providertest.WantError{Msg: "data[1] has index 0, want each of 0 to 1 once"}},
		{"an index out of range", "openai/m", providertest.Answer{Body: `{"data":[{"index":0,"embedding":[1]},{"index":5,"embedding":[2]}]}`},
			providertest.WantError{Msg: "data[1] has index 5"}},
		{"dimensions differ", "ollama/m", providertest.Answer{Body: `{"embeddings":[[1,2],[1]]}`},
			providertest.WantError{Msg: "vector 1 has 1 dimensions, vector 0 has 2"}},
		{"an empty vector", "ollama/m", providertest.Answer{Body: `{"embeddings":[[],[]]}`},
			providertest.WantError{Msg: "vector 0 is empty"}},
		{"no embeddings", "ollama/m", providertest.Answer{Body: `{"model":"m"}`},
			providertest.WantError{Msg: "0 vectors for 2 texts"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.Serve(t, tc.answer)
			_, err := openAt(t, tc.spec, srv.URL).Embed(context.Background(), []string{"x", "y"})
			providertest.CheckError(t, err, tc.want, testKey)
		})
	}
}

// TestRefusedBeforeSending: texts the APIs would refuse fail without a
// request.
func TestRefusedBeforeSending(t *testing.T) {
	srv := providertest.Serve(t, providertest.Answer{Body: `{}`})
	e := openAt(t, "openai/m", srv.URL)
	many := make([]string, MaxBatch+1)
	for i := range many {
		many[i] = "t"
	}
	for name, texts := range map[string][]string{"none": nil, "an empty text": {"a", ""}, "too many": many} {
		if _, err := e.Embed(context.Background(), texts); err == nil || provider.IsRetryable(err) {
			t.Errorf("%s: got %v, want a final error", name, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server saw %d requests, want none", n)
	}
}

func TestDeadlineAndServerDown(t *testing.T) {
	providertest.CheckDeadline(t, 50*time.Millisecond, func(ctx context.Context, baseURL string) error {
		_, err := openAt(t, "openai/m", baseURL).Embed(ctx, []string{"x"})
		return err
	}, testKey)
	providertest.CheckServerDown(t, func(baseURL string) error {
		_, err := openAt(t, "ollama/m", baseURL).Embed(context.Background(), []string{"x"})
		return err
	}, testKey)
}

func TestOpenAndCheck(t *testing.T) {
	noKey := env(nil)
	tests := []struct {
		name     string
		spec     string
		settings map[string]any
		getenv   func(string) string
		open     string // the error of Open, "" for none
		check    string // the error of Check, "" for none
	}{
		{"openai needs a key", "openai/text-embedding-3-small", nil, noKey,
			"embedder openai/text-embedding-3-small: OPENAI_API_KEY is not set", ""},
		{"a local server needs none", "openai/bge", map[string]any{"base_url": "http://localhost:8000/v1"}, noKey, "", ""},
		{"OPENAI_BASE_URL is read", "openai/bge", nil, env(map[string]string{"OPENAI_BASE_URL": "ftp://x"}),
			"embedder openai/bge: OPENAI_BASE_URL: want an http or https URL", "OPENAI_BASE_URL: want"},
		{"api_key_env names the key", "openai/m", map[string]any{"api_key_env": "MY_KEY"}, noKey,
			"embedder openai/m: MY_KEY is not set", ""},
		{"unknown setting", "ollama/m", map[string]any{"model": "x"}, noKey,
			`unknown setting "model"`, `unknown setting "model"`},
		{"no client for the provider", "gemini/text-embedding-004", nil, noKey,
			`embedder gemini/text-embedding-004: no embeddings client for "gemini"`, `no embeddings client for "gemini"`},
		{"a near name", "olama/m", nil, noKey, `(did you mean ollama?)`, `(did you mean ollama?)`},
		{"not NAME/MODEL", "nomic-embed-text", nil, noKey, `invalid provider "nomic-embed-text"`, `invalid provider`},
		{"whitespace in the model", "ollama/a b", nil, noKey, "invalid model name", "invalid model name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := provider.Options{Settings: tc.settings, Getenv: tc.getenv}
			_, err := Open(tc.spec, opts)
			checkErr(t, "Open", err, tc.open)
			checkErr(t, "Check", Check(tc.spec, opts), tc.check)
		})
	}
}

func checkErr(t *testing.T, op string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: got %v, want no error", op, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: got %v, want an error containing %q", op, err, want)
	}
}

// TestKeyRegisteredAndNeverInErrors: Open registers the key with the
// run's scrubber, and a server echoing it back does not get it into the
// error.
func TestKeyRegisteredAndNeverInErrors(t *testing.T) {
	set := redact.New()
	srv := providertest.Serve(t, providertest.Answer{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + testKey + `"}}`})
	e, err := Open("openai/m", provider.Options{Settings: map[string]any{"base_url": srv.URL}, Getenv: env(map[string]string{"OPENAI_API_KEY": testKey}), Secrets: set})
	if err != nil {
		t.Fatal(err)
	}
	if got := set.String(testKey); got != redact.Placeholder {
		t.Errorf("the key was not registered: %q", got)
	}
	_, err = e.Embed(context.Background(), []string{"x"})
	providertest.CheckError(t, err, providertest.WantError{Status: 401, Msg: "(check the API key)"}, testKey)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Retryable {
		t.Errorf("got %v, want a final *provider.Error", err)
	}
}

// FuzzDecode: no body makes a decoder panic or return vectors that break
// the promise of one vector per text, all of one dimension.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[3,4]}]}`, `{"embeddings":[[1],[2]]}`, `{"data":[{"embedding":null}]}`, `{"data":[{"index":-1}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var o openAIResponse
		if err := json.Unmarshal(body, &o); err == nil {
			if vs, err := openAIVectors(&o, 2); err == nil {
				checkShape(t, vs)
			}
		}
		var l ollamaResponse
		if err := json.Unmarshal(body, &l); err == nil {
			if err := checkVectors(l.Embeddings, 2); err == nil {
				checkShape(t, l.Embeddings)
			}
		}
	})
}

func checkShape(t *testing.T, vs [][]float64) {
	t.Helper()
	if len(vs) != 2 || len(vs[0]) == 0 || len(vs[0]) != len(vs[1]) {
		t.Fatalf("accepted vectors of shape %d×?, want 2 of one non-zero dimension", len(vs))
	}
}
