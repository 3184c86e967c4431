package drift

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// DefaultMinEconomicChange is the smallest relative change of an economic
// measure that may be flagged, however small its p-value: 10%. A run 3%
// wordier than its baseline is no news, even when many answers show it.
const DefaultMinEconomicChange = 0.10

// EconomicPermutations is the most permutations an economic measure's
// answer test draws; it stops after economicStopAt of them reached the
// observed statistic (Besag and Clifford's sequential p-value). 1000
// draws reach p = 1/1001, below the α/4 = 0.0025 the smallest of four
// measures needs under Holm at α = 0.01, and keep a compare of 200
// prompts × 30 answers a side with a real change (every permutation
// drawn for every measure) under a second.
const EconomicPermutations = 1000

// economicStopAt is the number of permuted statistics at least the
// observed one after which the answer test stops: its p-value is then
// clearly large.
var economicStopAt = 50 // a variable for the tests

// economicSalt is the second seed word of the economic tests' generator,
// so their permutations are not those of the other tests.
const economicSalt = 0xec0_d21f7

// CostFunc prices one call, in US dollars, from its prompt and
// completion tokens.
type CostFunc func(promptTokens, completionTokens int) float64

// latencyOneRun is why latency is not tested against a one-run baseline.
const latencyOneRun = "latency moves with the provider's load from hour to hour, and a one-run baseline shows no run-to-run spread; build the baseline with baseline build --runs N"

// econPrompt holds one prompt's values of one measure: the baseline's
// answers' (with their samples, to find their runs) and the run's.
type econPrompt struct {
	b, c    []float64
	samples []int32
	// w is the share of the run's answers that answered the prompt.
	w float64
}

// econInput is what the economic measures read: the prompts compared, the
// baseline's runs and the sides' prices.
type econInput struct {
	base, cur *Answers
	prompts   []string
	runs      []promptcanary.BaselineRun
	costs     [2]CostFunc
	seed      uint64
}

// Economics tests the completion tokens, prompt tokens, latency and cost
// of the answers against the baseline (docs/economics.md): for each
// measure, the run's mean per call against the baseline's over the same
// prompt mix, an answer permutation test within prompts (not for the
// latency of a one-run baseline, which moves by the hour), and with a
// baseline of several runs a prediction t test against the spread of its
// runs; a Holm step over the measures tested at opts.Alpha; a measure is
// flagged when its adjusted p-value is at most opts.Alpha and its
// relative change at least opts.MinEconomicChange (0 selects the
// defaults). opts.Costs prices the calls, opts.StalePrompts are left out
// and opts.Seed seeds the permutations. Prompts answered fewer than twice on a side,
// and stale prompts, are left out; it returns nil when none is left.
func Economics(base, cur *Answers, baseline *promptcanary.Baseline, opts Options) *promptcanary.Economics {
	alpha := cmp.Or(opts.Alpha, DefaultAlpha)
	minChange := cmp.Or(opts.MinEconomicChange, DefaultMinEconomicChange)
	stale, seed := opts.StalePrompts, opts.Seed
	in := &econInput{base: base, cur: cur, costs: opts.Costs, seed: seed}
	if baseline != nil && len(baseline.Runs) >= 2 {
		in.runs = baseline.Runs
	}
	if base.Len() == 0 || cur.Len() == 0 {
		return nil
	}
	answers := 0
	for _, id := range sortedPrompts(base) {
		if stale[id] || cur.prompts[id] == nil || len(cur.prompts[id].list) < 2 || len(base.prompts[id].list) < 2 {
			continue
		}
		in.prompts = append(in.prompts, id)
		answers += len(cur.prompts[id].list)
	}
	if len(in.prompts) == 0 {
		return nil
	}
	e := &promptcanary.Economics{Alpha: alpha, MinChange: minChange, Prompts: len(in.prompts), Answers: answers,
		BaselineRuns: max(1, len(in.runs)), Seed: seed}
	for _, name := range []string{promptcanary.MeasureCompletionTokens, promptcanary.MeasurePromptTokens, promptcanary.MeasureLatency, promptcanary.MeasureCost} {
		m, perms := in.measure(name)
		e.Permutations = max(e.Permutations, perms)
		e.Measures = append(e.Measures, m)
	}
	holmMeasures(e.Measures)
	for i := range e.Measures {
		m := &e.Measures[i]
		m.Flagged = m.Test != "" && m.Q <= alpha && math.Abs(m.Change) >= minChange-tolerance
	}
	e.Summary = economicSummary(e, baseline)
	return e
}

// value returns the function reading measure name of one answer on a
// side, and why the measure is not available ("" when it is).
func (in *econInput) value(name string, side int) (func(*answer) float64, string) {
	switch name {
	case promptcanary.MeasureCompletionTokens:
		return func(a *answer) float64 { return float64(a.tokens) }, ""
	case promptcanary.MeasurePromptTokens:
		return func(a *answer) float64 { return float64(a.promptTokens) }, ""
	case promptcanary.MeasureLatency:
		return func(a *answer) float64 { return float64(a.latency) }, ""
	}
	cost := in.costs[side]
	if cost == nil {
		return nil, "no known price for the model; set prices: in canary.yaml"
	}
	return func(a *answer) float64 { return cost(int(a.promptTokens), int(a.tokens)) }, ""
}

// notRecorded says what a measure lacks when every answer of a side reads
// 0: tokens or latency not recorded by the provider, or a price of 0.
func notRecorded(name string) string {
	switch name {
	case promptcanary.MeasureLatency:
		return "latency not recorded"
	case promptcanary.MeasureCost:
		return "the model is free (price 0)"
	}
	return "tokens not recorded"
}

// collect reads measure name of every prompt compared; it returns why the
// measure is not available when it is not.
func (in *econInput) collect(name string) ([]econPrompt, string) {
	ps := make([]econPrompt, len(in.prompts))
	var nonzero [2]bool
	total := 0
	for i, id := range in.prompts {
		for side, a := range [2]*Answers{in.base, in.cur} {
			f, na := in.value(name, side)
			if na != "" {
				return nil, na
			}
			for j := range a.prompts[id].list {
				an := &a.prompts[id].list[j]
				v := f(an)
				nonzero[side] = nonzero[side] || v != 0
				if side == 0 {
					ps[i].b = append(ps[i].b, v)
					ps[i].samples = append(ps[i].samples, an.sample)
				} else {
					ps[i].c = append(ps[i].c, v)
				}
			}
		}
		total += len(ps[i].c)
	}
	if name == promptcanary.MeasureCost && !in.recorded() {
		return nil, "tokens not recorded"
	}
	if !nonzero[0] || !nonzero[1] {
		return nil, notRecorded(name)
	}
	for i := range ps {
		ps[i].w = float64(len(ps[i].c)) / float64(total)
	}
	return ps, ""
}

// recorded reports whether both token counts are recorded on both sides:
// a cost from half the tokens would be no cost.
func (in *econInput) recorded() bool {
	for _, a := range [2]*Answers{in.base, in.cur} {
		var p, c bool
		for _, id := range in.prompts {
			for _, an := range a.prompts[id].list {
				p, c = p || an.promptTokens > 0, c || an.tokens > 0
			}
		}
		if !p || !c {
			return false
		}
	}
	return true
}

// measure computes and tests one measure; it returns the measure and the
// permutations its answer test drew.
func (in *econInput) measure(name string) (promptcanary.EconomicMeasure, int) {
	m := promptcanary.EconomicMeasure{Measure: name, PAnswers: -1, PRuns: -1, P: 1, Q: 1}
	ps, na := in.collect(name)
	if na != "" {
		m.NA = na
		return m, 0
	}
	b, c := levels(ps)
	m.Baseline, m.Current = b, c
	if name == promptcanary.MeasureCost {
		// The cost of the run, and of the same calls at the baseline's
		// means: the level times the run's answers.
		n := 0
		for _, id := range in.prompts {
			n += len(in.cur.prompts[id].list)
		}
		m.Baseline, m.Current = b*float64(n), c*float64(n)
	}
	if b != 0 {
		m.Change = c/b - 1
	}
	switch {
	case same(ps):
		m.Untested = "one value per prompt, the same on both sides"
		return m, 0
	case name == promptcanary.MeasureLatency && len(in.runs) < 2:
		// A provider's load moves every latency of a run together: the
		// answers of one run are no independent draws of it, and the
		// answer test would flag a busy hour (bench/drift -economics).
		m.Untested = latencyOneRun
		return m, 0
	}
	perms := 0
	if varies(ps) {
		m.PAnswers, perms = answerTest(ps, newPCG(in.seed^economicSalt, hashString("economics/"+name)))
	}
	if len(in.runs) >= 2 {
		m.PRuns = runTest(ps, in.runs, c)
	}
	switch {
	case m.PAnswers >= 0 && m.PRuns >= 0:
		m.Test, m.P = promptcanary.EconomicTestRuns, max(m.PAnswers, m.PRuns)
	case m.PAnswers >= 0:
		m.Test, m.P = promptcanary.EconomicTestAnswers, m.PAnswers
	case m.PRuns >= 0:
		m.Test, m.P = promptcanary.EconomicTestRunsOnly, m.PRuns
	default:
		m.Untested = "each side repeats one value per prompt, and the baseline shows no run-to-run spread (one run, or runs that never varied); build the baseline with baseline build --runs N"
	}
	return m, perms
}

// levels returns the baseline's and the run's means per call over the
// run's prompt mix: Σ w_k · mean_k on each side.
func levels(ps []econPrompt) (b, c float64) {
	for i := range ps {
		b += ps[i].w * mean(ps[i].b)
		c += ps[i].w * mean(ps[i].c)
	}
	return b, c
}

// varies reports whether some prompt's values differ within a side: when
// none does, each side repeats one value per prompt (a deterministic
// model, or temperature 0), the answers of a run are not independent
// draws, and permuting them says nothing.
func varies(ps []econPrompt) bool {
	for i := range ps {
		for _, side := range [2][]float64{ps[i].b, ps[i].c} {
			for _, v := range side {
				if v != side[0] {
					return true
				}
			}
		}
	}
	return false
}

// same reports whether every prompt has one value, the same on both
// sides: nothing moved, and there is nothing to test.
func same(ps []econPrompt) bool {
	for i := range ps {
		for _, side := range [2][]float64{ps[i].b, ps[i].c} {
			for _, v := range side {
				if v != ps[i].b[0] {
					return false
				}
			}
		}
	}
	return true
}

// answerTest is the two-sided permutation test of S = Σ_k w_k (mean of
// the run's values − mean of the baseline's) over prompts k, the labels
// of the answers permuted within each prompt, so the prompt mix cannot
// confound it. It returns the p-value and the permutations drawn.
func answerTest(ps []econPrompt, rng *pcg) (float64, int) {
	pool := make([][]float64, len(ps))
	totals := make([]float64, len(ps))
	obs := 0.0
	for i := range ps {
		pool[i] = append(slices.Clone(ps[i].c), ps[i].b...)
		for _, v := range pool[i] {
			totals[i] += v
		}
		obs += ps[i].w * (mean(ps[i].c) - mean(ps[i].b))
	}
	obs = math.Abs(obs)
	tie := 1e-9 * max(1, obs)
	hits, drawn := 0, 0
	for drawn < EconomicPermutations {
		drawn++
		s := 0.0
		for i := range ps {
			nc, nb := len(ps[i].c), len(ps[i].b)
			x := pool[i]
			sc := 0.0
			for j := range nc { // the first nc of a partial Fisher–Yates shuffle
				r := j + int(rng.Uint64N(uint64(len(x)-j)))
				x[j], x[r] = x[r], x[j]
				sc += x[j]
			}
			s += ps[i].w * (sc/float64(nc) - (totals[i]-sc)/float64(nb))
		}
		if math.Abs(s) >= obs-tie {
			hits++
			if hits == economicStopAt {
				return float64(hits) / float64(drawn), drawn
			}
		}
	}
	return float64(1+hits) / float64(1+drawn), drawn
}

// runTest is the two-sided prediction t test of the run's level c against
// the levels of the baseline's runs: V_r = Σ_k w_k · mean of run r's
// values of prompt k (the pooled baseline mean when run r has none), and
// t = (c − mean V) / (sd V · √(1 + 1/R)) on R − 1 degrees of freedom,
// the distribution of a new run's level when the run is one more draw of
// the baseline's runs. It returns the p-value, or -1 (not run) when the
// baseline's runs never varied.
func runTest(ps []econPrompt, runs []promptcanary.BaselineRun, c float64) float64 {
	v := make([]float64, len(runs))
	for r, run := range runs {
		for i := range ps {
			sum, n := 0.0, 0
			for j, s := range ps[i].samples {
				if run.Holds(int(s)) {
					sum += ps[i].b[j]
					n++
				}
			}
			m := mean(ps[i].b)
			if n > 0 {
				m = sum / float64(n)
			}
			v[r] += ps[i].w * m
		}
	}
	mv, sd := meanSD(v)
	if sd == 0 {
		// Runs that never varied give the t test no scale: any change
		// would read p = 0. Not run (-1): the answer test decides alone.
		return -1
	}
	t := (c - mv) / (sd * math.Sqrt(1+1/float64(len(v))))
	return studentTwoSided(t, float64(len(v)-1))
}

// meanSD returns the mean and the sample standard deviation of v.
func meanSD(v []float64) (m, sd float64) {
	m = mean(v)
	if len(v) < 2 {
		return m, 0
	}
	ss := 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(v)-1))
}

// holmMeasures sets Q of the tested measures by Holm's step-down
// adjustment of their P: valid under any dependence (the cost follows the
// tokens). Measures not tested keep Q = 1.
func holmMeasures(ms []promptcanary.EconomicMeasure) {
	var idx []int
	for i := range ms {
		if ms[i].Test != "" {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmpFloat(ms[a].P, ms[b].P) })
	run := 0.0
	for rank, i := range idx {
		run = max(run, min(1, float64(len(idx)-rank)*ms[i].P))
		ms[i].Q = run
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// economicSummary is the plain sentence of the flagged measures, or "";
// it dates the change from the baseline's creation when it is known.
func economicSummary(e *promptcanary.Economics, baseline *promptcanary.Baseline) string {
	if !e.Flagged() {
		return ""
	}
	var parts []string
	for _, name := range []string{promptcanary.MeasureCompletionTokens, promptcanary.MeasurePromptTokens, promptcanary.MeasureLatency} {
		m := e.Measure(name)
		if m == nil || !m.Flagged {
			continue
		}
		parts = append(parts, economicClause(m))
	}
	when := ""
	if baseline != nil && !baseline.CreatedAt.IsZero() {
		when = " since the baseline of " + baseline.CreatedAt.UTC().Format("2006-01-02")
	}
	cost := e.Measure(promptcanary.MeasureCost)
	costly := cost != nil && cost.NA == "" && cost.Baseline > 0
	if len(parts) == 0 {
		b, c := promptcanary.USDPair(cost.Baseline, cost.Current)
		return fmt.Sprintf("the run costs %s instead of %s%s (%+.0f%%)", c, b, when, 100*cost.Change)
	}
	parts[0] = strings.Replace(parts[0], " (", when+" (", 1)
	s := strings.Join(parts, ", ")
	if costly {
		b, c := promptcanary.USDPair(cost.Baseline, cost.Current)
		s += fmt.Sprintf(": the run costs %s instead of %s", c, b)
	}
	return s
}

// economicClause words one flagged measure: "answers are 40% longer (212
// → 297 completion tokens per answer)".
func economicClause(m *promptcanary.EconomicMeasure) string {
	pct := fmt.Sprintf("%.0f%%", 100*math.Abs(m.Change))
	up := m.Change > 0
	nums := fmt.Sprintf("(%s → %s", m.Value(m.Baseline), m.Value(m.Current))
	switch m.Measure {
	case promptcanary.MeasureCompletionTokens:
		return fmt.Sprintf("answers are %s %s %s completion tokens per answer)", pct, pick(up, "longer", "shorter"), nums)
	case promptcanary.MeasurePromptTokens:
		return fmt.Sprintf("prompts take %s %s tokens %s per call)", pct, pick(up, "more", "fewer"), nums)
	}
	return fmt.Sprintf("calls take %s %s %s per call)", pct, pick(up, "longer", "less time"), nums)
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
