package drift

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
)

// The decision methods of Options.Method.
const (
	MethodAuto         = "auto"
	MethodSingleSample = "single_sample"
	MethodStatistical  = "statistical"
)

// Defaults of Options.
const (
	DefaultThreshold = 0.05
	DefaultAlpha     = 0.01
	// DefaultPermutations is the number of Monte Carlo permutations drawn
	// when an exact null distribution is too large to enumerate. The suite
	// and pair tests enumerate their permutation distributions exactly in
	// every realistic case (dynamic programs over integer statistics), so
	// permutations are drawn only for very large samples and for the
	// informational energy-distance signal. 2000 draws give a p-value floor
	// of 1/2001 ≈ 5e-4 and a Monte Carlo standard error of ≈ 2e-3 at
	// p = 0.01, enough to place a p-value against the screening level
	// alpha/K of a family of a few dozen testable units.
	DefaultPermutations = 2000
)

// Stages is the adaptive sampling schedule: the cumulative number of samples
// per prompt after each stage. A run may stop sampling a prompt after a
// stage only when AcceptEarly says so.
var Stages = []int{5, 10, 20}

// Options configures Compare. The zero value selects the defaults.
type Options struct {
	// Method is MethodAuto (the default: statistical when both sides hold
	// more than one sample per pair, single-sample otherwise),
	// MethodSingleSample (the original rule, what --legacy-compare forces)
	// or MethodStatistical.
	Method string
	// RegressionThreshold and ImprovementThreshold are the score changes of
	// the single-sample rule; 0 selects DefaultThreshold.
	RegressionThreshold, ImprovementThreshold float64
	// Alpha is the Benjamini–Hochberg false-discovery level; 0 selects
	// DefaultAlpha.
	Alpha float64
	// Seed drives every permutation; it is recorded in the report.
	Seed uint64
	// Permutations is the number of Monte Carlo permutations; 0 selects
	// DefaultPermutations.
	Permutations int
	// StalePrompts holds the prompt ids whose configuration hash differs
	// between the baseline and the run: their pairs are reported as
	// StatusStale, never as drift.
	StalePrompts map[string]bool
	// GateOnSignals makes flagged change signals count as drift of low
	// severity when no drift test rejects; by default they are warnings.
	GateOnSignals bool
	// Costs price one call of the baseline's model ([0]) and of the run's
	// ([1]) for the economic measures; a nil one leaves the cost n/a (no
	// known price).
	Costs [2]CostFunc
	// MinEconomicChange is the smallest relative change an economic
	// measure may be flagged at; 0 selects DefaultMinEconomicChange.
	MinEconomicChange float64
	// Now returns the report time; nil means time.Now.
	Now func() time.Time
	// NewID returns the report id; nil means 16 random bytes in hex.
	NewID func() string
	// BaselineResults and CurrentResults, when set, are the probe results
	// of the baseline and of the run, folded by NewResults: Compare reads
	// them instead of the runs' ProbeResults, which the caller may then
	// have released (a comparison of two large runs need not hold both
	// runs' probe results at once).
	BaselineResults, CurrentResults *Results
}

// singleSampleNote is the caveat attached to single-sample comparisons.
const singleSampleNote = "one sample per pair cannot tell drift from noise; run with --samples 5 or more (and a baseline with --baseline-samples 30) for a statistical verdict"

// tolerance absorbs floating-point error in threshold comparisons, so that a
// drop of exactly 0.05 counts as 0.05.
const tolerance = 1e-9

// Compare compares the current run against the baseline and returns the
// drift report. It fails when the suites differ or an option is invalid.
// Every comparison carries a typical answer of each side and the number of
// distinct answers (see Answers), when the runs hold responses.
func Compare(baseline *promptcanary.Baseline, current *promptcanary.Run, opts Options) (*promptcanary.DriftReport, error) {
	if baseline == nil || current == nil {
		return nil, errors.New("compare: baseline and run are required")
	}
	suite := baseline.SuiteName
	if suite == "" {
		suite = baseline.RunResult.SuiteName
	}
	if suite != current.SuiteName {
		return nil, fmt.Errorf("compare: suite name mismatch: baseline is for %q but the run is for %q; results of different suites cannot be compared", suite, current.SuiteName)
	}
	if err := opts.normalize(); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	baseRes, err := resultsOf(opts.BaselineResults, &baseline.RunResult)
	if err != nil {
		return nil, fmt.Errorf("compare: baseline: %w", err)
	}
	curRes, err := resultsOf(opts.CurrentResults, current)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	answers := [2]*Answers{answersOf(baseRes, &baseline.RunResult), answersOf(curRes, current)}
	idx := buildIndex(baseRes, curRes, current, answers[1], opts.StalePrompts)
	measured := curRes.Len() > 0
	// Only the index is read from here on.
	opts.BaselineResults, opts.CurrentResults = nil, nil
	method := opts.Method
	if method == MethodAuto {
		method = MethodSingleSample
		if idx.baseMax > 1 && idx.curMax > 1 {
			method = MethodStatistical
		}
	}
	rep := &promptcanary.DriftReport{
		ReportID:           opts.NewID(),
		GeneratedAt:        opts.Now().UTC(),
		SuiteName:          current.SuiteName,
		Provider:           current.Provider,
		BaselineSnapshotID: baseline.SnapshotID,
		BaselineCreatedAt:  baseline.CreatedAt,
		BaselineModelID:    baseline.Provider.ModelID,
		CurrentRunID:       current.RunID,
		Method:             method,
		Comparisons:        make([]promptcanary.Comparison, len(idx.pairs)),
		Errors:             slices.Clone(current.Errors),
		Adjustments:        slices.Clone(current.Adjustments),
		Warnings:           slices.Clone(current.Warnings),
	}
	for i, p := range idx.pairs {
		rep.Comparisons[i] = p.comparison()
	}
	summaries := [2]map[string]promptAnswers{answers[0].summaries(), answers[1].summaries()}
	addExamples(rep, summaries[0], summaries[1])
	switch {
	case idx.compared() == 0:
		compareNothing(rep, current, measured)
	case method == MethodSingleSample:
		compareSingle(rep, idx, &opts)
	default:
		compareStatistical(rep, idx, answers, summaries, &opts)
	}
	addCoverage(rep)
	addStatusNotes(rep)
	rep.Identity = Identity(answers[0], answers[1], opts.StalePrompts, opts.Seed)
	rep.RunSpread = runSpread(baseline.Runs, idx)
	rep.Economics = Economics(answers[0], answers[1], baseline, opts)
	return rep, nil
}

// compared counts the pairs measured on both sides under one configuration.
func (idx *index) compared() int {
	n := 0
	for _, p := range idx.pairs {
		if p.measured() {
			n++
		}
	}
	return n
}

// compareNothing fills a report in which no pair could be compared: no
// test ran, so it is no evidence of drift nor of its absence. HasDrift is
// false, the severity none, both overall scores NaN (no score was compared),
// and the summary says that nothing was compared or, when every call of
// the current run failed, that nothing was measured, with the reasons.
func compareNothing(rep *promptcanary.DriftReport, current *promptcanary.Run, measured bool) {
	rep.HasDrift, rep.Severity = false, promptcanary.SeverityNone
	rep.OverallBaselineScore, rep.OverallCurrentScore = math.NaN(), math.NaN()
	reasons := uncomparedReasons(rep)
	if !measured {
		what := "the current run has no results"
		if n := len(current.Errors); n > 0 {
			what = fmt.Sprintf("every call of the current run failed (%d failed call(s))", n)
		}
		rep.Summary = fmt.Sprintf("Nothing was measured in '%s': %s, so no pair was compared and there is no verdict.", rep.SuiteName, what)
		return
	}
	if len(rep.Comparisons) == 0 {
		rep.Summary = fmt.Sprintf("Nothing was compared in '%s': neither side has any probe result, so there is no verdict.", rep.SuiteName)
		return
	}
	rep.Summary = fmt.Sprintf("Nothing was compared in '%s': none of %d pair(s) could be compared (%s), so there is no verdict.", rep.SuiteName, len(rep.Comparisons), reasons)
}

// addCoverage says in the summary how many pairs were compared when only
// some of them could be, and why the others were not.
func addCoverage(rep *promptcanary.DriftReport) {
	n, total := rep.Compared(), len(rep.Comparisons)
	if n == 0 || n == total {
		return
	}
	rep.Summary += fmt.Sprintf(" Compared %d of %d pairs; not compared: %s.", n, total, uncomparedReasons(rep))
}

// uncomparedReasons counts the pairs that were not compared by reason,
// for example "2 with a stale baseline, 1 added".
func uncomparedReasons(rep *promptcanary.DriftReport) string {
	var parts []string
	for _, r := range []struct {
		status promptcanary.Status
		what   string
	}{
		{promptcanary.StatusStale, "with a stale baseline"},
		{promptcanary.StatusNotMeasured, "not measured (most calls failed)"},
		{promptcanary.StatusAdded, "added since the baseline"},
		{promptcanary.StatusRemoved, "removed since the baseline"},
	} {
		if n := rep.Count(r.status); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, r.what))
		}
	}
	return strings.Join(parts, ", ")
}

// addNote adds a note of the given kind (promptcanary.NoteCoverage, …) to
// the report, and with its kind to the statistics of a statistical report.
func addNote(rep *promptcanary.DriftReport, kind, text string) {
	rep.Notes = append(rep.Notes, text)
	if rep.Statistics != nil {
		rep.Statistics.Notes = append(rep.Statistics.Notes, promptcanary.Note{Kind: kind, Text: text})
	}
}

// normalize validates the options and fills in the defaults.
func (o *Options) normalize() error {
	switch o.Method {
	case "":
		o.Method = MethodAuto
	case MethodAuto, MethodSingleSample, MethodStatistical:
	default:
		return fmt.Errorf("unknown method %q (want %s, %s or %s)", o.Method, MethodAuto, MethodSingleSample, MethodStatistical)
	}
	if o.RegressionThreshold == 0 {
		o.RegressionThreshold = DefaultThreshold
	}
	if o.ImprovementThreshold == 0 {
		o.ImprovementThreshold = DefaultThreshold
	}
	if o.RegressionThreshold < 0 || o.ImprovementThreshold < 0 {
		return fmt.Errorf("thresholds must be positive, got regression %g and improvement %g", o.RegressionThreshold, o.ImprovementThreshold)
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Alpha <= 0 || o.Alpha >= 1 {
		return fmt.Errorf("alpha must be in (0, 1), got %g", o.Alpha)
	}
	if o.Permutations == 0 {
		o.Permutations = DefaultPermutations
	}
	if o.Permutations < 0 {
		return fmt.Errorf("permutations must be positive, got %d", o.Permutations)
	}
	if o.MinEconomicChange == 0 {
		o.MinEconomicChange = DefaultMinEconomicChange
	}
	if o.MinEconomicChange < 0 {
		return fmt.Errorf("minimum economic change must be positive, got %g", o.MinEconomicChange)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.NewID == nil {
		o.NewID = randomID
	}
	return nil
}

// randomID returns 16 random bytes in hex.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// sideData holds the samples of one side of a pair.
type sideData struct {
	scores  []float64
	passed  []bool
	samples []int32
	details string
	passes  int
	sum     float64
	want    int // the results buildIndex counted for the side
}

// sideValues holds the values of every result of one side, for the
// sideData of its pairs to take a window each.
type sideValues struct {
	scores  []float64
	passed  []bool
	samples []int32
}

func newSideValues(n int) *sideValues {
	return &sideValues{scores: make([]float64, n), passed: make([]bool, n), samples: make([]int32, n)}
}

// reserve gives s room for its want values, empty, from v.
func (v *sideValues) reserve(s *sideData) {
	n := s.want
	s.scores, v.scores = v.scores[:0:n], v.scores[n:]
	s.passed, v.passed = v.passed[:0:n], v.passed[n:]
	s.samples, v.samples = v.samples[:0:n], v.samples[n:]
}

// add appends the i-th result of rs, a result of the side's pair.
func (s *sideData) add(rs *Results, i int) {
	if len(s.scores) == 0 {
		s.details = rs.pairs[rs.pair[i]].details
	}
	score, passed := rs.score[i], rs.passed[i]
	s.scores = append(s.scores, score)
	s.passed = append(s.passed, passed)
	s.samples = append(s.samples, rs.sample[i])
	if passed {
		s.passes++
	}
	s.sum += score
}

func (s *sideData) n() int { return len(s.scores) }

func (s *sideData) mean() float64 {
	if len(s.scores) == 0 {
		return 0
	}
	return s.sum / float64(len(s.scores))
}

func (s *sideData) rate() float64 {
	if len(s.scores) == 0 {
		return 0
	}
	return float64(s.passes) / float64(len(s.scores))
}

func (s *sideData) stats() promptcanary.SampleStats {
	return promptcanary.SampleStats{N: s.n(), Passes: s.passes, MeanScore: s.mean()}
}

// continuous reports whether any score is strictly between 0 and 1.
func (s *sideData) continuous() bool {
	for _, v := range s.scores {
		if v > 0 && v < 1 {
			return true
		}
	}
	return false
}

// pairData gathers both sides of one (probe, prompt) pair.
type pairData struct {
	key       promptcanary.PairKey
	probeType string
	probeName string
	category  promptcanary.Category
	base, cur sideData
	status    promptcanary.Status
}

// measured reports whether both sides can be compared.
func (p *pairData) measured() bool {
	switch p.status {
	case promptcanary.StatusStale, promptcanary.StatusNotMeasured, promptcanary.StatusAdded, promptcanary.StatusRemoved:
		return false
	}
	return true
}

func (p *pairData) comparison() promptcanary.Comparison {
	c := promptcanary.Comparison{
		ProbeID:         p.key.ProbeID,
		ProbeType:       p.probeType,
		ProbeName:       p.probeName,
		Category:        p.category,
		PromptID:        p.key.PromptID,
		Status:          p.status,
		BaselineScore:   p.base.mean(),
		CurrentScore:    p.cur.mean(),
		BaselinePassed:  p.base.n() > 0 && p.base.rate() >= 0.5,
		CurrentPassed:   p.cur.n() > 0 && p.cur.rate() >= 0.5,
		BaselineDetails: p.base.details,
		CurrentDetails:  p.cur.details,
		Baseline:        p.base.stats(),
		Current:         p.cur.stats(),
		Severity:        promptcanary.SeverityNone,
	}
	switch p.status {
	case promptcanary.StatusAdded:
		c.BaselineDetails = "Not present in baseline."
	case promptcanary.StatusRemoved:
		c.CurrentDetails = "Not present in current run."
	case promptcanary.StatusNotMeasured:
		if p.cur.n() == 0 {
			c.CurrentDetails = "Not measured: the current calls for this prompt failed."
		}
	}
	if p.base.n() > 0 && p.cur.n() > 0 {
		c.ScoreDelta = c.CurrentScore - c.BaselineScore
	}
	return c
}

// index holds the pairs of a comparison in a stable order.
type index struct {
	pairs []*pairData
	// baseMax and curMax are the largest sample counts of a pair measured
	// on both sides.
	baseMax, curMax int
}

// buildIndex matches the results of both runs by (probe instance, prompt)
// and assigns the statuses that need no test. cur gives the run's failed
// calls and responses; base and cur their probe results.
func buildIndex(baseRes, curRes *Results, cur *promptcanary.Run, answers *Answers, stale map[string]bool) *index {
	m := make(map[promptcanary.PairKey]*pairData)
	var order []*pairData
	get := func(rs *Results, rp *resultPair) *pairData {
		p, ok := m[rp.key]
		if !ok {
			first := &rs.names[rp.first]
			p = &pairData{key: rp.key, probeType: first.probeType, probeName: first.probeName, category: first.category}
			m[rp.key] = p
			order = append(order, p)
		}
		return p
	}
	// The pair of each side's pairs first, counting each pair's results,
	// so that each side's values fill one array of each kind, a window per
	// pair, instead of thousands of slices grown by appending.
	basePairs, curPairs := make([]*pairData, len(baseRes.pairs)), make([]*pairData, len(curRes.pairs))
	for i := range baseRes.pairs {
		basePairs[i] = get(baseRes, &baseRes.pairs[i])
	}
	for i := range curRes.pairs {
		rp := &curRes.pairs[i]
		p := get(curRes, rp)
		// The current run names the probe as it is now.
		last := &curRes.names[rp.last]
		p.probeType, p.probeName, p.category = last.probeType, last.probeName, last.category
		curPairs[i] = p
	}
	for _, pi := range baseRes.pair {
		basePairs[pi].base.want++
	}
	for _, pi := range curRes.pair {
		curPairs[pi].cur.want++
	}
	baseVals, curVals := newSideValues(baseRes.Len()), newSideValues(curRes.Len())
	for _, p := range order {
		baseVals.reserve(&p.base)
		curVals.reserve(&p.cur)
	}
	for i, pi := range baseRes.pair {
		basePairs[pi].base.add(baseRes, i)
	}
	for i, pi := range curRes.pair {
		curPairs[pi].cur.add(curRes, i)
	}
	notMeasured := unmeasuredPrompts(cur, curRes, answers)
	idx := &index{pairs: order}
	for _, p := range order {
		switch {
		case stale[p.key.PromptID]:
			p.status = promptcanary.StatusStale
		case notMeasured[p.key.PromptID]:
			p.status = promptcanary.StatusNotMeasured
		case p.base.n() == 0:
			p.status = promptcanary.StatusAdded
		case p.cur.n() == 0:
			p.status = promptcanary.StatusRemoved
		default:
			p.status = promptcanary.StatusStable
			idx.baseMax = max(idx.baseMax, p.base.n())
			idx.curMax = max(idx.curMax, p.cur.n())
		}
	}
	slices.SortFunc(order, func(a, b *pairData) int {
		return cmp.Or(cmp.Compare(a.key.ProbeID, b.key.ProbeID), cmp.Compare(a.key.PromptID, b.key.PromptID))
	})
	return idx
}

// unmeasuredPrompts returns the prompts of the run with fewer successful
// calls than failed ones: under half their calls succeeded.
func unmeasuredPrompts(run *promptcanary.Run, results *Results, answers *Answers) map[string]bool {
	if len(run.Errors) == 0 {
		return nil
	}
	failed := make(map[string]map[int]bool)
	for _, e := range run.Errors {
		if failed[e.PromptID] == nil {
			failed[e.PromptID] = make(map[int]bool)
		}
		failed[e.PromptID][e.Sample] = true
	}
	ok := make(map[string]map[int]bool, len(failed))
	note := func(prompt string, sample int) {
		if failed[prompt] == nil {
			return
		}
		if ok[prompt] == nil {
			ok[prompt] = make(map[int]bool)
		}
		ok[prompt][sample] = true
	}
	for i, pi := range results.pair {
		note(results.pairs[pi].key.PromptID, int(results.sample[i]))
	}
	for prompt := range failed {
		answers.samples(prompt, func(sample int) { note(prompt, sample) })
	}
	out := make(map[string]bool)
	for prompt, f := range failed {
		if len(f) > len(ok[prompt]) {
			out[prompt] = true
		}
	}
	return out
}

// overallScores returns the mean baseline and current scores over the
// pairs measured on both sides, each pair weighing the same; 0 when none
// (nothing compared is no score: see compareNothing).
func overallScores(idx *index) (base, cur float64) {
	n := 0
	for _, p := range idx.pairs {
		if !p.measured() {
			continue
		}
		base += p.base.mean()
		cur += p.cur.mean()
		n++
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	return base / float64(n), cur / float64(n)
}

// addStatusNotes explains the pairs that were not compared.
func addStatusNotes(rep *promptcanary.DriftReport) {
	if n := rep.Count(promptcanary.StatusStale); n > 0 {
		addNote(rep, promptcanary.NoteCoverage, fmt.Sprintf("%d pair(s) have a stale baseline (their prompt or probe configuration changed since it was taken): they are not compared; capture a new baseline", n))
	}
	if n := rep.Count(promptcanary.StatusNotMeasured); n > 0 {
		addNote(rep, promptcanary.NoteCoverage, fmt.Sprintf("%d pair(s) were not measured because most of their calls failed; call errors are not drift", n))
	}
	if a, r := rep.Count(promptcanary.StatusAdded), rep.Count(promptcanary.StatusRemoved); a+r > 0 {
		addNote(rep, promptcanary.NoteCoverage, fmt.Sprintf("%d pair(s) added and %d removed since the baseline: they are listed, not compared", a, r))
	}
}

// noDriftSummary is the summary of a report without drift.
func noDriftSummary(suite string, score float64) string {
	return fmt.Sprintf("No drift detected in '%s' (score: %.2f%%).", suite, 100*score)
}

// driftSummary is the summary of a report with drift.
func driftSummary(sev promptcanary.Severity, suite, what string, base, cur float64) string {
	return fmt.Sprintf("%s drift in '%s': %s (score: %.2f%% → %.2f%%, Δ %+.2f%%).",
		upper(sev), suite, what, 100*base, 100*cur, 100*(cur-base))
}

func upper(s promptcanary.Severity) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
