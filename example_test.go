package promptcanary_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/probe"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/sim"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// A custom probe is a function registered under an id, then used from
// canary.yaml like any built-in probe. This one checks that an answer names
// Paris; the suite runs it on the simulated model, saves the run as a
// baseline, runs a drifted model and compares.
func Example_customProbe() {
	probe.RegisterFunc("mentions_paris", "Mentions Paris", promptcanary.CategoryFactual,
		"Checks that the answer names Paris.",
		func(_ *promptcanary.Prompt, r *promptcanary.Response) probe.Result {
			if strings.Contains(r.Content, "Paris") {
				return probe.Result{Passed: true, Score: 1, Details: "names Paris"}
			}
			return probe.Result{Details: "does not name Paris"}
		})

	st, err := suite.Parse("canary.yaml", []byte(`
name: example
probes: [mentions_paris, direct_answer]
prompts:
  - id: capital
    text: What is the capital of France? Answer in one word.
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	seed := int64(42)
	runOn := func(model string) *promptcanary.Run {
		cfg := promptcanary.ProviderConfig{ModelID: model, MaxTokens: 256, Seed: &seed}
		p, err := provider.Open(model, provider.Options{})
		if err != nil {
			panic(err)
		}
		run, err := runner.Execute(context.Background(), st.Plan(cfg, 1), p, runner.Options{})
		if err != nil {
			panic(err)
		}
		return run
	}

	stable := runOn("sim/stable")
	for _, r := range stable.ProbeResults {
		fmt.Printf("%s on %s: passed=%v (%s)\n", r.ProbeID, r.PromptID, r.Passed, r.Details)
	}

	baseline := &promptcanary.Baseline{SnapshotID: "b1", SuiteName: stable.SuiteName, Provider: stable.Provider, RunResult: *stable}
	report, err := drift.Compare(baseline, runOn("sim/drifted"), drift.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("drift:", report.HasDrift, report.Severity)
	for _, c := range report.Regressions() {
		fmt.Printf("regression: %s on %s, %.2f -> %.2f\n", c.ProbeID, c.PromptID, c.BaselineScore, c.CurrentScore)
	}
	// Output:
	// mentions_paris on capital: passed=true (names Paris)
	// direct_answer on capital: passed=true (Response starts directly, without preamble.)
	// drift: true critical
	// regression: direct_answer on capital, 1.00 -> 0.00
}
