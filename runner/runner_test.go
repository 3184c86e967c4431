package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
)

// fakeProvider answers with "answer to <prompt id> #<sample>", failing as
// told by fail (keyed by prompt id) and tracking the calls in flight.
type fakeProvider struct {
	mu       sync.Mutex
	calls    map[string]int
	fail     func(promptID string, attempt int) error
	inFlight atomic.Int32
	maxSeen  atomic.Int32
	block    chan struct{}
}

func (f *fakeProvider) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxSeen.Load()
		if n <= m || f.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	key := fmt.Sprintf("%s#%d", req.Prompt.ID, req.Sample)
	f.calls[key]++
	attempt := f.calls[key]
	f.mu.Unlock()
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if f.fail != nil {
		if err := f.fail(req.Prompt.ID, attempt); err != nil {
			return nil, err
		}
	}
	return &promptcanary.Response{Content: fmt.Sprintf("answer to %s #%d", req.Prompt.ID, req.Sample), LatencyMS: 5}, nil
}

func containsProbe(word string) probe.Instance {
	return probe.Instance{ID: "has_" + word, Type: "contains", Name: "Contains", Category: promptcanary.CategoryCustom, Probe: probe.Func(func(_ context.Context, in probe.Input) probe.Result {
		r := in.Response
		ok := strings.Contains(r.Content, word)
		s := 0.0
		if ok {
			s = 1
		}
		return probe.Result{Passed: ok, Score: s, Details: "looked for " + word}
	})}
}

func testPlan(prompts, samples int) *Plan {
	p := &Plan{Suite: "s", Samples: samples, Config: promptcanary.ProviderConfig{ModelID: "fake/m"}}
	for i := range prompts {
		p.Items = append(p.Items, Item{
			Prompt: promptcanary.Prompt{ID: fmt.Sprintf("p%d", i), Text: "q"},
			Probes: []probe.Instance{containsProbe("answer"), containsProbe("p0")},
		})
	}
	return p
}

func fixedOpts() Options {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clk := &fakeClock{t: t0}
	return Options{
		Now:   func() time.Time { return t0 },
		NewID: func() string { return "run-1" },
		Sleep: clk.sleep,
		Clock: clk.now,
	}
}

// fakeClock is the retry budget's clock in tests: only Sleep moves it,
// at once, so that no test waits.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return nil
}

// onSleep makes opts's Sleep tell f of each wait, its clock still moving.
func onSleep(opts *Options, f func(time.Duration)) {
	prev := opts.Sleep
	opts.Sleep = func(ctx context.Context, d time.Duration) error { f(d); return prev(ctx, d) }
}

func TestExecuteResultsInPlanOrder(t *testing.T) {
	run, err := Execute(context.Background(), testPlan(3, 2), &fakeProvider{}, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(run.LLMResponses), 6; got != want {
		t.Fatalf("got %d responses, want %d", got, want)
	}
	if got, want := len(run.ProbeResults), 12; got != want {
		t.Fatalf("got %d results, want %d", got, want)
	}
	var order []string
	for _, r := range run.LLMResponses {
		order = append(order, fmt.Sprintf("%s#%d", r.PromptID, r.Sample))
	}
	if got, want := strings.Join(order, " "), "p0#0 p1#0 p2#0 p0#1 p1#1 p2#1"; got != want {
		t.Errorf("got order %q, want %q", got, want)
	}
	r0 := run.ProbeResults[1]
	if r0.ProbeID != "has_p0" || r0.PromptID != "p0" || !r0.Passed || r0.ProbeType != "contains" || r0.Category != promptcanary.CategoryCustom {
		t.Errorf("got first result %+v, want has_p0 on p0 passed", r0)
	}
	if r := run.ProbeResults[3]; r.Passed || r.PromptID != "p1" {
		t.Errorf("got %+v, want has_p0 failing on p1", r)
	}
	if run.RunID != "run-1" || run.Samples != 2 || run.SuiteName != "s" || run.Interrupted {
		t.Errorf("got run header %+v", run)
	}
	if run.LLMResponses[0].ProviderModelID != "fake/m" || run.LLMResponses[0].Attempts != 1 {
		t.Errorf("got response %+v, want model id and 1 attempt", run.LLMResponses[0])
	}
}

func TestExecuteBoundsConcurrency(t *testing.T) {
	f := &fakeProvider{}
	opts := fixedOpts()
	opts.Concurrency = 3
	// Each call waits until several are in flight, so the bound is reached.
	f.fail = func(string, int) error {
		deadline := time.Now().Add(5 * time.Second)
		for f.maxSeen.Load() < 3 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		return nil
	}
	if _, err := Execute(context.Background(), testPlan(12, 1), f, opts); err != nil {
		t.Fatal(err)
	}
	if got := f.maxSeen.Load(); got != 3 {
		t.Errorf("got %d calls in flight at most, want 3", got)
	}
}

func TestExecuteRetries(t *testing.T) {
	tests := []struct {
		name         string
		fail         func(attempt int) error
		wantErr      string
		wantAttempts int
		wantDelays   []time.Duration
	}{
		{"429 then success honours Retry-After", func(a int) error {
			if a == 1 {
				return &provider.Error{StatusCode: 429, Retryable: true, RetryAfter: 7 * time.Second, Message: "slow down"}
			}
			return nil
		}, "", 2, []time.Duration{7 * time.Second}},
		{"5xx until attempts run out", func(int) error {
			return &provider.Error{StatusCode: 503, Retryable: true, Message: "unavailable"}
		}, "HTTP 503: unavailable", 4, nil},
		{"4xx is not retried", func(int) error {
			return &provider.Error{StatusCode: 400, Message: "bad request"}
		}, "HTTP 400: bad request", 1, nil},
		{"timeout is retried", func(a int) error {
			if a < 3 {
				return fmt.Errorf("call: %w", context.DeadlineExceeded)
			}
			return nil
		}, "", 3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var delays []time.Duration
			opts := fixedOpts()
			onSleep(&opts, func(d time.Duration) { delays = append(delays, d) })
			f := &fakeProvider{fail: func(id string, a int) error { return tc.fail(a) }}
			run, err := Execute(context.Background(), testPlan(1, 1), f, opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantErr == "" {
				if len(run.Errors) != 0 || len(run.LLMResponses) != 1 {
					t.Fatalf("got errors %v, want one response", run.Errors)
				}
				if got := run.LLMResponses[0].Attempts; got != tc.wantAttempts {
					t.Errorf("got %d attempts, want %d", got, tc.wantAttempts)
				}
			} else {
				if len(run.Errors) != 1 || len(run.ProbeResults) != 0 {
					t.Fatalf("got %d errors and %d results, want one error and no results", len(run.Errors), len(run.ProbeResults))
				}
				e := run.Errors[0]
				if e.Message != tc.wantErr || e.Attempts != tc.wantAttempts || e.PromptID != "p0" {
					t.Errorf("got error %+v, want %q after %d attempts", e, tc.wantErr, tc.wantAttempts)
				}
			}
			if tc.wantDelays != nil && fmt.Sprint(delays) != fmt.Sprint(tc.wantDelays) {
				t.Errorf("got delays %v, want %v", delays, tc.wantDelays)
			}
			if len(delays) != tc.wantAttempts-1 {
				t.Errorf("got %d waits, want %d", len(delays), tc.wantAttempts-1)
			}
		})
	}
}

func TestBackoffIsBoundedAndJittered(t *testing.T) {
	err := errors.New("reset")
	for n := 1; n <= 10; n++ {
		ceiling := min((100*time.Millisecond)<<(n-1), 30*time.Second)
		for range 50 {
			if d := backoff(100*time.Millisecond, n, err); d <= 0 || d > ceiling {
				t.Fatalf("attempt %d: got delay %v, want in (0, %v]", n, d, ceiling)
			}
		}
	}
}

func TestExecuteInterruptedKeepsFinishedCalls(t *testing.T) {
	f := &fakeProvider{block: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	opts := fixedOpts()
	opts.Concurrency = 1
	var once sync.Once
	opts.Progress = func(p Progress) {
		if p.Done == 2 {
			once.Do(cancel)
		}
	}
	// Let exactly two calls through, then block the rest until cancelled.
	go func() { f.block <- struct{}{}; f.block <- struct{}{} }()
	run, err := Execute(ctx, testPlan(5, 1), f, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got err %v, want context.Canceled", err)
	}
	if !run.Interrupted {
		t.Error("got Interrupted false, want true")
	}
	if got := len(run.LLMResponses); got != 2 {
		t.Errorf("got %d responses, want the 2 that finished", got)
	}
	if len(run.Errors) != 0 {
		t.Errorf("got errors %v, want cancelled calls left out rather than reported as provider errors", run.Errors)
	}
}

func TestEvaluateContainsProbePanics(t *testing.T) {
	boom := probe.Instance{ID: "boom", Name: "boom", Category: promptcanary.CategoryCustom, Probe: probe.Func(func(_ context.Context, _ probe.Input) probe.Result {
		panic("kaput")
	})}
	res := Evaluate(&promptcanary.Prompt{ID: "p"}, &promptcanary.Response{Content: "x", Sample: 3}, []probe.Instance{boom, containsProbe("x")})
	if res[0].Passed || res[0].Score != 0 || !strings.Contains(res[0].Details, "kaput") {
		t.Errorf("got %+v, want a failed result naming the panic", res[0])
	}
	if !res[1].Passed || res[1].Sample != 3 {
		t.Errorf("got %+v, want the next probe still evaluated", res[1])
	}
}

func TestExecuteAdaptiveStopsOnlyAcceptedPrompts(t *testing.T) {
	var asked []string
	ad := &Adaptive{
		Stages: []int{2, 4, 9},
		Accept: func(id string, results []promptcanary.ProbeResult) bool {
			asked = append(asked, fmt.Sprintf("%s:%d", id, len(results)))
			return id == "p0"
		},
	}
	plan := testPlan(2, 5)
	run, err := ExecuteAdaptive(context.Background(), plan, &fakeProvider{}, fixedOpts(), ad)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range run.LLMResponses {
		count[r.PromptID]++
	}
	if count["p0"] != 2 || count["p1"] != 5 {
		t.Errorf("got samples %v, want p0 stopped after the first stage (2) and p1 sampled to 5", count)
	}
	// Stages at or above Samples collapse into Samples: 2, 4, then 5.
	if got, want := strings.Join(asked, " "), "p0:4 p1:4 p1:8"; got != want {
		t.Errorf("got accept calls %q, want %q (results counted per prompt, 2 probes each)", got, want)
	}
	if run.Samples != 5 {
		t.Errorf("got Samples %d, want 5", run.Samples)
	}
}

func TestAdaptiveStages(t *testing.T) {
	accept := func(string, []promptcanary.ProbeResult) bool { return false }
	tests := []struct {
		stages  []int
		samples int
		want    string
	}{
		{[]int{5, 10, 20}, 20, "[5 10 20]"},
		{[]int{5, 10, 20}, 30, "[5 10 20 30]"},
		{[]int{5, 10, 20}, 5, "[5]"},
		{[]int{5, 10, 20}, 12, "[5 10 12]"},
		{nil, 7, "[7]"},
	}
	for _, tc := range tests {
		if got := fmt.Sprint((&Adaptive{Stages: tc.stages, Accept: accept}).stages(tc.samples)); got != tc.want {
			t.Errorf("stages(%v, %d) = %s, want %s", tc.stages, tc.samples, got, tc.want)
		}
	}
	if got := fmt.Sprint((*Adaptive)(nil).stages(3)); got != "[3]" {
		t.Errorf("nil Adaptive: got %s, want [3]", got)
	}
}

// TestProgressCountsFailures: the progress callback counts the calls that
// failed for good, so a progress bar can show errors as they happen.
func TestProgressCountsFailures(t *testing.T) {
	f := &fakeProvider{fail: func(promptID string, _ int) error {
		if promptID == "p1" {
			return &provider.Error{StatusCode: 400, Message: "bad request"}
		}
		return nil
	}}
	opts := fixedOpts()
	var last Progress
	calls := 0
	opts.Progress = func(p Progress) { last = p; calls++ }
	if _, err := Execute(context.Background(), testPlan(3, 2), f, opts); err != nil {
		t.Fatal(err)
	}
	if want := (Progress{Done: 6, Failed: 2, Total: 6}); last != want || calls != 6 {
		t.Errorf("got last progress %+v after %d calls, want %+v after 6", last, calls, want)
	}
}
