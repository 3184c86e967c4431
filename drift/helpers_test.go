package drift

import (
	"fmt"
	"time"

	"github.com/promptcanary/promptcanary"
)

// res is one probe result in a compact form: probe, prompt, sample, score,
// passed.
type res struct {
	probe, prompt string
	sample        int
	score         float64
	passed        bool
}

var fixedTime = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func fixedOpts() Options {
	return Options{Now: func() time.Time { return fixedTime }, NewID: func() string { return "report-1" }}
}

func makeRun(suite string, rs []res) promptcanary.Run {
	run := promptcanary.Run{RunID: "run-" + suite, SuiteName: suite, Provider: promptcanary.ProviderConfig{ModelID: "fake/model"}}
	for _, r := range rs {
		run.ProbeResults = append(run.ProbeResults, promptcanary.ProbeResult{
			ProbeID: r.probe, ProbeName: r.probe, Category: promptcanary.CategoryFormat,
			PromptID: r.prompt, Sample: r.sample, Score: r.score, Passed: r.passed,
			Details: fmt.Sprintf("score %.2f", r.score),
		})
	}
	return run
}

func makeBaseline(suite string, rs []res) *promptcanary.Baseline {
	return &promptcanary.Baseline{SnapshotID: "snap-1", CreatedAt: fixedTime.Add(-time.Hour), SuiteName: suite,
		Provider: promptcanary.ProviderConfig{ModelID: "fake/model"}, RunResult: makeRun(suite, rs)}
}

// binarySamples returns n results of one pair with the first passes
// samples passing (score 1) and the rest failing (score 0).
func binarySamples(probe, prompt string, passes, n int) []res {
	out := make([]res, n)
	for i := range out {
		out[i] = res{probe: probe, prompt: prompt, sample: i, score: 0, passed: false}
		if i < passes {
			out[i].score, out[i].passed = 1, true
		}
	}
	return out
}

// scoreSamples returns one result per score; pass ⇔ score ≥ 0.7.
func scoreSamples(probe, prompt string, scores ...float64) []res {
	out := make([]res, len(scores))
	for i, s := range scores {
		out[i] = res{probe: probe, prompt: prompt, sample: i, score: s, passed: s >= 0.7}
	}
	return out
}

func findComparison(rep *promptcanary.DriftReport, probe, prompt string) *promptcanary.Comparison {
	for i := range rep.Comparisons {
		if rep.Comparisons[i].ProbeID == probe && rep.Comparisons[i].PromptID == prompt {
			return &rep.Comparisons[i]
		}
	}
	return nil
}
