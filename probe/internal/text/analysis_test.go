package text

import (
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
	f.Fuzz(func(t *testing.T, s string) { checkAnalysis(t, s) })
}

func TestAnalysis(t *testing.T) {
	for _, s := range analysisSeeds {
		checkAnalysis(t, s)
	}
}

// great is a keyword of the tests.
var great = Intern("great")

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
	for _, h := range a.Hits() {
		if h.Word == great && !EqualFold(s[h.Start:h.End], "great") {
			t.Errorf("hit %q in %q: want great", s[h.Start:h.End], s)
		}
		if (h.Start > 0 && IsWordByte(s[h.Start-1])) || (int(h.End) < len(s) && IsWordByte(s[h.End])) {
			t.Errorf("hit %q in %q is not a whole word", s[h.Start:h.End], s)
		}
	}
	// The same content again is the cached analysis, and still right.
	b := Analyze(s)
	if b.Fields() != a.Fields() || len(b.Hits()) != len(a.Hits()) {
		t.Errorf("second Analyze(%q) differs", s)
	}
	b.Release()
}
