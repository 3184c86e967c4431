package reasoning

import (
	"regexp"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// equivalenceSeeds hold the edges of the patterns: case, separators, fold
// characters, overlapping numbered lines, words inside longer words.
var equivalenceSeeds = []string{
	"", "I think I BELIEVE i'm not sure; perhaps Maybe might could be", "mighty likelihood seemingly unlikely",
	"it's possible, uncertain unsure not entirely tend to tends to TENDS  to generally seem seems appear appears suggest suggests",
	"I\u2019m not sure", "Step 1 STEP   12 step\t3 steps 4 misstep 5 Step\v6 Step\n\n7",
	"1.\n2. x\n3.  y\n4.\n\n\n5 6. z\n10. a\r\n11. _b\n12.!", "First, firstly: Firstl, second, Secondly: third, thirdly; finally, Next: then, then",
	"Let's start let us begin LET'S THINK let us consider let me think let me work let me break let's go to start to begin To solve",
	"<thinking> <THINKING> < thinking> <thinking > <thinkings>", "ſtep 1 xſtep 2 thinKing", "liKely thin\u212aing <thin\u212aing> brea\u212a let me brea\u212a", "Let me brea\u212a it", "\xff\xfeStep 1\xff",
	"please see a professional, pleased good bad failure failures fail_ 1good good1",
}

// FuzzPhrasesMatchRegexps checks that the keyword matchers count exactly
// what the spec's regexps count, on any text without fold characters.
func FuzzPhrasesMatchRegexps(f *testing.F) {
	for _, s := range equivalenceSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCounts(t, s)
	})
}

// TestPhrasesMatchRegexps runs the fuzz seeds, each also upper-cased,
// doubled and with its spaces turned into line breaks.
func TestPhrasesMatchRegexps(t *testing.T) {
	for _, s := range equivalenceSeeds {
		for _, v := range []string{s, strings.ToUpper(s), s + "\n" + s, strings.ReplaceAll(s, " ", "\n")} {
			checkCounts(t, v)
		}
	}
}

func checkCounts(t *testing.T, s string) {
	t.Helper()
	a := text.Analyze(s)
	defer a.Release()
	if a.Folds() {
		return // the probes use the regexps on such text
	}
	counts := []struct {
		name     string
		got      int
		patterns []*regexp.Regexp
	}{
		{"hedges", countPhrases(a, hedgePhrases), hedgePatterns},
		{"steps", countSteps(a), stepPatterns},
		{"positive", countWords(a, positiveWords), positivePatterns},
		{"negative", countWords(a, negativeWords), negativePatterns},
	}
	for _, c := range counts {
		if want := text.Count(s, c.patterns); c.got != want {
			t.Errorf("%s in %q: got %d, want %d (regexps)", c.name, s, c.got, want)
		}
	}
	opening := strings.TrimSpace(text.Preview(s, 80))
	want := false
	for _, re := range preamblePatterns {
		want = want || re.MatchString(opening)
	}
	if got := hasPreamble(opening); got != want {
		t.Errorf("preamble in %q: got %v, want %v (regexps)", opening, got, want)
	}
	if got, want := a.Fields(), len(strings.Fields(s)); got != want {
		t.Errorf("fields of %q: got %d, want %d", s, got, want)
	}
}

// countWords counts the hits of set's words.
func countWords(a *text.Analysis, set text.WordSet) int {
	n := 0
	for _, h := range a.Hits() {
		if set.Has(h.Word) {
			n++
		}
	}
	return n
}
