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
