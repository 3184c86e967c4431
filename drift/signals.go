package drift

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
)

// maxReferences caps how many responses each response is compared with for
// the lexical similarities and the energy distance.
const maxReferences = 30

// maxSignalPermutations caps the permutations of the energy-distance test:
// it is informational, and 999 draws resolve p-values down to 0.001.
const maxSignalPermutations = 999

// minSimilarityChange is the smallest change of the mean lexical similarity
// (within the baseline against current-to-baseline) a similarity signal
// may flag, however small its p-value: 0.94 against 0.95 is no change
// worth a warning.
const minSimilarityChange = 0.10

// permStopHits ends a response permutation test early once this many
// permutations reached the observed statistic (Besag and Clifford's
// sequential p-value, hits/draws): the p-value is then clearly large, and
// only extreme statistics pay for every permutation.
const permStopHits = 20

// nondeterminism counts the distinct answers (content and tool calls) of
// every prompt measured on both sides, from the answers summarised once per
// prompt (see summariseAnswers).
func nondeterminism(base, cur map[string]promptAnswers, idx *index) []promptcanary.PromptNondeterminism {
	if len(base) == 0 && len(cur) == 0 {
		return nil
	}
	var out []promptcanary.PromptNondeterminism
	for id := range measuredPrompts(idx) {
		b, okb := base[id]
		c, okc := cur[id]
		if !okb && !okc {
			continue
		}
		out = append(out, promptcanary.PromptNondeterminism{PromptID: id, BaselineSamples: b.n, BaselineDistinct: b.distinct, CurrentSamples: c.n, CurrentDistinct: c.distinct})
	}
	slices.SortFunc(out, func(a, b promptcanary.PromptNondeterminism) int { return strings.Compare(a.PromptID, b.PromptID) })
	return out
}

// measuredPrompts returns the prompts with at least one pair measured on
// both sides.
func measuredPrompts(idx *index) map[string]bool {
	m := map[string]bool{}
	for _, p := range idx.pairs {
		if p.measured() {
			m[p.key.PromptID] = true
		}
	}
	return m
}

// changeSignals runs the informational two-sided tests on the responses of
// every measured prompt, adjusts them with their own Benjamini–Hochberg
// step at opts.Alpha and adds the served-model and fingerprint changes.
func changeSignals(base, cur *promptcanary.Run, idx *index, opts *Options) []promptcanary.ChangeSignal {
	if len(base.LLMResponses) == 0 || len(cur.LLMResponses) == 0 {
		return nil
	}
	measured := measuredPrompts(idx)
	group := func(rs []promptcanary.Response) map[string][]*promptcanary.Response {
		m := map[string][]*promptcanary.Response{}
		for i := range rs {
			if measured[rs[i].PromptID] {
				m[rs[i].PromptID] = append(m[rs[i].PromptID], &rs[i])
			}
		}
		return m
	}
	bm, cm := group(base.LLMResponses), group(cur.LLMResponses)
	var prompts []string
	for id := range bm {
		if len(bm[id]) >= 2 && len(cm[id]) >= 2 {
			prompts = append(prompts, id)
		}
	}
	slices.Sort(prompts)
	var sigs []promptcanary.ChangeSignal
	for _, id := range prompts {
		sigs = append(sigs, promptSignals(id, bm[id], cm[id], opts)...)
	}
	q := make([]float64, len(sigs))
	for i := range sigs {
		q[i] = sigs[i].P
	}
	for i, v := range benjaminiHochberg(q) {
		sigs[i].Q = v
		sigs[i].Flagged = v <= opts.Alpha
		if k := sigs[i].Kind; k == "token_f1" || k == "chrf" {
			sigs[i].Flagged = sigs[i].Flagged && math.Abs(sigs[i].Baseline-sigs[i].Current) >= minSimilarityChange-tolerance
		}
	}
	sigs = append(sigs, fingerprintSignals(base, cur)...)
	for i := range sigs {
		sigs[i].Group = promptcanary.SignalGroup(sigs[i].Kind)
	}
	return sigs
}

// promptSignals tests one prompt's responses.
func promptSignals(id string, b, c []*promptcanary.Response, opts *Options) []promptcanary.ChangeSignal {
	var out []promptcanary.ChangeSignal
	numeric := func(kind, unit string, f func(*promptcanary.Response) float64) {
		xb, xc := make([]float64, len(b)), make([]float64, len(c))
		for i, r := range b {
			xb[i] = f(r)
		}
		for i, r := range c {
			xc[i] = f(r)
		}
		mb, mc := mean(xb), mean(xc)
		p := mannWhitneyTwoSided(xb, xc, opts.Permutations, rand.New(rand.NewPCG(opts.Seed, hashString(kind+"/"+id))))
		out = append(out, promptcanary.ChangeSignal{Kind: kind, PromptID: id, Baseline: mb, Current: mc, P: p,
			Detail: fmt.Sprintf("%s of %s: mean %.0f → %.0f %s (Mann–Whitney two-sided p=%s)", strings.ReplaceAll(kind, "_", " "), id, mb, mc, unit, fmtP(p))})
	}
	numeric("response_length", "characters", func(r *promptcanary.Response) float64 { return float64(utf8.RuneCountInString(r.Content)) })
	if anyTokens(b) && anyTokens(c) {
		numeric("completion_tokens", "tokens", func(r *promptcanary.Response) float64 { return float64(r.CompletionTokens) })
	}
	if s, ok := finishSignal(id, b, c); ok {
		out = append(out, s)
	}
	pb := make([]textProfile, len(b))
	pc := make([]textProfile, len(c))
	for i, r := range b {
		pb[i] = newProfile(r.Content)
	}
	for i, r := range c {
		pc[i] = newProfile(r.Content)
	}
	for _, sim := range []struct {
		kind string
		f    func(a, b *textProfile) float64
	}{{"token_f1", tokenF1}, {"chrf", chrF}} {
		within, across, p := similarityTest(pb, pc, sim.f, opts.Permutations, rand.New(rand.NewPCG(opts.Seed, hashString(sim.kind+"/"+id))))
		out = append(out, promptcanary.ChangeSignal{Kind: sim.kind, PromptID: id, Baseline: within, Current: across, P: p,
			Detail: fmt.Sprintf("lexical similarity (%s) of %s to the baseline responses: %.2f within the baseline, %.2f for the current responses (response permutation two-sided p=%s)", sim.kind, id, within, across, fmtP(p))})
	}
	e, p := energyTest(pb, pc, min(opts.Permutations, maxSignalPermutations), rand.New(rand.NewPCG(opts.Seed, hashString("energy/"+id))))
	out = append(out, promptcanary.ChangeSignal{Kind: "energy_distance", PromptID: id, Current: e, P: p,
		Detail: fmt.Sprintf("response distribution of %s moved: energy distance %.3f on token-F1 distances (permutation p=%s)", id, e, fmtP(p))})
	return out
}

func anyTokens(rs []*promptcanary.Response) bool {
	for _, r := range rs {
		if r.CompletionTokens > 0 {
			return true
		}
	}
	return false
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// mannWhitneyTwoSided is the two-sided Mann–Whitney test without margin;
// rng drives its permutations when the exact program is too large.
func mannWhitneyTwoSided(x, y []float64, perms int, rng *rand.Rand) float64 {
	lo := mannWhitneyLess(x, y, 0, perms, rng).p
	hi := mannWhitneyLess(y, x, 0, perms, rng).p
	return min(1, 2*min(lo, hi))
}

// finishSignal tests whether the share of the baseline's most common finish
// reason changed.
func finishSignal(id string, b, c []*promptcanary.Response) (promptcanary.ChangeSignal, bool) {
	counts := map[string]int{}
	for _, r := range b {
		counts[r.FinishReason]++
	}
	top, best := "", -1
	for k, v := range counts {
		if v > best || (v == best && k < top) {
			top, best = k, v
		}
	}
	cc := 0
	for _, r := range c {
		if r.FinishReason == top {
			cc++
		}
	}
	if best == len(b) && cc == len(c) {
		return promptcanary.ChangeSignal{}, false
	}
	p := fisherTwoSided(best, len(b), cc, len(c))
	rb, rc := float64(best)/float64(len(b)), float64(cc)/float64(len(c))
	name := top
	if name == "" {
		name = "(none)"
	}
	return promptcanary.ChangeSignal{Kind: "finish_reason", PromptID: id, Baseline: rb, Current: rc, P: p,
		Detail: fmt.Sprintf("finish_reason %q of %s: %.0f%% → %.0f%% of responses (Fisher two-sided p=%s)", name, id, 100*rb, 100*rc, fmtP(p))}, true
}

// responseMatrix returns the matrix m[i·n+j] = f(response i, response j)
// over the baseline responses pb followed by the current responses pc, each
// side capped at maxReferences responses, and the number of baseline rows.
// f need not be symmetric (chrF weighs recall of its second argument), so
// every ordered pair is computed.
func responseMatrix(pb, pc []textProfile, f func(a, b *textProfile) float64) (m []float64, n, nb int) {
	pb, pc = pb[:min(len(pb), maxReferences)], pc[:min(len(pc), maxReferences)]
	all := append(append([]textProfile(nil), pb...), pc...)
	n, nb = len(all), len(pb)
	m = make([]float64, n*n)
	for i := range n {
		for j := range n {
			if i != j {
				m[i*n+j] = f(&all[i], &all[j])
			}
		}
	}
	return m, n, nb
}

// blockSums are the sums of a response matrix over the ordered pairs of
// distinct responses within the baseline (bb), within the current run (cc)
// and from a current response to a baseline response (bc: the current
// response first, judged against the baseline one), with their counts.
type blockSums struct {
	bb, cc, bc    float64
	nbb, ncc, nbc int
}

func (s blockSums) meanBB() float64 { return s.bb / float64(max(s.nbb, 1)) }
func (s blockSums) meanCC() float64 { return s.cc / float64(max(s.ncc, 1)) }
func (s blockSums) meanBC() float64 { return s.bc / float64(max(s.nbc, 1)) }

// sums returns the block sums of m under the labels (true = current).
func sums(m []float64, n int, label []bool) blockSums {
	var s blockSums
	for i := range n {
		row := m[i*n : (i+1)*n]
		for j := range n {
			switch {
			case i == j:
			case label[i] && label[j]:
				s.cc += row[j]
				s.ncc++
			case label[i]:
				s.bc += row[j]
				s.nbc++
			case !label[j]:
				s.bb += row[j]
				s.nbb++
			}
		}
	}
	return s
}

// responsePermutationTest is a permutation test with the response as the
// unit: it relabels whole responses as baseline or current (keeping the
// side sizes), recomputes stat from the block sums of the response matrix
// m and returns the observed statistic and the p-value of a statistic at
// least as large. Pairwise values are not independent (each response
// appears in many pairs), so only relabelling responses gives a valid null.
// At most perms permutations are drawn; the test stops after permStopHits
// hits with the sequential p-value hits/draws, otherwise the p-value is
// (1 + hits) / (1 + draws).
func responsePermutationTest(m []float64, n, nb int, stat func(blockSums) float64, perms int, rng *rand.Rand) (obs, p float64) {
	label := sideLabels(n, nb)
	obs = stat(sums(m, n, label))
	hits := 0
	for b := 1; b <= perms; b++ {
		rng.Shuffle(n, func(i, j int) { label[i], label[j] = label[j], label[i] })
		if stat(sums(m, n, label)) >= obs-1e-12 {
			hits++
			if hits == permStopHits {
				return obs, float64(hits) / float64(b)
			}
		}
	}
	return obs, float64(1+hits) / float64(1+perms)
}

// similarityTest compares the lexical similarity f of the current
// responses to the baseline responses (mean over current–baseline pairs)
// with the similarity within the baseline (mean over distinct baseline
// pairs), by a two-sided permutation test of their difference over
// responses. It returns both means and the p-value.
func similarityTest(pb, pc []textProfile, f func(a, b *textProfile) float64, perms int, rng *rand.Rand) (within, across, p float64) {
	m, n, nb := responseMatrix(pb, pc, f)
	obs := sums(m, n, sideLabels(n, nb))
	_, p = responsePermutationTest(m, n, nb, func(s blockSums) float64 { return math.Abs(s.meanBB() - s.meanBC()) }, perms, rng)
	return obs.meanBB(), obs.meanBC(), p
}

// sideLabels labels the first nb of n responses baseline (false) and the
// rest current (true).
func sideLabels(n, nb int) []bool {
	label := make([]bool, n)
	for i := nb; i < n; i++ {
		label[i] = true
	}
	return label
}

// energyTest is the permutation test of the energy distance between the
// baseline and current responses, with 1 − token-F1 as the distance. It
// returns the statistic and the p-value.
func energyTest(pb, pc []textProfile, perms int, rng *rand.Rand) (float64, float64) {
	m, n, nb := responseMatrix(pb, pc, func(a, b *textProfile) float64 { return 1 - tokenF1(a, b) })
	return responsePermutationTest(m, n, nb, func(s blockSums) float64 {
		return 2*s.meanBC() - s.meanBB() - s.meanCC()
	}, perms, rng)
}

// fingerprintSignals reports served models and system fingerprints seen in
// the current run but never in the baseline.
func fingerprintSignals(base, cur *promptcanary.Run) []promptcanary.ChangeSignal {
	var out []promptcanary.ChangeSignal
	for _, f := range []struct {
		kind string
		get  func(*promptcanary.Response) string
	}{
		{"model", func(r *promptcanary.Response) string { return cmpOr(r.ServedModel, r.ProviderModelID) }},
		{"system_fingerprint", func(r *promptcanary.Response) string { return r.SystemFingerprint }},
	} {
		seen := map[string]bool{}
		var before []string
		for i := range base.LLMResponses {
			if v := f.get(&base.LLMResponses[i]); v != "" && !seen[v] {
				seen[v] = true
				before = append(before, v)
			}
		}
		newSet := map[string]bool{}
		var after []string
		for i := range cur.LLMResponses {
			if v := f.get(&cur.LLMResponses[i]); v != "" && !seen[v] && !newSet[v] {
				newSet[v] = true
				after = append(after, v)
			}
		}
		if len(after) == 0 || len(before) == 0 {
			continue
		}
		slices.Sort(before)
		slices.Sort(after)
		out = append(out, promptcanary.ChangeSignal{Kind: f.kind, Baseline: float64(len(before)), Current: float64(len(after)), Flagged: true,
			Detail: fmt.Sprintf("%s changed: baseline %s, now also %s", strings.ReplaceAll(f.kind, "_", " "), quoteList(before), quoteList(after))})
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// quoteList quotes at most five values; model output and provider strings
// are untrusted, so they are quoted, never interpreted.
func quoteList(v []string) string {
	q := make([]string, 0, min(len(v), 5)+1)
	for i, s := range v {
		if i == 5 {
			q = append(q, fmt.Sprintf("and %d more", len(v)-5))
			break
		}
		q = append(q, fmt.Sprintf("%q", s))
	}
	return strings.Join(q, ", ")
}
