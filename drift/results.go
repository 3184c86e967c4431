package drift

import (
	"fmt"
	"math"
	"slices"

	"github.com/promptcanary/promptcanary"
)

// Results is what a comparison reads of one run's probe results: each
// result's pair, sample, pass and score, and once per pair its probe and
// the details of its first result. It takes about 17 bytes a result where
// a promptcanary.ProbeResult takes 128, so a caller comparing large runs
// can fold each run into its Results as soon as it is read and release
// the probe results before reading the other run (see
// Options.BaselineResults).
type Results struct {
	pairs  []resultPair
	pair   []uint32 // per result: its index in pairs
	sample []int32
	score  []float64
	passed []bool
	// names are the distinct ways the results name their probes.
	names   []probeNames
	byPair  map[promptcanary.PairKey]uint32 // while folding
	byNames map[probeNames]uint32
	// answers are the run's responses, when they were folded with its
	// results (FoldResponses).
	answers *Answers
}

// resultPair is one (probe, prompt) pair of a run: the probe as its first
// and as its last result name it (indexes in names), and its first
// result's details.
type resultPair struct {
	key         promptcanary.PairKey
	first, last uint32
	details     string
}

// probeNames is how a result names its probe.
type probeNames struct {
	probeType, probeName string
	category             promptcanary.Category
}

func namesOf(r *promptcanary.ProbeResult) probeNames {
	return probeNames{probeType: r.ProbeType, probeName: r.ProbeName, category: r.Category}
}

// NewResults folds probe results, in their order, into Results. It fails
// only on a run too large to index (over 2³² pairs or a sample beyond
// 2³¹), which no run held in memory reaches.
func NewResults(prs []promptcanary.ProbeResult) (*Results, error) {
	r := &Results{}
	r.Grow(len(prs))
	if err := r.Fold(prs); err != nil {
		return nil, err
	}
	r.byPair, r.byNames = nil, nil
	return r, nil
}

// Grow makes room for n more results.
func (r *Results) Grow(n int) {
	r.pair, r.sample = slices.Grow(r.pair, n), slices.Grow(r.sample, n)
	r.score, r.passed = slices.Grow(r.score, n), slices.Grow(r.passed, n)
}

// Fold adds probe results, in their order, after those folded before: a
// decoder can hand a run's results to an empty Results a chunk at a time
// (it is a store.Folder), and reuse the chunk once Fold returns.
func (r *Results) Fold(prs []promptcanary.ProbeResult) error {
	if r.byPair == nil {
		r.byPair = make(map[promptcanary.PairKey]uint32, len(r.pairs))
		for i := range r.pairs {
			r.byPair[r.pairs[i].key] = uint32(i)
		}
		r.byNames = make(map[probeNames]uint32, len(r.names))
		for i, n := range r.names {
			r.byNames[n] = uint32(i)
		}
	}
	for i := range prs {
		if err := r.add(&prs[i]); err != nil {
			return fmt.Errorf("probe result %d: %w", len(r.pair), err)
		}
	}
	return nil
}

func (r *Results) add(pr *promptcanary.ProbeResult) error {
	if pr.Sample < math.MinInt32 || pr.Sample > math.MaxInt32 {
		return fmt.Errorf("sample %d out of range", pr.Sample)
	}
	k, names := pr.Key(), namesOf(pr)
	p, ok := r.byPair[k]
	if !ok {
		if len(r.pairs) == math.MaxUint32 {
			return fmt.Errorf("more than %d pairs", uint32(math.MaxUint32))
		}
		p = uint32(len(r.pairs))
		r.byPair[k] = p
		n := r.namesIndex(names)
		r.pairs = append(r.pairs, resultPair{key: k, first: n, last: n, details: pr.Details})
	} else if r.names[r.pairs[p].last] != names {
		r.pairs[p].last = r.namesIndex(names)
	}
	r.pair = append(r.pair, p)
	r.sample = append(r.sample, int32(pr.Sample))
	r.score = append(r.score, pr.Score)
	r.passed = append(r.passed, pr.Passed)
	return nil
}

// namesIndex returns the index of n in r.names, added when new.
func (r *Results) namesIndex(n probeNames) uint32 {
	i, ok := r.byNames[n]
	if !ok {
		i = uint32(len(r.names))
		r.byNames[n] = i
		r.names = append(r.names, n)
	}
	return i
}

// FoldResponses adds the run's responses, in their order, after those
// folded before (see Answers): a decoder hands a run's responses, a chunk
// at a time, to the Results it folds the run's probe results into (it is
// a store.ResponseFolder) instead of the run holding them, and Compare
// reads them there instead of the run's LLMResponses. The chunk may be
// reused once FoldResponses returns.
func (r *Results) FoldResponses(rs []promptcanary.Response) error {
	if r.answers == nil {
		r.answers = &Answers{}
	}
	r.answers.Fold(rs)
	return nil
}

// Responses is the number of responses folded with FoldResponses.
func (r *Results) Responses() int { return r.answers.Len() }

// Len is the number of probe results folded.
func (r *Results) Len() int { return len(r.pair) }

// resultsOf returns given when set, else the run's probe results folded.
func resultsOf(given *Results, run *promptcanary.Run) (*Results, error) {
	if given != nil {
		return given, nil
	}
	return NewResults(run.ProbeResults)
}
