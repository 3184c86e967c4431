package match

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Case-insensitive matching here means: compare strings.ToLower of the
// response with strings.ToLower of the value, as keyword_presence and the
// original tool do. The functions below give exactly that answer without
// lower-casing the response, which would copy it on every evaluation: they
// walk the response rune by rune, lower-case each rune with unicode.ToLower
// (as strings.ToLower does, an invalid byte being U+FFFD) and compare it with
// the value, lower-cased once when the probe is built.

// lowerOutsideFold lists the runes whose lower case lies outside their
// Unicode simple-folding orbit (unicode.SimpleFold), so that startBytes
// cannot find them by walking the orbit. TestLowerOutsideFold checks the
// list against every rune.
var lowerOutsideFold = []rune{
	'\u0130', // İ lowers to i, but folds to nothing
}

// maxStarts is the most first bytes a needle's search tracks with
// strings.IndexByte; a needle with more is searched rune by rune.
const maxStarts = 4

// folded is a value prepared for case-insensitive search.
type folded struct {
	// low is strings.ToLower of the value: valid UTF-8, never empty.
	low string
	// starts are the distinct first bytes of every rune whose lower case
	// is low's first rune; nil when there are more than maxStarts (or the
	// first rune is U+FFFD, which any invalid byte lowers to).
	starts []byte
}

// newFolded prepares the non-empty value v.
func newFolded(v string) folded {
	f := folded{low: strings.ToLower(v)}
	f.starts = startBytes(f.low)
	return f
}

// startBytes returns the first bytes of the runes that lower to low's first
// rune, or nil when there are more than maxStarts.
func startBytes(low string) []byte {
	q, _ := utf8.DecodeRuneInString(low)
	if q == utf8.RuneError {
		return nil
	}
	var out []byte
	add := func(r rune) {
		if unicode.ToLower(r) != q {
			return
		}
		var buf [utf8.UTFMax]byte
		utf8.EncodeRune(buf[:], r)
		if !containsByte(out, buf[0]) {
			out = append(out, buf[0])
		}
	}
	add(q)
	for r := unicode.SimpleFold(q); r != q; r = unicode.SimpleFold(r) {
		add(r)
	}
	for _, r := range lowerOutsideFold {
		add(r)
	}
	if len(out) > maxStarts {
		return nil
	}
	return out
}

func containsByte(bs []byte, b byte) bool {
	for _, c := range bs {
		if c == b {
			return true
		}
	}
	return false
}

// lowerPrefix reports whether strings.ToLower(s) starts with low (a
// lower-cased value) and returns how many bytes of s that prefix spans.
func lowerPrefix(s, low string) (int, bool) {
	i, j := 0, 0
	for j < len(low) {
		if i >= len(s) {
			return 0, false
		}
		c, d := s[i], low[j]
		if c < utf8.RuneSelf && d < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != d {
				return 0, false
			}
			i++
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		q, m := utf8.DecodeRuneInString(low[j:])
		if unicode.ToLower(r) != q {
			return 0, false
		}
		i += n
		j += m
	}
	return i, true
}

// hasLowerPrefix reports whether strings.ToLower(s) starts with low.
func hasLowerPrefix(s, low string) bool {
	_, ok := lowerPrefix(s, low)
	return ok
}

// equalLower reports whether strings.ToLower(s) == low.
func equalLower(s, low string) bool {
	n, ok := lowerPrefix(s, low)
	return ok && n == len(s)
}

// hasLowerSuffix reports whether strings.ToLower(s) ends with low.
func hasLowerSuffix(s, low string) bool {
	i, j := len(s), len(low)
	for j > 0 {
		if i == 0 {
			return false
		}
		c, d := s[i-1], low[j-1]
		if c < utf8.RuneSelf && d < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != d {
				return false
			}
			i--
			j--
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s[:i])
		q, m := utf8.DecodeLastRuneInString(low[:j])
		if unicode.ToLower(r) != q {
			return false
		}
		i -= n
		j -= m
	}
	return true
}

// containsLower reports whether strings.ToLower(s) contains f.low. It
// finds candidate positions with strings.IndexByte on each possible first
// byte, so it scans s at memchr speed and allocates nothing.
func containsLower(s string, f *folded) bool {
	if len(f.starts) == 0 {
		for i := 0; i < len(s); {
			if hasLowerPrefix(s[i:], f.low) {
				return true
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
		}
		return false
	}
	// next[k] is the next position of f.starts[k] at or after the last
	// candidate, len(s) when there is none. A start byte is never a UTF-8
	// continuation byte, so every candidate is a rune boundary.
	var next [maxStarts]int
	for k, b := range f.starts {
		next[k] = indexByteFrom(s, 0, b)
	}
	for {
		k := 0
		for x := 1; x < len(f.starts); x++ {
			if next[x] < next[k] {
				k = x
			}
		}
		p := next[k]
		if p >= len(s) {
			return false
		}
		if hasLowerPrefix(s[p:], f.low) {
			return true
		}
		next[k] = indexByteFrom(s, p+1, f.starts[k])
	}
}

// indexByteFrom is the index of b in s at or after from, or len(s).
func indexByteFrom(s string, from int, b byte) int {
	if from >= len(s) {
		return len(s)
	}
	if i := strings.IndexByte(s[from:], b); i >= 0 {
		return from + i
	}
	return len(s)
}
