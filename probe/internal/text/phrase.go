package text

import "strings"

// Phrase is a case-insensitive pattern that starts with a whole keyword:
// the equivalent, over an Analysis, of a (?i) regexp of the form
// \bword(alternatives)(alternatives)…end. Matching it at the hits of its
// keyword finds the regexp's matches without running the regexp: each
// match of such a regexp starts at a word start, which is where a hit is.
type Phrase struct {
	// First is the keyword the phrase starts with.
	First Word
	// Steps follow the keyword, in order.
	Steps []Step
	// End is what must follow the last step.
	End End
}

// Step is one element of a Phrase after its keyword: literal alternatives
// (lowercase, tried in order as a regexp's alternation is, "" for an
// optional group), or a function that matches at s[j:] and returns where
// its match ends.
type Step struct {
	Alts []string
	Func func(s string, j int) (int, bool)
}

// Lits is a Step of literal alternatives.
func Lits(alts ...string) Step { return Step{Alts: alts} }

// End is the condition after a phrase.
type End uint8

// The ends of a phrase.
const (
	// EndNone requires nothing.
	EndNone End = iota
	// EndWord is a regexp's \b after a word character: the end of the
	// text or a non-word character follows.
	EndWord
	// EndPunct is [,:], one character that belongs to the match.
	EndPunct
	// EndColonSpace is [:\s] (\s being [\t\n\f\r ]), one character that
	// belongs to the match.
	EndColonSpace
)

// NewPhrase returns the phrase starting with keyword first (interned).
func NewPhrase(first string, end End, steps ...Step) Phrase {
	return Phrase{First: Intern(first), Steps: steps, End: end}
}

// MatchAt matches p at hit h of s, which must be a hit of p.First, and
// returns the end of the match, the one a (?i) regexp's leftmost-first
// search would report at h.Start.
func (p *Phrase) MatchAt(s string, h Hit) (end int, ok bool) {
	return p.match(s, 0, int(h.End))
}

func (p *Phrase) match(s string, step, j int) (int, bool) {
	if step == len(p.Steps) {
		return p.End.match(s, j)
	}
	st := &p.Steps[step]
	if st.Func != nil {
		e, ok := st.Func(s, j)
		if !ok {
			return 0, false
		}
		return p.match(s, step+1, e)
	}
	for _, alt := range st.Alts {
		if HasPrefixFold(s[j:], alt) {
			if e, ok := p.match(s, step+1, j+len(alt)); ok {
				return e, true
			}
		}
	}
	return 0, false
}

func (e End) match(s string, j int) (int, bool) {
	switch e {
	case EndWord:
		return j, j == len(s) || !IsWordByte(s[j])
	case EndPunct:
		if j < len(s) && (s[j] == ',' || s[j] == ':') {
			return j + 1, true
		}
		return 0, false
	case EndColonSpace:
		if j < len(s) && (s[j] == ':' || IsRegexpSpace(s[j])) {
			return j + 1, true
		}
		return 0, false
	}
	return j, true
}

// IsRegexpSpace reports whether b is in a regexp's \s, [\t\n\f\r ] (no \v).
func IsRegexpSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// SkipSpace returns the end of the run of \s characters at s[j:] and
// whether the run is not empty, as \s+ matches.
func SkipSpace(s string, j int) (int, bool) {
	i := j
	for i < len(s) && IsRegexpSpace(s[i]) {
		i++
	}
	return i, i > j
}

// SkipDigits returns the end of the run of ASCII digits at s[j:] and
// whether the run is not empty, as \d+ matches.
func SkipDigits(s string, j int) (int, bool) {
	i := j
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i, i > j
}

// WordSet is a set of keywords.
type WordSet struct{ bits []uint64 }

// NewWordSet interns words and returns their set.
func NewWordSet(words ...string) WordSet {
	var s WordSet
	for _, w := range words {
		id := Intern(w)
		for int(id/64) >= len(s.bits) {
			s.bits = append(s.bits, 0)
		}
		s.bits[id/64] |= 1 << (id % 64)
	}
	return s
}

// Has reports whether w is in s.
func (s WordSet) Has(w Word) bool {
	i := int(w / 64)
	return i < len(s.bits) && s.bits[i]&(1<<(w%64)) != 0
}

// PhraseSet indexes the phrases of a list of patterns by their first
// keyword.
type PhraseSet struct{ by [][]PhraseRef }

// PhraseRef is a phrase and the index of the pattern it belongs to.
type PhraseRef struct {
	Phrase  *Phrase
	Pattern int
}

// NewPhraseSet indexes patterns, patterns[i] holding the phrases that
// together match what pattern i matches.
func NewPhraseSet(patterns ...[]Phrase) *PhraseSet {
	ps := &PhraseSet{}
	for i, phrases := range patterns {
		for j := range phrases {
			p := &phrases[j]
			for int(p.First) >= len(ps.by) {
				ps.by = append(ps.by, nil)
			}
			ps.by[p.First] = append(ps.by[p.First], PhraseRef{Phrase: p, Pattern: i})
		}
	}
	return ps
}

// At returns the phrases that start with keyword w.
func (ps *PhraseSet) At(w Word) []PhraseRef {
	if int(w) < len(ps.by) {
		return ps.by[w]
	}
	return nil
}

// HasFolds reports whether s holds ſ or the Kelvin sign, which (?i)
// regexps fold to s and k (see Analysis.Folds).
func HasFolds(s string) bool {
	i := 0
	for i+8 <= len(s) && load64(s, i)&high == 0 {
		i += 8 // ASCII
	}
	for ; i < len(s); i++ {
		if s[i] >= 0xC5 {
			return strings.Contains(s[i:], "\u017f") || strings.Contains(s[i:], "\u212a")
		}
	}
	return false
}
