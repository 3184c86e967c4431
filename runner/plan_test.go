package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	_ "github.com/promptcanary/promptcanary/probe/similarity" // refPlan builds a similarity probe
	"github.com/promptcanary/promptcanary/provider"
)

// refProbe is a probe that compares answers (probe.Deps.References) and
// says which references it got: its details list their contents, and its
// score is their number / 10.
type refProbe struct{}

func (refProbe) Deps() probe.Deps { return probe.Deps{References: true} }

func (refProbe) Evaluate(_ context.Context, in probe.Input) probe.Result {
	refs := in.References
	contents := make([]string, len(refs))
	for i, ref := range refs {
		contents[i] = ref.Content
	}
	return probe.Result{Passed: len(refs) > 0, Score: float64(len(refs)) / 10, Details: strings.Join(contents, "|")}
}

func newRefProbe() probe.Instance {
	return probe.Instance{ID: "refs", Type: "refs", Name: "refs", Category: promptcanary.CategoryCustom, Probe: refProbe{}}
}

// refPlan is testPlan with the reference probe and a similarity probe
// after the two contains probes.
func refPlan(t *testing.T, prompts, samples int) *Plan {
	t.Helper()
	sim, err := probe.NewInstance("similarity", map[string]any{"metric": "token_f1", "min": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	plan := testPlan(prompts, samples)
	for i := range plan.Items {
		plan.Items[i].Probes = append(plan.Items[i].Probes, newRefProbe(), sim)
	}
	return plan
}

// resultsOf returns the details of probe id's results by "prompt#sample".
func resultsOf(run *promptcanary.Run, id string) map[string]promptcanary.ProbeResult {
	out := map[string]promptcanary.ProbeResult{}
	for _, r := range run.ProbeResults {
		if r.ProbeID == id {
			out[fmt.Sprintf("%s#%d", r.PromptID, r.Sample)] = r
		}
	}
	return out
}

func TestEvaluateWithGivesReferencesToReferencedProbes(t *testing.T) {
	probes := []probe.Instance{containsProbe("answer"), newRefProbe()}
	prompt := &promptcanary.Prompt{ID: "p0"}
	resp := &promptcanary.Response{PromptID: "p0", Sample: 2, Content: "answer"}
	refs := []promptcanary.Response{{Content: "a"}, {Content: "b"}}

	got := EvaluateWith(prompt, resp, probes, refs)
	if got[0].Details != "looked for answer" || !got[0].Passed {
		t.Errorf("plain probe: got %+v, want its own verdict", got[0])
	}
	if got[1].Details != "a|b" || got[1].Score != 0.2 || got[1].Sample != 2 || got[1].ProbeID != "refs" {
		t.Errorf("referenced probe: got %+v, want details a|b, score 0.2, sample 2", got[1])
	}
	plain := Evaluate(prompt, resp, probes)
	if plain[1].Details != "" || plain[1].Passed {
		t.Errorf("Evaluate: got %+v, want the referenced probe called with no references", plain[1])
	}
}

// TestExecuteWithReferences runs with a baseline's answers: each response
// is judged against the answers to its own prompt, and a prompt the
// baseline did not answer skips.
func TestExecuteWithReferences(t *testing.T) {
	plan := refPlan(t, 3, 2)
	plan.References = map[string][]promptcanary.Response{
		"p0": {{PromptID: "p0", Sample: 0, Content: "answer to p0 #0"}, {PromptID: "p0", Sample: 1, Content: "old p0"}},
		"p1": {{PromptID: "p1", Sample: 0, Content: "nothing alike"}},
	}
	run, err := Execute(context.Background(), plan, &fakeProvider{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	refs := resultsOf(run, "refs")
	for key, want := range map[string]string{"p0#0": "answer to p0 #0|old p0", "p0#1": "answer to p0 #0|old p0", "p1#0": "nothing alike", "p1#1": "nothing alike", "p2#0": "", "p2#1": ""} {
		if got := refs[key].Details; got != want {
			t.Errorf("%s: references %q, want %q", key, got, want)
		}
	}
	sim := resultsOf(run, "similarity")
	if r := sim["p0#0"]; r.Score != 1 || !r.Passed || r.Metadata["best_sample"] != 0 || r.Metadata["references"] != 2 {
		t.Errorf("p0#0 similarity: got %+v, want 1 against sample 0 of 2 references", r)
	}
	// "answer to p0 #1" against "answer to p0 #0": 3 of 4 words each.
	if r := sim["p0#1"]; r.Score != 0.75 || !r.Passed {
		t.Errorf("p0#1 similarity: got %+v, want 0.75", r)
	}
	if r := sim["p1#0"]; r.Score != 0 || r.Passed || r.Metadata["skipped"] != false {
		t.Errorf("p1#0 similarity: got %+v, want a failure with score 0", r)
	}
	if r := sim["p2#0"]; r.Score != 1 || !r.Passed || r.Metadata["skipped"] != true {
		t.Errorf("p2#0 similarity: got %+v, want skipped (no baseline answer to p2)", r)
	}
}

// TestExecuteWithoutReferencesLeavesOneOut runs without a baseline: each
// response is judged against the run's other responses to its prompt, in
// sample order, and a single sample skips.
func TestExecuteWithoutReferencesLeavesOneOut(t *testing.T) {
	plan := refPlan(t, 2, 3)
	run, err := Execute(context.Background(), plan, &fakeProvider{}, Options{Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	refs := resultsOf(run, "refs")
	for key, want := range map[string]string{
		"p0#0": "answer to p0 #1|answer to p0 #2",
		"p0#1": "answer to p0 #0|answer to p0 #2",
		"p0#2": "answer to p0 #0|answer to p0 #1",
		"p1#1": "answer to p1 #0|answer to p1 #2",
	} {
		if got := refs[key].Details; got != want {
			t.Errorf("%s: references %q, want %q", key, got, want)
		}
	}
	if n := len(run.ProbeResults); n != 2*3*4 {
		t.Errorf("got %d results, want %d", n, 2*3*4)
	}
	sim := resultsOf(run, "similarity")
	if r := sim["p1#2"]; r.Score != 0.75 || r.Metadata["references"] != 2 || r.Metadata["skipped"] != false {
		t.Errorf("p1#2 similarity: got %+v, want 0.75 against 2 references", r)
	}
	// The other probes keep their own verdicts.
	if r := resultsOf(run, "has_p0")["p0#1"]; !r.Passed || r.Details != "looked for p0" {
		t.Errorf("has_p0 on p0#1: got %+v", r)
	}

	one, err := Execute(context.Background(), refPlan(t, 1, 1), &fakeProvider{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := resultsOf(one, "similarity")["p0#0"]; !r.Passed || r.Score != 1 || r.Metadata["skipped"] != true {
		t.Errorf("single sample: got %+v, want skipped", r)
	}
}

// TestLeaveOneOutSkipsFailedCalls checks that an answer is compared with
// the answers that exist: a failed call is no reference.
func TestLeaveOneOutSkipsFailedCalls(t *testing.T) {
	plan := refPlan(t, 1, 3)
	failing := &sampleFailer{fakeProvider: &fakeProvider{}, sample: 1}
	run, err := Execute(context.Background(), plan, failing, Options{MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Errors) != 1 {
		t.Fatalf("got %d errors, want 1", len(run.Errors))
	}
	refs := resultsOf(run, "refs")
	if got, want := refs["p0#0"].Details, "answer to p0 #2"; got != want {
		t.Errorf("p0#0: references %q, want %q", got, want)
	}
	if _, ok := refs["p0#1"]; ok {
		t.Errorf("the failed sample has results")
	}
}

// TestReferences groups a run's answers by prompt in sample order, and is
// not nil for a run without answers.
func TestReferences(t *testing.T) {
	run := &promptcanary.Run{LLMResponses: []promptcanary.Response{
		{PromptID: "b", Sample: 1, Content: "b1"}, {PromptID: "a", Sample: 2, Content: "a2"},
		{PromptID: "a", Sample: 0, Content: "a0"}, {PromptID: "b", Sample: 0, Content: "b0"},
	}}
	got := References(run)
	contents := func(rs []promptcanary.Response) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Content)
		}
		return out
	}
	if len(got) != 2 || !slices.Equal(contents(got["a"]), []string{"a0", "a2"}) || !slices.Equal(contents(got["b"]), []string{"b0", "b1"}) {
		t.Errorf("References: got %v", got)
	}
	for _, r := range []*promptcanary.Run{nil, {}} {
		if refs := References(r); refs == nil || len(refs) != 0 {
			t.Errorf("References(%v): got %v, want an empty, non-nil map", r, refs)
		}
	}
	// A baseline without answers: every referenced probe skips rather
	// than compare the run with itself.
	plan := refPlan(t, 1, 2)
	plan.References = References(&promptcanary.Run{})
	run2, err := Execute(context.Background(), plan, &fakeProvider{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for key, r := range resultsOf(run2, "similarity") {
		if r.Metadata["skipped"] != true {
			t.Errorf("%s: got %+v, want skipped", key, r)
		}
	}
}

// TestRescore judges a run measured earlier against a baseline's answers,
// and against its own answers when the plan has none.
func TestRescore(t *testing.T) {
	plan := refPlan(t, 2, 2)
	run, err := Execute(context.Background(), plan, &fakeProvider{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := resultsOf(run, "has_answer")
	plan.References = map[string][]promptcanary.Response{"p0": {{PromptID: "p0", Content: "base"}}}
	Rescore(plan, run)
	refs := resultsOf(run, "refs")
	if got := refs["p0#1"].Details; got != "base" {
		t.Errorf("p0#1 against the baseline: references %q, want %q", got, "base")
	}
	if r := refs["p1#0"]; r.Details != "" || r.Passed {
		t.Errorf("p1#0 without baseline answers: got %+v, want no references", r)
	}
	if got := resultsOf(run, "has_answer"); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("other probes changed: got %v, want %v", got, before)
	}
	if n := len(run.ProbeResults); n != 2*2*4 {
		t.Errorf("got %d results, want %d", n, 2*2*4)
	}

	plan.References = nil
	Rescore(plan, run)
	if got := resultsOf(run, "refs")["p1#0"].Details; got != "answer to p1 #1" {
		t.Errorf("p1#0 leave-one-out: references %q, want %q", got, "answer to p1 #1")
	}
}

// sampleFailer is a fakeProvider whose calls for one sample fail.
type sampleFailer struct {
	*fakeProvider
	sample int
}

func (s *sampleFailer) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if req.Sample == s.sample {
		return nil, fmt.Errorf("sample %d fails", s.sample)
	}
	return s.fakeProvider.Generate(ctx, req)
}
