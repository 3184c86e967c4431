package similarity

import (
	"context"
	"math"
	"strings"
	"testing"
	"unicode"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

var fuzzSeeds = [][2]string{
	{"", ""}, {"a", ""}, {"The cat sat.", "the cat ran"}, {"a b c d", "a c b d"},
	{"ÜBER straße", "über STRASSE"}, {"नमस्ते दुनिया", "नमस्ते"}, {"我爱你", "我爱他"},
	{"ab\xffcd\xc3", "\xff"}, {"𝄞𝄞a", "𝄞𝄞b"}, {"{\"a\": 1}", "```json\n{\"a\": 1}\n```"},
	{strings.Repeat("x y ", 70), strings.Repeat("y x ", 40)},
}

// FuzzScore checks every metric on arbitrary texts: a score in [0,1], 1
// for a text with itself, the same score both ways for the symmetric
// metrics, and agreement with slow reference implementations.
func FuzzScore(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, name := range metrics {
			m := Metric(name)
			got := Score(m, a, b)
			if math.IsNaN(got) || got < 0 || got > 1 {
				t.Fatalf("Score(%s, %q, %q) = %v, want a value in [0,1]", m, a, b, got)
			}
			if self := Score(m, a, a); self != 1 {
				t.Errorf("Score(%s, %q, itself) = %v, want 1", m, a, self)
			}
			if m.symmetric() {
				if back := Score(m, b, a); back != got {
					t.Errorf("Score(%s) not symmetric: %q vs %q gives %v, back %v", m, a, b, got, back)
				}
			}
			want := slowScore(m, a, b)
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("Score(%s, %q, %q) = %v, want %v (slow implementation)", m, a, b, got, want)
			}
			if m == ChrF {
				if wide := wideChrF(t, a, b); math.Abs(wide-want) > 1e-9 {
					t.Errorf("wide chrF(%q, %q) = %v, want %v", a, b, wide, want)
				}
			}
		}
	})
}

// FuzzEvaluate evaluates the probe on arbitrary answers and references,
// with both aggregations: it never panics and its score is in [0,1].
func FuzzEvaluate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s[0], s[1], s[0]+s[1])
	}
	probes := make([]probe.Probe, 0, 2*len(metrics))
	for _, m := range metrics {
		for _, a := range []Against{Max, Mean} {
			probes = append(probes, &Similarity{Metric: Metric(m), Min: 0.5, Against: a})
		}
	}
	f.Fuzz(func(t *testing.T, content, ref1, ref2 string) {
		refs := answers(ref1, ref2)
		for _, p := range probes {
			// Call the probe directly: probe.Instance.Evaluate would hide a panic.
			res := p.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{Content: content}, References: refs})
			if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 {
				t.Fatalf("%+v on %q: score %v, want a value in [0,1]", p, content, res.Score)
			}
			if res.Passed != (res.Score >= 0.5) || res.Details == "" {
				t.Errorf("%+v on %q: passed %v with score %v and details %q", p, content, res.Passed, res.Score, res.Details)
			}
		}
	})
}

// slowScore computes a metric the obvious way: words with strings and a
// map, the LCS by dynamic programming, chrF with string n-grams.
func slowScore(m Metric, a, b string) float64 {
	if m == ChrF {
		return chrfManual(a, b)
	}
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
		})
	}
	wa, wb := split(a), split(b)
	if m == TokenF1 {
		count := map[string]int{}
		for _, w := range wb {
			count[w]++
		}
		c := 0
		for _, w := range wa {
			if count[w] > 0 {
				count[w]--
				c++
			}
		}
		return f1(c, len(wa), len(wb))
	}
	ids := map[string]int32{}
	id := func(ws []string) []int32 {
		out := make([]int32, len(ws))
		for i, w := range ws {
			if _, ok := ids[w]; !ok {
				ids[w] = int32(len(ids))
			}
			out[i] = ids[w]
		}
		return out
	}
	return f1(text.LCS(id(wa), id(wb)), len(wa), len(wb))
}
