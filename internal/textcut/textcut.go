// Package textcut cuts strings to a length, in runes or in bytes, never
// inside a UTF-8 sequence, with an optional mark that something was cut.
//
// A byte that is not part of a valid UTF-8 sequence counts as one rune and
// is kept as it is, as a range over the string would see it.
package textcut

import "unicode/utf8"

// Ellipsis is the mark appended by the functions here when a string is cut
// and the caller asks for a mark.
const Ellipsis = "…"

// Runes returns s cut to its first n runes, followed by mark when anything
// was cut; s itself when it has at most n runes. A negative n keeps s.
func Runes(s string, n int, mark string) string {
	if len(s) <= n || n < 0 {
		return s // a rune is at least one byte
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + mark
		}
		i++
	}
	return s
}

// Bytes returns s cut to at most n bytes at a rune boundary, followed by
// mark when anything was cut; s itself when it has at most n bytes. Bytes
// of a sequence that would be split are dropped, so the cut part may be up
// to three bytes shorter than n.
func Bytes(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}
