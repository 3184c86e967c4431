package drift

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// scoreMargin is the smallest score shift a Mann–Whitney unit may flag: its
// test compares current scores raised by the margin with the baseline's,
// and a rejection also needs a Hodges–Lehmann shift of at most −scoreMargin.
const scoreMargin = 0.05

// scoreUnitWeight is the weight of a Mann–Whitney unit in the discrete
// weighted Benjamini–Hochberg step, relative to 1 for a pass-count
// unit: a score shift moves every prompt of a probe and is caught far above
// its targets, while a single broken pair has only its own Fisher test.
const scoreUnitWeight = 0.25

// unitWeight returns the weight of a unit of the drift family. It depends
// on the unit's kind only (never on its p-value), so the tests stay valid
// conditionally on the margins, as the discrete step requires.
func unitWeight(u *familyUnit) float64 {
	if u.score {
		return scoreUnitWeight
	}
	return 1
}

// Test names recorded in TestedUnit.Test. FisherTest, a pair's test of
// its pass counts, and StratifiedTest, a probe's or category's test of
// its pairs' pass counts, are the ones a caller may test again on the
// pooled counts (see DropBeyond).
const (
	FisherTest      = "fisher"
	StratifiedTest  = "stratified_exact"
	testMannWhitney = "mann_whitney"
	testSuite       = "stratified_permutation"
)

// familyUnit is one hypothesis of the drift family with what is needed to
// act on its outcome.
type familyUnit struct {
	promptcanary.TestedUnit
	pairs []int // indexes into index.pairs
	score bool  // a Mann–Whitney (score-only) unit
	// varying is the key of the set of pairs whose pooled passes are not
	// constant, for a pass-count unit whose test depends on nothing else,
	// or "mw:" and the representative pair of a Mann–Whitney unit (see
	// sharedTests); empty when the unit's test is its own. Units with equal
	// keys run the same test.
	varying string
	dup     int // index of the unit whose test this one repeats, or -1
	// support lists attainable p-values given the margins, for the
	// discrete Benjamini–Hochberg step: all of a Fisher unit's, the lower
	// ones of a stratified unit's (see discreteUnit); nil otherwise.
	support []float64
	// describe is what the unit measured (its counts or medians), the
	// first part of its evidence line.
	describe string
	// test formats the rest of the line once p and q are known: the
	// effect with its 95% interval and the test with its p and q.
	test func(p, q float64) string
}

// evidence is the unit's evidence line: what it measured, then the numbers
// of the test that decided it. A unit that repeats another's test says so
// and gives that test's numbers (the same p and q), since its own effect
// is not what the test measured: a category flagged through its only
// varying pair shows the pair's drop, not the category's mean.
func (s *statRun) evidence(u *familyUnit) string {
	if u.dup < 0 || u.Kind == promptcanary.UnitPair {
		return u.describe + "; " + u.test(u.P, u.Q)
	}
	d := &s.units[u.dup]
	return u.describe + "; same test as " + u.SameTestAs + ": " + d.test(d.P, d.Q)
}

// statRun holds the state of one statistical comparison.
type statRun struct {
	idx   *index
	opts  *Options
	units []familyUnit
	// rep maps a pair to the pair whose test it shares (itself when its
	// test is its own); see sharedTests.
	rep  map[int]int
	buf  []float64
	buf2 []float64
}

// compareStatistical runs the one-sided tests of the drift family over the
// pairs measured on both sides, applies the discrete weighted
// Benjamini–Hochberg step at opts.Alpha (which screens out the units that
// cannot reach significance, like Tarone's method) and fills the report.
func compareStatistical(rep *promptcanary.DriftReport, idx *index, answers [2]*Answers, summaries [2]map[string]promptAnswers, opts *Options) {
	st := &promptcanary.DriftStatistics{Seed: opts.Seed, Alpha: opts.Alpha, Permutations: opts.Permutations, BaselineSamples: idx.baseMax, CurrentSamples: idx.curMax}
	s := &statRun{idx: idx, opts: opts}
	measured := markMeasured(rep, idx)
	s.rep = sharedTests(idx, measured)
	for _, i := range measured {
		s.addPairUnits(i)
	}
	s.addGroupUnits(measured)
	suiteVar, suiteWeight := s.addSuiteUnit(measured, rep.SuiteName)

	s.markRepeatedTests()
	tau1 := s.stepFamily(st)
	s.shareRepeatedOutcomes()

	flaggedUnits, broad := s.gradeUnits(rep)
	s.decidePairs(rep, measured)
	// A pair's own test is judged at the level it would need alone; with
	// no testable unit, a pair alone would face alpha.
	levelK := tau1
	if levelK == 0 {
		levelK = opts.Alpha
	}
	regressions, pairDrops := s.judgeUnflaggedPairs(rep, measured, levelK)

	s.pairEvidenceToUnits(rep)
	st.Units = make([]promptcanary.TestedUnit, len(s.units))
	for i := range s.units {
		st.Units[i] = s.units[i].TestedUnit
	}
	st.MinDetectableDrop = suiteMinDetectableDrop(suiteVar, suiteWeight, levelK)
	st.PairDetectableDrop = pairDrops
	st.Nondeterminism = nondeterminism(summaries[0], summaries[1], idx)
	st.Signals = changeSignals(answers[0], answers[1], idx, opts)
	for _, sig := range st.Signals {
		if sig.Flagged {
			st.Warnings = append(st.Warnings, sig.Detail)
		}
	}
	rep.Statistics = st
	rep.OverallBaselineScore, rep.OverallCurrentScore = overallScores(idx)
	rep.HasDrift = flaggedUnits > 0
	if opts.GateOnSignals && len(st.Warnings) > 0 && !rep.HasDrift {
		rep.HasDrift, rep.Severity = true, promptcanary.SeverityLow
	}
	summarizeStatistical(rep, st, flaggedUnits, regressions, broad)
}

// markMeasured returns the pairs measured on both sides and marks those
// with a single sample on a side as insufficient.
func markMeasured(rep *promptcanary.DriftReport, idx *index) []int {
	var measured []int
	for i, p := range idx.pairs {
		if !p.measured() {
			continue
		}
		measured = append(measured, i)
		if p.base.n() < 2 || p.cur.n() < 2 {
			p.status = promptcanary.StatusInsufficient
			rep.Comparisons[i].Status = promptcanary.StatusInsufficient
		}
	}
	return measured
}

// markRepeatedTests points every unit that repeats an earlier unit's test
// exactly at that unit (dup), so the test is counted once.
func (s *statRun) markRepeatedTests() {
	first := map[string]int{}
	for i := range s.units {
		u := &s.units[i]
		u.dup = -1
		if u.varying == "" {
			continue
		}
		if j, ok := first[u.varying]; ok {
			u.dup = j
			u.SameTestAs = s.units[j].Kind + " " + s.units[j].Key
			continue
		}
		first[u.varying] = i
	}
}

// stepFamily runs the discrete weighted Benjamini–Hochberg step over the
// family. A unit's weight is fixed before any p-value is seen (see
// unitWeight); a unit whose smallest achievable p-value cannot reach the
// largest critical value is screened out (it counts for nothing in the
// step). It fills the family figures of st and returns the level a single
// unit faces.
func (s *statRun) stepFamily(st *promptcanary.DriftStatistics) float64 {
	var kept []int
	var dus []discreteUnit
	for i := range s.units {
		u := &s.units[i]
		u.Q = 1
		if u.dup >= 0 {
			continue // not counted again: weight 0
		}
		u.Weight = unitWeight(u)
		kept = append(kept, i)
		dus = append(dus, discreteUnit{p: u.P, w: u.Weight, minP: u.MinP, support: u.support})
	}
	qs, tauM, tau1 := discreteBH(dus, s.opts.Alpha)
	st.Hypotheses, st.ScreeningLevel, st.UnitLevel = len(s.units), tauM, tau1
	for j, q := range qs {
		u := &s.units[kept[j]]
		u.Q = q
		if u.MinP > tauM*u.Weight*(1+1e-12) {
			u.Screened = true
			continue
		}
		st.Testable++
		u.Rejected = q <= s.opts.Alpha && (!u.score || u.Effect <= -scoreMargin+tolerance)
	}
	return tau1
}

// shareRepeatedOutcomes gives a repeated test its first unit's screening
// and outcome, and its p-value: the same test on the same evidence, whose
// p-value its own computation could only miss by rounding or by a shortcut
// (the normal approximation above normalSkip skips the exact program).
func (s *statRun) shareRepeatedOutcomes() {
	for i := range s.units {
		if u := &s.units[i]; u.dup >= 0 {
			d := &s.units[u.dup]
			u.Screened, u.Q, u.Rejected = d.Screened, d.Q, d.Rejected
			u.P, u.MinP = d.P, d.MinP
		}
	}
}

// gradeUnits grades every unit on its own and raises the report's severity
// to the most severe rejected unit. A pair is then decided once, by its most
// severe rejected unit (see decidePairs). It returns the number of rejected
// units and the rejected units broader than a pair.
func (s *statRun) gradeUnits(rep *promptcanary.DriftReport) (flagged int, broad []string) {
	rep.Severity = promptcanary.SeverityNone
	for i := range s.units {
		u := &s.units[i]
		u.Severity = promptcanary.SeverityNone
		u.TestEvidence = s.evidence(u)
		u.Evidence = u.TestEvidence
		if !u.Rejected {
			continue
		}
		flagged++
		u.Severity = unitSeverity(u)
		if u.Severity.Rank() > rep.Severity.Rank() {
			rep.Severity = u.Severity
		}
		if u.Kind != promptcanary.UnitPair {
			broad = append(broad, u.Kind+" "+u.Key)
		}
	}
	return flagged, broad
}

// judgeUnflaggedPairs counts the regressions among the measured pairs and
// gives every other pair its clean evidence at levelK, its smallest
// detectable drop and, when its own test says so, an improvement. It
// returns the regression count and the range of per-pair detectable drops.
func (s *statRun) judgeUnflaggedPairs(rep *promptcanary.DriftReport, measured []int, levelK float64) (regressions int, pairDrops promptcanary.Interval) {
	for _, i := range measured {
		c := &rep.Comparisons[i]
		if c.Regression {
			regressions++
			continue
		}
		p := s.idx.pairs[i]
		c.Evidence = cleanEvidence(p, levelK)
		if p.base.n() >= 2 && p.cur.n() >= 2 {
			if d := minDetectableDrop(p.base.passes, p.base.n(), p.cur.n(), levelK); !math.IsNaN(d) && !math.IsInf(d, 0) {
				if pairDrops.Upper == 0 || d < pairDrops.Lower {
					pairDrops.Lower = d
				}
				pairDrops.Upper = max(pairDrops.Upper, d)
			}
		}
		if c.Status == promptcanary.StatusInsufficient {
			continue
		}
		if p.cur.rate() > p.base.rate() && fisherGreater(p.base.passes, p.base.n(), p.cur.passes, p.cur.n()) <= levelK {
			c.Improvement, c.Status = true, promptcanary.StatusImprovement
		}
	}
	return regressions, pairDrops
}

// summarizeStatistical writes the report's summary line and its notes on
// sensitivity, signals and coverage.
func summarizeStatistical(rep *promptcanary.DriftReport, st *promptcanary.DriftStatistics, flaggedUnits, regressions int, broad []string) {
	pairDrops := st.PairDetectableDrop
	switch {
	case flaggedUnits > 0:
		what := fmt.Sprintf("%d regression(s) detected", regressions)
		if len(broad) > 0 {
			if len(broad) > 3 {
				broad = append(broad[:3], fmt.Sprintf("%d more", len(broad)-3))
			}
			what += ", worse across " + strings.Join(broad, ", ")
		}
		rep.Summary = driftSummary(rep.Severity, rep.SuiteName, what, rep.OverallBaselineScore, rep.OverallCurrentScore)
	case rep.HasDrift:
		rep.Summary = driftSummary(rep.Severity, rep.SuiteName, fmt.Sprintf("%d change signal(s) flagged, no regression detected", len(st.Warnings)), rep.OverallBaselineScore, rep.OverallCurrentScore)
	default:
		rep.Summary = noDriftSummary(rep.SuiteName, rep.OverallCurrentScore)
		switch {
		case st.MinDetectableDrop > 0:
			addNote(rep, promptcanary.NoteSensitivity, fmt.Sprintf("no drift detected, but this run could only see a drop of %.1f pts or more spread over every pair's pass rate (power 0.8); each pair's evidence gives the smallest drop its own test could see; more samples per prompt see smaller drops", 100*st.MinDetectableDrop))
		case pairDrops.Upper > 0:
			// Nothing failed on either side, so a drop spread over every pair
			// cannot be sized from the data; each pair's own test still can.
			addNote(rep, promptcanary.NoteSensitivity, fmt.Sprintf("no drift detected, but this run could only see drops of %.0f pts or more per pair (power 0.8; %.0f pts for the most sensitive pair); more samples per prompt see smaller drops", math.Ceil(100*pairDrops.Upper-1e-9), math.Ceil(100*pairDrops.Lower-1e-9)))
		}
	}
	if len(st.Warnings) > 0 {
		addNote(rep, promptcanary.NoteSignals, fmt.Sprintf("%d informational change signal(s) flagged (see warnings); they are not drift by themselves", len(st.Warnings)))
	}
	if n := rep.Count(promptcanary.StatusInsufficient); n > 0 {
		addNote(rep, promptcanary.NoteCoverage, fmt.Sprintf("%d pair(s) have a single sample on one side: insufficient evidence for a statistical verdict", n))
	}
}

// rngFor returns the random source of one unit: the report seed and the
// unit's key, so a unit's permutations do not depend on the other units.
func (s *statRun) rngFor(key string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(s.opts.Seed, h.Sum64()))
}

// addPairUnits adds the Fisher unit of pair i and, for continuous scores,
// its Mann–Whitney unit.
func (s *statRun) addPairUnits(i int) {
	p := s.idx.pairs[i]
	b, c := &p.base, &p.cur
	pv, minP := fisherLess(b.passes, b.n(), c.passes, c.n())
	d, lo, hi := newcombe(b.passes, b.n(), c.passes, c.n(), z95)
	_, _, bound := newcombe(b.passes, b.n(), c.passes, c.n(), zOneSided95)
	vk, _ := s.varyingKey([]int{i})
	h := hyper{total: b.n() + c.n(), succ: b.passes + c.passes, n: c.n()}
	s.units = append(s.units, familyUnit{
		support: h.lowerTails(),
		TestedUnit: promptcanary.TestedUnit{Kind: promptcanary.UnitPair, Key: p.key.String(), Test: FisherTest,
			Statistic: float64(c.passes), P: pv, MinP: minP, Effect: d, Interval: promptcanary.Interval{Lower: lo, Upper: hi}, EffectBound: bound},
		pairs:    []int{i},
		varying:  vk,
		describe: rateCI(b.passes, b.n()) + " → " + rateCI(c.passes, c.n()),
		test: func(p, q float64) string {
			return fmt.Sprintf("Δ %s pts [%s, %s]; Fisher p=%s, q=%s", signed(100*d, 1), signed(100*lo, 1), signed(100*hi, 1), fmtP(p), fmtQ(q))
		},
	})
	if !b.continuous() && !c.continuous() {
		return
	}
	mw := mannWhitneyLess(b.scores, c.scores, scoreMargin, s.opts.Permutations, s.rngFor("mw/"+p.key.String()))
	var hl, hlLo, hlHi float64
	hl, hlLo, hlHi, s.buf = hodgesLehmann(b.scores, c.scores, s.buf)
	var mb, mc float64
	mb, s.buf2 = median(b.scores, s.buf2)
	mc, s.buf2 = median(c.scores, s.buf2)
	nb, nc := b.n(), c.n()
	s.units = append(s.units, familyUnit{
		TestedUnit: promptcanary.TestedUnit{Kind: promptcanary.UnitPair, Key: p.key.String(), Test: testMannWhitney + "_" + mw.how,
			Statistic: mw.u, P: mw.p, MinP: mw.minP, Effect: hl, Interval: promptcanary.Interval{Lower: hlLo, Upper: hlHi}},
		pairs: []int{i},
		score: true,
		// Identical scores sample for sample make the same test.
		varying:  fmt.Sprintf("mw:%d", s.representative(i)),
		describe: fmt.Sprintf("median score %.2f → %.2f (n %d/%d)", mb, mc, nb, nc),
		test: func(p, q float64) string {
			return fmt.Sprintf("HL shift %s [%s, %s]; Mann–Whitney (margin %.2f) p=%s, q=%s",
				signed(hl, 2), signed(hlLo, 2), signed(hlHi, 2), scoreMargin, fmtP(p), fmtQ(q))
		},
	})
}

// addGroupUnits adds the exact stratified units of every probe across its
// prompts and every category across its pairs, skipping units that would
// repeat a pair or another unit.
func (s *statRun) addGroupUnits(measured []int) {
	byProbe := map[string][]int{}
	byCat := map[promptcanary.Category][]int{}
	var probes []string
	var cats []promptcanary.Category
	for _, i := range measured {
		p := s.idx.pairs[i]
		if byProbe[p.key.ProbeID] == nil {
			probes = append(probes, p.key.ProbeID)
		}
		byProbe[p.key.ProbeID] = append(byProbe[p.key.ProbeID], i)
		if byCat[p.category] == nil {
			cats = append(cats, p.category)
		}
		byCat[p.category] = append(byCat[p.category], i)
	}
	slices.Sort(probes)
	slices.Sort(cats)
	seen := map[string]bool{}
	for _, id := range probes {
		if pairs := byProbe[id]; len(pairs) >= 2 {
			seen[pairSetKey(pairs)] = true
			s.addStratified(promptcanary.UnitProbe, id, pairs)
		}
	}
	for _, c := range cats {
		if pairs := byCat[c]; len(pairs) >= 2 && !seen[pairSetKey(pairs)] && len(pairs) < len(measured) {
			seen[pairSetKey(pairs)] = true
			s.addStratified(promptcanary.UnitCategory, string(c), pairs)
		}
	}
}

// varyingKey returns the key of the pairs among the given ones whose pooled
// passes vary (neither all passed nor all failed, on both sides together)
// and how many there are: the other pairs add a constant to any pass-count
// statistic, so units with the same varying pairs run the same test.
//
// A pair that shares another's test (identical results sample for sample)
// counts as that pair, so a unit over it runs the same test as a unit over
// the other.
func (s *statRun) varyingKey(pairs []int) (string, int) {
	var vary []int
	for _, i := range pairs {
		p := s.idx.pairs[i]
		succ, total := p.base.passes+p.cur.passes, p.base.n()+p.cur.n()
		if succ > 0 && succ < total {
			vary = append(vary, s.representative(i))
		}
	}
	slices.Sort(vary)
	return pairSetKey(vary), len(vary)
}

// representative returns the pair whose test pair i shares, i itself when
// its test is its own.
func (s *statRun) representative(i int) int {
	if r, ok := s.rep[i]; ok {
		return r
	}
	return i
}

func pairSetKey(pairs []int) string {
	var b strings.Builder
	for _, i := range pairs {
		fmt.Fprintf(&b, "%d,", i)
	}
	return b.String()
}

// addStratified adds one exact stratified unit over the given pairs.
func (s *statRun) addStratified(kind, key string, pairs []int) {
	strata := make([]hyper, 0, len(pairs))
	obs, bp, bn, cp, cn := 0, 0, 0, 0, 0
	d := make([]float64, len(pairs))
	l := make([]float64, len(pairs))
	u := make([]float64, len(pairs))
	u1 := make([]float64, len(pairs)) // one-sided 95% upper bounds
	w := make([]int, len(pairs))
	prompts := map[string]bool{}
	for j, i := range pairs {
		p := s.idx.pairs[i]
		b, c := &p.base, &p.cur
		h := hyper{total: b.n() + c.n(), succ: b.passes + c.passes, n: c.n()}
		strata = append(strata, h)
		w[j] = pairWeight(h.succ, h.total, stratumResolution)
		obs += w[j] * c.passes
		bp, bn, cp, cn = bp+b.passes, bn+b.n(), cp+c.passes, cn+c.n()
		d[j], l[j], u[j] = newcombe(b.passes, b.n(), c.passes, c.n(), z95)
		_, _, u1[j] = newcombe(b.passes, b.n(), c.passes, c.n(), zOneSided95)
		prompts[p.key.PromptID] = true
	}
	pv, minP, sup := weightedStratifiedSupport(strata, w, obs, true, true)
	vk, _ := s.varyingKey(pairs)
	mean, lo, hi := moverMean(d, l, u)
	_, _, bound := moverMean(d, l, u1)
	over := fmt.Sprintf("%d pairs", len(pairs))
	if kind == promptcanary.UnitProbe {
		over = fmt.Sprintf("%d prompts", len(prompts))
	}
	s.units = append(s.units, familyUnit{
		TestedUnit: promptcanary.TestedUnit{Kind: kind, Key: key, Test: StratifiedTest, Statistic: float64(obs),
			P: pv, MinP: minP, Effect: mean, Interval: promptcanary.Interval{Lower: lo, Upper: hi}, EffectBound: bound},
		pairs:    pairs,
		varying:  vk,
		support:  sup,
		describe: fmt.Sprintf("%s %s over %s: %s → %s", kind, key, over, rateCI(bp, bn), rateCI(cp, cn)),
		test: func(p, q float64) string {
			return fmt.Sprintf("mean Δ %s pts [%s, %s]; weighted stratified exact p=%s, q=%s",
				signed(100*mean, 1), signed(100*lo, 1), signed(100*hi, 1), fmtP(p), fmtQ(q))
		},
	})
}

// suitePrompt holds the weighted passes of one prompt's responses (by
// sample) on each side, and the number of its pairs.
type suitePrompt struct {
	base, cur map[int]int
	pairs     int
}

// suiteStrata returns one stratum per prompt, in the order of prompts, with
// the sorted weighted passes of its responses, and the numbers of baseline
// and current responses and the most pairs of one prompt.
func suiteStrata(prompts []string, byPrompt map[string]*suitePrompt) (strata []stratum, nBase, nCur, maxPairs int) {
	strata = make([]stratum, 0, len(prompts))
	for _, id := range prompts {
		a := byPrompt[id]
		var st stratum
		for _, v := range a.base {
			st.base = append(st.base, v)
		}
		for _, v := range a.cur {
			st.cur = append(st.cur, v)
		}
		slices.Sort(st.base)
		slices.Sort(st.cur)
		nBase, nCur = nBase+len(st.base), nCur+len(st.cur)
		maxPairs = max(maxPairs, a.pairs)
		strata = append(strata, st)
	}
	return strata, nBase, nCur, maxPairs
}

// addSuiteUnit adds the stratified permutation test of the whole suite with
// the response as unit and returns the null variance of its statistic and
// the weighted number of current pair observations (each counting its
// pair's weight), for the suite's minimum
// detectable drop.
func (s *statRun) addSuiteUnit(measured []int, suite string) (variance, weight float64) {
	if len(measured) == 0 {
		return 0, 0
	}
	byPrompt := map[string]*suitePrompt{}
	var prompts []string
	d := make([]float64, len(measured))
	l := make([]float64, len(measured))
	u := make([]float64, len(measured))
	u1 := make([]float64, len(measured)) // one-sided 95% upper bounds
	var baseSum, curSum float64
	for j, i := range measured {
		p := s.idx.pairs[i]
		a := byPrompt[p.key.PromptID]
		if a == nil {
			a = &suitePrompt{base: map[int]int{}, cur: map[int]int{}}
			byPrompt[p.key.PromptID] = a
			prompts = append(prompts, p.key.PromptID)
		}
		a.pairs++
		baseSum += float64(p.base.passes)
		curSum += float64(p.cur.passes)
		// A pair's passes weigh by its pooled pass rate (see pairWeight);
		// a pair that never varies adds the same to every response.
		wt := pairWeight(p.base.passes+p.cur.passes, p.base.n()+p.cur.n(), responseResolution)
		for k, smp := range p.base.samples {
			a.base[int(smp)] += wt * int(b2f(p.base.passed[k]))
		}
		for k, smp := range p.cur.samples {
			a.cur[int(smp)] += wt * int(b2f(p.cur.passed[k]))
		}
		weight += float64(wt * p.cur.n())
		d[j], l[j], u[j] = newcombe(p.base.passes, p.base.n(), p.cur.passes, p.cur.n(), z95)
		_, _, u1[j] = newcombe(p.base.passes, p.base.n(), p.cur.passes, p.cur.n(), zOneSided95)
	}
	slices.Sort(prompts)
	strata, nBase, nCur, maxPairs := suiteStrata(prompts, byPrompt)
	mean, lo, hi := moverMean(d, l, u)
	_, _, bound := moverMean(d, l, u1)
	if len(measured) < 2 {
		return 0, 0
	}
	res := stratifiedPermutationLess(strata, s.opts.Permutations, s.rngFor("suite"))
	perBase, perCur := baseSum/float64(max(nBase, 1)), curSum/float64(max(nCur, 1))
	// With a single varying pair the suite test is that pair's Fisher test;
	// with more, its response-level statistic is its own.
	vk, nv := s.varyingKey(measured)
	if nv != 1 {
		vk = ""
	}
	s.units = append(s.units, familyUnit{
		TestedUnit: promptcanary.TestedUnit{Kind: promptcanary.UnitSuite, Key: suite, Test: testSuite + "_" + res.how,
			Statistic: res.stat, P: res.p, MinP: res.minP, Effect: mean, Interval: promptcanary.Interval{Lower: lo, Upper: hi}, EffectBound: bound},
		pairs:   measured,
		varying: vk,
		describe: fmt.Sprintf("suite over %d prompts: %.2f → %.2f probes passed per response (up to %d probes, %d → %d responses)",
			len(prompts), perBase, perCur, maxPairs, nBase, nCur),
		test: func(p, q float64) string {
			return fmt.Sprintf("mean Δ %s pts [%s, %s]; weighted stratified permutation p=%s, q=%s",
				signed(100*mean, 1), signed(100*lo, 1), signed(100*hi, 1), fmtP(p), fmtQ(q))
		},
	})
	return res.variance, weight
}

// unitSeverity grades a rejected unit from its conservative effect g, the
// bound of the effect's interval nearest zero, scaled by breadth (the
// interval of the mean drop over the unit's pairs). Because every test of
// the family is one-sided, that bound is the one-sided 95% bound
// (EffectBound, z = 1.645), not the upper end of the two-sided 95% interval
// shown in the evidence line: the latter would grade at 97.5% confidence
// an effect the test only claims in one direction.
func unitSeverity(u *familyUnit) promptcanary.Severity {
	if u.score {
		if u.Effect <= -0.10+tolerance {
			return promptcanary.SeverityMedium
		}
		return promptcanary.SeverityLow
	}
	g := max(0, -u.EffectBound)
	var medium, high, critical float64
	switch u.Kind {
	case promptcanary.UnitPair:
		medium, high, critical = 0.10, 0.25, 0.50
	case promptcanary.UnitProbe, promptcanary.UnitCategory:
		medium, high, critical = 0.03, 0.10, 0.20
	default:
		medium, high, critical = 0.02, 0.05, 0.10
	}
	switch {
	case g >= critical-tolerance:
		return promptcanary.SeverityCritical
	case g >= high-tolerance:
		return promptcanary.SeverityHigh
	case g >= medium-tolerance:
		return promptcanary.SeverityMedium
	}
	return promptcanary.SeverityLow
}

// cleanEvidence is the evidence line of a pair that was not flagged: the
// smallest drop of its pass rate the pair's own test could detect.
func cleanEvidence(p *pairData, level float64) string {
	nb, nc := p.base.n(), p.cur.n()
	if nb < 2 || nc < 2 {
		return fmt.Sprintf("insufficient evidence: one sample on a side (n %d/%d)", nb, nc)
	}
	d := minDetectableDrop(p.base.passes, nb, nc, level)
	switch {
	case math.IsNaN(d):
		return fmt.Sprintf("baseline never passed: no drop possible (n %d/%d)", nb, nc)
	case math.IsInf(d, 1):
		return fmt.Sprintf("no drop detectable at this sample size (n %d/%d)", nb, nc)
	}
	return fmt.Sprintf("no drop > %.0f pts detectable (n %d/%d)", math.Ceil(100*d-1e-9), nb, nc)
}

// rateCI formats k/n with its rate and Wilson 95% interval in percent.
func rateCI(k, n int) string {
	lo, hi := wilson(k, n, z95)
	return fmt.Sprintf("%d/%d (%.1f%% [%.1f–%.1f])", k, n, 100*float64(k)/float64(max(n, 1)), 100*lo, 100*hi)
}

// fmtP formats a p-value: three decimals, or two significant digits in
// exponent form below 0.001.
func fmtP(p float64) string {
	if p >= 0.001 {
		return fmt.Sprintf("%.3f", p)
	}
	return fmt.Sprintf("%.1e", p)
}

// fmtQ formats a q-value: two decimals, three below 0.01, exponent form
// below 0.001.
func fmtQ(q float64) string {
	switch {
	case q >= 0.01:
		return fmt.Sprintf("%.2f", q)
	case q >= 0.001:
		return fmt.Sprintf("%.3f", q)
	}
	return fmt.Sprintf("%.1e", q)
}

// sharedTests maps every measured pair whose results are identical, sample
// for sample on both sides, to those of an earlier pair of the same prompt
// (the same responses judged alike, as two probes that both fail on a
// broken JSON answer) to that earlier pair, its representative. Such pairs
// run the same tests on the same evidence, so each of those tests counts
// once in the family and every such pair shares its representative's
// decision. Pairs of different prompts are never merged, even with equal
// counts: their samples are different responses, independent evidence.
// Pairs whose results never vary are left alone: their tests cannot reach
// significance.
func sharedTests(idx *index, measured []int) map[int]int {
	first := map[string]int{}
	var out map[int]int
	for _, i := range measured {
		p := idx.pairs[i]
		if !p.varies() {
			continue
		}
		sig := p.key.PromptID + "\x00" + p.base.signature() + "\x00" + p.cur.signature()
		r, ok := first[sig]
		if !ok {
			first[sig] = i
			continue
		}
		if out == nil {
			out = map[int]int{}
		}
		out[i] = r
	}
	return out
}

// varies reports whether the pair's pooled results are not all alike:
// some sample passed and some failed, or the scores differ.
func (p *pairData) varies() bool {
	succ, total := p.base.passes+p.cur.passes, p.base.n()+p.cur.n()
	if succ > 0 && succ < total {
		return true
	}
	var ref float64
	seen := false
	for _, side := range []*sideData{&p.base, &p.cur} {
		for _, v := range side.scores {
			if seen && v != ref {
				return true
			}
			ref, seen = v, true
		}
	}
	return false
}

// signature encodes the side's results in sample order: sample index,
// verdict and exact score of each.
func (s *sideData) signature() string {
	order := make([]int, s.n())
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(s.samples[a]) - int(s.samples[b]) })
	var b strings.Builder
	for _, k := range order {
		fmt.Fprintf(&b, "%d:%t:%x;", s.samples[k], s.passed[k], math.Float64bits(s.scores[k]))
	}
	return b.String()
}

// decidePairs decides every measured pair once. A pair is a regression
// when any of its units (Fisher's test of its pass counts, Mann–Whitney's
// of its scores) is rejected in the multiplicity step, and it takes the
// severity and evidence of the most severe of its rejected units, each
// graded from its own effect (the one-sided 95% bound of the pass-rate
// drop, or the score-only shift): every rejected unit is a claim the
// family's false-discovery control stands behind, so the pair is as severe
// as the strongest of them, and the report's severity, the maximum over
// rejected hypotheses, is the maximum over the pairs' and the broader
// units' decisions. On a tie the pass-count test decides, being the first.
// A pair that shares another's tests (SharedTestWith) has the same units'
// outcomes and so the same decision.
func (s *statRun) decidePairs(rep *promptcanary.DriftReport, measured []int) {
	best := map[int]int{} // pair → deciding unit
	for i := range s.units {
		u := &s.units[i]
		if u.Kind != promptcanary.UnitPair || !u.Rejected {
			continue
		}
		p := u.pairs[0]
		if j, ok := best[p]; !ok || u.Severity.Rank() > s.units[j].Severity.Rank() {
			best[p] = i
		}
	}
	for _, i := range measured {
		c := &rep.Comparisons[i]
		if r := s.representative(i); r != i {
			c.SharedTestWith = s.idx.pairs[r].key.String()
		}
		j, ok := best[i]
		if !ok {
			continue
		}
		u := &s.units[j]
		u.Decisive = true
		c.Severity, c.Evidence = u.Severity, u.Evidence
		c.Regression, c.Improvement, c.Status = true, false, promptcanary.StatusRegression
	}
}

// pairEvidenceToUnits gives every pair unit its pair's final severity and
// evidence, so a pair reads the same in the comparisons and in the tested
// units; each unit keeps its own test's line in TestEvidence.
func (s *statRun) pairEvidenceToUnits(rep *promptcanary.DriftReport) {
	for i := range s.units {
		u := &s.units[i]
		if u.Kind != promptcanary.UnitPair {
			continue
		}
		c := &rep.Comparisons[u.pairs[0]]
		u.Severity, u.Evidence = c.Severity, c.Evidence
	}
}
