package tooluse

import (
	"strings"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// The text patterns of the tool-use probes, matched by hand: each function
// below finds exactly what its regexp (presencePatterns, namePatterns,
// argKeyPattern) finds, on content without a character that (?i) regexps
// fold to an ASCII letter (ſ, the Kelvin sign; text.HasFolds), where the
// case-insensitive patterns fall back to their regexps. Every pattern
// starts with a quote or an angle bracket (or the word "function"), so a
// search jumps from one to the next with strings.IndexByte, and none of
// them ever needs to backtrack: each step of a pattern is decided by the
// next character. FuzzTextPatterns checks them against the regexps.

// hasCallPattern reports whether content matches one of presencePatterns.
func hasCallPattern(s string) bool {
	for i := strings.IndexByte(s, '"'); i >= 0; i = next(s, i, '"') {
		t := s[i:]
		switch {
		case text.HasPrefixFold(t, `"function"`):
			// "function"\s*:\s*"
			if j, ok := colon(t, len(`"function"`)); ok && j < len(t) && t[j] == '"' {
				return true
			}
		case text.HasPrefixFold(t, `"tool_calls"`):
			// "tool_calls"\s*:\s*\[
			if j, ok := colon(t, len(`"tool_calls"`)); ok && j < len(t) && t[j] == '[' {
				return true
			}
		case text.HasPrefixFold(t, `"name"`):
			// "name"\s*:\s*"\w+"\s*,\s*"arguments"
			j, ok := colon(t, len(`"name"`))
			if !ok || j >= len(t) || t[j] != '"' {
				continue
			}
			k := wordEnd(t, j+1)
			if k == j+1 || k >= len(t) || t[k] != '"' {
				continue
			}
			k = skipSpace(t, k+1)
			if k < len(t) && t[k] == ',' && text.HasPrefixFold(t[skipSpace(t, k+1):], `"arguments"`) {
				return true
			}
		}
	}
	for i := strings.IndexByte(s, '<'); i >= 0; i = next(s, i, '<') {
		if text.HasPrefixFold(s[i:], "<tool_call>") || text.HasPrefixFold(s[i:], "<function_calls>") {
			return true
		}
	}
	// \bfunctions?\.\w+\(
	for i := indexFold(s, 0, "function"); i >= 0; i = indexFold(s, i+1, "function") {
		if i > 0 && text.IsWordByte(s[i-1]) {
			continue
		}
		j := i + len("function")
		if j < len(s) && (s[j] == 's' || s[j] == 'S') && j+1 < len(s) && s[j+1] == '.' {
			j++
		}
		if j >= len(s) || s[j] != '.' {
			continue
		}
		if k := wordEnd(s, j+1); k > j+1 && k < len(s) && s[k] == '(' {
			return true
		}
	}
	return false
}

// appendTextNames appends the captures of namePatterns, all of the first
// pattern's then all of the second's, trimmed, the empty ones left out.
func appendTextNames(names []string, s string) []string {
	// "(?:function|name)"\s*:\s*"([^"]+)"
	for i := strings.IndexByte(s, '"'); i >= 0; {
		t := s[i:]
		var j int
		switch {
		case text.HasPrefixFold(t, `"function"`):
			j = len(`"function"`)
		case text.HasPrefixFold(t, `"name"`):
			j = len(`"name"`)
		default:
			i = next(s, i, '"')
			continue
		}
		j, ok := colon(t, j)
		if ok && j < len(t) && t[j] == '"' {
			if k := strings.IndexByte(t[j+1:], '"'); k > 0 {
				if n := strings.TrimSpace(t[j+1 : j+1+k]); n != "" {
					names = append(names, n)
				}
				i = next(s, i+j+1+k, '"')
				continue
			}
		}
		i = next(s, i, '"')
	}
	// <function_calls>\s*<invoke>\s*<tool_name>([^<]+)</tool_name>
	for i := strings.IndexByte(s, '<'); i >= 0; {
		t := s[i:]
		if j, ok := tags(t, "<function_calls>", "<invoke>", "<tool_name>"); ok {
			if k := strings.IndexByte(t[j:], '<'); k > 0 && text.HasPrefixFold(t[j+k:], "</tool_name>") {
				if n := strings.TrimSpace(t[j : j+k]); n != "" {
					names = append(names, n)
				}
				i = next(s, i+j+k+len("</tool_name>")-1, '<')
				continue
			}
		}
		i = next(s, i, '<')
	}
	return names
}

// appendTextKeys appends the captures of argKeyPattern that are not
// structural keys: "(\w+)"\s*:\s*(?:"[^"]*"|\d+|true|false|\[|\{), case
// and all (the pattern is case-sensitive).
func appendTextKeys(keys []string, s string) []string {
	for i := strings.IndexByte(s, '"'); i >= 0; {
		k := wordEnd(s, i+1)
		if k == i+1 || k >= len(s) || s[k] != '"' {
			i = next(s, i, '"')
			continue
		}
		j, ok := colon(s, k+1)
		end := -1
		if ok && j < len(s) {
			switch c := s[j]; {
			case c == '"':
				if q := strings.IndexByte(s[j+1:], '"'); q >= 0 {
					end = j + 1 + q + 1
				}
			case '0' <= c && c <= '9':
				end = j + 1
				for end < len(s) && '0' <= s[end] && s[end] <= '9' {
					end++
				}
			case c == '[' || c == '{':
				end = j + 1
			case strings.HasPrefix(s[j:], "true"):
				end = j + len("true")
			case strings.HasPrefix(s[j:], "false"):
				end = j + len("false")
			}
		}
		if end < 0 {
			i = next(s, i, '"')
			continue
		}
		if key := s[i+1 : k]; !structuralKeys[key] {
			keys = append(keys, key)
		}
		i = next(s, end-1, '"')
	}
	return keys
}

// next returns the index of the first c in s after i, or -1.
func next(s string, i int, c byte) int {
	if j := strings.IndexByte(s[i+1:], c); j >= 0 {
		return i + 1 + j
	}
	return -1
}

// skipSpace returns the end of the run of \s ([\t\n\f\r ]) at s[j:].
func skipSpace(s string, j int) int {
	j, _ = text.SkipSpace(s, j)
	return j
}

// colon matches \s*:\s* at s[j:] and returns its end.
func colon(s string, j int) (int, bool) {
	j = skipSpace(s, j)
	if j >= len(s) || s[j] != ':' {
		return 0, false
	}
	return skipSpace(s, j+1), true
}

// wordEnd returns the end of the run of \w ([0-9A-Za-z_]) at s[j:].
func wordEnd(s string, j int) int {
	for j < len(s) && text.IsWordByte(s[j]) {
		j++
	}
	return j
}

// tags matches its arguments, lowercase, at s up to ASCII case, with \s*
// between them, and returns the end of the match.
func tags(s string, tags ...string) (int, bool) {
	j := 0
	for n, tag := range tags {
		if n > 0 {
			j = skipSpace(s, j)
		}
		if !text.HasPrefixFold(s[j:], tag) {
			return 0, false
		}
		j += len(tag)
	}
	return j, true
}

// indexFold returns the index of the first occurrence at or after from of
// lower, a lowercase ASCII word, in s up to ASCII case, or -1. It finds the
// candidates with strings.IndexByte, one stream for each case of the first
// letter.
func indexFold(s string, from int, lower string) int {
	lo, up := lower[0], lower[0]-'a'+'A'
	nextLo, nextUp := indexByteFrom(s, from, lo), indexByteFrom(s, from, up)
	for {
		i := min(nextLo, nextUp)
		if i < 0 {
			i = max(nextLo, nextUp)
		}
		if i < 0 || i+len(lower) > len(s) {
			return -1
		}
		if text.HasPrefixFold(s[i:], lower) {
			return i
		}
		if i == nextLo {
			nextLo = indexByteFrom(s, i+1, lo)
		} else {
			nextUp = indexByteFrom(s, i+1, up)
		}
	}
}

// indexByteFrom returns the index of the first c in s at or after from,
// or -1.
func indexByteFrom(s string, from int, c byte) int {
	if from >= len(s) {
		return -1
	}
	if j := strings.IndexByte(s[from:], c); j >= 0 {
		return from + j
	}
	return -1
}
