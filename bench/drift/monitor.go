package main

// The monitor mode (-monitor): what the monitor makes of drift reports over
// time. Each trial draws a suite and takes a baseline of 30 samples per
// prompt; then every scheduled hourly run samples the current behaviour
// adaptively (stages 5, 10: the monitor's default of 10 samples), is
// compared with the baseline, and, only when it flags drift, is followed by
// a confirmation run with fresh samples; policy.Confirm decides whether the
// finding is confirmed. A policy.Trend observes every measured run whose
// drift was not confirmed. An incident opens on a confirmed finding or a
// trend alarm and resolves after two consecutive clean runs.
//
// Drift-free trials simulate months of 720 hourly runs against one
// baseline each and count the incidents that open (false incidents). Drift
// trials inject a scenario at a random hour and measure how many scheduled
// runs pass until the first confirmed finding or trend alarm.
//
// After the independent worlds come the worlds with run-level noise
// (noise.go), where every run shares an offset: there the confirmation in
// the same minute shares its run's offset, and the rule "a later hour"
// confirms with an offset of its own; -baseline-runs spreads a baseline
// over several runs.

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/monitor/policy"
)

const (
	monitorSamples = 10   // the monitor's default samples per prompt
	monthRuns      = 720  // a month of hourly runs
	hoursPerYear   = 8760 // runs per check-year at one run an hour
	resolveAfter   = 2    // clean runs that resolve an incident (the monitor's default)
	// budgetPerYear is the target: at most one false incident per check per
	// 90 days of hourly runs.
	budgetPerYear = hoursPerYear / (90 * 24.0)
	// stepHorizon bounds a step-drift trial, in runs after the onset;
	// gradualHorizon a gradual one's (runs past the month's end stand for
	// the next month); gradualLead is how many drift-free runs before the
	// onset a gradual trial simulates, so the trend detector has warmed up
	// (or the month's start, when the onset is earlier).
	stepHorizon    = 48
	gradualHorizon = 30 * 24
	gradualLead    = 144
	// persistentWithin4 is the target for a persistent small drift: the
	// share of trials with an incident within 4 runs, percent.
	persistentWithin4 = 80.0
)

// monitorStages are the adaptive stages of a scheduled run.
var monitorStages = stagesFor(monitorSamples)

// rule is a confirmation rule the benchmark compares: how many samples per
// prompt the confirmation run takes (adaptively), which units must overlap,
// and whether the confirmation runs at a later hour than the run it
// confirms (with an offset of its own in a world with run-level noise)
// rather than in the same minute. samples 0 opens an incident on the first
// flag, without a confirmation run.
type rule struct {
	name    string
	samples int
	overlap policy.Overlap
	later   bool
	rl      *policy.Window // a run-level rule (runlevel.go): its settings, nil for the others
	// control: a run-level rule that also judges the suite against the
	// check's control arm (control.go, -control)
	control bool
}

// allRules are the confirmation rules -rules all compares.
var allRules = []rule{
	noConfirmation,
	{"same unit, 10 samples", 10, policy.OverlapSame, false, nil, false},
	{"nested units, 10 samples", 10, policy.OverlapNested, false, nil, false},
	{"same unit, 20 samples", 20, policy.OverlapSame, false, nil, false},
	{"nested units, 20 samples", 20, policy.OverlapNested, false, nil, false},
	{"same unit, 30 samples", 30, policy.OverlapSame, false, nil, false},
	{"nested units, 30 samples", 30, policy.OverlapNested, false, nil, false},
	{"nested units, 30 samples, a later hour", 30, policy.OverlapNested, true, nil, false},
}

var noConfirmation = rule{"none (incident on the first flag)", 0, 0, false, nil, false}

// runLevelRules are the run-level rules -rules runlevel adds to the
// monitor's (runlevel.go): they need -baseline-runs 2 or more.
var runLevelRules = []rule{
	rlRule("R2s+ suite t(components) α=0.05, window ≤3 α=1e-4, baseline runs", policy.Window{Alpha: 0.05, Runs: 3, AlphaW: 1e-4, MinRuns: minRunLevelRuns}),
	rlRule("R3 the same, learning the last 100 clean runs", r3Window),
}

// r3Window is R3's window, the monitor's (policy.NewWindow's settings).
var r3Window = policy.Window{Alpha: 0.05, Runs: 3, AlphaW: 1e-4, Learn: 100, MinRuns: minRunLevelRuns}

// stepLead is how many drift-free runs a step trial simulates before the
// onset (or the month's start, when the onset is earlier) when a rule
// learns from clean runs (-rules runlevel).
const stepLead = 48

// learning reports whether a measured rule learns from clean runs.
func learning() bool {
	return slices.ContainsFunc(rules, func(r rule) bool { return r.rl != nil && r.rl.Learn > 0 })
}

// minRunLevelRuns is the number of reference runs a run-level rule needs
// before it applies (then df ≥ 5).
const minRunLevelRuns = 6

// rlRule is a run-level rule whose pairs confirm like the monitor's rule
// at a later hour (30 samples, nested units).
func rlRule(name string, rl policy.Window) rule {
	return rule{name, 30, policy.OverlapNested, true, &rl, false}
}

// rules are the confirmation rules measured (see selectRules); defaultRule
// indexes the monitor's: policy.Confirm with policy.ConfirmSamples of the
// monitor's default samples, in the same minute.
var (
	rules       []rule
	defaultRule int
)

// baselineRuns is how many runs, each at an hour of its own, a check's
// baseline samples are spread over (-baseline-runs).
var baselineRuns = 1

// monitorBaselineN is a check's baseline samples per prompt in monitor
// mode (-baseline-samples): 30, or more for a baseline promoted from many
// runs (baseline promote --runs 30 of 10-sample runs holds 300).
var monitorBaselineN = baselineN

func init() { selectRules("monitor") }

// selectRules measures every rule of allRules, or only the monitor's, the
// same at a later hour and, for reference, no confirmation at all (which
// costs no extra run).
func selectRules(set string) {
	all := set == "all"
	isMonitors := func(r rule) bool {
		return r.samples == policy.ConfirmSamples(monitorSamples) && r.overlap == policy.DefaultConfirmation.Overlap
	}
	isDefault := func(r rule) bool { return isMonitors(r) && !r.later }
	if all {
		rules = allRules
	} else {
		rules = []rule{noConfirmation}
		for _, r := range allRules {
			if isMonitors(r) {
				rules = append(rules, r)
			}
		}
	}
	if set == "runlevel" {
		rules = slices.Concat(rules, runLevelRules)
		if controlSetting != noControl {
			rules = append(rules, controlRule())
		}
	}
	defaultRule = slices.IndexFunc(rules, isDefault)
}

// stagesFor returns the adaptive stages of a run of n samples per prompt,
// as the runner derives them from drift.Stages.
func stagesFor(n int) []int {
	var out []int
	for _, s := range drift.Stages {
		if s < n {
			out = append(out, s)
		}
	}
	return append(out, n)
}

// trendThresholds are the CUSUM thresholds compared, each in a detector of
// its own that observes every measured run, as if it were alone.
var trendThresholds = []float64{6, 8, 10, 12, 14}

// monitorScenario is a drift injected into a monitored check. setup may
// change the baseline behaviour (before the baseline is sampled) and
// returns the behaviour at a given number of hours after the onset.
type monitorScenario struct {
	name       string
	gradual    bool
	persistent bool // a small step, to be found within 4 runs rather than 2
	setup      func(s *suiteSpec, rng *rand.Rand) func(hours int) *suiteSpec
}

// stepOf makes a step scenario of one of the compare benchmark's scenarios.
func stepOf(name string) monitorScenario {
	i := slices.IndexFunc(scenarios, func(s scenario) bool { return s.name == name })
	sc := scenarios[i]
	return monitorScenario{name: sc.name, setup: func(s *suiteSpec, rng *rand.Rand) func(int) *suiteSpec {
		post := *s
		sc.apply(&post, rng)
		return func(int) *suiteSpec { return &post }
	}}
}

// persistentOf makes a small step scenario, to be found within 4 runs.
func persistentOf(name string) monitorScenario {
	sc := stepOf(name)
	sc.persistent = true
	return sc
}

var monitorScenarios = []monitorScenario{
	{name: "probe step 0.84 → 0.51", setup: func(s *suiteSpec, rng *rand.Rand) func(int) *suiteSpec {
		j := rng.IntN(numProbes)
		for m := range numPrompts {
			s[j][m].p, s[j][m].det = 0.84, false
		}
		post := *s
		for m := range numPrompts {
			post[j][m].p = 0.51
		}
		return func(int) *suiteSpec { return &post }
	}},
	stepOf("pair breaks (p→0.05)"),
	stepOf("pair −50"),
	persistentOf("all pairs −5"),
	{name: "gradual −1 pt/day", gradual: true, setup: func(s *suiteSpec, _ *rand.Rand) func(int) *suiteSpec {
		base := *s
		var cur suiteSpec
		return func(hours int) *suiteSpec {
			cur = base
			d := 0.01 * float64(hours) / 24
			for j := range numProbes {
				for m := range numPrompts {
					if cur[j][m].p > 0 {
						cur[j][m].p = max(0, cur[j][m].p-d)
					}
				}
			}
			return &cur
		}
	}},
}

// monitoredCheck is the simulated state of one check: its baseline and,
// per confirmation rule, its incident and trend detector.
type monitoredCheck struct {
	w             world
	baseline      *promptcanary.Baseline
	basePerPrompt [][]promptcanary.ProbeResult
	baseRate      float64
	seed          uint64
	runs          int
	rng           *rand.Rand

	trends      []policy.Trend // per rule
	open        []bool         // per rule: an incident is open
	clean       []int          // per rule: clean runs since the last finding
	thresholds  []policy.Trend // per trend threshold (default rule)
	thresholdOn []bool

	baseRuns []drift.RunRate                              // the suite rate of each baseline run (-baseline-runs ≥ 2)
	pairP    map[promptcanary.PairKey]float64             // the baseline's pair rates
	rl       []*policy.Window                             // per rule: a run-level rule's window and learned runs
	ctl      *controlArm                                  // the control arm (-control), nil for none
	diff     []*policy.Window                             // per rule: the window of the suite against the control's, nil for none
	ctlDiff  drift.RunRate                                // the scheduled run's difference from its control (drift.ArmDifference)
	first    struct{ rep, out *promptcanary.DriftReport } // the last report policy.FirstRun judged, and its verdict
}

func newCheck(w world, spec *suiteSpec, rng *rand.Rand, seed uint64) *monitoredCheck {
	c := &monitoredCheck{w: w, rng: rng, seed: seed}
	hours := make([]*suiteSpec, baselineRuns)
	for i := range hours {
		hours[i] = w.hour(spec, rng)
	}
	base := make([]promptcanary.ProbeResult, 0, numPrompts*numProbes*monitorBaselineN)
	c.basePerPrompt = make([][]promptcanary.ProbeResult, numPrompts)
	for m := range numPrompts {
		start := len(base)
		for smp := range monitorBaselineN {
			base = sample(base, hours[smp*len(hours)/monitorBaselineN], m, smp, w.rho, rng)
		}
		c.basePerPrompt[m] = base[start:len(base):len(base)]
	}
	c.baseRuns, c.pairP = runLevelOf(base)
	c.baseline = &promptcanary.Baseline{SnapshotID: "b", SuiteName: "bench", RunResult: promptcanary.Run{SuiteName: "bench", ProbeResults: base}}
	c.baseRate = passRate(base)
	c.trends = make([]policy.Trend, len(rules))
	c.open = make([]bool, len(rules))
	c.clean = make([]int, len(rules))
	c.thresholds = make([]policy.Trend, len(trendThresholds))
	for i, h := range trendThresholds {
		c.thresholds[i].Threshold = h
	}
	c.thresholdOn = make([]bool, len(trendThresholds))
	c.rl = make([]*policy.Window, len(rules))
	for r, ru := range rules {
		if ru.rl != nil {
			c.rl[r] = ru.rl.Over(c.baseRuns)
		}
	}
	c.newControl(spec)
	return c
}

func passRate(rs []promptcanary.ProbeResult) float64 {
	n := 0
	for i := range rs {
		if rs[i].Passed {
			n++
		}
	}
	return float64(n) / float64(max(len(rs), 1))
}

// measure samples one run of cur with the given stages and compares it
// with the baseline.
func (c *monitoredCheck) measure(cur *suiteSpec, stages []int) (*promptcanary.DriftReport, []promptcanary.ProbeResult, int) {
	all, taken := sampleRun(c.w, cur, stages, c.basePerPrompt, c.rng)
	c.runs++
	run := &promptcanary.Run{SuiteName: "bench", ProbeResults: all}
	opts := drift.Options{Seed: c.seed + uint64(c.runs), Now: fixedNow, NewID: fixedID}
	rep, err := drift.Compare(c.baseline, run, opts)
	if err != nil {
		panic(err)
	}
	return rep, all, taken
}

// sampleRun samples one run of cur with the given stages, each prompt
// stopping early as the runner does when its samples so far are accepted
// against the baseline's (basePerPrompt); taken counts the samples.
func sampleRun(w world, cur *suiteSpec, stages []int, basePerPrompt [][]promptcanary.ProbeResult, rng *rand.Rand) (all []promptcanary.ProbeResult, taken int) {
	for m := range numPrompts {
		var rs []promptcanary.ProbeResult
		n := 0
		for si, stage := range stages {
			for ; n < stage; n++ {
				rs = sample(rs, cur, m, n, w.rho, rng)
			}
			if si < len(stages)-1 && drift.AcceptEarly(basePerPrompt[m], rs) {
				break
			}
		}
		all = append(all, rs...)
		taken += n
	}
	return all, taken
}

// step is what one scheduled run concluded, per rule.
type step struct {
	flagged   bool   // the first compare flagged drift
	confirmed []bool // per rule: a confirmed finding
	trend     []bool // per rule: the trend detector is in alarm
	opened    []bool // per rule: an incident opened at this run
	threshold []bool // per trend threshold: an alarm started at this run
	thAlarm   []bool // per trend threshold: in alarm
	calls     int
}

func (s *step) finding(r int) bool { return s.confirmed[r] || s.trend[r] }

// confirmation is what a confirmation run is keyed by: its samples and
// whether it ran at an hour of its own.
type confirmation struct {
	samples int
	later   bool
}

// confirmationOf keys a rule's confirmation run. Without run-level noise a
// later hour behaves like the same minute, so the rules share the run (and
// the independent worlds' figures do not change with the later rules).
func (c *monitoredCheck) confirmationOf(ru rule) confirmation {
	return confirmation{ru.samples, ru.later && c.w.noisy()}
}

// confRun is a confirmation run's report and its pooled units' rates.
type confRun struct {
	rep *promptcanary.DriftReport
	obs drift.RunRate // its suite rate
}

// wants reports whether rule r takes a confirmation run after a run with
// this report.
func (c *monitoredCheck) wants(r int, rep *promptcanary.DriftReport) bool {
	ru := rules[r]
	if ru.samples == 0 {
		return false
	}
	if ru.rl != nil {
		return c.wantsConfirmation(r, rep)
	}
	return rep.HasDrift
}

// confirmations measures the confirmation runs of a run at hour now that
// a rule wants confirmed, one for each rule's kind, and adds what the
// monitor's costs to calls.
func (c *monitoredCheck) confirmations(cur, now *suiteSpec, rep *promptcanary.DriftReport, calls *int) map[confirmation]*confRun {
	second := map[confirmation]*confRun{}
	for r, ru := range rules {
		k := c.confirmationOf(ru)
		if !c.wants(r, rep) || second[k] != nil {
			continue
		}
		at := now
		if k.later {
			at = c.w.hour(cur, c.rng)
		}
		rep2, rs, n := c.measure(at, stagesFor(ru.samples))
		second[k] = &confRun{rep2, c.suiteRate(rs)}
		if r := rules[defaultRule]; k == c.confirmationOf(r) && rep.HasDrift {
			*calls += n // what the monitor spends
		}
	}
	return second
}

// scheduled runs one scheduled run (and its confirmation when it flags).
func (c *monitoredCheck) scheduled(cur *suiteSpec) step {
	d := c.w.offset(c.rng)
	now := c.w.shift(cur, d)
	rep, rs, calls := c.measure(now, monitorStages)
	o := c.suiteRate(rs)
	c.measureControl(rs, d)
	st := step{flagged: rep.HasDrift, calls: calls,
		confirmed: make([]bool, len(rules)), trend: make([]bool, len(rules)), opened: make([]bool, len(rules)),
		threshold: make([]bool, len(trendThresholds)), thAlarm: make([]bool, len(trendThresholds))}
	second := c.confirmations(cur, now, rep, &st.calls)
	pr := passRate(rs)
	for r, ru := range rules {
		switch {
		case ru.rl != nil:
			st.confirmed[r] = c.runLevelConfirmed(r, rep, o, second[c.confirmationOf(ru)])
		case !rep.HasDrift:
		case ru.samples == 0:
			st.confirmed[r] = true
		default:
			st.confirmed[r] = policy.Confirmation{Overlap: ru.overlap}.Confirm(rep, second[c.confirmationOf(ru)].rep) != nil
		}
		c.incident(r, &st, pr, len(rs))
		if ru.rl != nil {
			c.learnFrom(r, &st, o)
		}
	}
	for i := range c.thresholds {
		on := c.thresholds[i].Observe(pr, len(rs), c.baseRate)
		st.threshold[i] = on && !c.thresholdOn[i]
		st.thAlarm[i] = on
		c.thresholdOn[i] = on
	}
	return st
}

// incident feeds rule r's trend detector and opens or resolves its
// incident.
func (c *monitoredCheck) incident(r int, st *step, pr float64, n int) {
	if !st.confirmed[r] {
		st.trend[r] = c.trends[r].Observe(pr, n, c.baseRate)
	} else {
		st.trend[r] = c.trends[r].Alarm()
	}
	switch {
	case st.finding(r) && !c.open[r]:
		c.open[r], st.opened[r], c.clean[r] = true, true, 0
	case st.finding(r):
		c.clean[r] = 0
	case c.open[r]:
		if c.clean[r]++; c.clean[r] >= resolveAfter {
			c.open[r] = false
		}
	}
}

// baselineRunResults splits a baseline's results by the run each sample
// came from (-baseline-runs).
func baselineRunResults(base []promptcanary.ProbeResult) [][]promptcanary.ProbeResult {
	runs := make([][]promptcanary.ProbeResult, baselineRuns)
	for _, r := range base {
		i := r.Sample * baselineRuns / monitorBaselineN
		runs[i] = append(runs[i], r)
	}
	return runs
}

// quietTally accumulates drift-free months.
type quietTally struct {
	months, runs, flagged, calls int
	incidents, trendIncidents    []int // per rule
	monthsWith                   []int // per rule: months with at least one incident
	maxMonth                     []int // per rule: most incidents in one month
	thresholdAlarms              []int // per trend threshold
}

func newQuietTally() quietTally {
	return quietTally{incidents: make([]int, len(rules)), trendIncidents: make([]int, len(rules)), monthsWith: make([]int, len(rules)),
		maxMonth: make([]int, len(rules)), thresholdAlarms: make([]int, len(trendThresholds))}
}

func (t *quietTally) merge(o *quietTally) {
	t.months += o.months
	t.runs += o.runs
	t.flagged += o.flagged
	t.calls += o.calls
	for r := range rules {
		t.incidents[r] += o.incidents[r]
		t.trendIncidents[r] += o.trendIncidents[r]
		t.monthsWith[r] += o.monthsWith[r]
		t.maxMonth[r] = max(t.maxMonth[r], o.maxMonth[r])
	}
	for i := range trendThresholds {
		t.thresholdAlarms[i] += o.thresholdAlarms[i]
	}
}

// quietMonth simulates one drift-free month of one check.
func quietMonth(w world, seed uint64, t *quietTally) {
	rng := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909))
	spec := drawSuite(w, rng)
	c := newCheck(w, &spec, rng, seed)
	month := make([]int, len(rules))
	for range monthRuns {
		st := c.scheduled(&spec)
		t.runs++
		t.calls += st.calls
		if st.flagged {
			t.flagged++
		}
		for r := range rules {
			if st.opened[r] {
				month[r]++
				t.incidents[r]++
				if !st.confirmed[r] {
					t.trendIncidents[r]++
				}
			}
		}
		for i := range trendThresholds {
			if st.threshold[i] {
				t.thresholdAlarms[i]++
			}
		}
	}
	t.months++
	for r := range rules {
		if month[r] > 0 {
			t.monthsWith[r]++
		}
		t.maxMonth[r] = max(t.maxMonth[r], month[r])
	}
}

// driftTally accumulates the trials of one drift scenario.
type driftTally struct {
	trials     int
	delays     [][]int // per rule: runs from the onset to the first finding (1 = the first run after it), -1 when none within the horizon
	byTrend    int     // default rule: first finding was the trend's
	trendAlone [][]int // per trend threshold: runs to its first alarm, -1 when none
	one10      int     // the first run after the onset flagged drift (one compare, 10 samples)
	one20      int     // one compare with 20 samples (adaptive 5/10/20) flagged drift
}

func newDriftTally() driftTally {
	return driftTally{delays: make([][]int, len(rules)), trendAlone: make([][]int, len(trendThresholds))}
}

func (t *driftTally) merge(o *driftTally) {
	t.trials += o.trials
	t.byTrend += o.byTrend
	t.one10 += o.one10
	t.one20 += o.one20
	for r := range rules {
		t.delays[r] = append(t.delays[r], o.delays[r]...)
	}
	for i := range trendThresholds {
		t.trendAlone[i] = append(t.trendAlone[i], o.trendAlone[i]...)
	}
}

// driftTrial simulates one check from before a drift's onset until every
// rule and trend detector has found it or the horizon has passed.
func driftTrial(w world, sc monitorScenario, seed uint64, t *driftTally) {
	rng := rand.New(rand.NewPCG(seed, 0xbb67ae8584caa73b))
	spec := drawSuite(w, rng)
	at := sc.setup(&spec, rng)
	c := newCheck(w, &spec, rng, seed)
	onset := rng.IntN(monthRuns)
	lead, horizon := 0, stepHorizon
	if learning() {
		// A rule that learns from the check's own clean runs is measured
		// as a monitor that has run a while before the drift.
		lead = min(onset, stepLead)
	}
	if sc.gradual {
		lead, horizon = min(onset, gradualLead), gradualHorizon
	}
	for range lead {
		c.scheduled(&spec)
	}
	// One CLI compare of the drifted behaviour with up to 20 samples.
	if !sc.gradual {
		if rep, _, _ := c.measure(at(0), drift.Stages); rep.HasDrift {
			t.one20++
		}
	}
	delays := make([]int, len(rules))
	alone := make([]int, len(trendThresholds))
	for i := range delays {
		delays[i] = -1
	}
	for i := range alone {
		alone[i] = -1
	}
	pending := len(rules)
	if sc.gradual {
		pending += len(trendThresholds) // a step is left to the compare
	}
	for k := 1; k <= horizon && pending > 0; k++ {
		st := c.scheduled(at(k - 1))
		if k == 1 && st.flagged {
			t.one10++
		}
		for r := range rules {
			if delays[r] < 0 && st.finding(r) {
				delays[r] = k
				pending--
				if r == defaultRule && !st.confirmed[r] {
					t.byTrend++
				}
			}
		}
		for i := range trendThresholds {
			if sc.gradual && alone[i] < 0 && st.thAlarm[i] {
				alone[i] = k
				pending--
			}
		}
	}
	t.trials++
	for r := range rules {
		t.delays[r] = append(t.delays[r], delays[r])
	}
	for i := range trendThresholds {
		t.trendAlone[i] = append(t.trendAlone[i], alone[i])
	}
}

// parallel runs n jobs on workers goroutines, each with a tally of its own,
// and merges the tallies in worker order (every job's outcome depends only
// on its index, so the merged tally does not depend on the scheduling).
func parallel[T any](n, workers int, fresh func() T, job func(i int, t *T), merge func(into, from *T)) T {
	var next atomic.Int64
	parts := make([]T, workers)
	for k := range parts {
		parts[k] = fresh()
	}
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				job(i, &parts[k])
			}
		}()
	}
	wg.Wait()
	out := fresh()
	for k := range parts {
		merge(&out, &parts[k])
	}
	return out
}

// poissonUpper is the exact (Garwood) one-sided 95% upper bound of the mean
// of a Poisson count k.
func poissonUpper(k int) float64 {
	// The bound is the λ with P(X ≤ k | λ) = 0.05; bisect. Each term is
	// taken from its logarithm: e^−λ alone underflows to 0 past λ ≈ 745,
	// which made every count above that its own bound.
	cdf := func(lambda float64) float64 {
		sum, logL := 0.0, math.Log(lambda)
		for i := 0; i <= k; i++ {
			lg, _ := math.Lgamma(float64(i + 1))
			sum += math.Exp(-lambda + float64(i)*logL - lg)
		}
		return sum
	}
	lo, hi := float64(k), float64(k)+10+5*math.Sqrt(float64(k)+1)
	for range 100 {
		mid := (lo + hi) / 2
		if cdf(mid) > 0.05 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

func perYear(k, runs int) float64 { return float64(k) * hoursPerYear / float64(max(runs, 1)) }

// delays summarises how soon the trials of a drift found it: the shares
// found within 1, 2 and 4 runs and within the horizon (percent), and the
// mean and median delay, in runs, of those found (NaN when none was).
type delays struct {
	within1, within2, within4, within8, found, mean, median float64
}

func delayStats(ds []int) delays {
	var got []int
	var d delays
	for _, k := range ds {
		if k <= 0 {
			continue
		}
		got = append(got, k)
		d.within1 += b2f(k <= 1)
		d.within2 += b2f(k <= 2)
		d.within4 += b2f(k <= 4)
		d.within8 += b2f(k <= 8)
	}
	n := float64(max(len(ds), 1))
	d.within1, d.within2, d.within4, d.within8 = 100*d.within1/n, 100*d.within2/n, 100*d.within4/n, 100*d.within8/n
	d.found = 100 * float64(len(got)) / n
	d.mean, d.median = math.NaN(), math.NaN()
	if len(got) == 0 {
		return d
	}
	slices.Sort(got)
	sum := 0
	for _, k := range got {
		sum += k
	}
	d.mean = float64(sum) / float64(len(got))
	d.median = float64(got[len(got)/2])
	if len(got)%2 == 0 {
		d.median = float64(got[len(got)/2-1]+got[len(got)/2]) / 2
	}
	return d
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// monitorOptions are the monitor mode's trial counts.
type monitorOptions struct {
	months, stepTrials, gradualTrials, workers int
	baselineRuns, baselineSamples              int // baselineSamples 0: baselineN
	seed                                       uint64
	rules                                      string
	control                                    controlHour // -control
}

// monitorResult is what the monitor mode measured in one world.
type monitorResult struct {
	quiet quietTally
	drift map[string]driftTally
	took  [3]time.Duration // drift-free months, step trials, gradual trials
}

func runMonitor(stdout io.Writer, ws []world, o monitorOptions) {
	controlSetting = o.control
	selectRules(o.rules)
	baselineRuns, monitorBaselineN = o.baselineRuns, cmp.Or(o.baselineSamples, baselineN)
	defer func() {
		controlSetting, baselineRuns, monitorBaselineN = noControl, 1, baselineN
		selectRules("monitor")
	}()
	start := time.Now()
	fmt.Fprintf(stdout, "# Drift benchmark: monitor mode\n\n7 probes (4 binary, 3 continuous) × 8 prompts; baseline %d samples per prompt; each hourly run adaptive %v (the monitor's default of %d samples), a confirmation run with fresh samples when it flags drift; the monitor's rule: %q (policy.Confirm, policy.ConfirmSamples); trend CUSUM threshold %g; an incident resolves after %d clean runs; seed %d.\n",
		monitorBaselineN, monitorStages, monitorSamples, rules[defaultRule].name, float64(policy.DefaultTrendThreshold), resolveAfter, o.seed)
	fmt.Fprintf(stdout, "%d drift-free months of %d hourly runs per world (%d runs); %d trials per step scenario (from the onset, up to %d runs); %d gradual trials (from up to %d runs before the onset, up to %d days after it).\n\n",
		o.months, monthRuns, o.months*monthRuns, o.stepTrials, stepHorizon, o.gradualTrials, gradualLead, gradualHorizon/24)
	if baselineRuns > 1 {
		fmt.Fprintf(stdout, "Each baseline spreads its %d samples per prompt over %d runs at hours of their own.\n\n", monitorBaselineN, baselineRuns)
	}
	switch controlSetting {
	case sharedHour:
		fmt.Fprint(stdout, "Each check has a control arm (-control shared): the model as it was at the baseline, run in every scheduled run's slot with every sample, sharing its hour (its offset); a drift moves the target only. Rule R3c also judges the weighted difference of the two arms' pass rates (drift.ArmDifference).\n\n")
	case controlsHour:
		fmt.Fprint(stdout, "Each check has a control arm (-control own): the model as it was at the baseline, run in every scheduled run's slot with every sample, at an hour of its own (an offset of its own); a drift moves the target only. Rule R3c also judges the weighted difference of the two arms' pass rates (drift.ArmDifference).\n\n")
	}
	results := map[string]monitorResult{}
	for _, w := range ws {
		res := monitorResult{drift: map[string]driftTally{}}
		t0 := time.Now()
		res.quiet = parallel(o.months, o.workers, newQuietTally, func(i int, t *quietTally) {
			quietMonth(w, trialSeed(o.seed, w.name, "monitor/none", i), t)
		}, func(a, b *quietTally) { a.merge(b) })
		res.took[0] = time.Since(t0)
		for _, sc := range monitorScenarios {
			n := o.stepTrials
			if sc.gradual {
				n = o.gradualTrials
			}
			t0 = time.Now()
			res.drift[sc.name] = parallel(n, o.workers, newDriftTally, func(i int, t *driftTally) {
				driftTrial(w, sc, trialSeed(o.seed, w.name, "monitor/"+sc.name, i), t)
			}, func(a, b *driftTally) { a.merge(b) })
			if sc.gradual {
				res.took[2] += time.Since(t0)
			} else {
				res.took[1] += time.Since(t0)
			}
		}
		results[w.name] = res
		printMonitorWorld(stdout, w, res)
	}
	printMonitorTargets(stdout, ws, results)
	fmt.Fprintf(stdout, "\nElapsed %s on %d workers.\n", time.Since(start).Round(time.Second), o.workers)
}

func fmtF(v float64, prec int) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func printMonitorWorld(w io.Writer, wd world, res monitorResult) {
	q := res.quiet
	fmt.Fprintf(w, "## World %s\n\n", wd.name)
	lo, hi := wilson(q.flagged, q.runs)
	fmt.Fprintf(w, "Drift-free: %d runs (%d months); the first compare flagged %.3f%% [%.3f–%.3f] of runs; %.1f calls per prompt per run (confirmations included).\n\n",
		q.runs, q.months, pct(q.flagged, q.runs), lo, hi, float64(q.calls)/float64(max(q.runs, 1))/numPrompts)
	fmt.Fprintf(w, "Measured in %s: drift-free months %s, step trials %s, gradual trials %s.\n\n", (res.took[0] + res.took[1] + res.took[2]).Round(time.Second),
		res.took[0].Round(time.Second), res.took[1].Round(time.Second), res.took[2].Round(time.Second))

	var stepNames []string
	for _, sc := range monitorScenarios {
		if !sc.gradual {
			stepNames = append(stepNames, sc.name)
		}
	}
	fmt.Fprintf(w, "| confirmation rule | false incidents | of which trend | per check-year [95%% upper] | per run %% [95%% upper] | months with one | most in a month | step within 2 runs %% (%s) | within 4 runs %% | within 8 runs %% | gradual mean delay days |\n", strings.Join(stepNames, " / "))
	fmt.Fprintln(w, "|---|---:|---:|---|---|---:|---:|---|---|---|---:|")
	for r := range rules {
		name := rules[r].name
		if r == defaultRule {
			name = "**" + name + "** (the monitor's)"
		}
		var within2, within4, within8 []string
		var gradual string
		for _, sc := range monitorScenarios {
			ds := delayStats(res.drift[sc.name].delays[r])
			if sc.gradual {
				gradual = fmtF(ds.mean/24, 2)
				continue
			}
			within2 = append(within2, fmt.Sprintf("%.1f", ds.within2))
			within4 = append(within4, fmt.Sprintf("%.1f", ds.within4))
			within8 = append(within8, fmt.Sprintf("%.1f", ds.within8))
		}
		up := poissonUpper(q.incidents[r])
		fmt.Fprintf(w, "| %s | %d | %d | %.2f [%.2f] | %.3f [%.3f] | %d | %d | %s | %s | %s | %s |\n", name, q.incidents[r], q.trendIncidents[r],
			perYear(q.incidents[r], q.runs), up*hoursPerYear/float64(max(q.runs, 1)), pct(q.incidents[r], q.runs), 100*up/float64(max(q.runs, 1)),
			q.monthsWith[r], q.maxMonth[r], strings.Join(within2, " / "), strings.Join(within4, " / "), strings.Join(within8, " / "), gradual)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "| drift (the monitor's rule + trend) | trials | incident at run 1 % | within 2 runs % | within 4 runs % | found % | mean delay runs | median delay runs | first found by trend % | one compare, 10 samples % | one compare, 20 samples % |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, sc := range monitorScenarios {
		d := res.drift[sc.name]
		ds := delayStats(d.delays[defaultRule])
		one10, one20 := "—", "—"
		if !sc.gradual {
			one10, one20 = fmt.Sprintf("%.1f", pct(d.one10, d.trials)), fmt.Sprintf("%.1f", pct(d.one20, d.trials))
		}
		meanS, medianS := fmtF(ds.mean, 1), fmtF(ds.median, 1)
		if sc.gradual {
			meanS, medianS = fmtF(ds.mean/24, 2)+" days", fmtF(ds.median/24, 2)+" days"
		}
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %s | %s | %.1f | %s | %s |\n", sc.name, d.trials, ds.within1, ds.within2, ds.within4, ds.found, meanS, medianS, pct(d.byTrend, d.trials), one10, one20)
	}
	fmt.Fprintln(w)

	g := res.drift[monitorScenarios[len(monitorScenarios)-1].name]
	fmt.Fprintln(w, "| trend threshold (alone) | false alarms | per check-year [95% upper] | gradual found % | mean delay days | median delay days |")
	fmt.Fprintln(w, "|---:|---:|---|---:|---:|---:|")
	for i, h := range trendThresholds {
		ds := delayStats(g.trendAlone[i])
		mark := ""
		if h == policy.DefaultTrendThreshold {
			mark = " (default)"
		}
		fmt.Fprintf(w, "| %g%s | %d | %.2f [%.2f] | %.1f | %s | %s |\n", h, mark, q.thresholdAlarms[i], perYear(q.thresholdAlarms[i], q.runs),
			poissonUpper(q.thresholdAlarms[i])*hoursPerYear/float64(max(q.runs, 1)), ds.found, fmtF(ds.mean/24, 2), fmtF(ds.median/24, 2))
	}
	fmt.Fprintln(w)
}

func printMonitorTargets(w io.Writer, ws []world, results map[string]monitorResult) {
	type row struct {
		what, world, measured, bound string
		met                          bool
	}
	var rows []row
	for _, wd := range ws {
		res := results[wd.name]
		q := res.quiet
		up := poissonUpper(q.incidents[defaultRule]) * hoursPerYear / float64(max(q.runs, 1))
		rows = append(rows, row{"false incidents per check-year, 95% upper bound", wd.name, fmt.Sprintf("%.2f (%.2f measured)", up, perYear(q.incidents[defaultRule], q.runs)),
			fmt.Sprintf("≤ %.2f", budgetPerYear), up <= budgetPerYear})
		for _, sc := range monitorScenarios {
			if sc.gradual {
				continue
			}
			d := res.drift[sc.name]
			ds := delayStats(d.delays[defaultRule])
			if sc.persistent && !wd.noisy() {
				continue // the target is set for the worlds with run-level noise
			}
			if sc.persistent {
				rows = append(rows, row{sc.name + ": incident within 4 runs", wd.name, fmt.Sprintf("%.1f%%", ds.within4), fmt.Sprintf("≥ %.0f%%", persistentWithin4), ds.within4 >= persistentWithin4})
				continue
			}
			one := pct(d.one10, d.trials)
			rows = append(rows, row{sc.name + ": incident within 2 runs ≥ one compare", wd.name, fmt.Sprintf("%.1f%%", ds.within2), fmt.Sprintf("≥ %.1f%%", one), ds.within2 >= one})
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int { return cmp.Compare(a.what, b.what) })
	fmt.Fprintf(w, "## Targets\n\nOne compare takes the samples of a scheduled run (%d per prompt, adaptive %v).\n\n| target | world | measured | bound | met |\n|---|---|---:|---:|---|\n", monitorSamples, monitorStages)
	for _, r := range rows {
		mark := "yes"
		if !r.met {
			mark = "**no**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.what, r.world, r.measured, r.bound, mark)
	}
	// A compare of 20 samples sees more than any two runs of 10 can: if
	// one run flags with probability p, two flag at most 1 − (1 − p)².
	fmt.Fprintln(w, "\nFor information, against one compare of 20 samples per prompt (adaptive 5/10/20): two runs of 10 samples flag with at most 1 − (1 − p)² when one flags with p, even if every flag were confirmed.\n\n| drift | world | within 2 runs | ceiling 1 − (1 − p)² | one compare, 20 samples |\n|---|---|---:|---:|---:|")
	for _, wd := range ws {
		res := results[wd.name]
		for _, sc := range monitorScenarios {
			if sc.gradual || sc.persistent {
				continue
			}
			d := res.drift[sc.name]
			w2 := delayStats(d.delays[defaultRule]).within2
			p := float64(d.one10) / float64(max(d.trials, 1))
			fmt.Fprintf(w, "| %s | %s | %.1f%% | %.1f%% | %.1f%% |\n", sc.name, wd.name, w2, 100*(1-(1-p)*(1-p)), pct(d.one20, d.trials))
		}
	}
}
