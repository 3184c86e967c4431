package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/sim"
)

// The economics mode (-economics) measures the economic section of
// drift.Economics on answers of the simulated model: how often a
// drift-free run flags a measure (tokens, latency, cost), and how often a
// wordier or terser model is flagged, with a baseline of one run and of
// six runs, and in a world where each run's latency shifts by up to
// ±20% (a provider's busy hour).

// Sizes of one economics trial: the identity mode's prompts, the CLI's
// --samples 10 for the run and its --baseline-samples 30 for the baseline
// (in one run, or six of 5: baseline build --runs 6).
const (
	economicsBaselineN = 30
	economicsCurrentN  = 10
)

// economicsPrice prices the simulated calls as gpt-4o's list price, so
// the cost measure is tested (the simulator is free).
var economicsPrice = provider.Price{Input: 2.5, Output: 10}

// economicsCase is one row of the economics table.
type economicsCase struct {
	baseline, current string
	temperature       float64
	// runs is the number of runs the baseline's samples are spread over.
	runs int
	// hour is the largest relative shift of one run's latencies (0.2:
	// each run's latencies times a factor drawn in [0.8, 1.2]).
	hour float64
	// grow multiplies the run's completion tokens (0: unchanged): a
	// model wordier by a known share.
	grow float64
	what string
}

var economicsCases = []economicsCase{
	{"stable", "stable", 0.7, 1, 0, 0, "false-positive rate"},
	{"noisy", "noisy", 0, 1, 0, 0, "false-positive rate"},
	{"stable", "stable", 0.7, 6, 0, 0, "false-positive rate, six-run baseline"},
	{"stable", "stable", 0, 1, 0, 0, "one answer repeated per run and seed: not tested"},
	{"stable", "stable", 0.7, 1, 0.2, 0, "false-positive rate, busy hours, one-run baseline"},
	{"stable", "stable", 0.7, 6, 0.2, 0, "false-positive rate, busy hours, six-run baseline"},
	{"stable", "stable", 0.7, 1, 0, 1.05, "power: completion tokens +5%"},
	{"stable", "stable", 0.7, 1, 0, 1.10, "power: completion tokens +10%"},
	{"stable", "stable", 0.7, 1, 0, 1.15, "power: completion tokens +15%"},
	{"stable", "stable", 0.7, 6, 0, 1.15, "power: completion tokens +15%, six-run baseline"},
	{"terse", "stable", 0.7, 1, 0, 0, "power: wordier model"},
	{"stable", "terse", 0.7, 1, 0, 0, "power: terser model"},
	{"stable", "terse", 0.7, 6, 0, 0, "power: terser model, six-run baseline"},
	{"terse", "stable", 0.7, 6, 0, 0, "power: wordier model, six-run baseline"},
	{"terse", "stable", 0.7, 6, 0.2, 0, "power: wordier model, busy hours, six-run baseline"},
}

// simRun asks the simulated model for n samples of every prompt, numbered
// from first, with the given seed, the latencies times factor.
func simRun(m *sim.Sim, ps []promptcanary.Prompt, first, n int, temp float64, seed int64, factor float64) []promptcanary.Response {
	cfg := promptcanary.ProviderConfig{Temperature: temp, Seed: &seed}
	rs := make([]promptcanary.Response, 0, len(ps)*n)
	for i := range ps {
		for s := first; s < first+n; s++ {
			r, err := m.Generate(context.Background(), &provider.Request{Prompt: &ps[i], Config: cfg, Sample: s})
			if err != nil {
				panic(err) // the simulated model fails only on a cancelled context
			}
			r.PromptID, r.LatencyMS = ps[i].ID, r.LatencyMS*factor
			rs = append(rs, *r)
		}
	}
	return rs
}

// economicsTrial runs one trial of c and returns its economic section.
func economicsTrial(c economicsCase, base, cur *sim.Sim, ps []promptcanary.Prompt, s uint64) *promptcanary.Economics {
	rng := rand.New(rand.NewPCG(s, 0xec0))
	factor := func() float64 { return 1 + c.hour*(2*rng.Float64()-1) }
	bl := &promptcanary.Baseline{}
	var rs []promptcanary.Response
	first := 0
	for r := range c.runs {
		n := economicsBaselineN / c.runs
		if r < economicsBaselineN%c.runs {
			n++
		}
		rs = append(rs, simRun(base, ps, first, n, c.temperature, int64(s>>1)+int64(r), factor())...)
		if c.runs > 1 {
			bl.Runs = append(bl.Runs, promptcanary.BaselineRun{FirstSample: first, Samples: n})
		}
		first += n
	}
	now := simRun(cur, ps, 0, economicsCurrentN, c.temperature, int64(s>>1)+100, factor())
	for i := range now {
		if c.grow > 0 {
			now[i].CompletionTokens = int(math.Round(float64(now[i].CompletionTokens) * c.grow))
		}
	}
	price := drift.CostFunc(economicsPrice.Cost)
	return drift.Economics(drift.NewAnswers(rs), drift.NewAnswers(now), bl, drift.Options{Costs: [2]drift.CostFunc{price, price}, Seed: s})
}

// economicsTally counts a case's trials that flagged any measure, those
// that flagged the completion tokens and those in which a measure's test
// rejected (q ≤ α) whatever its change, and sums the completion tokens'
// relative change.
type economicsTally struct {
	any, tokens, rejected int
	change                float64
}

// add counts the section e of one trial.
func (k *economicsTally) add(e *promptcanary.Economics) {
	ct := e.Measure(promptcanary.MeasureCompletionTokens)
	k.any += b2i(e.Flagged())
	k.tokens += b2i(ct.Flagged)
	k.change += ct.Change
	for _, m := range e.Measures {
		if m.Test != "" && m.Q <= e.Alpha {
			k.rejected++
			break
		}
	}
}

// runEconomics prints the economics table.
func runEconomics(w io.Writer, trials, workers int, seed uint64) {
	start := time.Now()
	fmt.Fprintf(w, "# Economic drift\n\n%d prompts (JSON, steps, a short fact, advice, prose) of the simulated model; baseline %d samples per prompt (one run, or six of 5), run %d; priced at $%g/$%g per million tokens; Holm at alpha %g over the measures, at least a %.0f%% change; seed %d; %d trials per row.\n\n",
		identityPrompts, economicsBaselineN, economicsCurrentN, economicsPrice.Input, economicsPrice.Output, drift.DefaultAlpha, 100*drift.DefaultMinEconomicChange, seed, trials)
	fmt.Fprintln(w, "| baseline | run | temperature | baseline runs | busy hours | trials | any measure flagged % [95% CI] | completion tokens flagged % | a test rejecting, any change % | mean change of completion tokens | measures |")
	fmt.Fprintln(w, "|---|---|---:|---:|---|---:|---|---:|---:|---:|---|")
	ps := identityPromptSet(identityPrompts)
	for _, c := range economicsCases {
		base, cur := simModels(c.baseline, c.current)
		name := fmt.Sprintf("%s/%s/%g/%d/%g", c.baseline, c.current, c.temperature, c.runs, c.hour)
		t := parallel(trials, workers, func() economicsTally { return economicsTally{} }, func(i int, k *economicsTally) {
			k.add(economicsTrial(c, base, cur, ps, trialSeed(seed, "economics", name, i)))
		}, func(into, from *economicsTally) {
			into.any, into.tokens, into.rejected = into.any+from.any, into.tokens+from.tokens, into.rejected+from.rejected
			into.change += from.change
		})
		lo, hi := wilson(t.any, trials)
		hours := "none"
		if c.hour > 0 {
			hours = fmt.Sprintf("latency ±%.0f%%", 100*c.hour)
		}
		fmt.Fprintf(w, "| sim/%s | sim/%s | %g | %d | %s | %d | %.1f [%.1f–%.1f] | %.1f | %.1f | %+.1f%% | %s |\n",
			c.baseline, c.current, c.temperature, c.runs, hours, trials, pct(t.any, trials), lo, hi, pct(t.tokens, trials), pct(t.rejected, trials), 100*t.change/float64(trials), c.what)
	}
	fmt.Fprintf(w, "\nElapsed %s on %d workers.\n", time.Since(start).Round(time.Second), workers)
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runSimMode runs the economics mode, else the identity mode, with trials
// per row.
func runSimMode(w io.Writer, economics bool, trials, workers int, seed uint64) error {
	if trials < 1 {
		return fmt.Errorf("parse flags: -identity-trials must be positive")
	}
	if economics {
		runEconomics(w, trials, workers, seed)
	} else {
		runIdentity(w, trials, workers, seed)
	}
	return nil
}
