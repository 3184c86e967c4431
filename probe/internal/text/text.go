// Package text holds the small text routines the built-in probes share:
// fence stripping, word splitting, pattern counting and previews.
package text

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary/internal/textcut"
)

// StripFences removes a Markdown code fence around content: when the
// trimmed content starts with three backticks its first line is dropped, and
// the last line too when that line, trimmed, is exactly three backticks.
func StripFences(content string) string {
	s := strings.TrimSpace(content)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	// The lines after the first, joined again, are the text after the
	// first newline: a substring, so nothing is copied.
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return ""
	}
	rest := s[i+1:]
	j := strings.LastIndexByte(rest, '\n')
	if strings.TrimSpace(rest[j+1:]) == "```" {
		rest = rest[:max(j, 0)]
	}
	return strings.TrimSpace(rest)
}

// WordCount is the number of words in s: runs of non-whitespace.
func WordCount(s string) int { return len(strings.Fields(s)) }

// Count returns the number of non-overlapping matches of all patterns in s.
func Count(s string, patterns []*regexp.Regexp) int {
	n := 0
	for _, re := range patterns {
		n += len(re.FindAllStringIndex(s, -1))
	}
	return n
}

// Compile compiles each pattern with the given flag prefix (for example
// "(?i)" or "(?im)"), panicking on a bad pattern: the patterns are constants.
func Compile(flags string, patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(flags + p)
	}
	return out
}

// Preview returns the first n characters (code points) of s. It reads no
// further than the n+1th character.
func Preview(s string, n int) string {
	return textcut.Runes(s, n, "")
}

// QuoteList joins the first most of values, each as quote renders it, with
// ", ", and counts the rest: `"a", "b" and 3 more`.
func QuoteList(values []string, most int, quote func(string) string) string {
	var b strings.Builder
	for i, v := range values {
		if i == most {
			b.WriteString(" and " + strconv.Itoa(len(values)-most) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(v))
	}
	return b.String()
}
