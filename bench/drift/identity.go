package main

import (
	"fmt"
	"io"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/provider/sim"
)

// The identity mode (-identity) measures the model identity test of
// drift.Identity on answers of the simulated model: its false-positive
// rate when both runs are the same model, and its power when the run is a
// substitution (sim/paraphrase, sim/terse) that keeps every probe's
// behaviour.

// identityPromptKinds are bench/scale's prompts, which the simulated model
// answers as JSON, steps, a short fact, advice and prose.
var identityPromptKinds = []string{
	`Return a JSON object for a fictional user number %d with the keys "name", "age" and "city". Reply with the JSON only.`,
	`Explain step by step how to do task number %d: brew tea, then wash the cup.`,
	`What is %d plus 4? Answer in one word.`,
	`Give me one tip number %d for writing clear git commit messages.`,
	`Write a short paragraph about topic %d: the history of the bicycle.`,
}

// Sizes of one identity trial: prompts, and samples per prompt of the
// baseline and of the run (the CLI's --baseline-samples 10 --samples 10).
const (
	identityPrompts     = 20
	identityBaselineN   = 10
	identityCurrentN    = 10
	identityTemperature = 0.7
)

// identityCase is one row of the identity table: prompts 0 and samples
// 0 select identityPrompts and identityBaselineN/identityCurrentN.
type identityCase struct {
	baseline, current string
	temperature       float64
	prompts, samples  int
	what              string
}

var identityCases = []identityCase{
	{"stable", "stable", identityTemperature, 0, 0, "false-positive rate"},
	{"noisy", "noisy", 0, 0, 0, "false-positive rate"},
	{"stable", "paraphrase", identityTemperature, 0, 0, "power: paraphrasing model"},
	{"stable", "terse", identityTemperature, 0, 0, "power: terser model"},
	// The smallest useful size: 5 prompts (one of each kind) answered
	// 3 times on each side.
	{"stable", "stable", identityTemperature, 5, 3, "false-positive rate, small sample"},
	{"stable", "paraphrase", identityTemperature, 5, 3, "power: paraphrasing model, small sample"},
	{"stable", "terse", identityTemperature, 5, 3, "power: terser model, small sample"},
	// At temperature 0 sim/stable gives one answer per prompt and seed: the
	// samples of a run are not independent draws, which the test assumes
	// (see docs/identity.md), and a new seed is a new answer: such prompts
	// are not tested, so the row must read 0.
	{"stable", "stable", 0, 0, 0, "one answer repeated per run and seed: not tested"},
}

// size returns the case's prompts and samples of each side.
func (c identityCase) size() (prompts, base, cur int) {
	if c.prompts == 0 {
		return identityPrompts, identityBaselineN, identityCurrentN
	}
	return c.prompts, c.samples, c.samples
}

func identityPromptSet(n int) []promptcanary.Prompt {
	ps := make([]promptcanary.Prompt, n)
	for i := range ps {
		ps[i] = promptcanary.Prompt{ID: fmt.Sprintf("p%02d", i), Text: fmt.Sprintf(identityPromptKinds[i%len(identityPromptKinds)], i)}
	}
	return ps
}

// simAnswers asks the simulated model for n samples of every prompt with
// the given seed and folds the answers.
func simAnswers(m *sim.Sim, ps []promptcanary.Prompt, n int, temp float64, seed int64) *drift.Answers {
	return drift.NewAnswers(simRun(m, ps, 0, n, temp, seed, 1))
}

// simModels opens the simulated models named a and b.
func simModels(a, b string) (*sim.Sim, *sim.Sim) {
	ma, err := sim.New(a)
	if err != nil {
		panic(err)
	}
	mb, err := sim.New(b)
	if err != nil {
		panic(err)
	}
	return ma, mb
}

// identityTrials runs n trials of one case and counts the rejections.
func identityTrials(c identityCase, n, workers int, seed uint64) int {
	base, cur := simModels(c.baseline, c.current)
	np, nb, nc := c.size()
	ps := identityPromptSet(np)
	name := fmt.Sprintf("%s/%s%g/%d/%d", c.baseline, c.current, c.temperature, np, nb)
	if c.prompts == 0 {
		name = c.baseline + "/" + c.current + fmt.Sprint(c.temperature) // the seeds of the first figures
	}
	t := parallel(n, workers, func() int { return 0 }, func(i int, k *int) {
		s := trialSeed(seed, "identity", name, i)
		b := simAnswers(base, ps, nb, c.temperature, int64(s>>1))
		a := simAnswers(cur, ps, nc, c.temperature, int64(s>>1)+1)
		if drift.Identity(b, a, nil, s).Different() {
			*k++
		}
	}, func(into, from *int) { *into += *from })
	return t
}

// runIdentity prints the identity table.
func runIdentity(w io.Writer, trials, workers int, seed uint64) {
	start := time.Now()
	fmt.Fprintf(w, "# Model identity test\n\n%d prompts (JSON, steps, a short fact, advice, prose) of the simulated model; baseline %d and run %d samples per prompt (small sample: 5 prompts, 3 and 3); at most %d within-prompt permutations (fewer once 50 reach the observed statistic); alpha %g; seed %d; %d trials per row.\n\n",
		identityPrompts, identityBaselineN, identityCurrentN, drift.IdentityPermutations, drift.IdentityAlpha, seed, trials)
	fmt.Fprintln(w, "| baseline | run | temperature | prompts × samples | trials | \"different\" % [95% CI] | measures |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|---|---|")
	for _, c := range identityCases {
		k := identityTrials(c, trials, workers, seed)
		lo, hi := wilson(k, trials)
		np, nb, nc := c.size()
		fmt.Fprintf(w, "| sim/%s | sim/%s | %g | %d × %d/%d | %d | %.1f [%.1f–%.1f] | %s |\n", c.baseline, c.current, c.temperature, np, nb, nc, trials, pct(k, trials), lo, hi, c.what)
	}
	fmt.Fprintf(w, "\nElapsed %s on %d workers.\n", time.Since(start).Round(time.Second), workers)
}
