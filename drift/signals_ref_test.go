package drift

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/multiset"
)

// The change signals compare each answer only once per distinct pair of
// answers and sum permutations by group. This file keeps the plain
// implementation they replaced, every ordered pair of responses computed
// and every permutation summed pair by pair, and checks that both give the
// same signals, bit for bit, on answers from deterministic to all
// different, drifted or not.

// refChrF is chrF as first written, one direction at a time.
func refChrF(a, b *refProfile) float64 {
	var prec, rec float64
	orders := 0
	for n := range chrfOrder {
		ga, gb := a.grams[n], b.grams[n]
		if len(ga) == 0 && len(gb) == 0 {
			continue
		}
		orders++
		if len(ga) == 0 || len(gb) == 0 {
			continue
		}
		c := float64(multiset.Common(ga, gb))
		prec += c / float64(len(ga))
		rec += c / float64(len(gb))
	}
	if orders == 0 {
		return 1
	}
	prec /= float64(orders)
	rec /= float64(orders)
	if prec+rec == 0 {
		return 0
	}
	b2 := chrfBeta * chrfBeta
	return (1 + b2) * prec * rec / (b2*prec + rec)
}

// refHashString is hashString through hash/fnv.
func refHashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// refProfile is textProfile as first written: sorted hashes.
type refProfile struct {
	tokens []uint64
	grams  [chrfOrder][]uint64
}

// refTokenF1 is tokenF1 as first written.
func refTokenF1(a, b *refProfile) float64 {
	if len(a.tokens) == 0 && len(b.tokens) == 0 {
		return 1
	}
	if len(a.tokens) == 0 || len(b.tokens) == 0 {
		return 0
	}
	c := float64(multiset.Common(a.tokens, b.tokens))
	return 2 * c / float64(len(a.tokens)+len(b.tokens))
}

// refNewProfile is newProfile as first written, one string per n-gram.
func refNewProfile(s string) refProfile {
	var p refProfile
	runes := make([]rune, 0, min(len(s), maxSimilarityRunes))
	for _, r := range s {
		if len(runes) == maxSimilarityRunes {
			break
		}
		runes = append(runes, r)
	}
	lower := strings.ToLower(string(runes))
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		p.tokens = append(p.tokens, refHashString(w))
	}
	slices.Sort(p.tokens)
	chars := runes[:0:0]
	for _, r := range runes {
		if !unicode.IsSpace(r) {
			chars = append(chars, r)
		}
	}
	for n := 1; n <= chrfOrder; n++ {
		for i := 0; i+n <= len(chars); i++ {
			p.grams[n-1] = append(p.grams[n-1], refHashString(string(chars[i:i+n])))
		}
		slices.Sort(p.grams[n-1])
	}
	return p
}

func TestNewProfileMatchesPlainImplementation(t *testing.T) {
	texts := []string{"", " ", "a", "The cat sat on the mat", "Étape 1 : thé — 完成\u2028 ok", "\xff\xfe broken \xc3 utf-8",
		"tabs\tand\nnewlines  and   spaces", strings.Repeat("long answer with many words ", 300)}
	for _, s := range texts {
		got, ref := newProfile(s), refNewProfile(s)
		want := textProfile{tokens: newBag(slices.Clone(ref.tokens))}
		for n := range chrfOrder {
			want.grams[n] = newBag(slices.Clone(ref.grams[n]))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("newProfile(%.40q) differs from the plain implementation", s)
		}
		for _, o := range texts {
			a, b, ra, rb := newProfile(s), newProfile(o), refNewProfile(s), refNewProfile(o)
			if got, want := tokenF1(&a, &b), refTokenF1(&ra, &rb); !sameFloat(got, want) {
				t.Errorf("tokenF1(%.20q, %.20q) = %v, want %v", s, o, got, want)
			}
			if got, want := chrF(&a, &b), refChrF(&ra, &rb); !sameFloat(got, want) {
				t.Errorf("chrF(%.20q, %.20q) = %v, want %v", s, o, got, want)
			}
		}
		if got, want := hashString(s), refHashString(s); got != want {
			t.Errorf("hashString(%.40q) = %x, want %x", s, got, want)
		}
	}
}

func refPromptSignals(id string, b, c []*promptcanary.Response, opts *Options) []promptcanary.ChangeSignal {
	var out []promptcanary.ChangeSignal
	out = append(out, numericSignal(id, "response_length", "characters", b, c, opts,
		func(r *promptcanary.Response) float64 { return float64(utf8.RuneCountInString(r.Content)) }))
	if anyTokens(b) && anyTokens(c) {
		out = append(out, numericSignal(id, "completion_tokens", "tokens", b, c, opts,
			func(r *promptcanary.Response) float64 { return float64(r.CompletionTokens) }))
	}
	if s, ok := finishSignal(id, b, c); ok {
		out = append(out, s)
	}
	pb := make([]refProfile, len(b))
	pc := make([]refProfile, len(c))
	for i, r := range b {
		pb[i] = refNewProfile(r.Content)
	}
	for i, r := range c {
		pc[i] = refNewProfile(r.Content)
	}
	for _, sim := range []struct {
		kind string
		f    func(a, b *refProfile) float64
	}{{"token_f1", refTokenF1}, {"chrf", refChrF}} {
		within, across, p := refSimilarityTest(pb, pc, sim.f, opts.Permutations, rand.New(rand.NewPCG(opts.Seed, hashString(sim.kind+"/"+id))))
		out = append(out, promptcanary.ChangeSignal{Kind: sim.kind, PromptID: id, Baseline: within, Current: across, P: p,
			Detail: fmt.Sprintf("lexical similarity (%s) of %s to the baseline responses: %.2f within the baseline, %.2f for the current responses (response permutation two-sided p=%s)", sim.kind, id, within, across, fmtP(p))})
	}
	e, p := refEnergyTest(pb, pc, min(opts.Permutations, maxSignalPermutations), rand.New(rand.NewPCG(opts.Seed, hashString("energy/"+id))))
	out = append(out, promptcanary.ChangeSignal{Kind: "energy_distance", PromptID: id, Current: e, P: p,
		Detail: fmt.Sprintf("response distribution of %s moved: energy distance %.3f on token-F1 distances (permutation p=%s)", id, e, fmtP(p))})
	return out
}

func refResponseMatrix(pb, pc []refProfile, f func(a, b *refProfile) float64) (m []float64, n, nb int) {
	pb, pc = pb[:min(len(pb), maxReferences)], pc[:min(len(pc), maxReferences)]
	all := append(append([]refProfile(nil), pb...), pc...)
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

func refSums(m []float64, n int, label []bool) blockSums {
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

func refResponsePermutationTest(m []float64, n, nb int, stat func(blockSums) float64, perms int, rng *rand.Rand) (obs, p float64) {
	label := sideLabels(n, nb)
	obs = stat(refSums(m, n, label))
	hits := 0
	for b := 1; b <= perms; b++ {
		rng.Shuffle(n, func(i, j int) { label[i], label[j] = label[j], label[i] })
		if stat(refSums(m, n, label)) >= obs-1e-12 {
			hits++
			if hits == permStopHits {
				return obs, float64(hits) / float64(b)
			}
		}
	}
	return obs, float64(1+hits) / float64(1+perms)
}

func refSimilarityTest(pb, pc []refProfile, f func(a, b *refProfile) float64, perms int, rng *rand.Rand) (within, across, p float64) {
	m, n, nb := refResponseMatrix(pb, pc, f)
	obs := refSums(m, n, sideLabels(n, nb))
	_, p = refResponsePermutationTest(m, n, nb, func(s blockSums) float64 { return math.Abs(s.meanBB() - s.meanBC()) }, perms, rng)
	return obs.meanBB(), obs.meanBC(), p
}

func refEnergyTest(pb, pc []refProfile, perms int, rng *rand.Rand) (float64, float64) {
	m, n, nb := refResponseMatrix(pb, pc, func(a, b *refProfile) float64 { return 1 - refTokenF1(a, b) })
	return refResponsePermutationTest(m, n, nb, func(s blockSums) float64 {
		return 2*s.meanBC() - s.meanBB() - s.meanCC()
	}, perms, rng)
}

// signalAnswers draws n answers to one prompt: variants of a frame, with
// some answers shared (a temperature-0 model) or all different.
func signalAnswers(rng *rand.Rand, n, variants int, drift bool) []string {
	frames := []string{
		"the capital of france is paris which lies on the seine and has been the seat of government for centuries",
		"{\"name\": \"Ada\", \"age\": 36, \"city\": \"Paris\"}",
		"Étape 1 : chauffer l'eau. Étape 2 : infuser le thé — trois minutes. 完成",
		"",
	}
	alt := strings.Fields("city river nation town state home centre heart core site Sure! Certainly, consult a professional")
	pool := make([]string, variants)
	for v := range pool {
		w := strings.Fields(frames[rng.IntN(len(frames)-1)])
		if drift {
			w = append([]string{"Sure!", "Here", "is", "the", "answer:"}, w...)
		}
		for range rng.IntN(6) {
			if len(w) > 0 {
				w[rng.IntN(len(w))] = alt[rng.IntN(len(alt))]
			}
		}
		pool[v] = strings.Join(w, " ")
		if rng.IntN(40) == 0 {
			pool[v] = frames[len(frames)-1] // an empty answer
		}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = pool[rng.IntN(len(pool))]
	}
	return out
}

func responsesOf(answers []string) []*promptcanary.Response {
	out := make([]*promptcanary.Response, len(answers))
	for i, a := range answers {
		out[i] = &promptcanary.Response{PromptID: "p", Sample: i, Content: a, FinishReason: "stop", CompletionTokens: utf8.RuneCountInString(a) / 4}
	}
	return out
}

func TestPromptSignalsMatchPlainImplementation(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cases := 0
	// One scratch for every case, as changeSignals reuses it prompt after
	// prompt.
	var sc signalScratch
	for _, nb := range []int{2, 5, 30, 45} {
		for _, nc := range []int{2, 7, 30} {
			for _, variants := range []int{1, 3, 12, 60} {
				for _, drifted := range []bool{false, true} {
					b := responsesOf(signalAnswers(rng, nb, variants, false))
					c := responsesOf(signalAnswers(rng, nc, variants, drifted))
					opts := &Options{Permutations: 500, Seed: rng.Uint64()}
					id := fmt.Sprintf("b%d-c%d-v%d-drift=%v", nb, nc, variants, drifted)
					got, want := sc.promptSignals(id, b, c, opts), refPromptSignals(id, b, c, opts)
					sc.reset()
					if len(got) != len(want) {
						t.Fatalf("%s: got %d signals, want %d", id, len(got), len(want))
					}
					for k := range got {
						g, w := got[k], want[k]
						if g.Kind != w.Kind || !sameFloat(g.Baseline, w.Baseline) || !sameFloat(g.Current, w.Current) || !sameFloat(g.P, w.P) || g.Detail != w.Detail {
							t.Errorf("%s: signal %d:\ngot  %+v\nwant %+v", id, k, g, w)
						}
					}
					cases++
				}
			}
		}
	}
	if cases != 96 {
		t.Fatalf("ran %d cases, want 96", cases)
	}
}

// sameFloat reports whether a and b are the same float, bit for bit (NaN
// equals NaN).
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

func BenchmarkPromptSignals(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, variants := range []int{3, 12, 60} {
		base := responsesOf(signalAnswers(rng, 30, variants, false))
		cur := responsesOf(signalAnswers(rng, 30, variants, true))
		opts := &Options{Permutations: DefaultPermutations, Seed: 1}
		b.Run(fmt.Sprintf("variants=%d", variants), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				promptSignals("p", base, cur, opts)
			}
		})
		b.Run(fmt.Sprintf("variants=%d/plain", variants), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				refPromptSignals("p", base, cur, opts)
			}
		})
	}
}

func TestPermuterShuffleIsRandShuffle(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 60} {
		a, b := rand.New(rand.NewPCG(5, uint64(n))), rand.New(rand.NewPCG(5, uint64(n)))
		x, y := sideLabels(n, n/3), sideLabels(n, n/3)
		// Groups of up to three responses each.
		m := identityGroups(make([]float64, n*n), n, n/3)
		for i := range m.g.group {
			m.g.group[i] = i / 3
		}
		pm := newPermuter(m)
		pm.count(x)
		for range 50 {
			pm.shuffle(a, x)
			b.Shuffle(n, func(i, j int) { y[i], y[j] = y[j], y[i] })
			if !slices.Equal(x, y) {
				t.Fatalf("n=%d: got %v, want %v", n, x, y)
			}
			kept := slices.Clone(pm.cur)
			pm.count(x)
			if !slices.Equal(kept, pm.cur) {
				t.Fatalf("n=%d: counts kept %v, counted %v", n, kept, pm.cur)
			}
		}
		if a.Uint64() != b.Uint64() {
			t.Errorf("n=%d: the generators drew different numbers", n)
		}
	}
}

func TestGramSetsCommon(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	var ids idTable // reused, as from one prompt to the next
	var sc signalScratch
	for round := range 20 {
		// Answers over a small alphabet of hashes, so that they share and
		// repeat many; some empty.
		bags := make([]bag, 1+rng.IntN(12))
		raws := make([]bag, len(bags))
		ptrs, rawPtrs := make([]*bag, len(bags)), make([]*bag, len(bags))
		for i := range bags {
			hs := make([]uint64, rng.IntN(200))
			for k := range hs {
				hs[k] = uint64(rng.IntN(20 + round*40))
			}
			raws[i] = newBagIn(slices.Clone(hs), &sc) // as they came
			bags[i] = newBag(hs)
			ptrs[i], rawPtrs[i] = &bags[i], &raws[i]
		}
		s := newGramSets(ptrs, &ids, nil)
		r := newGramSets(rawPtrs, &ids, &sc)
		for x := range bags {
			for y := range bags {
				want := multiset.Common(expand(&bags[x]), expand(&bags[y]))
				if got := s.common(x, y); got != want {
					t.Fatalf("round %d: common(%d, %d) = %d, want %d", round, x, y, got, want)
				}
				if got := r.common(x, y); got != want {
					t.Fatalf("round %d: raw bags: common(%d, %d) = %d, want %d", round, x, y, got, want)
				}
			}
		}
		sc.reset()
	}
}

// expand lists the hashes of b, sorted, each as often as it occurs.
func expand(b *bag) []uint64 {
	var out []uint64
	for i, v := range b.vals {
		for range b.counts[i] {
			out = append(out, v)
		}
	}
	return out
}
