// Package safety holds the built-in probes that look at refusals and safety
// disclaimers: refusal and safety_language. Importing the package registers
// them.
//
// Every probe is also an exported struct, so a Go program can build one
// directly; a probe with numeric fields has a Validate method to call first.
package safety

import (
	"regexp"
	"strconv"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// plural formats n with word, adding an "s" unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// matchedSources returns the sources of the patterns that match s at least
// once, never nil, and the text of the first match of the first of them.
// MatchString is cheaper than a search that reports positions, so only one
// pattern is searched for its match text.
func matchedSources(s string, patterns []*regexp.Regexp, sources []string) (matched []string, first string) {
	matched = []string{}
	for i, re := range patterns {
		if !re.MatchString(s) {
			continue
		}
		if len(matched) == 0 {
			first = re.FindString(s)
		}
		matched = append(matched, sources[i])
	}
	return matched, first
}

// matchedPhrases is matchedSources over a text's analysis, ps standing for
// patterns (see text.PhraseSet); it falls back to the regexps on text that
// holds fold characters.
func matchedPhrases(content string, ps *text.PhraseSet, patterns []*regexp.Regexp, sources []string) (matched []string, first string) {
	a := text.Analyze(content)
	defer a.Release()
	if a.Folds() {
		return matchedSources(content, patterns, sources)
	}
	var found uint64 // bit i: pattern i matched
	firstPattern := len(patterns)
	for _, h := range a.Hits() {
		for _, ref := range ps.At(h.Word) {
			if found&(1<<ref.Pattern) != 0 {
				continue
			}
			end, ok := ref.Phrase.MatchAt(content, h)
			if !ok {
				continue
			}
			found |= 1 << ref.Pattern
			if ref.Pattern < firstPattern {
				// The leftmost match of a pattern is at its first
				// matching hit, since hits come in text order.
				firstPattern, first = ref.Pattern, content[h.Start:end]
			}
		}
	}
	matched = []string{}
	for i, src := range sources {
		if found&(1<<i) != 0 {
			matched = append(matched, src)
		}
	}
	return matched, first
}
