// Package probetest holds the checks the built-in probe families' tests
// share: building a probe through the registry, evaluating it as the run
// engine does, and asserting verdicts, metadata keys and parameter errors.
package probetest

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/fixture"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/runner"
)

// New builds probe id from raw parameters through the registry, failing the
// test on error.
func New(t testing.TB, id string, raw map[string]any) probe.Probe {
	t.Helper()
	p, _, err := probe.New(id, raw)
	if err != nil {
		t.Fatalf("probe.New(%q, %v): %v", id, raw, err)
	}
	return p
}

// Run builds probe id from raw and evaluates content with Eval, as the
// runner does.
func Run(t testing.TB, id string, raw map[string]any, content string) probe.Result {
	t.Helper()
	return Eval(New(t, id, raw), &promptcanary.Prompt{ID: "p1"}, &promptcanary.Response{PromptID: "p1", Content: content})
}

// Eval evaluates p on resp, an answer to prompt, against refs, as a run
// does: through probe.Instance.Evaluate, which turns a panic into a failed
// result and clamps the score.
func Eval(p probe.Probe, prompt *promptcanary.Prompt, resp *promptcanary.Response, refs ...promptcanary.Response) probe.Result {
	return EvalIn(context.Background(), p, probe.Input{Prompt: prompt, Response: resp, References: refs})
}

// EvalIn is Eval of in under ctx.
func EvalIn(ctx context.Context, p probe.Probe, in probe.Input) probe.Result {
	inst := probe.Instance{Probe: p}
	return inst.Evaluate(ctx, in)
}

// CheckVerdict asserts passed, score (to 1e-9) and non-empty details.
func CheckVerdict(t testing.TB, res probe.Result, passed bool, score float64) {
	t.Helper()
	if res.Passed != passed {
		t.Errorf("passed: got %v, want %v (details %q)", res.Passed, passed, res.Details)
	}
	if math.Abs(res.Score-score) > 1e-9 {
		t.Errorf("score: got %v, want %v (details %q)", res.Score, score, res.Details)
	}
	if res.Details == "" {
		t.Errorf("details: got empty, want a sentence")
	}
}

// Want is the expected result of one row of a probe's table test.
type Want struct {
	Passed bool
	Score  float64
	// Meta is the exact metadata; nil skips the check.
	Meta map[string]any
	// Details is a substring the details must contain.
	Details string
}

// CheckResult asserts the verdict of want as CheckVerdict does, its
// metadata and details, and that the metadata encodes as JSON, as the
// store keeps it.
func CheckResult(t testing.TB, res probe.Result, want Want) {
	t.Helper()
	CheckVerdict(t, res, want.Passed, want.Score)
	if want.Meta != nil {
		if diff := cmp.Diff(want.Meta, res.Metadata); diff != "" {
			t.Errorf("metadata mismatch (-want +got):\n%s", diff)
		}
	}
	if !strings.Contains(res.Details, want.Details) {
		t.Errorf("details: got %q, want it to contain %q", res.Details, want.Details)
	}
	if _, err := json.Marshal(res.Metadata); err != nil {
		t.Errorf("metadata does not encode as JSON: %v", err)
	}
}

// CheckKeys asserts that the metadata holds exactly keys.
func CheckKeys(t testing.TB, meta map[string]any, keys ...string) {
	t.Helper()
	got := make([]string, 0, len(meta))
	for k := range meta {
		got = append(got, k)
	}
	slices.Sort(got)
	want := slices.Clone(keys)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("metadata keys: got %v, want %v", got, want)
	}
}

// ParamNames returns the Param of every *probe.ParamError in err, sorted,
// and fails the test if err holds anything else.
func ParamNames(t testing.TB, err error) []string {
	t.Helper()
	params, other := probe.ParamErrors(err)
	for _, e := range other {
		t.Errorf("error %v (%T): want a *probe.ParamError", e, e)
	}
	names := make([]string, 0, len(params))
	for _, pe := range params {
		names = append(names, pe.Param)
	}
	slices.Sort(names)
	return names
}

// Registered is a built-in probe type as it must be registered.
type Registered struct {
	ID, Name string
	Category promptcanary.Category
	// Raw holds parameters enough to build the probe.
	Raw map[string]any
	// Defaults, unless nil, maps every parameter to its default (nil for
	// none), and every parameter must then be optional.
	Defaults map[string]any
}

// CheckRegistered checks that each type of cases is registered with its
// name and category, a one-sentence description and documented
// parameters, and that an instance built from Raw carries the type's
// identity, the only one a probe has.
func CheckRegistered(t *testing.T, cases []Registered) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.ID, func(t *testing.T) {
			typ, err := probe.Lookup(tc.ID)
			if err != nil {
				t.Fatalf("Lookup(%q): %v", tc.ID, err)
			}
			if typ.Name != tc.Name || typ.Category != tc.Category {
				t.Errorf("type: got name %q, category %q, want %q, %q", typ.Name, typ.Category, tc.Name, tc.Category)
			}
			if !strings.HasSuffix(typ.Description, ".") || strings.Contains(typ.Description, ". ") {
				t.Errorf("description: got %q, want one sentence", typ.Description)
			}
			defaults := map[string]any{}
			for _, p := range typ.Params {
				defaults[p.Name] = p.Default
				if p.Doc == "" || (tc.Defaults != nil && p.Required) {
					t.Errorf("param %s: got required %v, doc %q, want documented (and optional when defaults are listed)", p.Name, p.Required, p.Doc)
				}
			}
			if diff := cmp.Diff(tc.Defaults, defaults); tc.Defaults != nil && diff != "" {
				t.Errorf("param defaults (-want +got):\n%s", diff)
			}
			inst, err := probe.NewInstance(tc.ID, tc.Raw)
			if err != nil {
				t.Fatalf("NewInstance(%q, %v): %v", tc.ID, tc.Raw, err)
			}
			if inst.Type != tc.ID || inst.Name != typ.Name || inst.Category != typ.Category || inst.Probe == nil {
				t.Errorf("instance: got %q %q %q %v, want the type's identity and a probe", inst.Type, inst.Name, inst.Category, inst.Probe)
			}
		})
	}
}

// Bench measures p judging resp, an answer to prompt, as a run evaluates
// it (probe.Instance.Evaluate), with resp's content as an iteration's
// bytes.
func Bench(b *testing.B, p probe.Probe, prompt *promptcanary.Prompt, resp *promptcanary.Response) {
	b.Helper()
	inst := probe.Instance{Probe: p}
	in := probe.Input{Prompt: prompt, Response: resp}
	ctx := context.Background()
	b.SetBytes(int64(len(resp.Content)))
	b.ReportAllocs()
	for b.Loop() {
		inst.Evaluate(ctx, in)
	}
}

// Testdata returns the content of testdata/name in the calling package's
// directory, failing the test when it cannot be read.
func Testdata(tb testing.TB, name string) string {
	tb.Helper()
	return fixture.Read(tb, name)
}

// AddTestdata adds to f's corpus the content of every file of testdata/
// that matches pattern, then each of seeds.
func AddTestdata(f *testing.F, pattern string, seeds ...string) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", pattern))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range seeds {
		f.Add(s)
	}
}

// ConfigError is a parameter mistake and what building the probe must
// report: the parameters named, and a part of the message.
type ConfigError struct {
	Name   string
	ID     string
	Raw    map[string]any
	Params []string
	Msg    string
}

// CheckConfigErrors checks that building each case's probe fails with
// *probe.ParamErrors for exactly its parameters and a message containing
// its Msg.
func CheckConfigErrors(t *testing.T, cases []ConfigError) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			p, _, err := probe.New(tc.ID, tc.Raw)
			if err == nil {
				t.Fatalf("New(%q, %v): got probe %v, want an error", tc.ID, tc.Raw, p)
			}
			if got := ParamNames(t, err); !slices.Equal(got, tc.Params) {
				t.Errorf("params: got %v, want %v", got, tc.Params)
			}
			if !strings.Contains(err.Error(), tc.Msg) {
				t.Errorf("error: got %q, want it to contain %q", err, tc.Msg)
			}
		})
	}
}

// Built is a probe type's parameters and the probe they must build.
type Built struct {
	ID   string
	Raw  map[string]any
	Want probe.Probe
}

// CheckBuilt checks that each case's parameters build its probe.
func CheckBuilt(t *testing.T, cases []Built, opts ...cmp.Option) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.ID, func(t *testing.T) {
			got, _, err := probe.New(tc.ID, tc.Raw)
			if err != nil {
				t.Fatalf("New(%q, %v): %v", tc.ID, tc.Raw, err)
			}
			if diff := cmp.Diff(tc.Want, got, opts...); diff != "" {
				t.Errorf("probe (-want +got):\n%s", diff)
			}
		})
	}
}

// List is a YAML list of strings as the decoder produces it.
func List(s ...string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// Strs is s as list metadata holds it: never nil.
func Strs(s ...string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Responses returns a response of each of contents.
func Responses(contents ...string) []*promptcanary.Response {
	out := make([]*promptcanary.Response, len(contents))
	for i, c := range contents {
		out[i] = &promptcanary.Response{Content: c}
	}
	return out
}

// Concurrently calls f(0), …, f(n-1) in n goroutines at once and waits for
// them all, for tests run with -race; f reports problems with t.Errorf,
// which any goroutine may call.
func Concurrently(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

// CheckConcurrent evaluates each of probes on each of resps, answers to
// prompt, in turn, then all again from 8 goroutines at once, as a run's
// workers share the probes and the responses (run with -race): every
// concurrent result must equal the sequential one, metadata included.
func CheckConcurrent(t *testing.T, probes []probe.Probe, prompt *promptcanary.Prompt, resps []*promptcanary.Response, refs ...promptcanary.Response) {
	t.Helper()
	want := make([][]probe.Result, len(probes))
	for i, p := range probes {
		for _, r := range resps {
			want[i] = append(want[i], Eval(p, prompt, r, refs...))
		}
	}
	Concurrently(8, func(g int) {
		for k := range 200 {
			j := (g + k) % len(resps)
			for i, p := range probes {
				if got := Eval(p, prompt, resps[j], refs...); !reflect.DeepEqual(got, want[i][j]) {
					t.Errorf("%T on %q: got %+v, want %+v", p, resps[j].Content, got, want[i][j])
					return
				}
			}
		}
	})
}

// WaitsInto returns an OnWait function for a run that appends each wait
// to *waits (when waits is not nil); it may be called concurrently.
func WaitsInto(waits *[]runner.Wait) func(runner.Wait) {
	var mu sync.Mutex
	return func(w runner.Wait) {
		mu.Lock()
		defer mu.Unlock()
		if waits != nil {
			*waits = append(*waits, w)
		}
	}
}

// ResultsOf returns the results of probe id in run, in the run's order.
func ResultsOf(run *promptcanary.Run, id string) []promptcanary.ProbeResult {
	var out []promptcanary.ProbeResult
	for _, r := range run.ProbeResults {
		if r.ProbeID == id {
			out = append(out, r)
		}
	}
	return out
}

// RunVerdict is Run, checking the verdict (CheckVerdict) and that the
// details contain details.
func RunVerdict(t testing.TB, id string, raw map[string]any, content string, passed bool, score float64, details string) probe.Result {
	t.Helper()
	res := Run(t, id, raw, content)
	CheckVerdict(t, res, passed, score)
	if !strings.Contains(res.Details, details) {
		t.Errorf("details: got %q, want it to contain %q", res.Details, details)
	}
	return res
}
