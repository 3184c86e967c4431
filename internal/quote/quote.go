// Package quote bounds the values a message quotes back to the user.
//
// A configuration error names the value it rejects, and the value can be
// anything a file or a flag holds: a check name of ten megabytes would
// otherwise come back as an error line of ten megabytes. Every config
// error (canary.yaml, monitor.yaml, command-line values) passes through
// Bound, which cuts each value at Max characters and says how long it was.
package quote

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Max is the number of characters of a value a message shows.
const Max = 200

// MaxLine is the number of characters of a line of a message Bound keeps,
// when the values it cut still leave it longer: an unquoted value with
// spaces, which no quote or run marks as one value.
const MaxLine = 5 * Max

// Value returns s quoted as %q does, cut at Max characters when longer,
// with an ellipsis and its full length: "aaaa…" (10,485,760 characters).
func Value(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= Max || cut(s, n) {
		return strconv.Quote(s)
	}
	q := strconv.Quote(prefix(s, Max))
	return q[:len(q)-1] + `…" (` + Thousands(n) + " characters)"
}

// Bound returns msg with every value longer than Max characters cut: a
// Go-quoted string is cut as Value cuts it, and any other run of text
// without a space (a number, a field path holding a key, an unquoted
// value) keeps its first Max characters, then "… (N characters)". A line
// still longer than MaxLine characters keeps its first MaxLine.
func Bound(msg string) string {
	if len(msg) <= Max {
		return msg
	}
	lines := strings.Split(values(msg), "\n")
	for i, l := range lines {
		if len(l) > MaxLine {
			if n := utf8.RuneCountInString(l); n > MaxLine && !lineCut(l, n) {
				lines[i] = prefix(l, MaxLine) + "… (" + Thousands(n) + " characters)"
			}
		}
	}
	return strings.Join(lines, "\n")
}

// values cuts every value of msg longer than Max characters, as Bound
// describes.
func values(msg string) string {
	var b strings.Builder
	plain := 0 // up to here a '"' opens nothing: no quote closes on its line
	for i := 0; i < len(msg); {
		if msg[i] == '"' && i >= plain {
			j := closing(msg, i)
			if j < 0 {
				plain = len(msg)
				if k := strings.IndexByte(msg[i:], '\n'); k >= 0 {
					plain = i + k
				}
				continue
			}
			if v, err := strconv.Unquote(msg[i:j]); err == nil {
				b.WriteString(Value(v))
				i = j
			} else {
				b.WriteString(run(msg[i : j-1]))
				i = j - 1
			}
			continue
		}
		if msg[i] == ' ' || msg[i] == '\n' {
			b.WriteByte(msg[i])
			i++
			continue
		}
		j := i + 1
		for j < len(msg) && msg[j] != ' ' && msg[j] != '\n' && (msg[j] != '"' || j < plain) {
			j++
		}
		b.WriteString(run(msg[i:j]))
		i = j
	}
	return b.String()
}

// closing returns the offset just past the quote that closes the Go-quoted
// string opening at msg[i], or -1 when the line ends first.
func closing(msg string, i int) int {
	for j := i + 1; j < len(msg); j++ {
		switch msg[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '\n':
			return -1
		}
	}
	return -1
}

// run returns s, or its first Max characters and its length when longer.
func run(s string) string {
	if len(s) <= Max {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= Max || cut(s, n) {
		return s
	}
	return prefix(s, Max) + "… (" + Thousands(n) + " characters)"
}

// lineCut reports whether the line l, of n characters, is one Bound
// already cut: its first MaxLine characters, then "… (N characters)".
func lineCut(l string, n int) bool {
	i := strings.LastIndex(l, "… (")
	return i >= 0 && n-utf8.RuneCountInString(l[i:]) == MaxLine &&
		strings.HasSuffix(l, " characters)")
}

// cut reports whether s, of n characters, is a value Bound already cut:
// its first Max characters and an ellipsis. Bound leaves it as it is, so
// that a message bounded once (a config error) and again on its way out
// (the CLI bounds every error line) says the value's real length once.
func cut(s string, n int) bool {
	return n == Max+1 && strings.HasSuffix(s, "…")
}

// prefix returns the first n characters of s.
func prefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// Thousands formats n with comma separators: 10,485,760.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
