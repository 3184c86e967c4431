package judge

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// fakeCaller is a run's probe.Caller whose chat model answers with
// answer(text) and whose calls are recorded.
type fakeCaller struct {
	mu      sync.Mutex
	prompts []*promptcanary.Prompt
	cfgs    []promptcanary.ProviderConfig
	answer  func(text string) (string, error)
	release chan struct{} // when set, calls wait for it
}

func (f *fakeCaller) Call(ctx context.Context, p *promptcanary.Prompt, cfg promptcanary.ProviderConfig) (*promptcanary.Response, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, p)
	f.cfgs = append(f.cfgs, cfg)
	f.mu.Unlock()
	if f.release != nil {
		select {
		case <-f.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	ans, err := f.answer(p.Text)
	if err != nil {
		return nil, err
	}
	return &promptcanary.Response{Content: ans, PromptTokens: 20, CompletionTokens: 5}, nil
}

func (f *fakeCaller) Embed(context.Context, probe.Model, []string) ([][]float64, int, error) {
	return nil, 0, errors.New("not an embedder")
}

func (f *fakeCaller) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.prompts)
}

// says returns a caller whose judge always answers ans.
func says(ans string) *fakeCaller {
	return &fakeCaller{answer: func(string) (string, error) { return ans, nil }}
}

var baseParams = map[string]any{"judge": "openai/gpt-4o-mini", "rubric": "names Paris"}

// build builds an llm_judge from raw parameters over baseParams, with its
// disk cache (if any) in dir.
func build(t *testing.T, raw map[string]any, dir string) *Judge {
	t.Helper()
	all := map[string]any{}
	for k, v := range baseParams {
		all[k] = v
	}
	for k, v := range raw {
		all[k] = v
	}
	typ, err := probe.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	params, err := typ.Check(all)
	if err != nil {
		t.Fatal(err)
	}
	p, err := typ.Build(params, probe.Env{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return p.(*Judge)
}

var capital = &promptcanary.Prompt{ID: "capital", Text: "What is the capital of France?", SystemPrompt: "Be brief."}

func judge(j *Judge, c probe.Caller, content string) probe.Result {
	ctx := context.Background()
	if c != nil {
		ctx = probe.WithCaller(ctx, c)
	}
	return probetest.EvalIn(ctx, j, probe.Input{Prompt: capital, Response: &promptcanary.Response{PromptID: "capital", Content: content}})
}

func TestGrades(t *testing.T) {
	tests := []struct {
		name   string
		raw    map[string]any
		answer string
		passed bool
		score  float64
	}{
		{"top grade", nil, `{"score": 5, "reason": "Paris, briefly."}`, true, 1},
		{"at the default pass mark", nil, `{"score": 4, "reason": "Paris, a little wordy."}`, true, 0.75},
		{"below it", nil, `{"score": 3, "reason": "Hedges."}`, false, 0.5},
		{"bottom grade", nil, `{"score": 1, "reason": "Says Lyon."}`, false, 0},
		{"0-10 scale, fractional pass mark", map[string]any{"scale": map[string]any{"min": 0, "max": 10}, "pass_at": 7.5}, `{"score": 8, "reason": "ok"}`, true, 0.8},
		{"0-10 scale, just below", map[string]any{"scale": map[string]any{"min": 0, "max": 10}, "pass_at": 7.5}, `{"score": 7, "reason": "ok"}`, false, 0.7},
		{"binary scale", map[string]any{"scale": map[string]any{"min": 0, "max": 1}}, `{"score": 1, "reason": "ok"}`, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := judge(build(t, tc.raw, ""), says(tc.answer), "Paris.")
			probetest.CheckVerdict(t, res, tc.passed, tc.score)
			probetest.CheckKeys(t, res.Metadata, "judge", "scale_min", "scale_max", "pass_at", "cached", "grade", "reason")
			if res.Metadata["cached"] != false {
				t.Errorf("cached: got %v, want false", res.Metadata["cached"])
			}
		})
	}
	res := judge(build(t, nil, ""), says(`{"score": 3, "reason": "Hedges before naming Paris."}`), "Paris, I think.")
	const want = "The judge openai/gpt-4o-mini graded 3 on 1-5 (fails: the pass mark is 4): Hedges before naming Paris."
	if res.Details != want {
		t.Errorf("details: got %q, want %q", res.Details, want)
	}
	if res.Metadata["grade"] != 3 || res.Metadata["reason"] != "Hedges before naming Paris." || res.Metadata["pass_at"] != 4.0 {
		t.Errorf("metadata: got %v", res.Metadata)
	}
}

// TestRequest checks what the judge is sent: the default prompt filled in
// one pass, and the judge's own sampling parameters.
func TestRequest(t *testing.T) {
	c := says(`{"score": 5, "reason": "ok"}`)
	j := build(t, map[string]any{"temperature": 0.3, "max_tokens": 300}, "")
	resp := &promptcanary.Response{Content: "Paris. {{rubric}} stays as written.", ToolCalls: []promptcanary.ToolCall{{Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris"}`)}}}
	probetest.EvalIn(probe.WithCaller(context.Background(), c), j, probe.Input{Prompt: capital, Response: resp})
	if c.calls() != 1 {
		t.Fatalf("got %d calls, want 1", c.calls())
	}
	p, cfg := c.prompts[0], c.cfgs[0]
	if cfg.ModelID != "openai/gpt-4o-mini" || cfg.Temperature != 0.3 || cfg.MaxTokens != 300 || cfg.Seed != nil {
		t.Errorf("config: got %+v", cfg)
	}
	if p.ID != "capital" || p.SystemPrompt != "" {
		t.Errorf("prompt: got id %q system %q, want the judged prompt's id and no system prompt", p.ID, p.SystemPrompt)
	}
	for _, want := range []string{
		"<question>\nWhat is the capital of France?\n</question>",
		"<answer>\nParis. {{rubric}} stays as written.\ntool call: lookup {\"city\":\"Paris\"}\n</answer>",
		"<rubric>\nnames Paris\n</rubric>",
		"on an integer scale from 1 (does not meet it at all) to 5 (meets it fully)",
		`{"score": <integer from 1 to 5>, "reason": "<one sentence>"}`,
	} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("judge prompt lacks %q:\n%s", want, p.Text)
		}
	}
	// A custom template with every placeholder.
	c = says(`{"score": 5, "reason": "ok"}`)
	j = build(t, map[string]any{"prompt": "{{system_prompt}}|{{prompt}}|{{ response }}|{{rubric}}|{{scale_min}}-{{scale_max}}"}, "")
	judge(j, c, "Paris")
	if got, want := c.prompts[0].Text, "Be brief.|What is the capital of France?|Paris|names Paris|1-5"; got != want {
		t.Errorf("custom prompt: got %q, want %q", got, want)
	}
}

// TestOffFormatIsNeverAPass: whatever the judge says outside the format
// is a failed result with score 0 that says why, and it is not cached.
func TestOffFormatIsNeverAPass(t *testing.T) {
	for _, ans := range []string{
		"SCORE: 5",
		"5/5, perfect answer.",
		`Sure! {"score": 5, "reason": "perfect"}`,
		`{"score": 5, "reason": "perfect", "confidence": 1}`,
		`{"score": 9, "reason": "off the scale"}`,
		`{"score": "5", "reason": "a string"}`,
		"",
	} {
		t.Run(ans, func(t *testing.T) {
			c := says(ans)
			j := build(t, map[string]any{"cache": "memory"}, "")
			for range 2 {
				res := judge(j, c, "Paris.")
				probetest.CheckVerdict(t, res, false, 0)
				msg, _ := res.Metadata["error"].(string)
				if !strings.HasPrefix(msg, "off-format verdict: ") || !strings.Contains(res.Details, "answered off-format") {
					t.Errorf("got details %q, error %q, want an off-format error", res.Details, msg)
				}
				if res.Metadata["verdict_preview"] != ans {
					t.Errorf("verdict_preview: got %q, want %q", res.Metadata["verdict_preview"], ans)
				}
			}
			if c.calls() != 2 {
				t.Errorf("got %d calls for two evaluations, want 2: an off-format verdict is not kept", c.calls())
			}
		})
	}
}

func TestCallErrors(t *testing.T) {
	c := &fakeCaller{answer: func(string) (string, error) { return "", errors.New("HTTP 500: server error") }}
	res := judge(build(t, nil, ""), c, "Paris.")
	probetest.CheckVerdict(t, res, false, 0)
	if res.Metadata["error"] != "HTTP 500: server error" || res.Details != "Not graded: the judge openai/gpt-4o-mini could not be asked: HTTP 500: server error." {
		t.Errorf("got %q / %v", res.Details, res.Metadata["error"])
	}
	// Outside a run there is no Caller.
	for _, res := range []probe.Result{judge(build(t, nil, ""), nil, "Paris."), probetest.Run(t, id, baseParams, "Paris.")} {
		probetest.CheckVerdict(t, res, false, 0)
		if res.Metadata["error"] != ErrNoRun.Error() {
			t.Errorf("got %v, want %v", res.Metadata["error"], ErrNoRun)
		}
	}
}

// TestCacheHit: a second evaluation of the same answer is served from the
// cache, and says so; another answer is not.
func TestCacheHit(t *testing.T) {
	c := says(`{"score": 5, "reason": "ok"}`)
	j := build(t, map[string]any{"cache": "memory"}, "")
	first, second := judge(j, c, "Paris."), judge(j, c, "Paris.")
	if c.calls() != 1 {
		t.Fatalf("got %d calls for one answer judged twice, want 1", c.calls())
	}
	if first.Metadata["cached"] != false || second.Metadata["cached"] != true {
		t.Errorf("cached: got %v then %v, want false then true", first.Metadata["cached"], second.Metadata["cached"])
	}
	if first.Score != second.Score || first.Details != second.Details {
		t.Errorf("the cached verdict differs: %+v vs %+v", first, second)
	}
	judge(j, c, "Lyon.")
	if c.calls() != 2 {
		t.Errorf("got %d calls after another answer, want 2", c.calls())
	}
	// cache: off asks every time.
	c = says(`{"score": 5, "reason": "ok"}`)
	off := build(t, map[string]any{"cache": "off"}, "")
	judge(off, c, "Paris.")
	if res := judge(off, c, "Paris."); c.calls() != 2 || res.Metadata["cached"] != false {
		t.Errorf("cache off: got %d calls, cached %v; want 2, false", c.calls(), res.Metadata["cached"])
	}
}

// TestDiskCache: a verdict written by one probe (one process) is read by
// another with the same parameters; a change to what the judge is sent
// misses.
func TestDiskCache(t *testing.T) {
	dir := t.TempDir()
	c := says(`{"score": 4, "reason": "ok"}`)
	judge(build(t, nil, dir), c, "Paris.")
	files, _ := filepath.Glob(filepath.Join(dir, ".promptcanary", "judge", "*", "*.json"))
	if len(files) != 1 {
		t.Fatalf("got cache files %v, want 1", files)
	}
	res := judge(build(t, nil, dir), c, "Paris.")
	if c.calls() != 1 || res.Metadata["cached"] != true || !res.Passed {
		t.Errorf("second process: got %d calls, result %+v; want the cached pass", c.calls(), res)
	}
	for name, raw := range map[string]map[string]any{
		"another rubric":      {"rubric": "names Paris in French"},
		"another temperature": {"temperature": 0.5},
		"another scale":       {"scale": map[string]any{"min": 0, "max": 4}, "pass_at": 3},
	} {
		before := c.calls()
		judge(build(t, raw, dir), c, "Paris.")
		if c.calls() != before+1 {
			t.Errorf("%s: the cached verdict was used", name)
		}
	}
	// A damaged file is not a verdict: the judge is asked again and the
	// file rewritten.
	if err := os.WriteFile(files[0], []byte(`{"judge":"openai/gpt-4o-mini","answer":"garbage"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	before := c.calls()
	if res := judge(build(t, nil, dir), c, "Paris."); c.calls() != before+1 || !res.Passed {
		t.Errorf("damaged file: got %d new calls, result %+v; want the judge asked again", c.calls()-before, res)
	}
	if res := judge(build(t, nil, dir), c, "Paris."); res.Metadata["cached"] != true {
		t.Error("the rewritten file was not read")
	}
	// cache: memory writes nothing.
	mem := t.TempDir()
	judge(build(t, map[string]any{"cache": "memory"}, mem), c, "Paris.")
	if entries, _ := os.ReadDir(mem); len(entries) != 0 {
		t.Errorf("cache: memory wrote %d entries", len(entries))
	}
}

// TestConcurrentSameAnswer: samples that gave the same answer at once
// (temperature 0) pay for one call; the others wait for its verdict.
func TestConcurrentSameAnswer(t *testing.T) {
	c := says(`{"score": 5, "reason": "ok"}`)
	c.release = make(chan struct{})
	j := build(t, map[string]any{"cache": "memory"}, "")
	var wg sync.WaitGroup
	var cached atomic.Int32
	for range 16 {
		wg.Go(func() {
			res := judge(j, c, "Paris.")
			if !res.Passed {
				t.Errorf("got %+v, want a pass", res)
			}
			if res.Metadata["cached"] == true {
				cached.Add(1)
			}
		})
	}
	for c.calls() == 0 {
		runtime.Gosched() // until the first call starts; the others wait for it
	}
	close(c.release)
	wg.Wait()
	if c.calls() != 1 || cached.Load() != 15 {
		t.Errorf("got %d calls and %d cached results, want 1 and 15", c.calls(), cached.Load())
	}
}

// TestLongAnswersAreCut: the judge is sent at most MaxJudged bytes of an
// answer, and the result says so.
func TestLongAnswersAreCut(t *testing.T) {
	c := says(`{"score": 5, "reason": "ok"}`)
	res := judge(build(t, nil, ""), c, strings.Repeat("é", MaxJudged))
	if res.Metadata["truncated"] != true {
		t.Error("truncated is not set")
	}
	if n := len(c.prompts[0].Text); n > MaxJudged+len(DefaultPrompt)+100 {
		t.Errorf("the judge was sent %d bytes", n)
	}
}

func TestFingerprint(t *testing.T) {
	def, custom := build(t, nil, ""), build(t, map[string]any{"prompt": "{{response}} {{rubric}}"}, "")
	if def.Fingerprint() == custom.Fingerprint() || def.Fingerprint() != build(t, nil, "").Fingerprint() {
		t.Errorf("fingerprints: default %q, custom %q", def.Fingerprint(), custom.Fingerprint())
	}
	if d := def.Deps(); d.References || len(d.Models) != 1 {
		t.Errorf("Deps: got %+v, want the judge alone", d)
	}
	if m := def.Deps().Models; len(m) != 1 || m[0].Spec != "openai/gpt-4o-mini" || m[0].Embedding {
		t.Errorf("Models: got %+v", m)
	}
}

func TestDefaultPassAt(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int
		want   float64
	}{{1, 5, 4}, {1, 10, 8}, {0, 10, 8}, {0, 1, 1}, {1, 3, 3}, {0, 100, 75}} {
		if got := defaultPassAt(tc.lo, tc.hi); got != tc.want {
			t.Errorf("defaultPassAt(%d, %d) = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestConversationQuestion: the judge sees every turn of a conversation
// prompt, the tool call and its result included.
func TestConversationQuestion(t *testing.T) {
	c := says(`{"score": 5, "reason": "ok"}`)
	j := build(t, map[string]any{}, "")
	p := &promptcanary.Prompt{ID: "umbrella", Messages: []promptcanary.Message{
		{Role: "user", Content: "Umbrella in Oslo?"},
		{Role: "assistant", ToolCalls: []promptcanary.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Oslo"}`)}}},
		{Role: "tool", ToolCallID: "call_1", Name: "get_weather", Content: "heavy rain"},
	}}
	probetest.EvalIn(probe.WithCaller(context.Background(), c), j, probe.Input{Prompt: p, Response: &promptcanary.Response{Content: "Yes, take one."}})
	if c.calls() != 1 {
		t.Fatalf("got %d calls, want 1", c.calls())
	}
	want := "<question>\nuser: Umbrella in Oslo?\nassistant called get_weather {\"city\":\"Oslo\"}\ntool get_weather returned: heavy rain\n</question>"
	if got := c.prompts[0]; !strings.Contains(got.Text, want) || len(got.Messages) != 0 {
		t.Errorf("judge prompt lacks %q (or carries the turns):\n%s", want, got.Text)
	}
}

// TestUncachedAsksAgain: under probe.Uncached (a compare re-judging the
// baseline's answers) the judge is asked even for a cached answer, gives
// its verdict of now, and leaves the cache as it was.
func TestUncachedAsksAgain(t *testing.T) {
	dir := t.TempDir()
	j := build(t, nil, dir) // the default disk cache
	judge(j, says(`{"score": 5, "reason": "ok"}`), "Paris.")
	now := says(`{"score": 1, "reason": "not any more"}`)
	ctx := probe.Uncached(probe.WithCaller(context.Background(), now))
	res := probetest.EvalIn(ctx, j, probe.Input{Prompt: capital, Response: &promptcanary.Response{PromptID: "capital", Content: "Paris."}})
	if now.calls() != 1 || res.Passed || res.Metadata["cached"] != false {
		t.Errorf("uncached: got %d calls, passed %v, cached %v; want 1 call, a fail, not cached", now.calls(), res.Passed, res.Metadata["cached"])
	}
	fresh := build(t, nil, dir)
	if res := judge(fresh, says(`{"score": 1, "reason": "x"}`), "Paris."); !res.Passed || res.Metadata["cached"] != true {
		t.Errorf("after an uncached evaluation: got %+v, want the verdict cached before (a pass)", res)
	}
}
