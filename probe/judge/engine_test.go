package judge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/probe"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	_ "github.com/promptcanary/promptcanary/provider/builtin"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// fakeAPI is an OpenAI-compatible server: the model under test answers
// "Paris is the capital of France.", and the judge answers with the next
// of its scripted replies (the last one repeats).
type fakeAPI struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	judged  []map[string]any // the judge's request bodies
	keys    []string         // the judge's Authorization headers
}

type reply struct {
	status  int
	header  map[string]string
	content string // the judge's answer when status is 200
}

func verdict(score int, reason string) reply {
	b, _ := json.Marshal(map[string]any{"score": score, "reason": reason})
	return reply{status: 200, content: string(b)}
}

func serveAPI(t *testing.T, replies ...reply) *fakeAPI {
	f := &fakeAPI{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("bad request %s %s", r.URL.Path, body)
			w.WriteHeader(400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if req["model"] == "gpt-target" {
			fmt.Fprint(w, completion("Paris is the capital of France.", 12, 7))
			return
		}
		f.mu.Lock()
		f.judged = append(f.judged, req)
		f.keys = append(f.keys, r.Header.Get("Authorization"))
		rep := f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
		f.mu.Unlock()
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		if rep.status != 200 {
			w.WriteHeader(rep.status)
			fmt.Fprintf(w, `{"error":{"message":"status %d"}}`, rep.status)
			return
		}
		fmt.Fprint(w, completion(rep.content, 100, 10))
	}))
	t.Cleanup(f.Close)
	return f
}

func completion(content string, in, out int) string {
	b, _ := json.Marshal(map[string]any{
		"id": "c1", "object": "chat.completion", "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
	return string(b)
}

func (f *fakeAPI) judgeCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.judged)
}

const judgeKey = "judge-key-0123456789abcdef"

// suiteAt writes canary.yaml into a new directory, with the judge at the
// fake API, and loads it.
func suiteAt(t *testing.T, dir, baseURL, cache string) *suite.Suite {
	t.Helper()
	doc := fmt.Sprintf(`name: judged
judges:
  - id: openai/judge-model
    base_url: %s/v1
    api_key_env: JUDGE_KEY
    rpm: 6000
prices:
  openai/gpt-target: {input: 1, output: 1}
  openai/judge-model: {input: 2, output: 4}
probes:
  - type: llm_judge
    id: capital_judge
    judge: openai/judge-model
    rubric: The answer names Paris as the capital of France.
    cache: %s
prompts:
  - id: capital
    text: What is the capital of France?
`, baseURL, cache)
	path := filepath.Join(dir, "canary.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := suite.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// execute runs st against the model under test at the fake API, as
// promptcanary run does.
func execute(t *testing.T, st *suite.Suite, api *fakeAPI, samples int, waits *[]runner.Wait) *promptcanary.Run {
	t.Helper()
	s := check.Settings{
		Providers: []string{"openai/gpt-target"},
		BaseURL:   api.URL + "/v1",
		Samples:   &samples,
		Getenv:    func(k string) string { return map[string]string{"JUDGE_KEY": judgeKey}[k] },
	}
	targets, n, err := check.Resolve(st, s)
	if err != nil {
		t.Fatal(err)
	}
	x := check.Exec{Settings: s, OnWait: probetest.WaitsInto(waits)}
	runs, err := check.Execute(context.Background(), st, targets, n, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}

func judgeResults(run *promptcanary.Run) []promptcanary.ProbeResult {
	return probetest.ResultsOf(run, "capital_judge")
}

// TestJudgeThroughTheEngine: the judge's 429 and 500 are retried by the
// run's rules and told to OnWait; three samples with the same answer pay
// for one verdict; its tokens are in the result and its cost in the
// run's; and the next run (a compare, a confirmation) pays nothing.
func TestJudgeThroughTheEngine(t *testing.T) {
	api := serveAPI(t,
		reply{status: 429, header: map[string]string{"Retry-After-Ms": "1"}},
		reply{status: 500, header: map[string]string{"Retry-After-Ms": "1"}},
		verdict(5, "Names Paris, and only Paris."))
	dir := t.TempDir()
	st := suiteAt(t, dir, api.URL, "disk")
	var waits []runner.Wait
	run := execute(t, st, api, 3, &waits)

	if api.judgeCalls() != 3 {
		t.Errorf("the judge saw %d requests, want 3 (429, 500, then the verdict)", api.judgeCalls())
	}
	if len(waits) != 2 || waits[0].Provider != "openai/judge-model" || waits[0].Reason != "HTTP 429 rate limited" ||
		waits[1].Reason != "HTTP 500 server error" || waits[0].PromptID != "capital" {
		t.Errorf("waits: got %+v, want the judge's 429 then 500 on capital", waits)
	}
	res := judgeResults(run)
	if len(res) != 3 {
		t.Fatalf("got %d judge results, want 3", len(res))
	}
	paid := 0
	for _, r := range res {
		if !r.Passed || r.Score != 1 || r.Metadata["grade"] != 5 {
			t.Errorf("sample %d: got %v %v %q, want a pass graded 5", r.Sample, r.Passed, r.Score, r.Details)
		}
		if r.Metadata[probe.MetaJudgeCalls] == 1 {
			paid++
			if r.Metadata[probe.MetaJudgePromptTokens] != 100 || r.Metadata[probe.MetaJudgeCompletionTokens] != 10 || r.Metadata["cached"] != false {
				t.Errorf("the paid result's metadata: %v", r.Metadata)
			}
		} else if r.Metadata["cached"] != true {
			t.Errorf("sample %d neither paid nor cached: %v", r.Sample, r.Metadata)
		}
	}
	if paid != 1 {
		t.Errorf("%d results paid for the verdict, want 1", paid)
	}
	wantCost := 3*(12+7)*1/1e6 + (100*2+10*4)/1e6
	if run.CostUSD == nil || math.Abs(*run.CostUSD-wantCost) > 1e-12 {
		t.Errorf("cost: got %v, want %v (the answers and the judge)", run.CostUSD, wantCost)
	}

	// What the judge was sent, on the wire.
	req := api.judged[0]
	if req["temperature"] != 0.0 || req["max_tokens"] != 512.0 || api.keys[0] != "Bearer "+judgeKey {
		t.Errorf("judge request: temperature %v max_tokens %v auth %q", req["temperature"], req["max_tokens"], api.keys[0])
	}
	msgs, _ := req["messages"].([]any)
	if len(msgs) != 1 || !strings.Contains(fmt.Sprint(msgs[0]), "<answer>\nParis is the capital of France.\n</answer>") {
		t.Errorf("judge messages: %v", msgs)
	}

	// The same answers again, as a compare would get them: no call.
	again := execute(t, st, api, 3, nil)
	if api.judgeCalls() != 3 {
		t.Errorf("the second run called the judge %d more times, want 0", api.judgeCalls()-3)
	}
	for _, r := range judgeResults(again) {
		if !r.Passed || r.Metadata["cached"] != true || r.Metadata[probe.MetaJudgeCalls] != nil {
			t.Errorf("second run: got %v %v, want a cached pass", r.Passed, r.Metadata)
		}
	}
	if again.CostUSD == nil || math.Abs(*again.CostUSD-3*(12+7)/1e6) > 1e-12 {
		t.Errorf("second run's cost: got %v, want the answers' only", again.CostUSD)
	}
	// Another process, reading the suite again: the disk cache answers.
	fresh := execute(t, suiteAt(t, dir, api.URL, "disk"), api, 1, nil)
	if api.judgeCalls() != 3 || judgeResults(fresh)[0].Metadata["cached"] != true {
		t.Errorf("a new process called the judge (%d calls in all), want the disk cache", api.judgeCalls())
	}
}

// TestOffFormatJudge: a judge that answers off-format fails every result
// with an error, never passes, and is asked again next time.
func TestOffFormatJudge(t *testing.T) {
	api := serveAPI(t, reply{status: 200, content: "The answer is correct.\nSCORE: 5"})
	st := suiteAt(t, t.TempDir(), api.URL, "memory")
	for round := range 2 {
		run := execute(t, st, api, 1, nil)
		for _, r := range judgeResults(run) {
			if r.Passed || r.Score != 0 || !strings.HasPrefix(fmt.Sprint(r.Metadata["error"]), "off-format verdict: the answer does not start with a JSON object") {
				t.Errorf("round %d: got %v %v %v, want an off-format error", round, r.Passed, r.Score, r.Metadata["error"])
			}
		}
		if want := round + 1; api.judgeCalls() != want {
			t.Errorf("round %d: the judge saw %d requests, want %d (an off-format verdict is not kept)", round, api.judgeCalls(), want)
		}
	}
}

// TestJudgeErrorsAreResults: a judge that keeps failing makes error
// results, not a failed run, and the answers are still measured.
func TestJudgeErrorsAreResults(t *testing.T) {
	api := serveAPI(t, reply{status: 400})
	run := execute(t, suiteAt(t, t.TempDir(), api.URL, "off"), api, 1, nil)
	res := judgeResults(run)
	if len(run.LLMResponses) != 1 || len(res) != 1 {
		t.Fatalf("got %d answers and %d judge results, want 1 and 1", len(run.LLMResponses), len(res))
	}
	if res[0].Passed || res[0].Metadata["error"] != "HTTP 400: status 400" {
		t.Errorf("got %v %v, want the judge's HTTP 400 as the error", res[0].Passed, res[0].Metadata["error"])
	}
	if api.judgeCalls() != 1 {
		t.Errorf("a final error was retried: %d calls", api.judgeCalls())
	}
}

// TestExampleValidates: what `probes show llm_judge --example` prints
// loads and passes validate.
func TestExampleValidates(t *testing.T) {
	typ, err := probe.Lookup("llm_judge")
	if err != nil {
		t.Fatal(err)
	}
	st, err := suite.Parse("canary.yaml", []byte(suite.ExampleFile(typ)))
	if err != nil {
		t.Fatalf("example does not load:\n%s\n%v", suite.ExampleFile(typ), err)
	}
	if err := check.CheckProviders(st, func(string) string { return "" }); err != nil {
		t.Errorf("validate: %v", err)
	}
	plan := st.Plan(promptcanary.ProviderConfig{ModelID: "openai/gpt-4o"}, 1)
	if len(plan.Models) != 1 || plan.Models[0].Spec != "openai/gpt-4o-mini" || plan.Models[0].Limits.RPM != 500 || plan.Models[0].Settings["api_key_env"] != "OPENAI_API_KEY" {
		t.Errorf("plan models: got %+v, want the judge with its judges: entry", plan.Models)
	}
}
