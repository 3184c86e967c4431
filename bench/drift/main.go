// Command drift is the offline drift benchmark of PromptCanary: it simulates
// suites of 7 probes × 8 prompts in worlds of increasing nondeterminism,
// injects drift scenarios into the current run, samples it adaptively with
// drift.Stages and drift.AcceptEarly, and measures how drift.Compare decides
// against how the original single-sample rule decides on the same worlds.
//
// Run it with `go run ./bench/drift` (add -quick for a short run). It prints
// Markdown tables: false-alarm rate with its Wilson interval, power per
// scenario, localisation and false-discovery share, severity distribution
// and mean calls per prompt, per world, and a check against the targets.
//
// `go run ./bench/drift -monitor` measures the monitor instead (see
// monitor.go): false incidents per check-year over months of hourly runs,
// with confirmation runs and the trend test of monitor/policy, and how many
// scheduled runs pass before a drift opens an incident.
//
// `go run ./bench/drift -identity` measures the model identity test (see
// identity.go): its false-positive rate on 1,000 same-model trials of the
// simulated model and its power against two substitutions.
//
// `go run ./bench/drift -economics` measures the economic drift section
// (see economics.go): how often drift-free runs of the simulated model
// flag tokens, latency or cost, and how often a wordier or terser model
// is flagged (-identity-trials sets the trials per row).
package main

import (
	"cmp"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
)

const (
	numProbes      = 7
	numBinary      = 4 // probes 0..3 are binary, 4..6 continuous
	numPrompts     = 8
	baselineN      = 30
	passThreshold  = 0.7   // continuous probes pass when score ≥ 0.7
	scoreSD        = 0.1   // spread of a flaky continuous probe's score
	scoreOnlyShift = -0.10 // the score-only scenario's shift
)

var probeIDs = [numProbes]string{"json_valid", "format_regex", "refusal", "tool_call", "reasoning_judge", "steps_score", "keyword_recall"}

var probeCats = [numProbes]promptcanary.Category{
	promptcanary.CategoryFormat, promptcanary.CategoryFormat, promptcanary.CategorySafety, promptcanary.CategoryToolUse,
	promptcanary.CategoryReasoning, promptcanary.CategoryReasoning, promptcanary.CategoryFactual,
}

var promptIDs = func() (ids [numPrompts]string) {
	for i := range ids {
		ids[i] = fmt.Sprintf("prompt_%d", i+1)
	}
	return ids
}()

// world is a mix of per-pair baseline pass probabilities.
type world struct {
	name                            string
	always, never, flakyHi, flakyLo float64 // shares; flakyHi ~ U(0.85,0.99), flakyLo ~ U(0.5,0.85)
	rho                             float64 // correlation of the probes judging one response
	noise                           noise   // run-level noise (monitor mode only)
}

var worlds = []world{
	{name: "DET", always: 0.90, never: 0.10},
	{name: "T0", always: 0.55, never: 0.05, flakyHi: 0.25, flakyLo: 0.15},
	{name: "T07", always: 0.10, never: 0.05, flakyHi: 0.45, flakyLo: 0.40},
	{name: "T0-corr", always: 0.55, never: 0.05, flakyHi: 0.25, flakyLo: 0.15, rho: 0.6},
	{name: "T07-corr", always: 0.10, never: 0.05, flakyHi: 0.45, flakyLo: 0.40, rho: 0.6},
}

// pairSpec is how one pair behaves: pass probability p and a score shift.
// A continuous pair that was deterministic in the baseline (p 0 or 1) keeps
// two fixed scores, one when it passes and one when it fails, so moving its
// p only changes how often each appears; a flaky continuous pair scores
// 0.7 + 0.1·(Φ⁻¹(p) − z), which passes with probability p.
type pairSpec struct {
	p                    float64
	det                  bool
	fixedPass, fixedFail float64
	shift                float64
}

type suiteSpec [numProbes][numPrompts]pairSpec

// target says what a scenario changed, for localisation.
type target struct {
	kind          string // "", "pair", "probe", "all"
	probe, prompt int
	changed       [numProbes][numPrompts]bool
}

// scenario turns the baseline spec into the current one.
type scenario struct {
	name  string
	drift bool // whether it is a real drop the verdict should catch
	apply func(s *suiteSpec, rng *rand.Rand) target
}

func pairDrop(name string, d float64, to float64) scenario {
	return scenario{name: name, drift: true, apply: func(s *suiteSpec, rng *rand.Rand) target {
		need := d
		if to >= 0 {
			need = 0.85 // a pair that breaks was passing reliably
		}
		var cands [][2]int
		for j := range numProbes {
			for m := range numPrompts {
				if s[j][m].p >= need-1e-12 {
					cands = append(cands, [2]int{j, m})
				}
			}
		}
		if len(cands) == 0 {
			cands = [][2]int{{0, 0}}
		}
		c := cands[rng.IntN(len(cands))]
		t := target{kind: "pair", probe: c[0], prompt: c[1]}
		ps := &s[c[0]][c[1]]
		if to >= 0 {
			ps.p = to
		} else {
			ps.p = max(0, ps.p-d)
		}
		t.changed[c[0]][c[1]] = true
		return t
	}}
}

func probeDrop(name string, d float64) scenario {
	return scenario{name: name, drift: true, apply: func(s *suiteSpec, rng *rand.Rand) target {
		j := rng.IntN(numProbes)
		t := target{kind: "probe", probe: j}
		for m := range numPrompts {
			if s[j][m].p > 0 {
				s[j][m].p = max(0, s[j][m].p-d)
				t.changed[j][m] = true
			}
		}
		return t
	}}
}

func allDrop(name string, d float64) scenario {
	return scenario{name: name, drift: true, apply: func(s *suiteSpec, _ *rand.Rand) target {
		t := target{kind: "all"}
		for j := range numProbes {
			for m := range numPrompts {
				if s[j][m].p > 0 {
					s[j][m].p = max(0, s[j][m].p-d)
					t.changed[j][m] = true
				}
			}
		}
		return t
	}}
}

var scenarios = []scenario{
	{name: "none", apply: func(*suiteSpec, *rand.Rand) target { return target{} }},
	{name: "jitter ±0.02", apply: func(s *suiteSpec, rng *rand.Rand) target {
		for j := range numProbes {
			for m := range numPrompts {
				s[j][m].p = min(1, max(0, s[j][m].p+0.04*rng.Float64()-0.02))
				if j >= numBinary {
					s[j][m].shift += 0.04*rng.Float64() - 0.02
				}
			}
		}
		return target{}
	}},
	{name: "improvement only", apply: func(s *suiteSpec, _ *rand.Rand) target {
		for j := range numProbes {
			for m := range numPrompts {
				s[j][m].p += (1 - s[j][m].p) / 2
				if j >= numBinary {
					s[j][m].shift += 0.03
				}
			}
		}
		return target{}
	}},
	pairDrop("pair breaks (p→0.05)", 0, 0.05),
	pairDrop("pair −50", 0.50, -1),
	pairDrop("pair −30", 0.30, -1),
	pairDrop("pair −20", 0.20, -1),
	probeDrop("probe −20", 0.20),
	probeDrop("probe −10", 0.10),
	allDrop("all pairs −10", 0.10),
	allDrop("all pairs −5", 0.05),
	{name: "score-only −0.10", drift: true, apply: func(s *suiteSpec, rng *rand.Rand) target {
		j := numBinary + rng.IntN(numProbes-numBinary)
		t := target{kind: "probe", probe: j}
		for m := range numPrompts {
			s[j][m].shift += scoreOnlyShift
			t.changed[j][m] = true
		}
		return t
	}},
}

// drawSuite draws the baseline behaviour of every pair.
func drawSuite(w world, rng *rand.Rand) suiteSpec {
	var s suiteSpec
	for j := range numProbes {
		for m := range numPrompts {
			u := rng.Float64()
			ps := &s[j][m]
			switch {
			case u < w.always:
				ps.p = 1
			case u < w.always+w.never:
				ps.p = 0
			case u < w.always+w.never+w.flakyHi:
				ps.p = 0.85 + 0.14*rng.Float64()
			default:
				ps.p = 0.5 + 0.35*rng.Float64()
			}
			ps.det = ps.p == 0 || ps.p == 1
			ps.fixedPass = 0.8 + 0.2*rng.Float64()
			ps.fixedFail = 0.2 + 0.4*rng.Float64()
		}
	}
	return s
}

// sample appends one response's probe results for prompt m.
func sample(dst []promptcanary.ProbeResult, s *suiteSpec, m, smp int, rho float64, rng *rand.Rand) []promptcanary.ProbeResult {
	latent := rng.NormFloat64()
	a, b := math.Sqrt(rho), math.Sqrt(1-rho)
	for j := range numProbes {
		ps := &s[j][m]
		z := a*latent + b*rng.NormFloat64()
		var pass bool
		var score float64
		if j < numBinary {
			switch {
			case ps.p >= 1:
				pass = true
			case ps.p <= 0:
				pass = false
			default:
				pass = z <= quantile(ps.p)
			}
			score = 0
			if pass {
				score = 1
			}
		} else {
			switch {
			case ps.det && (ps.p >= 1 || (ps.p > 0 && z <= quantile(ps.p))):
				score = ps.fixedPass
			case ps.det:
				score = ps.fixedFail
			case ps.p >= 1:
				score = 1
			case ps.p <= 0:
				score = 0
			default:
				score = passThreshold + scoreSD*(quantile(ps.p)-z)
			}
			score = min(1, max(0, score+ps.shift))
			pass = score >= passThreshold
		}
		dst = append(dst, promptcanary.ProbeResult{ProbeID: probeIDs[j], ProbeName: probeIDs[j], Category: probeCats[j],
			PromptID: promptIDs[m], Sample: smp, Passed: pass, Score: score})
	}
	return dst
}

func quantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// outcome is what one trial produced.
type outcome struct {
	drift                 bool
	severity              promptcanary.Severity
	localised             bool
	flagged, falseFlagged int
	calls                 float64
	legacyDrift           bool
	legacySeverity        promptcanary.Severity
}

// simulation is one simulated comparison: the statistical report, what
// the scenario changed, the calls per prompt taken, and both runs' results.
type simulation struct {
	report        *promptcanary.DriftReport
	target        target
	taken         int
	base, current []promptcanary.ProbeResult
}

// simulate draws a suite of world w, applies scenario sc to the current
// run, samples it adaptively and compares it statistically.
func simulate(w world, sc scenario, alpha float64, seed uint64, scratch *[]promptcanary.ProbeResult) simulation {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	spec := drawSuite(w, rng)
	cur := spec
	tgt := sc.apply(&cur, rng)

	base := make([]promptcanary.ProbeResult, 0, numPrompts*numProbes*baselineN)
	basePerPrompt := make([][]promptcanary.ProbeResult, numPrompts)
	for m := range numPrompts {
		start := len(base)
		for smp := range baselineN {
			base = sample(base, &spec, m, smp, w.rho, rng)
		}
		basePerPrompt[m] = base[start:len(base):len(base)]
	}
	// Adaptive sampling of the current run.
	curPerPrompt := make([][]promptcanary.ProbeResult, numPrompts)
	taken := 0
	for m := range numPrompts {
		var rs []promptcanary.ProbeResult
		n := 0
		for si, stage := range drift.Stages {
			for ; n < stage; n++ {
				rs = sample(rs, &cur, m, n, w.rho, rng)
			}
			if si < len(drift.Stages)-1 && drift.AcceptEarly(basePerPrompt[m], rs) {
				break
			}
		}
		curPerPrompt[m] = rs
		taken += n
	}
	all := (*scratch)[:0]
	for m := range numPrompts {
		all = append(all, curPerPrompt[m]...)
	}
	*scratch = all
	bl := &promptcanary.Baseline{SnapshotID: "b", SuiteName: "bench", RunResult: promptcanary.Run{SuiteName: "bench", ProbeResults: base}}
	run := &promptcanary.Run{SuiteName: "bench", ProbeResults: all}
	opts := drift.Options{Method: drift.MethodStatistical, Alpha: alpha, Seed: seed, Now: fixedNow, NewID: fixedID}
	rep, err := drift.Compare(bl, run, opts)
	if err != nil {
		panic(err)
	}
	return simulation{report: rep, target: tgt, taken: taken, base: base, current: all}
}

// trial runs one simulated comparison and the original rule on its first
// samples.
func trial(w world, sc scenario, alpha float64, seed uint64, scratch *[]promptcanary.ProbeResult) outcome {
	sim := simulate(w, sc, alpha, seed, scratch)
	rep, tgt := sim.report, sim.target
	out := outcome{drift: rep.HasDrift, severity: rep.Severity, calls: float64(sim.taken) / numPrompts}
	for _, c := range rep.Comparisons {
		if !c.Regression {
			continue
		}
		j, m := indexOf(probeIDs[:], c.ProbeID), indexOf(promptIDs[:], c.PromptID)
		out.flagged++
		if !tgt.changed[j][m] {
			out.falseFlagged++
		}
		if (tgt.kind == "pair" && j == tgt.probe && m == tgt.prompt) || (tgt.kind == "probe" && j == tgt.probe) {
			out.localised = true
		}
	}
	if tgt.kind == "probe" && !out.localised {
		for _, u := range rep.Statistics.Units {
			if u.Rejected && u.Kind == promptcanary.UnitProbe && u.Key == probeIDs[tgt.probe] {
				out.localised = true
			}
		}
	}
	// The original rule: one sample on each side.
	lb := &promptcanary.Baseline{SnapshotID: "b", SuiteName: "bench", RunResult: promptcanary.Run{SuiteName: "bench", ProbeResults: firstSample(sim.base)}}
	lr := &promptcanary.Run{SuiteName: "bench", ProbeResults: firstSample(sim.current)}
	lrep, err := drift.Compare(lb, lr, drift.Options{Method: drift.MethodSingleSample, Now: fixedNow, NewID: fixedID})
	if err != nil {
		panic(err)
	}
	out.legacyDrift, out.legacySeverity = lrep.HasDrift, lrep.Severity
	return out
}

func firstSample(rs []promptcanary.ProbeResult) []promptcanary.ProbeResult {
	var out []promptcanary.ProbeResult
	for _, r := range rs {
		if r.Sample == 0 {
			out = append(out, r)
		}
	}
	return out
}

func indexOf(ids []string, id string) int { return slices.Index(ids, id) }

func fixedNow() time.Time { return time.Unix(0, 0) }
func fixedID() string     { return "bench" }

// tally accumulates the outcomes of one (world, scenario) cell.
type tally struct {
	n, drift, localised, flagged, falseFlagged int
	sev, legacySev                             [5]int
	calls                                      float64
	legacyDrift                                int
}

func (t *tally) add(o outcome) {
	t.n++
	if o.drift {
		t.drift++
		if o.localised {
			t.localised++
		}
	}
	t.sev[o.severity.Rank()]++
	t.flagged += o.flagged
	t.falseFlagged += o.falseFlagged
	t.calls += o.calls
	if o.legacyDrift {
		t.legacyDrift++
	}
	t.legacySev[o.legacySeverity.Rank()]++
}

func (t *tally) merge(o *tally) {
	t.n += o.n
	t.drift += o.drift
	t.localised += o.localised
	t.flagged += o.flagged
	t.falseFlagged += o.falseFlagged
	t.calls += o.calls
	t.legacyDrift += o.legacyDrift
	for i := range t.sev {
		t.sev[i] += o.sev[i]
		t.legacySev[i] += o.legacySev[i]
	}
}

func trialSeed(seed uint64, w, sc string, i int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%s/%d", seed, w, sc, i)
	return h.Sum64()
}

// runCell runs n trials of one cell on the given number of workers.
func runCell(w world, sc scenario, n, workers int, seed uint64, alpha float64) tally {
	var next atomic.Int64
	parts := make([]tally, workers)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch []promptcanary.ProbeResult
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				parts[k].add(trial(w, sc, alpha, trialSeed(seed, w.name, sc.name, i), &scratch))
			}
		}()
	}
	wg.Wait()
	var t tally
	for k := range parts {
		t.merge(&parts[k])
	}
	return t
}

// wilson is the Wilson 95% interval of k of n, in percent.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 100
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / den
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return 100 * max(0, c-h), 100 * min(1, c+h)
}

func pct(k, n int) float64 { return 100 * float64(k) / float64(max(n, 1)) }

type cellKey struct{ world, scenario string }

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "drift bench: error:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("drift", flag.ContinueOnError)
	fs.SetOutput(stderr)
	trials := fs.Int("trials", 10000, "drift-free trials per world")
	scTrials := fs.Int("scenario-trials", 2000, "trials per drift scenario and world")
	quick := fs.Bool("quick", false, "a short run: 1000 drift-free and 200 scenario trials")
	seed := fs.Uint64("seed", 20250301, "seed of the simulation")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers")
	alpha := fs.Float64("alpha", drift.DefaultAlpha, "Benjamini–Hochberg level")
	only := fs.String("worlds", "", "comma-separated worlds to run (default all)")
	onlySc := fs.String("scenarios", "", "comma-separated scenario name prefixes to run (default all)")
	monitor := fs.Bool("monitor", false, "the monitor mode: months of hourly runs with confirmation and the trend test")
	months := fs.Int("months", 40, "monitor mode: drift-free months of hourly runs per world")
	stepTrials := fs.Int("step-trials", 600, "monitor mode: trials per step-drift scenario and world")
	gradualTrials := fs.Int("gradual-trials", 80, "monitor mode: gradual-decline trials per world")
	identity := fs.Bool("identity", false, "the identity mode: false-positive rate and power of the model identity test on the simulated model")
	identityTrials := fs.Int("identity-trials", 1000, "identity and economics modes: trials per row")
	economics := fs.Bool("economics", false, "the economics mode: false-positive rate and power of the economic drift section on the simulated model")
	baseN := fs.Int("baseline-samples", baselineN, "monitor mode: a baseline's samples per prompt (a baseline promoted from 30 runs of 10 samples holds 300)")
	baseRuns := fs.Int("baseline-runs", 1, "monitor mode: runs, each at an hour of its own, a baseline's samples are spread over (1 to 30)")
	ruleSet := fs.String("rules", "monitor", "monitor mode: the confirmation rules to measure, monitor (the monitor's and none), all, or runlevel (the monitor's, the same at a later hour and the run-level rules R2s+ and R3; use with -baseline-runs 6 or more)")
	ctlFlag := fs.String("control", "none", "monitor mode with -rules runlevel: give each check a control arm, the model as it was at the baseline, sharing each run's hour (shared) or at an hour of its own (own), and measure rule R3c, which also judges the suite against it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctl, ok := parseControl(*ctlFlag)
	if !ok {
		return fmt.Errorf("parse flags: -control %q: want none, shared or own", *ctlFlag)
	}
	if ctl != noControl && (!*monitor || *ruleSet != "runlevel") {
		return fmt.Errorf("parse flags: -control %s: only with -monitor -rules runlevel", *ctlFlag)
	}
	if *quick {
		*trials, *scTrials = 1000, 200
		*months, *stepTrials, *gradualTrials = 1, 40, 8
	}
	if *workers < 1 || *trials < 1 || *scTrials < 1 || *months < 1 || *stepTrials < 1 || *gradualTrials < 1 {
		return fmt.Errorf("parse flags: workers and trials must be positive")
	}
	if *baseN < 1 || *baseN > 1000 {
		return fmt.Errorf("parse flags: -baseline-samples %d: want 1 to 1000", *baseN)
	}
	if *baseRuns < 1 || *baseRuns > *baseN {
		return fmt.Errorf("parse flags: -baseline-runs %d: want 1 to %d (one sample per prompt per run at the most)", *baseRuns, *baseN)
	}
	ws, err := selectWorlds(*only, *monitor)
	if err != nil {
		return err
	}
	if *ruleSet != "monitor" && *ruleSet != "all" && *ruleSet != "runlevel" {
		return fmt.Errorf("parse flags: -rules %q: want monitor, all or runlevel", *ruleSet)
	}
	if *identity || *economics {
		return runSimMode(stdout, *economics, *identityTrials, *workers, *seed)
	}
	if *monitor {
		runMonitor(stdout, ws, monitorOptions{months: *months, stepTrials: *stepTrials, gradualTrials: *gradualTrials, workers: *workers, seed: *seed, rules: *ruleSet, baselineRuns: *baseRuns, baselineSamples: *baseN, control: ctl})
		return nil
	}
	start := time.Now()
	results := map[cellKey]tally{}
	fmt.Fprintf(stdout, "# Drift benchmark\n\n7 probes (4 binary, 3 continuous) × 8 prompts; baseline %d samples per prompt; current adaptive %v; alpha %g; seed %d; %d drift-free and %d scenario trials per world.\n\n",
		baselineN, drift.Stages, *alpha, *seed, *trials, *scTrials)
	for _, w := range ws {
		fmt.Fprintf(stdout, "## World %s\n\n", w.name)
		fmt.Fprintln(stdout, "| scenario | trials | alarm % [95% CI] | severity none/low/med/high/crit % | localised % | false-discovery share % | calls/prompt | original rule alarm % | original rule critical % |")
		fmt.Fprintln(stdout, "|---|---:|---|---|---:|---:|---:|---:|---:|")
		for _, sc := range scenarios {
			if !selected(sc.name, *onlySc) {
				continue
			}
			n := *scTrials
			if !sc.drift && sc.name == "none" {
				n = *trials
			}
			t := runCell(w, sc, n, *workers, *seed, *alpha)
			results[cellKey{w.name, sc.name}] = t
			writeCellRow(stdout, sc, t)
		}
		fmt.Fprintln(stdout)
	}
	printTargets(stdout, results, ws)
	fmt.Fprintf(stdout, "\nElapsed %s on %d workers.\n", time.Since(start).Round(time.Second), *workers)
	return nil
}

// selectWorlds returns the worlds named in the comma-separated list only,
// or all of them when only is empty: in the monitor mode the worlds with
// run-level noise too, which the compare mode refuses.
func selectWorlds(only string, monitor bool) ([]world, error) {
	all := worlds
	if monitor {
		all = slices.Concat(worlds, noiseWorlds)
	}
	if only == "" {
		return all, nil
	}
	var ws []world
	for _, name := range strings.Split(only, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(all, func(w world) bool { return w.name == name })
		switch {
		case i >= 0:
			ws = append(ws, all[i])
		case slices.ContainsFunc(noiseWorlds, func(w world) bool { return w.name == name }):
			return nil, fmt.Errorf("parse flags: world %q has run-level noise, which only the monitor mode simulates: add -monitor", name)
		default:
			return nil, fmt.Errorf("parse flags: unknown world %q", name)
		}
	}
	return ws, nil
}

// writeCellRow writes the table row of one scenario's trials in a world.
func writeCellRow(stdout io.Writer, sc scenario, t tally) {
	lo, hi := wilson(t.drift, t.n)
	loc, fds := "—", "—"
	if sc.drift && t.drift > 0 {
		if !strings.HasPrefix(sc.name, "all") {
			loc = fmt.Sprintf("%.1f", pct(t.localised, t.drift))
		}
		if t.flagged > 0 {
			fds = fmt.Sprintf("%.1f", pct(t.falseFlagged, t.flagged))
		}
	}
	fmt.Fprintf(stdout, "| %s | %d | %.2f [%.2f–%.2f] | %.1f/%.1f/%.1f/%.1f/%.1f | %s | %s | %.1f | %.1f | %.1f |\n",
		sc.name, t.n, pct(t.drift, t.n), lo, hi,
		pct(t.sev[0], t.n), pct(t.sev[1], t.n), pct(t.sev[2], t.n), pct(t.sev[3], t.n), pct(t.sev[4], t.n),
		loc, fds, t.calls/float64(t.n), pct(t.legacyDrift, t.n), pct(t.legacySev[4], t.n))
}

// selected reports whether a scenario is among the comma-separated name
// prefixes of list; an empty list selects every scenario.
func selected(name, list string) bool {
	if list == "" {
		return true
	}
	for _, pre := range strings.Split(list, ",") {
		if pre = strings.TrimSpace(pre); pre != "" && strings.HasPrefix(name, pre) {
			return true
		}
	}
	return false
}

// check is one target of the spec.
type check struct {
	what     string
	world    string
	scenario string
	measure  func(t tally) float64
	atLeast  bool
	bound    float64
}

func alarm(t tally) float64    { return pct(t.drift, t.n) }
func noneSev(t tally) float64  { return pct(t.sev[0], t.n) }
func critical(t tally) float64 { return pct(t.sev[4], t.n) }

func printTargets(w io.Writer, results map[cellKey]tally, ws []world) {
	var checks []check
	callsBound := map[string]float64{"DET": 0.30 * 20, "T0": 0.70 * 20, "T07": 0.95 * 20, "T0-corr": 0.70 * 20, "T07-corr": 0.95 * 20}
	powerBound := func(world string, det, t0, t07 float64) float64 {
		switch {
		case world == "DET":
			return det
		case strings.HasPrefix(world, "T07"):
			return t07
		}
		return t0
	}
	for _, wd := range ws {
		n := wd.name
		checks = append(checks,
			check{"false alarms ≤ 1.0%", n, "none", alarm, false, 1.0},
			check{"severity none ≥ 99%", n, "none", noneSev, true, 99},
			check{"alarms under jitter ≤ 2%", n, "jitter ±0.02", alarm, false, 2},
			check{"alarms under improvement ≤ 2%", n, "improvement only", alarm, false, 2},
			check{"broken pair detected ≥ 99%", n, "pair breaks (p→0.05)", alarm, true, 99},
			check{"broken pair critical ≥ 95%", n, "pair breaks (p→0.05)", critical, true, 95},
			check{"every pair −10 detected ≥ 99%", n, "all pairs −10", alarm, true, 99},
			check{"one pair −50 detected", n, "pair −50", alarm, true, powerBound(n, 95, 80, 60)},
			check{"one probe −20 detected", n, "probe −20", alarm, true, powerBound(n, 99, 95, 80)},
			check{"every pair −5 detected", n, "all pairs −5", alarm, true, powerBound(n, 99, 99, 65)},
			check{"score-only detected", n, "score-only −0.10", alarm, true, powerBound(n, 99, 99, 85)},
			check{"drift-free calls/prompt", n, "none", func(t tally) float64 { return t.calls / float64(t.n) }, false, callsBound[n]},
		)
	}
	slices.SortStableFunc(checks, func(a, b check) int { return cmp.Compare(a.what, b.what) })
	fmt.Fprintln(w, "## Targets\n\n| target | world | measured | bound | met |\n|---|---|---:|---:|---|")
	for _, c := range checks {
		t, ok := results[cellKey{c.world, c.scenario}]
		if !ok {
			continue
		}
		v := c.measure(t)
		met := v <= c.bound
		op := "≤"
		if c.atLeast {
			met, op = v >= c.bound, "≥"
		}
		mark := "yes"
		if !met {
			mark = "**no**"
		}
		fmt.Fprintf(w, "| %s | %s | %.2f | %s %.1f | %s |\n", c.what, c.world, v, op, c.bound, mark)
	}
}
