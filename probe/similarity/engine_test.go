package similarity_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	_ "github.com/promptcanary/promptcanary/probe/similarity"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// embedServer speaks the OpenAI (POST /v1/embeddings) or the Ollama (POST
// /api/embed) wire format. A text's vector counts its letters a to z, so
// texts with the same letters are alike. fail, when set, answers the
// n-th request (from 1) with a status instead.
type embedServer struct {
	*httptest.Server
	mu     sync.Mutex
	inputs [][]string
	fail   func(n int) int
}

func letters(s string) []float64 {
	v := make([]float64, 26)
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			v[r-'a']++
		}
	}
	return v
}

func serveEmbeddings(t *testing.T, ollama bool) *embedServer {
	e := &embedServer{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := "/v1/embeddings"
		if ollama {
			want = "/api/embed"
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != want || r.Method != http.MethodPost {
			t.Errorf("bad request %s %s %s", r.Method, r.URL.Path, body)
		}
		e.mu.Lock()
		e.inputs = append(e.inputs, req.Input)
		n := len(e.inputs)
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if e.fail != nil {
			if status := e.fail(n); status != 0 {
				w.Header().Set("Retry-After-Ms", "1")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"error":{"message":"status %d"}}`, status)
				return
			}
		}
		if ollama {
			vs := make([][]float64, len(req.Input))
			for i, in := range req.Input {
				vs[i] = letters(in)
			}
			json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vs, "prompt_eval_count": 2 * len(req.Input)})
			return
		}
		data := make([]map[string]any, len(req.Input))
		for i, in := range req.Input {
			data[len(req.Input)-1-i] = map[string]any{"object": "embedding", "index": i, "embedding": letters(in)}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "usage": map[string]any{"prompt_tokens": 2 * len(req.Input)}})
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *embedServer) embedded() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var all []string
	for _, in := range e.inputs {
		all = append(all, in...)
	}
	slices.Sort(all)
	return all
}

// answers is the model under test: sample i of every prompt answers
// texts[i].
type answers []string

func (a answers) Generate(_ context.Context, req *provider.Request) (*promptcanary.Response, error) {
	return &promptcanary.Response{Content: a[req.Sample%len(a)], PromptTokens: 5, CompletionTokens: 5}, nil
}

func loadSuite(t *testing.T, embedder, baseURL string) *suite.Suite {
	t.Helper()
	doc := fmt.Sprintf(`name: sim
probes:
  - type: similarity
    id: meaning
    metric: embedding
    min: 0.9
    embedder: %s
    embedder_base_url: %s
prompts:
  - id: capital
    text: What is the capital of France?
`, embedder, baseURL)
	st, err := suite.Parse("canary.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func opts(waits *[]runner.Wait) runner.Options {
	return runner.Options{
		Concurrency: 4,
		Sleep:       func(context.Context, time.Duration) error { return nil },
		Getenv:      func(string) string { return "" },
		OnWait:      probetest.WaitsInto(waits),
	}
}

func results(run *promptcanary.Run) []promptcanary.ProbeResult {
	out := probetest.ResultsOf(run, "meaning")
	slices.SortFunc(out, func(a, b promptcanary.ProbeResult) int { return a.Sample - b.Sample })
	return out
}

// TestEmbeddingLeaveOneOut: a run without a baseline compares each answer
// with the others, embedding all of them in one call, on either wire
// format; a server error is retried by the run.
func TestEmbeddingLeaveOneOut(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ollama   bool
		embedder string
		path     string
	}{
		{"openai", false, "openai/text-embedding-3-small", "/v1"},
		{"ollama", true, "ollama/nomic-embed-text", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := serveEmbeddings(t, tc.ollama)
			srv.fail = func(n int) int { return map[int]int{1: 503}[n] }
			st := loadSuite(t, tc.embedder, srv.URL+tc.path)
			var waits []runner.Wait
			run, err := runner.Execute(context.Background(), st.Plan(promptcanary.ProviderConfig{ModelID: "fake/m"}, 3),
				answers{"Paris is the capital.", "The capital is Paris.", "Zzz qqq."}, opts(&waits))
			if err != nil {
				t.Fatal(err)
			}
			res := results(run)
			if len(res) != 3 {
				t.Fatalf("got %d results, want 3", len(res))
			}
			// The first two use the same letters: alike; the third is unlike both.
			if !res[0].Passed || res[0].Score != 1 || res[0].Metadata["best_sample"] != 1 || !res[1].Passed || res[2].Passed {
				t.Errorf("got %v %v / %v / %v, want samples 0 and 1 alike and 2 apart", res[0].Passed, res[0].Score, res[1].Passed, res[2].Passed)
			}
			if len(srv.inputs) != 2 || len(srv.inputs[1]) != 3 {
				t.Errorf("requests %q, want a failed one and one embedding the three answers", srv.inputs)
			}
			tokens := 0
			for _, r := range res {
				if n, ok := probe.MetaInt(r.Metadata, probe.MetaEmbeddingTokens); ok {
					tokens += n
				}
			}
			if tokens != 6 {
				t.Errorf("embedding tokens recorded: %d, want 6", tokens)
			}
			if len(waits) != 1 || waits[0].Provider != tc.embedder || waits[0].Reason != "HTTP 503 server error" {
				t.Errorf("waits: got %+v, want one for the 503", waits)
			}
		})
	}
}

// TestEmbeddingAgainstBaseline: against a baseline's answers, every text
// is embedded once however many evaluations need it at once; Rescore on
// a saved run embeds too.
func TestEmbeddingAgainstBaseline(t *testing.T) {
	srv := serveEmbeddings(t, false)
	st := loadSuite(t, "openai/text-embedding-3-small", srv.URL+"/v1")
	plan := st.Plan(promptcanary.ProviderConfig{ModelID: "fake/m"}, 6)
	plan.References = map[string][]promptcanary.Response{"capital": {
		{PromptID: "capital", Sample: 0, Content: "Paris."}, {PromptID: "capital", Sample: 1, Content: "It is Paris."},
	}}
	run, err := runner.Execute(context.Background(), plan, answers{"Paris!", "Rome."}, opts(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := srv.embedded(), []string{"It is Paris.", "Paris!", "Paris.", "Rome."}; !slices.Equal(got, want) {
		t.Errorf("embedded %q, want each text once: %q", got, want)
	}
	for _, r := range results(run) {
		if r.Passed != (r.Sample%2 == 0) {
			t.Errorf("sample %d: got passed %v (%s)", r.Sample, r.Passed, r.Details)
		}
	}
	// A saved run compared later: Rescore embeds through an engine of its
	// own, with a fresh suite (a new process) and so a cold cache.
	saved := *run
	saved.ProbeResults = slices.Clone(run.ProbeResults)
	st2 := loadSuite(t, "openai/text-embedding-3-small", srv.URL+"/v1")
	plan2 := st2.Plan(promptcanary.ProviderConfig{ModelID: "fake/m"}, 6)
	plan2.References = map[string][]promptcanary.Response{"capital": {{PromptID: "capital", Content: "Rome."}}}
	before := len(srv.inputs)
	runner.Rescore(plan2, &saved)
	if len(srv.inputs) == before {
		t.Error("Rescore did not call the embedder")
	}
	for _, r := range results(&saved) {
		if r.Passed != (r.Sample%2 == 1) {
			t.Errorf("rescored sample %d: got passed %v (%s), want a pass for Rome only", r.Sample, r.Passed, r.Details)
		}
	}
}

// TestEmbedderErrors: a final error from the embedder makes error
// results, not a failed run.
func TestEmbedderErrors(t *testing.T) {
	srv := serveEmbeddings(t, false)
	srv.fail = func(int) int { return 400 }
	st := loadSuite(t, "openai/text-embedding-3-small", srv.URL+"/v1")
	run, err := runner.Execute(context.Background(), st.Plan(promptcanary.ProviderConfig{ModelID: "fake/m"}, 2), answers{"a", "b"}, opts(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results(run) {
		if r.Passed || r.Metadata["error"] != "HTTP 400: status 400" {
			t.Errorf("got %v %v, want the embedder's 400", r.Passed, r.Metadata["error"])
		}
	}
	if len(srv.inputs) != 2 {
		t.Errorf("got %d requests, want one per evaluation, none retried", len(srv.inputs))
	}
}

// TestEmbedderPinnedInTheHash: another embedder, or another server for
// it, changes the prompt's hash, so a baseline embedded otherwise is
// stale rather than compared.
func TestEmbedderPinnedInTheHash(t *testing.T) {
	hash := func(embedder, url string) string {
		return loadSuite(t, embedder, url).PromptHash("capital", promptcanary.ProviderConfig{})
	}
	base := hash("openai/text-embedding-3-small", "http://a/v1")
	if base != hash("openai/text-embedding-3-small", "http://a/v1") {
		t.Fatal("the hash is not stable")
	}
	for name, h := range map[string]string{
		"another model":  hash("openai/text-embedding-3-large", "http://a/v1"),
		"another server": hash("openai/text-embedding-3-small", "http://b/v1"),
		"ollama":         hash("ollama/text-embedding-3-small", "http://a"),
	} {
		if h == base {
			t.Errorf("%s: the prompt hash did not change", name)
		}
	}
}
