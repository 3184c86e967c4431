package drift

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

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
// prompt (see Answers.summaries).
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
func changeSignals(base, cur *Answers, idx *index, opts *Options) []promptcanary.ChangeSignal {
	if base.Len() == 0 || cur.Len() == 0 {
		return nil
	}
	var prompts []string
	for id := range measuredPrompts(idx) {
		if base.count(id) >= 2 && cur.count(id) >= 2 {
			prompts = append(prompts, id)
		}
	}
	slices.Sort(prompts)
	var sigs []promptcanary.ChangeSignal
	var sc signalScratch
	var bbuf, cbuf []promptcanary.Response
	var bptr, cptr []*promptcanary.Response
	for _, id := range prompts {
		b, c := base.responses(id, &bbuf, &bptr), cur.responses(id, &cbuf, &cptr)
		sigs = append(sigs, sc.promptSignals(id, b, c, opts)...)
		sc.reset()
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

// numericSignal tests one measure of a prompt's responses, f, named kind
// and counted in unit, with a Mann–Whitney test of the baseline's values
// against the current ones.
func numericSignal(id, kind, unit string, b, c []*promptcanary.Response, opts *Options, f func(*promptcanary.Response) float64) promptcanary.ChangeSignal {
	xb, xc := make([]float64, len(b)), make([]float64, len(c))
	for i, r := range b {
		xb[i] = f(r)
	}
	for i, r := range c {
		xc[i] = f(r)
	}
	mb, mc := mean(xb), mean(xc)
	p := mannWhitneyTwoSided(xb, xc, opts.Permutations, rand.New(rand.NewPCG(opts.Seed, hashString(kind+"/"+id))))
	return promptcanary.ChangeSignal{Kind: kind, PromptID: id, Baseline: mb, Current: mc, P: p,
		Detail: fmt.Sprintf("%s of %s: mean %.0f → %.0f %s (Mann–Whitney two-sided p=%s)", strings.ReplaceAll(kind, "_", " "), id, mb, mc, unit, fmtP(p))}
}

// promptSignals tests one prompt's responses.
func promptSignals(id string, b, c []*promptcanary.Response, opts *Options) []promptcanary.ChangeSignal {
	return new(signalScratch).promptSignals(id, b, c, opts)
}

// promptSignals is promptSignals in the memory of sc.
func (sc *signalScratch) promptSignals(id string, b, c []*promptcanary.Response, opts *Options) []promptcanary.ChangeSignal {
	var out []promptcanary.ChangeSignal
	out = append(out, numericSignal(id, "response_length", "characters", b, c, opts,
		func(r *promptcanary.Response) float64 { return float64(r.ContentRunes()) }))
	if anyTokens(b) && anyTokens(c) {
		out = append(out, numericSignal(id, "completion_tokens", "tokens", b, c, opts,
			func(r *promptcanary.Response) float64 { return float64(r.CompletionTokens) }))
	}
	if s, ok := finishSignal(id, b, c); ok {
		out = append(out, s)
	}
	tf1, chrf := sc.similarityMatrices(sc.newResponseGroups(b, c))
	for _, sim := range []struct {
		kind string
		m    *groupMatrix
	}{{"token_f1", tf1}, {"chrf", chrf}} {
		within, across, p := similarityTest(sim.m, opts.Permutations, newPCG(opts.Seed, hashString(sim.kind+"/"+id)))
		out = append(out, promptcanary.ChangeSignal{Kind: sim.kind, PromptID: id, Baseline: within, Current: across, P: p,
			Detail: fmt.Sprintf("lexical similarity (%s) of %s to the baseline responses: %.2f within the baseline, %.2f for the current responses (response permutation two-sided p=%s)", sim.kind, id, within, across, fmtP(p))})
	}
	e, p := energyTest(tf1.distance(&sc.f64), min(opts.Permutations, maxSignalPermutations), newPCG(opts.Seed, hashString("energy/"+id)))
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

// responseGroups are the responses of one prompt on both sides, the
// baseline's first, each side capped at maxReferences, grouped by content:
// identical answers (most of a deterministic model's) have identical
// similarities, so each distinct answer is profiled and compared once.
type responseGroups struct {
	// n responses, of which the first nb are the baseline's.
	n, nb int
	// group is the group of each response, size the responses of each
	// group and profiles the text profile of each group's answer.
	group    []int
	size     []int
	profiles []textProfile
}

// newResponseGroups groups the first maxReferences responses of each side
// by content, their profiles in the memory of sc.
func (sc *signalScratch) newResponseGroups(b, c []*promptcanary.Response) *responseGroups {
	b, c = b[:min(len(b), maxReferences)], c[:min(len(c), maxReferences)]
	g := &responseGroups{n: len(b) + len(c), nb: len(b), group: make([]int, 0, len(b)+len(c)), profiles: sc.profiles[:0]}
	if sc.seen == nil {
		sc.seen = make(map[string]int, g.n)
	}
	seen := sc.seen
	clear(seen)
	pr := &sc.pr
	pr.sc = sc
	for _, side := range [2][]*promptcanary.Response{b, c} {
		for _, r := range side {
			k, ok := seen[r.ContentKey()]
			if !ok {
				k = len(g.profiles)
				seen[r.ContentKey()] = k
				g.profiles = append(g.profiles, pr.profile(r.Content))
				g.size = append(g.size, 0)
			}
			g.group = append(g.group, k)
			g.size[k]++
		}
	}
	sc.profiles = g.profiles[:0] // for the next prompt's groups: g is dropped before
	return g
}

// groupMatrix is a response matrix kept by group: m(i, j) = v[g(i)·d+g(j)]
// for distinct responses i and j; the diagonal of a group of one response
// is never read.
type groupMatrix struct {
	g *responseGroups
	d int
	v []float64
}

// similarityMatrices returns the token-F1 and chrF matrices of g, in the
// memory of sc. Both are
// computed once per pair of groups: the n-gram overlaps of two answers
// give chrF in both directions, and token-F1 is symmetric.
func (sc *signalScratch) similarityMatrices(g *responseGroups) (tf1, chrf *groupMatrix) {
	d := len(g.profiles)
	tf1 = &groupMatrix{g: g, d: d, v: sc.f64.take(d * d)}
	chrf = &groupMatrix{g: g, d: d, v: sc.f64.take(d * d)}
	ids := &sc.ids
	bags := make([]*bag, d)
	for i := range g.profiles {
		bags[i] = &g.profiles[i].tokens
	}
	tokens := newGramSets(bags, ids, sc)
	var grams [chrfOrder]gramSets
	for n := range chrfOrder {
		for i := range g.profiles {
			bags[i] = &g.profiles[i].grams[n]
		}
		grams[n] = newGramSets(bags, ids, sc)
	}
	var c, na, nb [chrfOrder]int
	for x := range d {
		for y := x; y < d; y++ {
			if x == y && g.size[x] < 2 {
				continue // no two responses share this answer
			}
			a, b := &g.profiles[x], &g.profiles[y]
			t := tokenF1Of(tokens.common(x, y), a.tokens.n, b.tokens.n)
			for n := range chrfOrder {
				c[n], na[n], nb[n] = grams[n].common(x, y), a.grams[n].n, b.grams[n].n
			}
			ab, ba := chrFOf(&c, &na, &nb)
			tf1.v[x*d+y], tf1.v[y*d+x] = t, t
			chrf.v[x*d+y], chrf.v[y*d+x] = ab, ba
		}
	}
	return tf1, chrf
}

// distance returns 1 − m, the matrix of a similarity m as distances, in
// the memory of a.
func (m *groupMatrix) distance(a *arena[float64]) *groupMatrix {
	out := &groupMatrix{g: m.g, d: m.d, v: a.take(len(m.v))}
	for i, v := range m.v {
		out.v[i] = 1 - v
	}
	return out
}

// identityGroups puts each of n responses, the first nb the baseline's, in
// a group of its own, so that a plain n × n matrix is a groupMatrix.
func identityGroups(m []float64, n, nb int) *groupMatrix {
	g := &responseGroups{n: n, nb: nb, group: make([]int, n), size: make([]int, n)}
	for i := range n {
		g.group[i], g.size[i] = i, 1
	}
	return &groupMatrix{g: g, d: n, v: m}
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

// sums returns the block sums of m under the labels (true = current),
// adding the pairs in response order.
func sums(m []float64, n int, label []bool) blockSums {
	return identityGroups(m, n, 0).sums(label)
}

// sums returns the block sums of m under the labels (true = current),
// adding the pairs in response order: the reported means do not depend on
// how responses were grouped.
func (m *groupMatrix) sums(label []bool) blockSums {
	var s blockSums
	n, d, group := m.g.n, m.d, m.g.group
	for i := range n {
		row := m.v[group[i]*d : (group[i]+1)*d]
		for j := range n {
			switch {
			case i == j:
			case label[i] && label[j]:
				s.cc += row[group[j]]
				s.ncc++
			case label[i]:
				s.bc += row[group[j]]
				s.nbc++
			case !label[j]:
				s.bb += row[group[j]]
				s.nbb++
			}
		}
	}
	return s
}

// permuter computes the block sums of a labelling from how many responses
// of each group are labelled current, instead of pair by pair: a group of
// k baseline responses holds k(k−1) ordered pairs with one value, and two
// groups k·l. With the totals of the matrix weighted by the group sizes
// computed once, a labelling costs the square of the number of groups
// holding a current response (at most the current side's size), not of
// the number of responses. The sums are those of sums up to rounding, and
// equal for labellings with the same counts, so a relabelling of
// identical answers ties the observed statistic exactly.
type permuter struct {
	m *groupMatrix
	// rowW[g] = Σ_h v[g][h]·size[h], colW[g] = Σ_h size[h]·v[h][g] and
	// all = Σ_g size[g]·rowW[g]: the sums over every ordered pair,
	// including a response with itself, whose sum is diagAll.
	rowW, colW   []float64
	all, diagAll float64
	cur          []float64
	support      []int
	nb, nc       int
}

func newPermuter(m *groupMatrix) *permuter {
	d := m.d
	p := &permuter{m: m, rowW: make([]float64, d), colW: make([]float64, d), cur: make([]float64, d), nb: m.g.nb, nc: m.g.n - m.g.nb}
	for g := range d {
		sg := float64(m.g.size[g])
		for h := range d {
			sh := float64(m.g.size[h])
			p.rowW[g] += m.v[g*d+h] * sh
			p.colW[g] += sh * m.v[h*d+g]
		}
		p.all += sg * p.rowW[g]
		p.diagAll += sg * m.v[g*d+g]
	}
	return p
}

// count sets the counts of the groups from label (true = current).
func (p *permuter) count(label []bool) {
	clear(p.cur)
	for i, g := range p.m.g.group {
		if label[i] {
			p.cur[g]++
		}
	}
}

// shuffle is rng.Shuffle of label, drawing the same numbers (Fisher–Yates
// with Uint64N) without a call per swap, and keeps the counts of the
// groups up to date as responses change sides.
func (p *permuter) shuffle(rng *rand.Rand, label []bool) {
	group := p.m.g.group
	for i := len(label) - 1; i > 0; i-- {
		j := int(rng.Uint64N(uint64(i + 1)))
		li, lj := label[i], label[j]
		if li == lj {
			continue
		}
		label[i], label[j] = lj, li
		if li { // i's current label moves to j
			p.cur[group[i]]--
			p.cur[group[j]]++
		} else {
			p.cur[group[j]]--
			p.cur[group[i]]++
		}
	}
}

// shufflePCG is shuffle drawing from src: the same swaps for the same
// numbers, without an interface call per number, and without a branch on
// the labels, which are random: a swap moves d = label[i] − label[j] (−1,
// 0 or 1) current responses from i's group to j's, the counts staying
// whole numbers.
func (p *permuter) shufflePCG(src *pcg, label []bool) {
	group, cur := p.m.g.group, p.cur
	for i := len(label) - 1; i > 0; i-- {
		j := int(src.Uint64N(uint64(i + 1)))
		li, lj := label[i], label[j]
		label[i], label[j] = lj, li
		d := float64(b2i(li) - b2i(lj))
		cur[group[i]] -= d
		cur[group[j]] += d
	}
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sums returns the block sums of the labelling counted by count and
// shuffle.
func (p *permuter) sums() blockSums {
	m, d := p.m, p.m.d
	// cc·V·cc over the groups holding current responses, in group order.
	p.support = p.support[:0]
	for g, c := range p.cur {
		if c > 0 {
			p.support = append(p.support, g)
		}
	}
	var quad, toAll, fromAll, diag float64
	for _, g := range p.support {
		cg := p.cur[g]
		row := m.v[g*d : (g+1)*d]
		var q float64
		for _, h := range p.support {
			q += row[h] * p.cur[h]
		}
		quad += cg * q
		toAll += cg * p.rowW[g]
		fromAll += cg * p.colW[g]
		diag += cg * row[g]
	}
	// With cb = size − cc: bb = cbᵀVcb − Σ v[g][g]·cb[g], bc = ccᵀVcb,
	// cc = ccᵀVcc − Σ v[g][g]·cc[g].
	bc := toAll - quad
	return blockSums{
		bb:  p.all - toAll - fromAll + quad - (p.diagAll - diag),
		cc:  quad - diag,
		bc:  bc,
		nbb: p.nb * (p.nb - 1), ncc: p.nc * (p.nc - 1), nbc: p.nc * p.nb,
	}
}

// responsePermutationTest is a permutation test with the response as the
// unit: it relabels whole responses as baseline or current (keeping the
// side sizes), recomputes stat from the block sums of the n × n response
// matrix m, whose first nb rows are the baseline's, and returns the
// observed statistic and the p-value of a statistic at least as large.
// Pairwise values are not independent (each response appears in many
// pairs), so only relabelling responses gives a valid null. At most perms
// permutations are drawn; the test stops after permStopHits hits with the
// sequential p-value hits/draws, otherwise the p-value is (1 + hits) /
// (1 + draws).
// rng seeds the generator of the permutations.
func responsePermutationTest(m []float64, n, nb int, stat func(blockSums) float64, perms int, rng *rand.Rand) (obs, p float64) {
	return identityGroups(m, n, nb).permutationTest(stat, perms, newPCG(rng.Uint64(), rng.Uint64()))
}

// permutationTest is responsePermutationTest on a grouped matrix, drawing
// from rng.
func (m *groupMatrix) permutationTest(stat func(blockSums) float64, perms int, rng *pcg) (obs, p float64) {
	n := m.g.n
	label := sideLabels(n, m.g.nb)
	obs = stat(m.sums(label))
	pm := newPermuter(m)
	// The permutations are compared with the observed labelling summed the
	// same way, so a relabelling with the same counts ties exactly.
	pm.count(label)
	ref := stat(pm.sums())
	hits := 0
	for b := 1; b <= perms; b++ {
		pm.shufflePCG(rng, label)
		if stat(pm.sums()) >= ref-1e-12 {
			hits++
			if hits == permStopHits {
				return obs, float64(hits) / float64(b)
			}
		}
	}
	return obs, float64(1+hits) / float64(1+perms)
}

// similarityTest compares the lexical similarity m of the current
// responses to the baseline responses (mean over current–baseline pairs)
// with the similarity within the baseline (mean over distinct baseline
// pairs), by a two-sided permutation test of their difference over
// responses. It returns both means and the p-value.
func similarityTest(m *groupMatrix, perms int, rng *pcg) (within, across, p float64) {
	obs := m.sums(sideLabels(m.g.n, m.g.nb))
	_, p = m.permutationTest(func(s blockSums) float64 { return math.Abs(s.meanBB() - s.meanBC()) }, perms, rng)
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
// baseline and current responses, with 1 − token-F1 as the distance (dist).
// It returns the statistic and the p-value.
func energyTest(dist *groupMatrix, perms int, rng *pcg) (float64, float64) {
	return dist.permutationTest(func(s blockSums) float64 {
		return 2*s.meanBC() - s.meanBB() - s.meanCC()
	}, perms, rng)
}

// ServedChanges returns the served-model and system-fingerprint changes of
// cur against base, the signals a statistical report holds among its
// change signals, for a report that has none (one sample a side). The
// responses are those folded in baseResults and curResults when they hold
// them (Options.BaselineResults and CurrentResults), else the runs'.
func ServedChanges(base, cur *promptcanary.Run, baseResults, curResults *Results) []promptcanary.ChangeSignal {
	return fingerprintSignals(answersOf(baseResults, base), answersOf(curResults, cur))
}

// fingerprintSignals reports served models and system fingerprints seen in
// the current run but never in the baseline.
func fingerprintSignals(base, cur *Answers) []promptcanary.ChangeSignal {
	var out []promptcanary.ChangeSignal
	for _, f := range []struct {
		kind      string
		base, cur map[string]bool
	}{
		{"model", base.models, cur.models},
		{"system_fingerprint", base.fingerprints, cur.fingerprints},
	} {
		before := slices.Sorted(maps.Keys(f.base))
		var after []string
		for v := range f.cur {
			if !f.base[v] {
				after = append(after, v)
			}
		}
		if len(after) == 0 || len(before) == 0 {
			continue
		}
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
