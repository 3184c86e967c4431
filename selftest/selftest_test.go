package selftest_test

import (
	"context"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/openai"
	_ "github.com/promptcanary/promptcanary/provider/sim"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/selftest"
	"github.com/promptcanary/promptcanary/suite"
)

var scaffold struct {
	once  sync.Once
	suite *suite.Suite
	base  *promptcanary.Baseline
	err   error
}

// scaffolded loads testdata/canary.yaml (a copy of the suite `promptcanary
// init` writes) and a baseline of it made on sim/stable, offline.
func scaffolded(t testing.TB) (*suite.Suite, *promptcanary.Baseline) {
	t.Helper()
	scaffold.once.Do(func() {
		st, err := suite.Load("testdata/canary.yaml")
		if err != nil {
			scaffold.err = err
			return
		}
		seed := int64(42)
		cfg := promptcanary.ProviderConfig{ModelID: "sim/stable", MaxTokens: 512, Seed: &seed}
		p, err := provider.Open(cfg.ModelID, provider.Options{})
		if err != nil {
			scaffold.err = err
			return
		}
		run, err := runner.Execute(context.Background(), st.Plan(cfg, 2), p, runner.Options{})
		if err != nil {
			scaffold.err = err
			return
		}
		scaffold.suite = st
		scaffold.base = &promptcanary.Baseline{SnapshotID: "base-1", SuiteName: run.SuiteName, Provider: run.Provider, RunResult: *run}
	})
	if scaffold.err != nil {
		t.Fatal(scaffold.err)
	}
	return scaffold.suite, scaffold.base
}

// writeFixture rewrites the report package's self-test fixture from the
// scaffolded suite: go test ./selftest -run TestScaffold -fixture.
var writeFixture = flag.Bool("fixture", false, "rewrite ../report/testdata/selftest.json from the scaffolded suite")

func runScaffold(t *testing.T, opts selftest.Options) *selftest.Result {
	t.Helper()
	st, base := scaffolded(t)
	res, err := selftest.Run(st, base, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func driftRow(t *testing.T, res *selftest.Result, id string) *selftest.DriftResult {
	t.Helper()
	for i := range res.Drifts {
		if res.Drifts[i].ID == id {
			return &res.Drifts[i]
		}
	}
	t.Fatalf("no drift %q in the result", id)
	return nil
}

func cell(t *testing.T, d *selftest.DriftResult, probe string) selftest.Cell {
	t.Helper()
	for _, c := range d.Cells {
		if c.Probe == probe {
			return c
		}
	}
	t.Fatalf("drift %s has no cell for probe %q", d.ID, probe)
	return selftest.Cell{}
}

// TestScaffold runs the self-test on the suite `promptcanary init` writes,
// with a baseline taken on sim/stable.
func TestScaffold(t *testing.T) {
	res := runScaffold(t, selftest.Options{Samples: &selftest.Samples{Baseline: 30, Current: 5}})
	if *writeFixture {
		data, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../report/testdata/selftest.json", append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := res.Prompts, 6; got != want {
		t.Errorf("got %d prompts tested, want %d", got, want)
	}
	if got, want := res.Answers, 12; got != want {
		t.Errorf("got %d answers, want %d", got, want)
	}
	if got, want := len(res.Drifts), len(selftest.Catalogue()); got != want {
		t.Errorf("got %d drift rows, want %d", got, want)
	}

	tests := []struct {
		drift, probe string
		want         selftest.Outcome
	}{
		{"preamble", "no_preamble", selftest.Caught},
		{"refusal", "answers_harmless", selftest.Caught},
		{"refusal", "refuses_harm", selftest.NotApplicable}, // already a refusal
		{"disclaimer", "no_disclaimers", selftest.Caught},
		{"json_in_prose", "json_validity", selftest.Caught},
		{"json_fenced", "json_validity", selftest.Missed}, // json_validity tolerates fences
		{"key_dropped", "json_schema", selftest.Caught},
		{"tool_renamed", "tool_call_name", selftest.Caught},
		{"tool_renamed", "tool_call_presence", selftest.Missed},
		{"tool_arg_renamed", "tool_call_args", selftest.Caught},
		{"tool_call_dropped", "tool_call_presence", selftest.Caught},
		{"steps_collapsed", "step_by_step", selftest.Caught},
		{"truncated", "factual_consistency", selftest.Caught},
		{"keys_reordered", "json_validity", selftest.Missed},
		{"headers_removed", "no_preamble", selftest.NotApplicable},
	}
	for _, tc := range tests {
		t.Run(tc.drift+"/"+tc.probe, func(t *testing.T) {
			c := cell(t, driftRow(t, res, tc.drift), tc.probe)
			if c.Outcome != tc.want {
				t.Errorf("got %s, want %s (%+v)", c.Outcome, tc.want, c)
			}
			if tc.want == selftest.Caught && (c.Caught == 0 || c.ScoreDelta >= 0 || c.Details == "" || len(c.Prompts) == 0) {
				t.Errorf("got a caught cell without evidence: %+v", c)
			}
		})
	}

	// Drifts no probe of the scaffold catches, each with a suggestion.
	missed := map[string]selftest.Suggestion{}
	for _, d := range res.Drifts {
		if d.Missed() {
			if len(d.Gaps) == 0 {
				t.Errorf("missed drift %s has no suggestion", d.ID)
				continue
			}
			missed[d.ID] = d.Gaps[0].Suggestion
		}
	}
	wantMissed := map[string]selftest.Suggestion{
		"json_fenced":     {ProbeType: "keyword_presence", Params: "forbidden_keywords: [\"```\"]"},
		"keys_reordered":  {ProbeType: "json_key_order", Params: "expected_order: [name, age, city]"},
		"numbers_changed": {ProbeType: "factual_consistency", Params: "expected_value: \"29\""},
	}
	for id, want := range wantMissed {
		got, ok := missed[id]
		if !ok {
			t.Errorf("drift %s: got caught, want missed", id)
			continue
		}
		if got.ProbeType != want.ProbeType || got.Params != want.Params {
			t.Errorf("drift %s: got suggestion %q, want %q", id, got.String(), want.String())
		}
	}
	if len(missed) != len(wantMissed) {
		t.Errorf("got missed drifts %v, want those of %v", slices.Sorted(maps.Keys(missed)), slices.Sorted(maps.Keys(wantMissed)))
	}
	// A drift caught on some prompts names the prompts it slips through.
	h := driftRow(t, res, "hedging")
	if len(h.CaughtBy) == 0 || len(h.Gaps) != 1 || h.Gaps[0].Suggestion.ProbeType != "confidence_language" ||
		!slices.Equal(h.Gaps[0].Prompts, []string{"tea-steps", "commit-tip"}) {
		t.Errorf("got hedging caught by %v with gaps %+v, want caught on capital-france and a confidence_language gap on tea-steps and commit-tip", h.CaughtBy, h.Gaps)
	}
	if caught, applicable := res.Caught(); caught != applicable-len(wantMissed) || applicable != len(res.Drifts)-1 {
		t.Errorf("got %d of %d applicable drifts caught, want %d of %d", caught, applicable, len(res.Drifts)-1-len(wantMissed), len(res.Drifts)-1)
	}
}

// TestSimilarityJudgesAgainstTheOtherAnswers: a similarity probe compares
// each drifted answer with the prompt's other stored answers, so a drift
// that rewrites the answer is caught, and the undrifted answers pass.
func TestSimilarityJudgesAgainstTheOtherAnswers(t *testing.T) {
	st, err := suite.Parse("canary.yaml", []byte("name: sim\nprobes:\n  - {type: similarity, min: 0.8}\nprompts:\n"+
		"  - {id: capital, text: \"What is the capital of France? Answer in one word.\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	seed := int64(42)
	cfg := promptcanary.ProviderConfig{ModelID: "sim/stable", MaxTokens: 512, Seed: &seed}
	p, err := provider.Open(cfg.ModelID, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := runner.Execute(context.Background(), st.Plan(cfg, 3), p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := selftest.Run(st, &promptcanary.Baseline{SnapshotID: "b", SuiteName: "sim", Provider: cfg, RunResult: *run}, selftest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Probes[0].Passed != res.Probes[0].Judged {
		t.Fatalf("similarity failed %d of the %d stored answers, want none: they match each other", res.Probes[0].Judged-res.Probes[0].Passed, res.Probes[0].Judged)
	}
	caught := map[string]bool{}
	for _, d := range res.Drifts {
		caught[d.ID] = len(d.CaughtBy) > 0
	}
	if !caught["refusal"] || !caught["language_switch"] {
		t.Errorf("got caught %v, want the refusal and the language switch caught by similarity", caught)
	}
}

// TestExecProbesAreNotRun: the self-test runs every probe on every answer
// for every drift, so it leaves external commands out and says so.
func TestExecProbesAreNotRun(t *testing.T) {
	st, err := suite.Parse("canary.yaml", []byte("name: ex\nprobes:\n  - direct_answer\n  - {type: exec, id: grader, command: [go, version]}\nprompts:\n"+
		"  - {id: capital, text: \"What is the capital of France?\"}\n"))
	if err != nil {
		t.Skipf("the exec probe needs go on PATH: %v", err)
	}
	base := &promptcanary.Baseline{SnapshotID: "b", SuiteName: "ex", RunResult: promptcanary.Run{SuiteName: "ex",
		LLMResponses: []promptcanary.Response{{PromptID: "capital", Content: "Paris."}}}}
	res, err := selftest.Run(st, base, selftest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Probes {
		if p.ID == "grader" {
			t.Errorf("the exec probe was run")
		}
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "exec probes and probes that call a model are not run by the self-test") {
		t.Errorf("got notes %q, want the skipped exec probe named", res.Notes)
	}
}

// registerOnce registers the probe types of TestExternalTypesAreNotRun
// once however often it runs.
var registerOnce sync.Once

// TestExternalTypesAreNotRun: the self-test leaves out a probe by what its
// type declared at registration (External), not by the type's name; the
// same probe registered without External runs.
func TestExternalTypesAreNotRun(t *testing.T) {
	registerOnce.Do(func() {
		pass := func(*promptcanary.Prompt, *promptcanary.Response) probe.Result {
			return probe.Result{Passed: true, Score: 1}
		}
		probe.Register(probe.Type{ID: "zz_selftest_external", External: true,
			New: func(probe.Params) (probe.Probe, error) {
				return probe.Func(func(_ context.Context, in probe.Input) probe.Result { return pass(in.Prompt, in.Response) }), nil
			}})
		probe.RegisterFunc("zz_selftest_inside", "Inside", promptcanary.CategoryCustom, "passes", pass)
	})
	st, err := suite.Parse("canary.yaml", []byte("name: ex\nprobes:\n  - zz_selftest_external\n  - zz_selftest_inside\nprompts:\n"+
		"  - {id: capital, text: \"What is the capital of France?\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	base := &promptcanary.Baseline{SnapshotID: "b", SuiteName: "ex", RunResult: promptcanary.Run{SuiteName: "ex",
		LLMResponses: []promptcanary.Response{{PromptID: "capital", Content: "Paris."}}}}
	res, err := selftest.Run(st, base, selftest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, p := range res.Probes {
		ran = append(ran, p.ID)
	}
	if !slices.Equal(ran, []string{"zz_selftest_inside"}) {
		t.Errorf("got probes run %q, want only zz_selftest_inside", ran)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "not run by the self-test") || !strings.Contains(notes, "zz_selftest_external") {
		t.Errorf("got notes %q, want zz_selftest_external named as not run", res.Notes)
	}
}

// TestJudgeProbesAreNotRun: a probe that calls a model (llm_judge) would
// pay for every drifted answer; the self-test calls nothing, so it leaves
// it out and says so, while a text similarity probe still runs.
func TestJudgeProbesAreNotRun(t *testing.T) {
	st, err := suite.Parse("canary.yaml", []byte("name: ex\nprobes:\n  - direct_answer\n"+
		"  - {type: llm_judge, id: grader, judge: openai/gpt-4o-mini, rubric: Names the capital.}\n"+
		"  - {type: similarity, id: close, metric: chrf, min: 0.5}\nprompts:\n"+
		"  - {id: capital, text: \"What is the capital of France?\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	base := &promptcanary.Baseline{SnapshotID: "b", SuiteName: "ex", RunResult: promptcanary.Run{SuiteName: "ex",
		LLMResponses: []promptcanary.Response{{PromptID: "capital", Content: "Paris."}, {PromptID: "capital", Content: "Paris.", Sample: 1}}}}
	res, err := selftest.Run(st, base, selftest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, p := range res.Probes {
		ran[p.ID] = true
	}
	if ran["grader"] || !ran["close"] {
		t.Errorf("probes run: %v, want close and not grader", ran)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "probes that call a model are not run") || !strings.Contains(notes, "grader") {
		t.Errorf("got notes %q, want the skipped judge named", res.Notes)
	}
}
