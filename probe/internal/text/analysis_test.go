package text

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var analysisSeeds = []string{"", "a", "  Hello,\tworld\v!\u00a0x\u3000y\u2028z", "\xff\xfe ab\xc3", "ſtep K", "Great_1 great GREAT",
	"İstanbul ΣΑΣ", "thinking <thinking>"}

// FuzzAnalysis checks the analysis against the standard library: field and
// character counts, lowercasing, fold detection and hits.
func FuzzAnalysis(f *testing.F) {
	for _, s := range analysisSeeds {
		f.Add(s)
	}
	f.Fuzz(checkAnalysis)
}

// "great" is a keyword of the tests; the others are edge cases of the
// keyword table: one character, a digit and an underscore, the longest.
var (
	_ = Intern("great")
	_ = Intern("i")
	_ = Intern("a_1")
	_ = Intern("professional")
	_ = Intern("x0123456789abcde")
)

// wantHits is the reference for Hits: every maximal run of ASCII word
// characters whose lowercase is a keyword.
func wantHits(s string) []Hit {
	var out []Hit
	for i := 0; i < len(s); {
		if !IsWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && IsWordByte(s[j]) {
			j++
		}
		if w, ok := kwIDs[strings.ToLower(s[i:j])]; ok {
			out = append(out, Hit{Start: int32(i), End: int32(j), Word: w})
		}
		i = j
	}
	return out
}

// TestAnalysisLong checks texts long enough for the 64-byte blocks: words
// across block edges, non-ASCII characters in some blocks, words longer
// than a block.
func TestAnalysisLong(t *testing.T) {
	pieces := []string{"great", "GREAT", "Great", "i", "I", "a_1", "A_1", "professional", "PROFESSIONAL", "x0123456789ABCDE",
		"x0123456789abcdef", "greatness", "the", " ", " ", "  ", "\n", "\t", "\v", "\r\n", ",", ".", "_", "9", "é", "’", "\u00a0",
		"\u3000", "ſ", "\u212a", "\xff", "\xe2\x80", "-", strings.Repeat("w", 70), strings.Repeat("great", 20)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for n := rng.IntN(300); b.Len() < n; {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		checkAnalysis(t, b.String())
	}
}

func checkAnalysis(t *testing.T, s string) {
	t.Helper()
	a := Analyze(s)
	defer a.Release()
	if got, want := a.Fields(), len(strings.Fields(s)); got != want {
		t.Errorf("Fields(%q): got %d, want %d", s, got, want)
	}
	if got, want := a.Runes(), utf8.RuneCountInString(s); got != want {
		t.Errorf("Runes(%q): got %d, want %d", s, got, want)
	}
	if got, want := a.Lower(), strings.ToLower(s); got != want {
		t.Errorf("Lower(%q): got %q, want %q", s, got, want)
	}
	if got, want := a.Folds(), strings.ContainsAny(s, "ſ\u212a"); got != want {
		t.Errorf("Folds(%q): got %v, want %v", s, got, want)
	}
	if got, want := HasFolds(s), a.Folds(); got != want {
		t.Errorf("HasFolds(%q): got %v, want %v", s, got, want)
	}
	if got, want := a.Hits(), wantHits(s); !slices.Equal(got, want) {
		t.Errorf("Hits(%q):\ngot  %v\nwant %v", s, got, want)
	}
	// A fresh analysis asked for its hits first agrees.
	var f Analysis
	f.reset(s)
	if f.Hits(); f.Fields() != a.Fields() || f.Runes() != a.Runes() || f.Folds() != a.Folds() || f.Lower() != a.Lower() {
		t.Errorf("analysis of %q built before counted: fields %d, runes %d, folds %v; counted first: %d, %d, %v",
			s, f.Fields(), f.Runes(), f.Folds(), a.Fields(), a.Runes(), a.Folds())
	}
	// The same content again is the cached analysis, and still right.
	b := Analyze(s)
	if b.Fields() != a.Fields() || len(b.Hits()) != len(a.Hits()) {
		t.Errorf("second Analyze(%q) differs", s)
	}
	b.Release()
}
