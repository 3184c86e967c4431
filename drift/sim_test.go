package drift_test

import (
	"context"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/sim"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// simRun runs testdata/canary.yaml (the suite `init` writes) on a
// simulated model.
func simRun(t *testing.T, model string, samples int) *promptcanary.Run {
	t.Helper()
	st, err := suite.Load("testdata/canary.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := provider.Open(model, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := runner.Execute(context.Background(), st.Plan(promptcanary.ProviderConfig{ModelID: model, MaxTokens: 512}, samples), p, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestSimulatedDriftOneSeverityPerPair compares the simulated drifted model
// against a baseline of the stable one and checks that every pair reads
// the same everywhere: each tested unit of a pair carries its
// comparison's severity and evidence, exactly one unit decided each
// regression, and the report's severity is the most severe decision.
func TestSimulatedDriftOneSeverityPerPair(t *testing.T) {
	base := simRun(t, "sim/stable", 30)
	baseline := &promptcanary.Baseline{SnapshotID: "b", SuiteName: base.SuiteName, Provider: base.Provider, RunResult: *base}
	for _, model := range []string{"sim/drifted", "sim/subtle", "sim/noisy"} {
		t.Run(model, func(t *testing.T) {
			rep, err := drift.Compare(baseline, simRun(t, model, 10), drift.Options{Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			if model == "sim/drifted" && len(rep.Regressions()) == 0 {
				t.Fatalf("got no regression on %s, want some", model)
			}
			checkOneSeverityPerPair(t, rep)
			for _, c := range rep.Regressions() {
				if c.BaselineExample == "" && c.CurrentExample == "" || c.BaselineDistinct == 0 || c.CurrentDistinct == 0 {
					t.Errorf("%s/%s: got examples %q / %q, distinct %d / %d, want both sides' typical answers", c.ProbeID, c.PromptID, c.BaselineExample, c.CurrentExample, c.BaselineDistinct, c.CurrentDistinct)
				}
			}
		})
	}
}

// checkOneSeverityPerPair checks that a statistical report decides every
// pair once.
func checkOneSeverityPerPair(t *testing.T, rep *promptcanary.DriftReport) {
	t.Helper()
	if rep.Statistics == nil {
		t.Fatal("got no statistics, want a statistical report")
	}
	byKey := map[string]*promptcanary.Comparison{}
	for i := range rep.Comparisons {
		c := &rep.Comparisons[i]
		byKey[promptcanary.PairKey{ProbeID: c.ProbeID, PromptID: c.PromptID}.String()] = c
	}
	decisive := map[string]int{}
	most := promptcanary.SeverityNone
	for _, u := range rep.Statistics.Units {
		if u.Rejected && u.Severity.Rank() > most.Rank() {
			most = u.Severity
		}
		if u.Kind != promptcanary.UnitPair {
			continue
		}
		c := byKey[u.Key]
		if c == nil {
			t.Errorf("unit %s (%s): no comparison", u.Key, u.Test)
			continue
		}
		if u.Severity != c.Severity {
			t.Errorf("unit %s (%s): got severity %s, want its comparison's %s", u.Key, u.Test, u.Severity, c.Severity)
		}
		if u.Evidence != c.Evidence {
			t.Errorf("unit %s (%s): got evidence %q, want its comparison's %q", u.Key, u.Test, u.Evidence, c.Evidence)
		}
		if u.Rejected && !c.Regression {
			t.Errorf("unit %s (%s): got rejected, want its comparison a regression (status %s)", u.Key, u.Test, c.Status)
		}
		if u.Decisive {
			decisive[u.Key]++
		}
	}
	for key, c := range byKey {
		if c.Regression && decisive[key] != 1 {
			t.Errorf("regression %s: got %d deciding units, want 1", key, decisive[key])
		}
	}
	if most != rep.Severity {
		t.Errorf("got report severity %s, want the most severe flagged unit's %s", rep.Severity, most)
	}
}

// result is one probe result of a constructed case.
type result struct {
	probe, prompt string
	sample        int
	score         float64
}

// scores returns one result per score of one pair, sample by sample.
func scores(probe, prompt string, v ...float64) []result {
	out := make([]result, len(v))
	for i, s := range v {
		out[i] = result{probe, prompt, i, s}
	}
	return out
}

// repeat returns v n times.
func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// run builds a run of suite "s" from results; a result passes when its
// score is at least 0.7.
func run(rs ...[]result) *promptcanary.Run {
	r := &promptcanary.Run{RunID: "cur", SuiteName: "s"}
	for _, group := range rs {
		for _, x := range group {
			r.ProbeResults = append(r.ProbeResults, promptcanary.ProbeResult{ProbeID: x.probe, ProbeName: x.probe, Category: promptcanary.CategoryReasoning,
				PromptID: x.prompt, Sample: x.sample, Score: x.score, Passed: x.score >= 0.7})
		}
	}
	return r
}

func baselineOf(r *promptcanary.Run) *promptcanary.Baseline {
	return &promptcanary.Baseline{SnapshotID: "b", SuiteName: r.SuiteName, RunResult: *r}
}

// TestOneSeverityPerPair checks constructed cases where a pair's two tests
// grade it differently on their own (Fisher's pass-count test CRITICAL,
// Mann–Whitney's score test MEDIUM): the pair is decided once, by its most
// severe rejected test, and every unit of the pair says so.
func TestOneSeverityPerPair(t *testing.T) {
	for _, tc := range []struct {
		name      string
		base, cur []float64
		want      promptcanary.Severity
		wantTest  string // the test that decides the pair
	}{
		// The scores collapse below the pass mark: both tests reject; the
		// pass rate's drop grades CRITICAL, the score shift only MEDIUM.
		{"pass rate and scores", repeat(0.95, 30), repeat(0.3, 20), promptcanary.SeverityCritical, "fisher"},
		// The scores drop but every sample still passes: only the score
		// test rejects, and its shift of −0.15 grades MEDIUM.
		{"scores only", repeat(0.95, 30), repeat(0.8, 20), promptcanary.SeverityMedium, "mann_whitney_exact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := run(scores("other", "a", repeat(1, 30)...), scores("judge", "a", tc.base...))
			cur := run(scores("other", "a", repeat(1, 20)...), scores("judge", "a", tc.cur...))
			rep, err := drift.Compare(baselineOf(base), cur, drift.Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			checkOneSeverityPerPair(t, rep)
			var c *promptcanary.Comparison
			for i := range rep.Comparisons {
				if rep.Comparisons[i].ProbeID == "judge" {
					c = &rep.Comparisons[i]
				}
			}
			if !c.Regression || c.Severity != tc.want || rep.Severity != tc.want {
				t.Errorf("got regression %v severity %s (report %s), want true %s", c.Regression, c.Severity, rep.Severity, tc.want)
			}
			for _, u := range rep.Statistics.Units {
				if u.Key == "judge/a" && u.Decisive && u.Test != tc.wantTest {
					t.Errorf("got pair decided by %s, want %s", u.Test, tc.wantTest)
				}
				if u.Key == "judge/a" && u.TestEvidence == "" {
					t.Errorf("unit %s: got no test evidence, want its own test's line", u.Test)
				}
			}
		})
	}
}

// TestSharedTest checks that two probes judging the same responses alike,
// sample for sample, share one test: the second names the first, counts
// nothing in the family and carries the same decision; a pair of another
// prompt with the same counts keeps its own test.
func TestSharedTest(t *testing.T) {
	fail := func(probe, prompt string, passes, n int) []result {
		v := repeat(0, n)
		for i := range passes {
			v[i] = 1
		}
		return scores(probe, prompt, v...)
	}
	base := run(fail("json_valid", "a", 30, 30), fail("json_schema", "a", 30, 30), fail("json_valid", "b", 30, 30))
	cur := run(fail("json_valid", "a", 8, 20), fail("json_schema", "a", 8, 20), fail("json_valid", "b", 8, 20))
	rep, err := drift.Compare(baselineOf(base), cur, drift.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkOneSeverityPerPair(t, rep)
	// Pairs are ordered by probe, then prompt: json_schema/a comes first.
	want := map[string]string{"json_schema/a": "", "json_valid/a": "json_schema/a", "json_valid/b": ""}
	var first *promptcanary.Comparison
	for i := range rep.Comparisons {
		c := &rep.Comparisons[i]
		key := c.ProbeID + "/" + c.PromptID
		if c.SharedTestWith != want[key] {
			t.Errorf("%s: got shared test with %q, want %q", key, c.SharedTestWith, want[key])
		}
		if !c.Regression {
			t.Errorf("%s: got status %s, want a regression", key, c.Status)
		}
		if key == "json_schema/a" {
			first = c
		}
	}
	for i := range rep.Comparisons {
		if c := &rep.Comparisons[i]; c.SharedTestWith != "" && (c.Severity != first.Severity || c.Evidence != first.Evidence) {
			t.Errorf("%s/%s: got %s %q, want the shared test's %s %q", c.ProbeID, c.PromptID, c.Severity, c.Evidence, first.Severity, first.Evidence)
		}
	}
	for _, u := range rep.Statistics.Units {
		if u.Kind == promptcanary.UnitPair && u.Key == "json_valid/a" && (u.Weight != 0 || u.SameTestAs != "pair json_schema/a") {
			t.Errorf("unit %s: got weight %g, same test as %q; want 0, %q", u.Key, u.Weight, u.SameTestAs, "pair json_schema/a")
		}
		if u.Kind == promptcanary.UnitPair && u.Key == "json_valid/b" && (u.Weight != 1 || u.SameTestAs != "") {
			t.Errorf("unit %s: got weight %g, same test as %q; want its own test", u.Key, u.Weight, u.SameTestAs)
		}
	}
}
