package similarity

import (
	"math"
	"strings"
	"testing"
	"unicode"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// TestScore checks each metric against hand-computed values.
func TestScore(t *testing.T) {
	tests := []struct {
		name   string
		metric Metric
		a, b   string
		want   float64
	}{
		// token F1: 2·common/(|a|+|b|) over lowercase words.
		{"f1 identical", TokenF1, "The cat sat.", "the CAT sat", 1},
		{"f1 disjoint", TokenF1, "red green", "blue yellow", 0},
		{"f1 two of three", TokenF1, "the cat sat", "the cat ran", 2.0 / 3},
		{"f1 word order ignored", TokenF1, "a b c d", "d c b a", 1},
		{"f1 multiset", TokenF1, "a a a b", "a b b", 2 * 2.0 / 7},
		{"f1 both empty", TokenF1, "", "", 1},
		{"f1 punctuation only", TokenF1, "!!!", "...", 1},
		{"f1 one empty", TokenF1, "", "word", 0},
		{"f1 other empty", TokenF1, "word", "  ", 0},
		{"f1 umlaut lowercased", TokenF1, "ÜBER straße", "über STRASSE", 0.5},
		{"f1 devanagari marks stay in the word", TokenF1, "नमस्ते दुनिया", "नमस्ते", 2.0 / 3},
		{"f1 digits are words", TokenF1, "answer: 42", "42", 2.0 / 3},
		{"f1 invalid utf-8 separates", TokenF1, "ab\xffcd", "ab cd", 1},

		// ROUGE-L: 2·LCS/(|a|+|b|) over lowercase words.
		{"rouge identical", RougeL, "One two THREE", "one two three", 1},
		{"rouge disjoint", RougeL, "red green", "blue yellow", 0},
		{"rouge order matters", RougeL, "a b c d", "a c b d", 0.75},
		{"rouge reversed", RougeL, "a b c d", "d c b a", 0.25},
		{"rouge subsequence", RougeL, "the cat sat on the mat", "the cat on mat", 2 * 4.0 / 10},
		{"rouge both empty", RougeL, "", "", 1},
		{"rouge one empty", RougeL, "", "word", 0},
		{"rouge repeats", RougeL, "a a a", "a", 0.5},

		// chrF: mean n-gram precision and recall over the orders either
		// text has, F-score with β = 2, white space removed.
		{"chrf identical", ChrF, "Paris is the capital.", "Paris is the capital.", 1},
		{"chrf disjoint", ChrF, "abc", "xyz", 0},
		{"chrf white space ignored", ChrF, "a b\tc", "abc", 1},
		{"chrf case kept", ChrF, "A", "a", 0},
		// ab vs ac: order 1 P = R = 1/2, order 2 P = R = 0, so P = R = 1/4.
		{"chrf ab ac", ChrF, "ab", "ac", 0.25},
		// abc vs ab: P = (2/3+1/2+0)/3 = 7/18, R = (1+1+0)/3 = 2/3;
		// F = 5PR/(4P+R) = 7/12.
		{"chrf answer longer", ChrF, "abc", "ab", 7.0 / 12},
		// ab vs abc: P = 2/3, R = 7/18; F = 5PR/(4P+R) = 14/33.
		{"chrf answer shorter", ChrF, "ab", "abc", 14.0 / 33},
		// 我爱你 vs 我爱他: orders 1, 2, 3 give 2/3, 1/2, 0; P = R = 7/18.
		{"chrf chinese", ChrF, "我爱你", "我爱他", 7.0 / 18},
		{"chrf both empty", ChrF, "", " \n", 1},
		{"chrf one empty", ChrF, "", "x", 0},
		// Six-grams that share their first three characters.
		{"chrf long grams", ChrF, "abcdef", "abcdeg", chrfManual("abcdef", "abcdeg")},
		{"chrf astral", ChrF, "𝄞𝄞a", "𝄞𝄞b", chrfManual("𝄞𝄞a", "𝄞𝄞b")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Score(tc.metric, tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Score(%s, %q, %q): got %v, want %v", tc.metric, tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestChrFManualValues pins chrfManual itself to hand-computed values, so
// the cases that use it cannot pass by agreeing with a wrong reference.
func TestChrFManualValues(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want float64
	}{{"ab", "ac", 0.25}, {"abc", "ab", 7.0 / 12}, {"ab", "abc", 14.0 / 33}, {"abc", "abc", 1}} {
		if got := chrfManual(tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("chrfManual(%q, %q): got %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// chrfManual is chrF computed the slow way, with strings for n-grams.
func chrfManual(a, b string) float64 {
	strip := func(s string) []rune {
		// Decode first: removing white space between invalid bytes must
		// not make them a valid sequence.
		var out []rune
		for _, r := range s {
			if !unicode.IsSpace(r) {
				out = append(out, r)
			}
		}
		return out
	}
	ra, rb := strip(a), strip(b)
	grams := func(r []rune, n int) map[string]int {
		m := map[string]int{}
		for i := 0; i+n <= len(r); i++ {
			m[string(r[i:i+n])]++
		}
		return m
	}
	var p, r float64
	orders := 0
	for n := 1; n <= 6; n++ {
		ga, gb := grams(ra, n), grams(rb, n)
		na, nb := max(len(ra)-n+1, 0), max(len(rb)-n+1, 0)
		if na == 0 && nb == 0 {
			continue
		}
		orders++
		if na == 0 || nb == 0 {
			continue
		}
		c := 0
		for g, k := range ga {
			c += min(k, gb[g])
		}
		p += float64(c) / float64(na)
		r += float64(c) / float64(nb)
	}
	if orders == 0 {
		return 1
	}
	p /= float64(orders)
	r /= float64(orders)
	if p+r == 0 {
		return 0
	}
	return 5 * p * r / (4*p + r)
}

// TestLCSAcrossBlocks checks the bit-vector LCS against the dynamic
// programme on sequences longer than one 64-position block, where the
// carries between blocks matter.
func TestLCSAcrossBlocks(t *testing.T) {
	gen := func(n, alphabet, seed int) []int32 {
		out := make([]int32, n)
		x := uint32(seed)
		for i := range out {
			x = x*1664525 + 1013904223
			out[i] = int32(x>>16) % int32(alphabet)
		}
		return out
	}
	for _, tc := range []struct{ n, m, alphabet int }{
		{1, 1, 1}, {63, 64, 2}, {64, 64, 3}, {65, 130, 2}, {200, 150, 4}, {300, 300, 20}, {129, 1, 1}, {1, 129, 1},
	} {
		for seed := range 5 {
			a, b := gen(tc.n, tc.alphabet, seed), gen(tc.m, tc.alphabet, seed+100)
			sc := scorer{vocab: map[string]int32{}}
			for i := range tc.alphabet {
				sc.vocab[string(rune('a'+i))] = int32(i)
			}
			if got, want := sc.lcs(a, b), text.LCS(a, b); got != want {
				t.Errorf("lcs(n=%d, m=%d, alphabet %d, seed %d): got %d, want %d", tc.n, tc.m, tc.alphabet, seed, got, want)
			}
			// The work space is clean for the next pair.
			for i, m := range sc.masks {
				if m != 0 {
					t.Fatalf("mask %d left set after lcs", i)
				}
			}
		}
	}
}

// TestLongTexts compares long answers: the metrics stay exact beyond the
// sizes of the other tests (a 5,000-word ROUGE-L against the DP).
func TestLongTexts(t *testing.T) {
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
	var a, b strings.Builder
	for i := range 5000 {
		a.WriteString(words[(i*7)%len(words)] + " ")
		b.WriteString(words[(i*5+i/3)%len(words)] + " ")
	}
	sc := scorer{metric: RougeL}
	ps := sc.profiles([]string{a.String(), b.String()})
	want := f1(text.LCS(ps[0].words, ps[1].words), len(ps[0].words), len(ps[1].words))
	if got := sc.score(&ps[0], &ps[1]); math.Abs(got-want) > 1e-12 {
		t.Errorf("ROUGE-L of 5,000 words: got %v, want %v", got, want)
	}
	if got := Score(ChrF, a.String(), a.String()); got != 1 {
		t.Errorf("chrF of a long text with itself: got %v, want 1", got)
	}
}

// wideChrF is chrF with n-grams forced wide, as when the texts hold more
// distinct characters than a narrow n-gram can number.
func wideChrF(t testing.TB, a, b string) float64 {
	sc := scorer{metric: ChrF, nchar: 1 << narrowBits}
	ps := sc.profiles([]string{a, b})
	if sc.narrow {
		t.Fatal("n-grams are narrow, want wide")
	}
	return sc.score(&ps[0], &ps[1])
}

// TestChrFWide checks chrF on texts with more distinct characters than
// narrow n-grams can number, and the wide n-grams on the table's cases.
func TestChrFWide(t *testing.T) {
	var a, b strings.Builder
	for i := range 1500 {
		a.WriteRune(rune(0x4e00 + i))
		b.WriteRune(rune(0x4e00 + (i*7)%1500))
		if i%5 == 0 {
			b.WriteRune(rune(0x4e00 + i))
		}
	}
	sc := scorer{metric: ChrF}
	ps := sc.profiles([]string{a.String(), b.String()})
	if sc.narrow {
		t.Fatalf("1,500 distinct characters: n-grams are narrow, want wide")
	}
	want := chrfManual(a.String(), b.String())
	if got := sc.score(&ps[0], &ps[1]); math.Abs(got-want) > 1e-12 || got == 0 {
		t.Errorf("chrF of 1,500 distinct characters: got %v, want %v (> 0)", got, want)
	}
	for _, tc := range [][2]string{{"ab", "ac"}, {"abc", "ab"}, {"abcdef", "abcdeg"}, {"abcdefgh", "xbcdefgh"}, {"", "x"}, {"a\x00b", "a\x00b"}, {"𝄞𝄞a", "𝄞𝄞b"}} {
		if got, want := wideChrF(t, tc[0], tc[1]), chrfManual(tc[0], tc[1]); math.Abs(got-want) > 1e-12 {
			t.Errorf("wide chrF(%q, %q): got %v, want %v", tc[0], tc[1], got, want)
		}
	}
}
