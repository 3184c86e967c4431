package drift

import (
	"math"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/textcut"
)

// The fixed settings of the model identity test (see Identity and
// docs/identity.md). They are constants so that every report's p-value
// means the same thing and a report is reproducible from its seed.
const (
	// IdentityAlpha is the level of the identity verdict: on answers of
	// the same model, it says "different" in 5% of compares.
	IdentityAlpha = 0.05
	// IdentityPermutations is the most within-prompt permutations drawn:
	// a p-value floor of 1/1001 and a Monte Carlo standard error of
	// about 0.007 at p = 0.05. They stop early once the verdict is sure
	// to be "same model" (see identityStopAt).
	IdentityPermutations = 1000
	// IdentityMaxAnswers caps the answers read per prompt and side (the
	// first ones in sample order), and IdentityMaxRunes the characters
	// read per answer, so the cost of the test is bounded whatever the
	// run holds.
	IdentityMaxAnswers = 10
	IdentityMaxRunes   = 1000
	// IdentityKernel names the string kernel.
	IdentityKernel = "cosine of word and character 3-gram counts"
)

// identityStopAt is when the permutations stop early (Besag and Clifford's
// sequential p-value): once this many permuted statistics reach the
// observed one, IdentityPermutations draws could not reject at
// IdentityAlpha ((1 + 50) / 1001 > 0.05), so the verdict is theirs, and the
// p-value is identityStopAt over the draws. Answers of the same model
// stop after about identityStopAt / p draws.
var identityStopAt = 50 // a variable for the tests

// identitySalt is the second seed word of the identity test's generator,
// so its permutations are not those of the change signals.
const identitySalt = 0x1de7_a11e_5eed

// identityTie absorbs the rounding of sums taken in another order: a
// permuted statistic within it of the observed one counts as equal.
const identityTie = 1e-9

// Identity tests whether the answers of base and cur come from the same
// model: for each prompt answered at least twice on both sides, with two
// different answers on at least one side (prompts in stale are left out:
// their prompt changed; so are prompts answered with one text repeated
// on each side, see identityPrompt.varies), it takes the unbiased
// MMD² of the two sides' answers under a string kernel (the mean of the
// cosine similarities of their word counts and of their character
// 3-gram counts), and averages it over the prompts. Its p-value counts
// the permutations, drawn within each prompt with a generator seeded by
// seed, whose statistic is at least the observed one: at most
// IdentityPermutations, fewer when identityStopAt of them reach it. It
// returns nil when no prompt can be tested.
func Identity(base, cur *Answers, stale map[string]bool, seed uint64) *promptcanary.IdentityTest {
	if base.Len() == 0 || cur.Len() == 0 {
		return nil
	}
	var ps []*identityPrompt
	answers := 0
	for _, id := range sortedPrompts(base) {
		b, c := base.prompts[id], cur.prompts[id]
		if stale[id] || c == nil || len(b.list) < 2 || len(c.list) < 2 {
			continue
		}
		p := newIdentityPrompt(b.list, c.list)
		if !p.varies() {
			// One answer repeated on each side (temperature 0, a
			// deterministic model): the answers of one run are not
			// independent draws, so the permutations say nothing; a
			// new seed or a new replica alone changes the answer.
			continue
		}
		answers += p.nb + p.nc
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil
	}
	obs := identityStatistic(ps, nil)
	rng := newPCG(seed, identitySalt)
	atLeast, drawn := 0, 0
	p := 0.0
	for drawn < IdentityPermutations {
		drawn++
		if identityStatistic(ps, rng) >= obs-identityTie {
			atLeast++
		}
		if atLeast == identityStopAt {
			break
		}
	}
	if atLeast == identityStopAt {
		p = float64(atLeast) / float64(drawn)
	} else {
		p = float64(1+atLeast) / float64(1+drawn)
	}
	t := &promptcanary.IdentityTest{
		MMD:          obs,
		P:            p,
		Alpha:        IdentityAlpha,
		Permutations: drawn,
		Seed:         seed,
		Prompts:      len(ps),
		Answers:      answers,
		Kernel:       IdentityKernel,
		Verdict:      promptcanary.IdentitySame,
	}
	if t.P < IdentityAlpha {
		t.Verdict = promptcanary.IdentityDifferent
	}
	return t
}

// sortedPrompts returns the prompt ids of a, sorted, so the permutations
// are drawn in an order that does not depend on map iteration.
func sortedPrompts(a *Answers) []string {
	ids := make([]string, 0, len(a.prompts))
	for id := range a.prompts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// identityPrompt is one prompt's answers, both sides pooled (the
// baseline's first), as their distinct texts and the kernel between
// them.
type identityPrompt struct {
	nb, nc int
	// k is the kernel between the distinct texts, g×g; group the text of
	// each pooled answer; rows[t] the kernel sum of an answer of text t
	// over all answers, and total the sum over all pairs of answers.
	k     []float64
	g     int
	group []int32
	rows  []float64
	total float64
	// count and touched are scratch space of mmd: the answers of each text
	// on the smaller side, and the texts counted.
	count   []int32
	touched []int32
	// sizes counts the answers of each text, both sides; null is the
	// exact permutation distribution of the prompt's statistic when it
	// has few enough distinct texts (see enumerate), else nil.
	sizes []int32
	null  *identityNull
	// perm holds the pooled answers, the smaller side's label on the
	// first min(nb, nc) after a shuffle.
	perm []int32
}

func newIdentityPrompt(b, c []answer) *identityPrompt {
	b, c = b[:min(len(b), IdentityMaxAnswers)], c[:min(len(c), IdentityMaxAnswers)]
	p := &identityPrompt{nb: len(b), nc: len(c)}
	index := map[string]int32{}
	var profiles []kernelProfile
	var kp kernelProfiler
	for _, an := range slices.Concat(b, c) {
		text := textcut.Runes(an.content, IdentityMaxRunes, "")
		g, ok := index[text]
		if !ok {
			g = int32(len(profiles))
			index[text] = g
			profiles = append(profiles, kp.profile(text))
		}
		p.group = append(p.group, g)
	}
	p.g = len(profiles)
	p.k = make([]float64, p.g*p.g)
	for i := range profiles {
		p.k[i*p.g+i] = 1
		for j := range i {
			v := profiles[i].kernel(&profiles[j])
			p.k[i*p.g+j], p.k[j*p.g+i] = v, v
		}
	}
	n := len(p.group)
	p.count = make([]int32, p.g)
	for _, g := range p.group {
		p.count[g]++
	}
	p.rows = make([]float64, p.g)
	for g := range p.g {
		for h, c := range p.count {
			p.rows[g] += float64(c) * p.k[g*p.g+h]
		}
		p.total += float64(p.count[g]) * p.rows[g]
	}
	p.sizes = slices.Clone(p.count)
	clear(p.count)
	p.perm = make([]int32, n)
	for i := range p.perm {
		p.perm[i] = int32(i)
	}
	p.null = p.enumerate()
	return p
}

// varies reports whether either side of the prompt holds two different
// answers. When neither does, each side is one answer repeated, and the
// test would call any change of that answer a different model, whatever
// changed it; leaving such prompts out can only lower the rate of
// "different" verdicts.
func (p *identityPrompt) varies() bool {
	return distinct(p.group[:p.nb]) > 1 || distinct(p.group[p.nb:]) > 1
}

// distinct reports whether groups holds more than one value: 1 when all
// are equal (or there are none), else 2.
func distinct(groups []int32) int {
	for _, g := range groups {
		if g != groups[0] {
			return 2
		}
	}
	return 1
}

// identityStatistic is the mean MMD² of the prompts under the observed
// labels (rng nil) or under a fresh permutation within each prompt.
func identityStatistic(ps []*identityPrompt, rng *pcg) float64 {
	sum := 0.0
	for _, p := range ps {
		sum += p.mmd(rng)
	}
	return sum / float64(len(ps))
}

// mmd is the unbiased MMD² of the prompt's two sides, observed (rng nil)
// or after moving a random subset of min(nb, nc) answers to the smaller
// side. The kernel is 1 on the diagonal, so the sums within a side lose
// their diagonal by subtracting the side's size; the sum across the sides
// and within the larger side follow from the rows and the total, so a
// permutation costs O(m + u²) for the u distinct texts among the m
// answers of the smaller side.
func (p *identityPrompt) mmd(rng *pcg) float64 {
	if p.g == 1 {
		return 0 // one text: every labelling gives 1 + 1 − 2
	}
	if rng != nil && p.null != nil {
		return p.null.draw(rng)
	}
	m, n := min(p.nb, p.nc), p.nb+p.nc
	small := p.perm[:m]
	switch {
	case rng != nil:
		for i := range m {
			j := i + int(rng.Uint64N(uint64(n-i)))
			p.perm[i], p.perm[j] = p.perm[j], p.perm[i]
		}
	case p.nb <= p.nc:
		small = identityRange(p.perm[:0], 0, p.nb)
	default:
		small = identityRange(p.perm[:0], p.nb, n)
	}
	// The sums over the smaller side go by its distinct texts.
	touched := p.touched[:0]
	for _, i := range small {
		g := p.group[i]
		if p.count[g] == 0 {
			touched = append(touched, g)
		}
		p.count[g]++
	}
	v := p.fromCounts(touched)
	for _, g := range touched {
		p.count[g] = 0
	}
	p.touched = touched
	return v
}

// fromCounts is the unbiased MMD² of a labelling whose smaller side holds
// p.count[t] answers of each text t in touched: u texts cost O(u²).
func (p *identityPrompt) fromCounts(touched []int32) float64 {
	var ss, sr float64
	for _, g := range touched {
		cg := float64(p.count[g])
		row := p.k[int(g)*p.g:]
		for _, h := range touched {
			ss += cg * float64(p.count[h]) * row[h]
		}
		sr += cg * p.rows[g]
	}
	m, n := min(p.nb, p.nc), p.nb+p.nc
	cross := sr - ss
	ll := p.total - ss - 2*cross
	ms, ml := float64(m), float64(n-m)
	return (ss-ms)/(ms*(ms-1)) + (ll-ml)/(ml*(ml-1)) - 2*cross/(ms*ml)
}

// identityRange fills dst with lo, …, hi−1 and fills the rest of the
// permutation after them: it restores the observed labelling.
func identityRange(dst []int32, lo, hi int) []int32 {
	all := dst[:cap(dst)]
	k := 0
	for i := lo; i < hi; i++ {
		all[k] = int32(i)
		k++
	}
	for i := range len(all) {
		if i < lo || i >= hi {
			all[k] = int32(i)
			k++
		}
	}
	return all[:hi-lo]
}

// kernelProfile is what the identity kernel reads of one answer: its word
// counts and its character 3-gram counts, each as a bag with its norm.
type kernelProfile struct {
	words, grams bag
	nw, ng       float64
}

// newKernelProfile profiles s: its lowercase words of letters and digits,
// and the 3-grams of its characters other than whitespace.
func newKernelProfile(s string) kernelProfile {
	var kp kernelProfiler
	return kp.profile(s)
}

// kernelProfiler makes kernel profiles, reusing its scratch space.
type kernelProfiler struct {
	word, chars []byte
	at          []int
	hashes      []uint64
}

// profile is newKernelProfile.
func (kp *kernelProfiler) profile(s string) kernelProfile {
	hs, word := kp.hashes[:0], kp.word[:0]
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word = utf8.AppendRune(word, unicode.ToLower(r))
			continue
		}
		if len(word) > 0 {
			hs = append(hs, hashBytes(word))
			word = word[:0]
		}
	}
	if len(word) > 0 {
		hs = append(hs, hashBytes(word))
	}
	p := kernelProfile{words: newBag(hs)}
	chars, at := nonSpace(kp.chars[:0], kp.at[:0], s)
	hs = appendGrams(hs[:0], chars, at, 3)
	p.grams = newBag(hs)
	kp.hashes, kp.word, kp.chars, kp.at = hs, word, chars, at
	p.nw, p.ng = math.Sqrt(dot(&p.words, &p.words)), math.Sqrt(dot(&p.grams, &p.grams))
	return p
}

// kernel is the identity kernel of two answers: the mean of the cosine
// similarities of their word counts and of their 3-gram counts. An empty
// bag is its own unit vector, orthogonal to every other, so the kernel
// stays positive definite and is 1 between two identical answers.
func (a *kernelProfile) kernel(b *kernelProfile) float64 {
	return (cosine(&a.words, &b.words, a.nw, b.nw) + cosine(&a.grams, &b.grams, a.ng, b.ng)) / 2
}

func cosine(a, b *bag, na, nb float64) float64 {
	switch {
	case na == 0 && nb == 0:
		return 1
	case na == 0 || nb == 0:
		return 0
	}
	return dot(a, b) / (na * nb)
}

// dot is the inner product of the count vectors of a and b.
func dot(a, b *bag) float64 {
	s, i, j := 0.0, 0, 0
	for i < len(a.vals) && j < len(b.vals) {
		switch x, y := a.vals[i], b.vals[j]; {
		case x == y:
			s += float64(a.counts[i]) * float64(b.counts[j])
			i++
			j++
		case x < y:
			i++
		default:
			j++
		}
	}
	return s
}
