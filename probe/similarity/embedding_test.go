package similarity

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// fakeEmbedder is a run's probe.Caller whose embedder maps each text to
// the vector vecs gives it, recording every call.
type fakeEmbedder struct {
	mu    sync.Mutex
	vecs  map[string][]float64
	calls [][]string
	err   error
}

func (f *fakeEmbedder) Call(context.Context, *promptcanary.Prompt, promptcanary.ProviderConfig) (*promptcanary.Response, error) {
	return nil, errors.New("not a chat model")
}

func (f *fakeEmbedder) Embed(_ context.Context, m probe.Model, texts []string) ([][]float64, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, slices.Clone(texts))
	if f.err != nil {
		return nil, 0, f.err
	}
	if !m.Embedding || m.Spec != "openai/text-embedding-3-small" {
		return nil, 0, errors.New("wrong model " + m.Spec)
	}
	out := make([][]float64, len(texts))
	for i, t := range texts {
		v, ok := f.vecs[t]
		if !ok {
			v = []float64{0, 0, 1} // anything else
		}
		out[i] = v
	}
	return out, 3 * len(texts), nil
}

func (f *fakeEmbedder) embedded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []string
	for _, c := range f.calls {
		all = append(all, c...)
	}
	return all
}

var embeddingParams = map[string]any{"metric": "embedding", "min": 0.8, "embedder": "openai/text-embedding-3-small"}

func withParams(extra map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range embeddingParams {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func evalEmbedding(p probe.Probe, c probe.Caller, content string, refs []promptcanary.Response) probe.Result {
	ctx := context.Background()
	if c != nil {
		ctx = probe.WithCaller(ctx, c)
	}
	return probetest.EvalIn(ctx, p, probe.Input{Prompt: &promptcanary.Prompt{ID: "p1"}, Response: &promptcanary.Response{PromptID: "p1", Content: content}, References: refs})
}

func TestEmbeddingScores(t *testing.T) {
	f := &fakeEmbedder{vecs: map[string][]float64{
		"Paris.":                      {1, 0, 0},
		"It is Paris.":                {0.9, 0.1, 0},
		"The capital is Paris, yes.":  {1, 1, 0},
		"Lyon.":                       {0, 1, 0},
		"Definitely not Paris at all": {-1, 0, 0},
	}}
	cos := func(a, b []float64) float64 {
		var d, x, y float64
		for i := range a {
			d, x, y = d+a[i]*b[i], x+a[i]*a[i], y+b[i]*b[i]
		}
		return d / math.Sqrt(x*y)
	}
	tests := []struct {
		name    string
		raw     map[string]any
		content string
		refs    []promptcanary.Response
		passed  bool
		score   float64
		best    int
	}{
		{"the same text", nil, "Paris.", answers("Lyon.", "Paris."), true, 1, 1},
		{"closest of several", nil, "It is Paris.", answers("Lyon.", "The capital is Paris, yes.", "Paris."), true, cos(f.vecs["It is Paris."], f.vecs["Paris."]), 2},
		{"mean", map[string]any{"against": "mean"}, "Paris.", answers("Paris.", "Lyon."), false, 0.5, 0},
		{"unrelated", nil, "Lyon.", answers("Paris."), false, 0, 0},
		{"opposite counts as 0", nil, "Definitely not Paris at all", answers("Paris."), false, 0, 0},
		{"two empty answers are alike", nil, "", answers(""), true, 1, 0},
		{"an empty answer is unlike a text", nil, "", answers("Paris."), false, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := probetest.New(t, id, withParams(tc.raw))
			res := evalEmbedding(p, f, tc.content, tc.refs)
			if res.Passed != tc.passed || math.Abs(res.Score-tc.score) > 1e-6 {
				t.Errorf("got %v %v (%s), want %v %v", res.Passed, res.Score, res.Details, tc.passed, tc.score)
			}
			probetest.CheckKeys(t, res.Metadata, "metric", "min", "against", "references", "skipped", "score", "best_sample", "embedder")
			if res.Metadata["best_sample"] != tc.refs[tc.best].Sample || res.Metadata["metric"] != "embedding" || res.Metadata["embedder"] != "openai/text-embedding-3-small" {
				t.Errorf("metadata: got %v", res.Metadata)
			}
		})
	}
	if res := evalEmbedding(probetest.New(t, id, embeddingParams), f, "Paris.", answers("Paris.")); res.Details != "embedding similarity 1.000 (against the one reference answer) is at least the minimum 0.800." {
		t.Errorf("details: got %q", res.Details)
	}
	for _, text := range f.embedded() {
		if text == "" {
			t.Error("an empty text was sent to the embedder")
		}
	}
}

// TestEmbeddingsAreCachedAndBatched: each distinct text is embedded once,
// the missing ones of an evaluation in one call.
func TestEmbeddingsAreCachedAndBatched(t *testing.T) {
	f := &fakeEmbedder{}
	p := probetest.New(t, id, embeddingParams)
	evalEmbedding(p, f, "a", answers("b", "c", "b"))
	if len(f.calls) != 1 || !slices.Equal(f.calls[0], []string{"a", "b", "c"}) {
		t.Fatalf("calls: got %q, want one call embedding a, b, c", f.calls)
	}
	// Leave-one-out: the same answers in other roles need no call.
	evalEmbedding(p, f, "b", answers("a", "c"))
	evalEmbedding(p, f, "c", answers("a", "b"))
	if len(f.calls) != 1 {
		t.Errorf("calls: got %q, want no more", f.calls)
	}
	// A text that is both the answer and a reference, its vector kept.
	if res := evalEmbedding(p, f, "a", answers("a", "b")); res.Score != 1 || len(f.calls) != 1 {
		t.Errorf("an answer equal to a kept reference: got score %v after %d calls, want 1 after 1", res.Score, len(f.calls))
	}
	evalEmbedding(p, f, "d", answers("a", "b"))
	if len(f.calls) != 2 || !slices.Equal(f.calls[1], []string{"d"}) {
		t.Errorf("calls: got %q, want a second call embedding d only", f.calls)
	}
	// Probes do not share their caches: another embedder is another model.
	evalEmbedding(probetest.New(t, id, embeddingParams), f, "a", answers("b"))
	if len(f.calls) != 3 {
		t.Errorf("a new probe used another's cache")
	}
}

// TestEmbeddingErrors: a failed call, or no run to call through, is a
// failed result that says why; nothing is cached, so the next evaluation
// calls again; without references nothing is called.
func TestEmbeddingErrors(t *testing.T) {
	f := &fakeEmbedder{err: errors.New("HTTP 400: '$.input' is invalid")}
	p := probetest.New(t, id, embeddingParams)
	for range 2 {
		res := evalEmbedding(p, f, "a", answers("b"))
		probetest.CheckVerdict(t, res, false, 0)
		if res.Metadata["error"] != "HTTP 400: '$.input' is invalid" ||
			res.Details != "Not compared: the embedder openai/text-embedding-3-small could not embed the answers: HTTP 400: '$.input' is invalid." {
			t.Errorf("got %q / %v", res.Details, res.Metadata["error"])
		}
	}
	if len(f.calls) != 2 {
		t.Errorf("got %d calls, want 2: a failure is not cached", len(f.calls))
	}
	for name, res := range map[string]probe.Result{
		"no caller":       evalEmbedding(p, nil, "a", answers("b")),
		"with references": probetest.Eval(p, nil, &promptcanary.Response{Content: "a"}, answers("b")...),
	} {
		probetest.CheckVerdict(t, res, false, 0)
		if res.Metadata["error"] != ErrNoRun.Error() {
			t.Errorf("%s: got %v, want %v", name, res.Metadata["error"], ErrNoRun)
		}
	}
	f.calls = nil
	if res := evalEmbedding(p, f, "a", nil); !res.Passed || res.Metadata["skipped"] != true || len(f.calls) != 0 {
		t.Errorf("no references: got %+v after %d calls, want a skipped pass and no call", res, len(f.calls))
	}
}

// TestConcurrentEmbeddings: evaluations at once against the same
// references embed each text once (run with -race).
func TestConcurrentEmbeddings(t *testing.T) {
	f := &fakeEmbedder{}
	p := probetest.New(t, id, embeddingParams)
	refs := answers("r1", "r2", "r3")
	probetest.Concurrently(12, func(i int) {
		res := evalEmbedding(p, f, []string{"x", "y", "z"}[i%3], refs)
		if _, failed := res.Metadata["error"]; failed {
			t.Errorf("got %v", res.Metadata["error"])
		}
	})
	got := f.embedded()
	slices.Sort(got)
	if want := []string{"r1", "r2", "r3", "x", "y", "z"}; !slices.Equal(got, want) {
		t.Errorf("embedded %q, want each text once: %q", got, want)
	}
}

// TestLongAnswersAreEmbeddedClipped: the embedder gets at most
// MaxEmbedded bytes of an answer, and the result says it was cut.
func TestLongAnswersAreEmbeddedClipped(t *testing.T) {
	f := &fakeEmbedder{}
	long := strings.Repeat("日本語", MaxEmbedded)
	res := evalEmbedding(probetest.New(t, id, embeddingParams), f, long, answers("short"))
	if res.Metadata["truncated"] != true {
		t.Error("truncated is not set")
	}
	sent := f.embedded()
	if len(sent) != 2 || len(sent[0]) > MaxEmbedded || len(sent[0]) < MaxEmbedded-3 || !strings.HasPrefix(long, sent[0]) || sent[1] != "short" {
		t.Errorf("sent texts of %d bytes, want the answer's first %d bytes at most, on a character boundary, and the reference", len(sent[0]), MaxEmbedded)
	}
}

func TestCosine(t *testing.T) {
	for _, tc := range []struct {
		a, b []float32
		want float64
	}{
		{nil, nil, 1}, {nil, []float32{1}, 0}, {[]float32{0, 0}, []float32{1, 0}, 0},
		{[]float32{1, 2}, []float32{1}, 0}, {[]float32{0.1, 0.7, 0.3}, []float32{0.1, 0.7, 0.3}, 1},
		{[]float32{3, 4}, []float32{4, 3}, 24.0 / 25}, {[]float32{1, 0}, []float32{-1, 0}, 0},
	} {
		if got := cosine(tc.a, tc.b); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("cosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestModelsAndFingerprint: only the embedding metric calls a model and
// pins it into the prompt hash.
func TestModelsAndFingerprint(t *testing.T) {
	text := probetest.New(t, id, map[string]any{"min": 0.5}).(*Similarity)
	if d := text.Deps(); d.Models != nil || !d.References || text.Fingerprint() != "" {
		t.Errorf("chrf: got deps %+v, fingerprint %q, want references and no model", d, text.Fingerprint())
	}
	emb := probetest.New(t, id, withParams(map[string]any{"embedder_base_url": "http://gpu:8000/v1"})).(*Similarity)
	m := emb.Deps().Models
	if len(m) != 1 || !m[0].Embedding || m[0].Spec != "openai/text-embedding-3-small" || m[0].Settings["base_url"] != "http://gpu:8000/v1" {
		t.Errorf("Models: got %+v", m)
	}
	if want := `embedder:openai/text-embedding-3-small {"base_url":"http://gpu:8000/v1"}`; emb.Fingerprint() != want {
		t.Errorf("Fingerprint: got %q, want %q", emb.Fingerprint(), want)
	}
}
