package drift

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/textcut"
)

// answersOfTexts folds one response per text, texts[prompt] in order.
func answersOfTexts(texts map[string][]string) *Answers {
	var rs []promptcanary.Response
	for id, ts := range texts {
		for i, t := range ts {
			rs = append(rs, promptcanary.Response{PromptID: id, Sample: i, Content: t})
		}
	}
	return NewAnswers(rs)
}

// varied returns n answers that mix a few sentences by the index and an
// offset, so two calls with different offsets draw from one distribution.
func varied(n, offset int, sentences ...string) []string {
	out := make([]string, n)
	for i := range out {
		k := (i*7 + offset*3) % 5
		parts := []string{sentences[0]}
		if k%2 == 0 {
			parts = append(parts, sentences[1])
		}
		if k >= 3 {
			parts = append(parts, sentences[2])
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

var (
	calm  = []string{"The cache keeps recent entries in memory.", "Old entries are evicted first.", "Reads are served without a disk seek."}
	terse = []string{"Cache: memory.", "Evict old.", "No seek."}
)

func TestIdentityIdenticalAnswers(t *testing.T) {
	b := answersOfTexts(map[string][]string{"a": {"same", "other", "same"}, "b": {"x y", "x z"}})
	c := answersOfTexts(map[string][]string{"a": {"same", "other", "same"}, "b": {"x y", "x z"}})
	got := Identity(b, c, nil, 1)
	if got == nil {
		t.Fatal("got no identity test, want one")
	}
	if got.P < 0.5 || got.Different() || got.Prompts != 2 || got.Answers != 10 {
		t.Errorf("got %+v, want a large p, same model, 2 prompts, 10 answers", got)
	}
}

// A prompt answered with one text repeated on each side (a deterministic
// model at temperature 0) is not tested: its answers are not independent
// draws, and a new seed alone changes them. With no other prompt there is
// no identity test at all, whether the text changed or not.
func TestIdentityRepeatedAnswersAreNotTested(t *testing.T) {
	b := answersOfTexts(map[string][]string{"a": slices.Repeat([]string{"alpha beta"}, 10), "b": slices.Repeat([]string{"one two"}, 10)})
	for name, cur := range map[string]map[string][]string{
		"unchanged": {"a": slices.Repeat([]string{"alpha beta"}, 10), "b": slices.Repeat([]string{"one two"}, 10)},
		"changed":   {"a": slices.Repeat([]string{"gamma delta"}, 10), "b": slices.Repeat([]string{"three four"}, 10)},
	} {
		if got := Identity(b, answersOfTexts(cur), nil, 1); got != nil {
			t.Errorf("%s: got %+v, want no identity test", name, got)
		}
	}
	// One side varying is enough to test the prompt.
	c := answersOfTexts(map[string][]string{"a": {"alpha beta", "gamma delta", "alpha beta"}, "b": slices.Repeat([]string{"one two"}, 10)})
	if got := Identity(b, c, nil, 1); got == nil || got.Prompts != 1 {
		t.Errorf("got %+v, want prompt a tested", got)
	}
}

func TestIdentitySameDistribution(t *testing.T) {
	b := answersOfTexts(map[string][]string{"a": varied(20, 0, calm...), "b": varied(12, 1, terse...)})
	c := answersOfTexts(map[string][]string{"a": varied(10, 3, calm...), "b": varied(12, 4, terse...)})
	got := Identity(b, c, nil, 7)
	if got.P < 0.2 || got.Verdict != promptcanary.IdentitySame {
		t.Errorf("got p %g, verdict %q; want a large p and %q", got.P, got.Verdict, promptcanary.IdentitySame)
	}
}

func TestIdentityDifferentModel(t *testing.T) {
	b := answersOfTexts(map[string][]string{"a": varied(10, 0, calm...), "b": varied(10, 1, calm...)})
	c := answersOfTexts(map[string][]string{"a": varied(10, 0, terse...), "b": varied(10, 1, terse...)})
	got := Identity(b, c, nil, 7)
	if want := 1.0 / (IdentityPermutations + 1); got.P != want || !got.Different() {
		t.Errorf("got p %g, verdict %q; want p %g and %q", got.P, got.Verdict, want, promptcanary.IdentityDifferent)
	}
	if !strings.Contains(got.Line(), promptcanary.IdentityDifferentText) {
		t.Errorf("line %q does not say %q", got.Line(), promptcanary.IdentityDifferentText)
	}
}

// TestIdentityWithinPrompts holds prompts whose answers differ from each
// other but not between the sides, with the sides' sample counts unequal
// per prompt: a permutation across prompts would move prompt a's answers
// to prompt b's side and reject; within prompts nothing can change.
func TestIdentityWithinPrompts(t *testing.T) {
	a := []string{"alpha beta gamma", "alpha beta"}
	bb := []string{"one two three", "one two"}
	b := answersOfTexts(map[string][]string{"a": a, "b": slices.Repeat(bb, 5)})
	c := answersOfTexts(map[string][]string{"a": slices.Repeat(a, 5), "b": bb})
	if got := Identity(b, c, nil, 3); got == nil || got.P < 0.5 || got.Different() {
		t.Errorf("got %+v, want a large p", got)
	}
}

// TestIdentityAgainstReference checks the statistic against the plain
// formula and the Monte Carlo p-value against the exact one, enumerated
// over every within-prompt relabelling of a small sample.
func TestIdentityAgainstReference(t *testing.T) {
	defer func(stop, states int) { identityStopAt, identityMaxStates = stop, states }(identityStopAt, identityMaxStates)
	identityStopAt = IdentityPermutations + 1
	for _, states := range []int{512, 0} {
		// With 0 states no prompt's null distribution is enumerated: the
		// permutations are drawn answer by answer.
		identityMaxStates = states
		t.Run(fmt.Sprintf("states=%d", states), checkAgainstReference)
	}
}

func checkAgainstReference(t *testing.T) {
	bt := map[string][]string{"a": {"red apple", "red pear", "green apple"}, "b": {"big dog", "small dog"}}
	ct := map[string][]string{"a": {"red apple pie", "green pear", "red"}, "b": {"big cat", "big dog", "a cat"}}
	got := Identity(answersOfTexts(bt), answersOfTexts(ct), nil, 11)
	var obs float64
	var nulls [][]float64 // per prompt, the statistic of every relabelling
	for _, id := range []string{"a", "b"} {
		pool := append(append([]string{}, bt[id]...), ct[id]...)
		nb := len(bt[id])
		obs += refMMD(pool, firstN(len(pool), nb))
		var all []float64
		forSubsets(len(pool), nb, func(in []bool) { all = append(all, refMMD(pool, in)) })
		nulls = append(nulls, all)
	}
	obs /= 2
	if math.Abs(got.MMD-obs) > 1e-12 {
		t.Errorf("got MMD² %.15g, want %.15g", got.MMD, obs)
	}
	atLeast, total := 0, 0
	for _, x := range nulls[0] {
		for _, y := range nulls[1] {
			total++
			if (x+y)/2 >= obs-1e-9 {
				atLeast++
			}
		}
	}
	exact := float64(atLeast) / float64(total)
	// The Monte Carlo p-value has a standard error of at most 0.016.
	if math.Abs(got.P-exact) > 0.05 {
		t.Errorf("got p %g, exact p %g", got.P, exact)
	}
}

// refMMD is the unbiased MMD² of pool's answers in (side x) and out.
func refMMD(pool []string, in []bool) float64 {
	ps := make([]kernelProfile, len(pool))
	for i, s := range pool {
		ps[i] = newKernelProfile(s)
	}
	var xx, yy, xy float64
	var nx, ny int
	for i := range pool {
		if in[i] {
			nx++
		} else {
			ny++
		}
		for j := range pool {
			k := ps[i].kernel(&ps[j])
			switch {
			case i == j:
			case in[i] && in[j]:
				xx += k
			case !in[i] && !in[j]:
				yy += k
			default:
				xy += k / 2 // each cross pair is met twice
			}
		}
	}
	fx, fy := float64(nx), float64(ny)
	return xx/(fx*(fx-1)) + yy/(fy*(fy-1)) - 2*xy/(fx*fy)
}

func firstN(n, k int) []bool {
	in := make([]bool, n)
	for i := range k {
		in[i] = true
	}
	return in
}

// forSubsets calls f with every subset of k of n items.
func forSubsets(n, k int, f func([]bool)) {
	for mask := 0; mask < 1<<n; mask++ {
		in := make([]bool, n)
		c := 0
		for i := range n {
			if mask&(1<<i) != 0 {
				in[i] = true
				c++
			}
		}
		if c == k {
			f(in)
		}
	}
}

func TestIdentityLeavesOut(t *testing.T) {
	b := answersOfTexts(map[string][]string{"a": {"x", "y"}, "b": {"x", "y"}, "c": {"only one"}, "d": {"p", "q"}})
	c := answersOfTexts(map[string][]string{"a": {"x", "z"}, "b": {"x", "y"}, "c": {"only", "one"}, "e": {"p", "q"}})
	got := Identity(b, c, map[string]bool{"b": true}, 1)
	if got.Prompts != 1 || got.Answers != 4 {
		t.Errorf("got %d prompts and %d answers, want 1 and 4 (b is stale, c answered once, d and e on one side)", got.Prompts, got.Answers)
	}
	if got := Identity(b, c, map[string]bool{"a": true, "b": true}, 1); got != nil {
		t.Errorf("got %+v, want nil: no prompt can be tested", got)
	}
	if got := Identity(NewAnswers(nil), c, nil, 1); got != nil {
		t.Errorf("got %+v, want nil without answers", got)
	}
}

func TestIdentityCaps(t *testing.T) {
	long := strings.Repeat("abc ", 2*IdentityMaxRunes)
	many := make([]string, 2*IdentityMaxAnswers)
	for i := range many {
		many[i] = fmt.Sprintf("answer %d", i)
	}
	b := answersOfTexts(map[string][]string{"a": many, "b": {long, "short one"}})
	c := answersOfTexts(map[string][]string{"a": many, "b": {"short one", long + "other"}})
	got := Identity(b, c, nil, 1)
	if want := 2*IdentityMaxAnswers + 4; got.Answers != want {
		t.Errorf("got %d answers, want %d (capped per prompt and side)", got.Answers, want)
	}
	// Past the caps nothing is read: the same answers cut at the caps
	// give the same test.
	cut := textcut.Runes(long, IdentityMaxRunes, "")
	want := Identity(answersOfTexts(map[string][]string{"a": many[:IdentityMaxAnswers], "b": {cut, "short one"}}),
		answersOfTexts(map[string][]string{"a": many[:IdentityMaxAnswers], "b": {"short one", cut}}), nil, 1)
	if *got != *want {
		t.Errorf("got %+v, want %+v: the answers differ only past the caps", got, want)
	}
}

func TestIdentityReproducible(t *testing.T) {
	b := answersOfTexts(map[string][]string{"a": varied(10, 0, calm...), "b": varied(8, 2, calm...)})
	c := answersOfTexts(map[string][]string{"a": varied(6, 1, calm...), "b": varied(9, 3, terse...)})
	x, y := Identity(b, c, nil, 5), Identity(b, c, nil, 5)
	if *x != *y {
		t.Errorf("two runs with one seed differ: %+v and %+v", x, y)
	}
}

func TestCompareReportsIdentity(t *testing.T) {
	base := makeBaseline("s", binarySamples("p", "q", 5, 5))
	cur := makeRun("s", binarySamples("p", "q", 5, 5))
	for i := range 5 {
		base.RunResult.LLMResponses = append(base.RunResult.LLMResponses, promptcanary.Response{PromptID: "q", Sample: i, Content: calm[i%2]})
		cur.LLMResponses = append(cur.LLMResponses, promptcanary.Response{PromptID: "q", Sample: i, Content: terse[i%2]})
	}
	rep, err := Compare(base, &cur, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	if rep.HasDrift {
		t.Errorf("the report has drift; the identity test alone must not make drift")
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Identity *promptcanary.IdentityTest `json:"identity"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Identity == nil || doc.Identity.Verdict != promptcanary.IdentityDifferent || doc.Identity.Permutations != IdentityPermutations {
		t.Errorf("JSON identity = %+v, want the verdict %q after %d permutations", doc.Identity, promptcanary.IdentityDifferent, IdentityPermutations)
	}
}

// BenchmarkIdentity measures the identity test of a 200-prompt suite with
// 30 answers per prompt and side (the caps), when each prompt's answers
// are a few texts and when every answer is its own text (the worst case).
func BenchmarkIdentity(b *testing.B) {
	words := strings.Fields("the a cache keeps recent entries in memory old are evicted first reads served without disk seek model answer prompt")
	for _, distinct := range []int{3, 60} {
		texts := [2]map[string][]string{{}, {}}
		for side := range texts {
			for p := range 200 {
				id := fmt.Sprintf("p%03d", p)
				for i := range IdentityMaxAnswers {
					v := (side*IdentityMaxAnswers + i) % distinct
					var sb strings.Builder
					for w := range 50 {
						sb.WriteString(words[(p+v*w+w*w)%len(words)] + " ")
					}
					texts[side][id] = append(texts[side][id], sb.String())
				}
			}
		}
		base, cur := answersOfTexts(texts[0]), answersOfTexts(texts[1])
		b.Run(fmt.Sprintf("distinct=%d", distinct), func(b *testing.B) {
			for range b.N {
				Identity(base, cur, nil, 1)
			}
		})
	}
}

// TestIdentityEarlyStop checks that stopping at the 50th permuted
// statistic to reach the observed one never changes the verdict of the
// 1000 permutations, and that it stops early on the same model.
func TestIdentityEarlyStop(t *testing.T) {
	defer func(stop int) { identityStopAt = stop }(identityStopAt)
	mixed := []string{calm[0], terse[1], calm[2]}
	for seed := range uint64(30) {
		b := answersOfTexts(map[string][]string{"a": varied(8, int(seed), calm...), "b": varied(6, 1, calm...)})
		c := answersOfTexts(map[string][]string{"a": varied(8, int(seed)+1, mixed...), "b": varied(7, int(seed), calm...)})
		identityStopAt = 50
		early := Identity(b, c, nil, seed)
		identityStopAt = IdentityPermutations + 1
		full := Identity(b, c, nil, seed)
		if early.Verdict != full.Verdict {
			t.Errorf("seed %d: early stop says %q (p %g after %d), all permutations %q (p %g)", seed, early.Verdict, early.P, early.Permutations, full.Verdict, full.P)
		}
		if full.P > 0.2 && early.Permutations >= IdentityPermutations {
			t.Errorf("seed %d: p %g but no early stop", seed, full.P)
		}
	}
}

// FuzzIdentity feeds arbitrary answers to the identity test: the kernel
// stays a similarity in [0, 1], symmetric, and the test a p-value in
// (0, 1] with a finite statistic.
func FuzzIdentity(f *testing.F) {
	f.Add("The cache keeps recent entries in memory.", "Cache: memory.")
	f.Add("", "\x00\xff ² é")
	f.Fuzz(func(t *testing.T, a, b string) {
		pa, pb := newKernelProfile(a), newKernelProfile(b)
		k, back := pa.kernel(&pb), pb.kernel(&pa)
		if k < 0 || k > 1+1e-12 || math.Abs(k-back) > 1e-12 || math.IsNaN(k) {
			t.Fatalf("k(%q, %q) = %g, k back = %g", a, b, k, back)
		}
		got := Identity(answersOfTexts(map[string][]string{"p": {a, a, b}}), answersOfTexts(map[string][]string{"p": {b, a}}), nil, 1)
		if got == nil {
			// Not tested only when each side holds one text repeated:
			// a and b are equal as far as the test reads them.
			if textcut.Runes(a, IdentityMaxRunes, "") != textcut.Runes(b, IdentityMaxRunes, "") {
				t.Fatalf("%q and %q differ but the prompt was not tested", a, b)
			}
			return
		}
		if got.P <= 0 || got.P > 1 || math.IsNaN(got.MMD) || math.IsInf(got.MMD, 0) {
			t.Fatalf("got %+v", got)
		}
	})
}
