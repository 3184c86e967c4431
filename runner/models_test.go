package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
)

// judges are the fake chat models registered as "judgefake/MODEL", by
// model: each test uses its own model name.
var judges sync.Map // string → *fakeJudge

func init() {
	provider.Register("judgefake", openFakeJudge)
	// judgevendor is judgefake declared as a vendor's model client, whose
	// model rules apply.
	provider.Register("judgevendor", openFakeJudge)
	provider.Declare("judgevendor", provider.Capabilities{VendorModels: true})
}

// openFakeJudge opens the fake judge registered for model.
func openFakeJudge(model string, opts provider.Options) (provider.Provider, error) {
	if opts.Getenv != nil && opts.Env("JUDGE_KEY") == "" {
		return nil, errors.New("JUDGE_KEY is not set")
	}
	j, ok := judges.Load(model)
	if !ok {
		return nil, fmt.Errorf("no fake judge %q", model)
	}
	opts.Secrets.Add(opts.Env("JUDGE_KEY"))
	return j.(*fakeJudge), nil
}

// fakeJudge answers "good" to every prompt, failing as fail says, and
// counts the calls in flight in a counter it may share with the model
// under test.
type fakeJudge struct {
	mu      sync.Mutex
	prompts []string
	// temperatures are the temperatures the calls were sent with.
	temperatures []float64
	attempts     map[string]int
	fail         func(attempt int) error
	answer       func(text string) string
	inFlight     *atomic.Int32
	maxSeen      *atomic.Int32
}

func newJudge(t *testing.T, model string) *fakeJudge {
	j := &fakeJudge{attempts: map[string]int{}, inFlight: &atomic.Int32{}, maxSeen: &atomic.Int32{}}
	judges.Store(model, j)
	t.Cleanup(func() { judges.Delete(model) })
	return j
}

func (j *fakeJudge) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	n := j.inFlight.Add(1)
	defer j.inFlight.Add(-1)
	for m := j.maxSeen.Load(); n > m && !j.maxSeen.CompareAndSwap(m, n); m = j.maxSeen.Load() {
	}
	time.Sleep(time.Millisecond) // overlap calls, so a broken bound shows
	j.mu.Lock()
	j.prompts = append(j.prompts, req.Prompt.Text)
	j.temperatures = append(j.temperatures, req.Config.Temperature)
	j.attempts[req.Prompt.Text]++
	attempt := j.attempts[req.Prompt.Text]
	j.mu.Unlock()
	if j.fail != nil {
		if err := j.fail(attempt); err != nil {
			return nil, err
		}
	}
	content := "good"
	if j.answer != nil {
		content = j.answer(req.Prompt.Text)
	}
	return &promptcanary.Response{Content: content, PromptTokens: 10, CompletionTokens: 2}, nil
}

func (j *fakeJudge) calls() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.prompts)
}

// askProbe is a probe that calls a model: it asks its judge about each answer and
// passes it when the judge says "good".
type askProbe struct{ judge string }

var _ probe.Dependent = (*askProbe)(nil)

func (a *askProbe) Deps() probe.Deps { return probe.Deps{Models: []probe.Model{{Spec: a.judge}}} }

func (a *askProbe) Evaluate(ctx context.Context, in probe.Input) probe.Result {
	p, r := in.Prompt, in.Response
	c := probe.CallerFrom(ctx)
	if c == nil {
		return probe.Result{Details: "no caller", Metadata: map[string]any{"error": "no caller"}}
	}
	resp, err := c.Call(ctx, &promptcanary.Prompt{ID: p.ID, Text: "grade: " + r.Content}, promptcanary.ProviderConfig{ModelID: a.judge, MaxTokens: 50})
	if err != nil {
		return probe.Result{Details: err.Error(), Metadata: map[string]any{"error": err.Error()}}
	}
	ok := resp.Content == "good"
	return probe.Result{Passed: ok, Score: map[bool]float64{true: 1}[ok], Details: "judge said " + resp.Content}
}

// judgedPlan is testPlan with an askProbe on every prompt and the judge
// in Models.
func judgedPlan(prompts, samples int, judge string) *Plan {
	p := testPlan(prompts, samples)
	for i := range p.Items {
		p.Items[i].Probes = append(p.Items[i].Probes, probe.Instance{ID: "ask", Type: "ask", Name: "Ask", Category: promptcanary.CategoryCustom, Probe: &askProbe{judge: judge}})
	}
	p.Models = []Model{{Model: probe.Model{Spec: judge}, UsedBy: []string{"ask"}}}
	return p
}

func askResults(run *promptcanary.Run) []promptcanary.ProbeResult {
	var out []promptcanary.ProbeResult
	for _, r := range run.ProbeResults {
		if r.ProbeID == "ask" {
			out = append(out, r)
		}
	}
	return out
}

// TestJudgeCallsGoThroughTheEngine: a probe's call is retried by the run's
// rules, told to OnWait with the judge and the answer it is for, and its
// tokens are recorded in the result.
func TestJudgeCallsGoThroughTheEngine(t *testing.T) {
	j := newJudge(t, "engine")
	j.fail = func(attempt int) error {
		switch attempt {
		case 1:
			return &provider.Error{StatusCode: 429, Retryable: true, RetryAfter: 3 * time.Second, Message: "slow down"}
		case 2:
			return &provider.Error{StatusCode: 500, Retryable: true, RetryAfter: time.Second, Message: "oops"}
		}
		return nil
	}
	var waits []Wait
	var slept []time.Duration
	opts := fixedOpts()
	opts.Concurrency = 1
	opts.OnWait = func(w Wait) { waits = append(waits, w) }
	onSleep(&opts, func(d time.Duration) { slept = append(slept, d) })
	run, err := Execute(context.Background(), judgedPlan(1, 2, "judgefake/engine"), &fakeProvider{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []Wait{
		{Provider: "judgefake/engine", PromptID: "p0", Sample: 0, Delay: 3 * time.Second, Reason: "HTTP 429 rate limited", Attempt: 1, MaxAttempts: 4, RateLimited: true, BudgetLeft: 177 * time.Second, Budget: 3 * time.Minute},
		{Provider: "judgefake/engine", PromptID: "p0", Sample: 0, Delay: time.Second, Reason: "HTTP 500 server error", Attempt: 2, MaxAttempts: 4, BudgetLeft: 176 * time.Second, Budget: 3 * time.Minute},
		{Provider: "judgefake/engine", PromptID: "p0", Sample: 1, Delay: 3 * time.Second, Reason: "HTTP 429 rate limited", Attempt: 1, MaxAttempts: 4, RateLimited: true, BudgetLeft: 173 * time.Second, Budget: 3 * time.Minute},
		{Provider: "judgefake/engine", PromptID: "p0", Sample: 1, Delay: time.Second, Reason: "HTTP 500 server error", Attempt: 2, MaxAttempts: 4, BudgetLeft: 172 * time.Second, Budget: 3 * time.Minute},
	}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("waits:\ngot  %+v\nwant %+v", waits, want)
	}
	if fmt.Sprint(slept) != "[3s 1s 3s 1s]" {
		t.Errorf("slept %v, want [3s 1s 3s 1s]", slept)
	}
	res := askResults(run)
	if len(res) != 2 {
		t.Fatalf("got %d ask results, want 2", len(res))
	}
	for _, r := range res {
		if !r.Passed {
			t.Errorf("sample %d: got %q, want a pass", r.Sample, r.Details)
		}
		for k, v := range map[string]any{probe.MetaJudge: "judgefake/engine", probe.MetaJudgeCalls: 1, probe.MetaJudgePromptTokens: 10, probe.MetaJudgeCompletionTokens: 2} {
			if r.Metadata[k] != v {
				t.Errorf("sample %d: metadata %s = %v, want %v", r.Sample, k, r.Metadata[k], v)
			}
		}
	}
	// The contains probes called nothing and say nothing about judges.
	for _, r := range run.ProbeResults {
		if _, ok := r.Metadata[probe.MetaJudgeCalls]; ok && r.ProbeID != "ask" {
			t.Errorf("%s records judge calls", r.ProbeID)
		}
	}
	if j.calls() != 6 {
		t.Errorf("judge saw %d attempts, want 6 (3 per answer)", j.calls())
	}
}

// TestJudgeSharesTheRetryBudget: the judge's waits come out of the run's
// retry budget; past it the judge's call fails and the result says so.
func TestJudgeSharesTheRetryBudget(t *testing.T) {
	j := newJudge(t, "budget")
	j.fail = func(int) error {
		return &provider.Error{StatusCode: 429, Retryable: true, RetryAfter: time.Hour, Message: "slow down"}
	}
	opts := fixedOpts()
	opts.Sleep = func(context.Context, time.Duration) error { return nil }
	run, err := Execute(context.Background(), judgedPlan(1, 1, "judgefake/budget"), &fakeProvider{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	res := askResults(run)
	want := "retry budget spent: waiting 1h0m0s (HTTP 429 rate limited) exceeds the 3m0s left of the run's 3m0s budget (raise it with --max-retry-wait): HTTP 429: slow down"
	if len(res) != 1 || res[0].Passed || res[0].Metadata["error"] != want {
		t.Errorf("got %+v, want a failed result with %q", res, want)
	}
	if _, ok := res[0].Metadata[probe.MetaJudgeCalls]; ok {
		t.Error("a failed call was counted")
	}
}

// TestJudgeThatCannotBeOpenedStopsTheRun: a judge whose key is missing
// stops the run before the model under test is called.
func TestJudgeThatCannotBeOpenedStopsTheRun(t *testing.T) {
	newJudge(t, "nokey")
	target := &fakeProvider{}
	opts := fixedOpts()
	opts.Getenv = func(string) string { return "" }
	run, err := Execute(context.Background(), judgedPlan(2, 1, "judgefake/nokey"), target, opts)
	want := "probe ask: the judge judgefake/nokey cannot be opened: open provider judgefake/nokey: JUDGE_KEY is not set"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	if run != nil || len(target.calls) != 0 {
		t.Errorf("got run %v after %d calls, want no run and no call", run, len(target.calls))
	}
}

// TestJudgeKeyIsScrubbed: the key a judge reads joins the run's secrets,
// so a judge that echoes it leaves no trace in the run.
func TestJudgeKeyIsScrubbed(t *testing.T) {
	const key = "judge-secret-0123456789"
	j := newJudge(t, "scrub")
	j.answer = func(string) string { return "my key is " + key }
	opts := fixedOpts()
	opts.Secrets = redact.New()
	opts.Getenv = func(k string) string { return map[string]string{"JUDGE_KEY": key}[k] }
	run, err := Execute(context.Background(), judgedPlan(1, 1, "judgefake/scrub"), &fakeProvider{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(run)
	if strings.Contains(string(b), key) {
		t.Errorf("the run holds the judge's key: %s", b)
	}
	if res := askResults(run); len(res) != 1 || !strings.Contains(res[0].Details, redact.Placeholder) {
		t.Errorf("got %+v, want the judge's answer with the key redacted", res)
	}
}

// TestJudgeCallsCountInTheRunsConcurrency: the judge's calls are made
// from the goroutines of the run's calls, so the run's and the judge's
// calls in flight together stay within the concurrency.
func TestJudgeCallsCountInTheRunsConcurrency(t *testing.T) {
	j := newJudge(t, "conc")
	target := &fakeProvider{}
	shared := &atomic.Int32{}
	j.inFlight, j.maxSeen = shared, &atomic.Int32{}
	opts := fixedOpts()
	opts.Concurrency = 3
	plan := judgedPlan(10, 3, "judgefake/conc")
	// Count the target's calls in the same counter.
	counting := providerFunc(func(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
		n := shared.Add(1)
		defer shared.Add(-1)
		for m := j.maxSeen.Load(); n > m && !j.maxSeen.CompareAndSwap(m, n); m = j.maxSeen.Load() {
		}
		time.Sleep(time.Millisecond)
		return target.Generate(ctx, req)
	})
	if _, err := Execute(context.Background(), plan, counting, opts); err != nil {
		t.Fatal(err)
	}
	if got := j.maxSeen.Load(); got > 3 || got < 1 {
		t.Errorf("at most %d calls in flight, want 1 to 3", got)
	}
	if j.calls() != 30 {
		t.Errorf("judge saw %d calls, want 30", j.calls())
	}
}

type providerFunc func(ctx context.Context, req *provider.Request) (*promptcanary.Response, error)

func (f providerFunc) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	return f(ctx, req)
}

// TestJudgeIsTheModelUnderTest: a judge that is the model under test is
// the run's own provider, paced by the run's limits.
func TestJudgeIsTheModelUnderTest(t *testing.T) {
	target := &fakeProvider{}
	plan := judgedPlan(2, 1, "fake/m") // testPlan's model
	opts := fixedOpts()
	opts.Getenv = func(string) string { return "" } // the fake provider needs no key
	run, err := Execute(context.Background(), plan, target, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Two answers and two judgements, all by the one provider.
	n := 0
	for _, c := range target.calls {
		n += c
	}
	if n != 4 {
		t.Errorf("the model under test saw %d calls, want 4", n)
	}
	for _, r := range askResults(run) {
		if r.Metadata[probe.MetaJudgeCalls] != 1 {
			t.Errorf("got metadata %v, want one judge call", r.Metadata)
		}
	}
}

// TestModelCost prices the judges' and embedders' calls recorded in a
// run, as it reads them back from JSON.
func TestModelCost(t *testing.T) {
	run := &promptcanary.Run{ProbeResults: []promptcanary.ProbeResult{
		{Metadata: map[string]any{probe.MetaJudge: "openai/gpt-4o-mini", probe.MetaJudgeCalls: 1, probe.MetaJudgePromptTokens: 1000, probe.MetaJudgeCompletionTokens: 100}},
		{Metadata: map[string]any{probe.MetaJudge: "openai/gpt-4o-mini", "cached": true}}, // served from a cache: no call
		{Metadata: map[string]any{probe.MetaEmbedder: "openai/text-embedding-3-small", probe.MetaEmbeddingCalls: 1, probe.MetaEmbeddingTokens: 5000}},
		{Metadata: map[string]any{probe.MetaEmbedder: "ollama/nomic-embed-text", probe.MetaEmbeddingCalls: 2, probe.MetaEmbeddingTokens: 900}},
	}}
	b, _ := json.Marshal(run)
	var back promptcanary.Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	const judge = (1000*0.15 + 100*0.60) / 1e6
	for name, tc := range map[string]struct {
		prices map[string]provider.Price
		want   float64
	}{
		"list prices":        {nil, judge}, // the embedder's price is unknown: left out
		"priced embedder":    {map[string]provider.Price{"text-embedding-3-small": {Input: 0.02}}, judge + 5000*0.02/1e6},
		"overridden judge":   {map[string]provider.Price{"openai/gpt-4o-mini": {Input: 1, Output: 2}}, (1000*1 + 100*2) / 1e6},
		"as read from JSON":  {nil, judge},
		"nothing to price":   {nil, 0},
		"unknown judge":      {nil, -1},
		"unknown judge json": {nil, -1},
	} {
		r := &back
		switch name {
		case "list prices", "priced embedder", "overridden judge":
			r = run
		case "nothing to price":
			r = &promptcanary.Run{ProbeResults: []promptcanary.ProbeResult{{Metadata: map[string]any{"x": 1}}}}
		case "unknown judge", "unknown judge json":
			r = &promptcanary.Run{ProbeResults: []promptcanary.ProbeResult{{Metadata: map[string]any{probe.MetaJudge: "acme/grader", probe.MetaJudgeCalls: 1.0, probe.MetaJudgePromptTokens: 5.0}}}}
		}
		got, known := ModelCost(r, tc.prices)
		if tc.want < 0 {
			if known {
				t.Errorf("%s: got a known cost %v, want unknown", name, got)
			}
			continue
		}
		if !known || math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: got %v (known %v), want %v", name, got, known, tc.want)
		}
	}
}

// embedProbe is a probe that calls a model: it embeds its answer with n copies of
// itself, to test the engine's embedding calls.
type embedProbe struct {
	model probe.Model
	n     int
}

func (e *embedProbe) Deps() probe.Deps { return probe.Deps{Models: []probe.Model{e.model}} }

func (e *embedProbe) Evaluate(ctx context.Context, in probe.Input) probe.Result {
	r := in.Response
	texts := make([]string, e.n)
	for i := range texts {
		texts[i] = fmt.Sprintf("%s %d", r.Content, i)
	}
	vs, _, err := probe.CallerFrom(ctx).Embed(ctx, e.model, texts)
	if err != nil {
		return probe.Result{Details: err.Error(), Metadata: map[string]any{"error": err.Error()}}
	}
	return probe.Result{Passed: len(vs) == e.n, Score: 1, Details: fmt.Sprint(len(vs), " vectors")}
}

// TestEmbeddingCallsGoThroughTheEngine: a long list is embedded in
// batches, each retried on a server error, and the tokens are recorded.
func TestEmbeddingCallsGoThroughTheEngine(t *testing.T) {
	var mu sync.Mutex
	var batches []int
	failed := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/embeddings" || req.Model != "emb-model" {
			t.Errorf("bad request %s %s", r.URL.Path, body)
		}
		mu.Lock()
		defer mu.Unlock()
		if !failed {
			failed = true
			w.WriteHeader(503)
			io.WriteString(w, `{"error":{"message":"warming up"}}`)
			return
		}
		batches = append(batches, len(req.Input))
		var data []string
		for i := range req.Input {
			data = append(data, fmt.Sprintf(`{"index":%d,"embedding":[1,%d]}`, i, i))
		}
		fmt.Fprintf(w, `{"data":[%s],"usage":{"prompt_tokens":%d}}`, strings.Join(data, ","), 3*len(req.Input))
	}))
	t.Cleanup(srv.Close)
	m := probe.Model{Spec: "openai/emb-model", Embedding: true, Settings: map[string]any{"base_url": srv.URL}}
	plan := testPlan(1, 1)
	plan.Items[0].Probes = []probe.Instance{{ID: "emb", Type: "emb", Name: "Emb", Category: promptcanary.CategoryCustom, Probe: &embedProbe{model: m, n: 100}}}
	plan.Models = []Model{{Model: m, UsedBy: []string{"emb"}}}
	var waits []Wait
	opts := fixedOpts()
	opts.Sleep = func(context.Context, time.Duration) error { return nil }
	opts.OnWait = func(w Wait) { waits = append(waits, w) }
	run, err := Execute(context.Background(), plan, &fakeProvider{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := run.ProbeResults[0]
	if !r.Passed {
		t.Fatalf("got %q, want 100 vectors", r.Details)
	}
	if fmt.Sprint(batches) != "[64 36]" {
		t.Errorf("batches: got %v, want [64 36]", batches)
	}
	for k, v := range map[string]any{probe.MetaEmbedder: "openai/emb-model", probe.MetaEmbeddingCalls: 2, probe.MetaEmbeddingTokens: 300} {
		if r.Metadata[k] != v {
			t.Errorf("metadata %s = %v, want %v", k, r.Metadata[k], v)
		}
	}
	if len(waits) != 1 || waits[0].Provider != "openai/emb-model" || waits[0].Reason != "HTTP 503 server error" || waits[0].PromptID != "p0" {
		t.Errorf("waits: got %+v, want one for the embedder's 503 on p0", waits)
	}
}

// TestRemoteProbeWithoutCaller: outside a run a probe that calls models
// gets no Caller, and records no calls.
func TestRemoteProbeWithoutCaller(t *testing.T) {
	res := Evaluate(&promptcanary.Prompt{ID: "p"}, &promptcanary.Response{Content: "x"}, []probe.Instance{{ID: "ask", Probe: &askProbe{judge: "judgefake/none"}}})
	if res[0].Passed || res[0].Metadata["error"] != "no caller" {
		t.Errorf("got %+v, want the probe's no-caller error", res[0])
	}
}

// A judge is called as its model takes it: a gpt-5 judge behind a vendor
// client gets the temperature 1 it accepts, not the judge's 0, while a
// client whose requests the user writes gets what was asked.
func TestJudgeFollowsTheModelRules(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want float64
	}{{"judgevendor/gpt-5", 1}, {"judgefake/gpt-5", 0}} {
		j := newJudge(t, "gpt-5")
		if _, err := Execute(context.Background(), judgedPlan(1, 1, tc.spec), &fakeProvider{}, fixedOpts()); err != nil {
			t.Fatal(err)
		}
		j.mu.Lock()
		if len(j.temperatures) == 0 || j.temperatures[0] != tc.want {
			t.Errorf("%s: the judge was sent temperatures %v, want %v", tc.spec, j.temperatures, tc.want)
		}
		j.mu.Unlock()
	}
}
