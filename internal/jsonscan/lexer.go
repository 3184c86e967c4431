// Package jsonscan reads JSON text without encoding/json's reflection, for
// the hot paths that meet a lot of it: the compact store's rows, replay
// lines and the probes' reading of model output. It is the module's one
// JSON scanner; every function agrees with encoding/json (FuzzScan holds
// it to that):
//
//   - Scan validates a text exactly as json.Valid does, reporting the kind
//     of its value and, to a visitor, its object keys as it meets them.
//   - Lexer reads the tokens of a text one at a time, checking each, for a
//     caller that decodes a known shape and gives up on anything else.
//   - ValueEnd, StringEnd, NumberEnd, SpaceEnd, Elements and Members find
//     their way through a text already known to be valid, without checking
//     it again.
//   - Unquote decodes a string literal's body as encoding/json does.
//
// Positions are byte offsets into the text. The functions take a string
// or a byte slice alike (Text), so that neither is copied into the other.
package jsonscan

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Text is JSON text: a string or a byte slice.
type Text interface{ ~string | ~[]byte }

// Lexer reads JSON tokens from a text, checking each against the grammar:
// a method that does not find its token where the lexer stands reports
// false. After a false, the position is unspecified.
type Lexer[T Text] struct {
	s T
	i int
}

// NewLexer returns a lexer at the start of s.
func NewLexer[T Text](s T) *Lexer[T] { return &Lexer[T]{s: s} }

// Pos returns the offset of the next byte to read.
func (l *Lexer[T]) Pos() int { return l.i }

// Done reports whether the whole text has been read.
func (l *Lexer[T]) Done() bool { return l.i == len(l.s) }

// Peek returns the next byte, 0 at the end.
func (l *Lexer[T]) Peek() byte {
	if l.i < len(l.s) {
		return l.s[l.i]
	}
	return 0
}

// Space skips JSON white space.
func (l *Lexer[T]) Space() { l.i = SpaceEnd(l.s, l.i) }

// Eat consumes c when it is next.
func (l *Lexer[T]) Eat(c byte) bool {
	if l.i < len(l.s) && l.s[l.i] == c {
		l.i++
		return true
	}
	return false
}

// Word consumes the literal w (true, false or null) when it is next.
func (l *Lexer[T]) Word(w string) bool {
	if len(l.s)-l.i < len(w) {
		return false
	}
	for j := range len(w) {
		if l.s[l.i+j] != w[j] {
			return false
		}
	}
	l.i += len(w)
	return true
}

// Null consumes a null when it is next.
func (l *Lexer[T]) Null() bool { return l.Word("null") }

// StringLit reads a string literal as json.Valid accepts it (escapes
// checked, control characters refused, invalid UTF-8 let through) and
// returns its body, escapes undecoded (see Unquote).
func (l *Lexer[T]) StringLit() (body T, ok bool) {
	s := l.s
	if l.i >= len(s) || s[l.i] != '"' {
		return body, false
	}
	start := l.i + 1
	i := start
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			l.i = i + 1
			return s[start:i], true
		case c == '\\':
			if i+1 >= len(s) {
				return body, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) {
					return body, false
				}
				for j := i + 2; j < i+6; j++ {
					if hexDigit(s[j]) < 0 {
						return body, false
					}
				}
				i += 6
			default:
				return body, false
			}
		case c < 0x20:
			return body, false
		default:
			i++
		}
	}
	return body, false
}

// PlainKey reads a string literal of printable ASCII without escapes, as
// the keys of a known shape are, and returns its body.
func (l *Lexer[T]) PlainKey() (body T, ok bool) {
	if !l.Eat('"') {
		return body, false
	}
	start := l.i
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '"':
			l.i++
			return l.s[start : l.i-1], true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return body, false
		}
		l.i++
	}
	return body, false
}

// String reads a string literal and decodes it as encoding/json does,
// but reports false for one that encoding/json would alter: one holding
// invalid UTF-8 or an unpaired surrogate escape, which it replaces with
// U+FFFD. A caller that must keep encoding/json's replacement decodes the
// literal of StringLit with Unquote.
func (l *Lexer[T]) String() (string, bool) {
	s := l.s
	if l.i >= len(s) || s[l.i] != '"' {
		return "", false
	}
	// The common string is plain ASCII: one copy.
	start := l.i + 1
	j := start
	for j < len(s) && plain[s[j]] {
		j++
	}
	if j < len(s) && s[j] == '"' {
		l.i = j + 1
		return string(s[start:j]), true
	}
	out := make([]byte, j-start, j-start+64)
	copy(out, s[start:j])
	out, end, ok := appendString(out, s, j, true)
	if !ok || end == len(s) {
		return "", false
	}
	l.i = end + 1
	return string(out), true
}

// plain marks the bytes a JSON string holds as they are: printable ASCII
// but the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// NumberLit reads a number literal (the grammar exactly) and returns it.
func (l *Lexer[T]) NumberLit() (lit T, ok bool) {
	s, i := l.s, l.i
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i >= len(s):
		return lit, false
	case s[i] == '0':
		i++
	case '1' <= s[i] && s[i] <= '9':
		i = digitsEnd(s, i)
	default:
		return lit, false
	}
	if i < len(s) && s[i] == '.' {
		d := i + 1
		if i = digitsEnd(s, d); i == d {
			return lit, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		if i = digitsEnd(s, d); i == d {
			return lit, false
		}
	}
	l.i = i
	return s[start:i], true
}

// Number reads a number literal as a float64, false also when it is
// beyond a float64's range (where encoding/json fails too).
func (l *Lexer[T]) Number() (float64, bool) {
	lit, ok := l.NumberLit()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(lit), 64)
	return v, err == nil
}

// Int reads an integer literal (no fraction, no exponent) that fits an
// int of bits bits.
func (l *Lexer[T]) Int(bits int) (int64, bool) {
	lit, ok := l.NumberLit()
	if !ok || !IsInt(lit) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(lit), 10, bits)
	return n, err == nil
}

// Index reads a non-negative integral number no larger than MaxInt32,
// written any way JSON allows (3, 3.0, 3e0), as counts and indexes are
// read into an int.
func (l *Lexer[T]) Index() (int, bool) {
	v, ok := l.Number()
	if !ok || v < 0 || v != math.Trunc(v) || v > math.MaxInt32 {
		return 0, false
	}
	return int(v), true
}

// digitsEnd returns the end of the run of decimal digits at i.
func digitsEnd[T Text](s T, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// hexDigit returns the value of a hex digit, -1 for another byte.
func hexDigit(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// IsNumber reports whether b is exactly one JSON number literal.
func IsNumber[T Text](b T) bool {
	l := Lexer[T]{s: b}
	_, ok := l.NumberLit()
	return ok && l.Done()
}

// IsInt reports whether b is a JSON integer literal: -?(0|[1-9][0-9]*).
func IsInt[T Text](b T) bool {
	i := 0
	if len(b) > 0 && b[0] == '-' {
		i++
	}
	if i == len(b) || b[i] == '0' && len(b) > i+1 {
		return false
	}
	return digitsEnd(b, i) == len(b)
}

// IsSpace reports whether b is only JSON white space.
func IsSpace[T Text](b T) bool { return SpaceEnd(b, 0) == len(b) }

// Unquote decodes the body of a string literal that StringLit accepted
// exactly as encoding/json does: invalid UTF-8 and unpaired surrogates
// become U+FFFD.
func Unquote[T Text](body T) string {
	if !needsDecoding(body) {
		return string(body)
	}
	out, _, _ := appendString(make([]byte, 0, len(body)), body, 0, false)
	return string(out)
}

// appendString decodes the body of a string literal from s[i] up to its
// closing quote (or the end of s) onto out, as encoding/json decodes it,
// and returns the offset of the quote (len(s) when there is none). It
// reports false for a control character or a bad escape and, when
// strict, for invalid UTF-8 or an unpaired surrogate escape, which
// encoding/json replaces with U+FFFD.
func appendString[T Text](out []byte, s T, i int, strict bool) ([]byte, int, bool) {
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return out, i, true
		case c < 0x20:
			return out, i, false
		case c < utf8.RuneSelf && c != '\\':
			// A run of plain ASCII, copied at once.
			j := i + 1
			for j < len(s) && plain[s[j]] {
				j++
			}
			out = append(out, s[i:j]...)
			i = j
		case c >= utf8.RuneSelf:
			r, n := decodeRune(s, i)
			if r == utf8.RuneError && n == 1 {
				if strict {
					return out, i, false
				}
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s[i:i+n]...)
			}
			i += n
		default:
			var ok bool
			if out, i, ok = appendEscape(out, s, i, strict); !ok {
				return out, i, false
			}
		}
	}
	return out, i, true
}

// appendEscape decodes the escape at s[i] (a backslash) onto out and
// returns the offset after it, as appendString does.
func appendEscape[T Text](out []byte, s T, i int, strict bool) ([]byte, int, bool) {
	if i+1 >= len(s) {
		return out, i, false
	}
	e := s[i+1]
	i += 2
	switch e {
	case '"', '\\', '/':
		return append(out, e), i, true
	case 'b':
		return append(out, '\b'), i, true
	case 'f':
		return append(out, '\f'), i, true
	case 'n':
		return append(out, '\n'), i, true
	case 'r':
		return append(out, '\r'), i, true
	case 't':
		return append(out, '\t'), i, true
	case 'u':
	default:
		return out, i, false
	}
	r := hex4(s, i)
	if r < 0 {
		return out, i, false
	}
	i += 4
	if utf16.IsSurrogate(r) {
		// encoding/json takes a second \u escape only when it completes a
		// pair; a lone surrogate becomes U+FFFD.
		d := utf8.RuneError
		if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
			if r2 := hex4(s, i+2); r2 >= 0 {
				d = utf16.DecodeRune(r, r2)
			}
		}
		if d == utf8.RuneError {
			if strict {
				return out, i, false
			}
		} else {
			i += 6
		}
		r = d
	}
	return utf8.AppendRune(out, r), i, true
}

// needsDecoding reports whether body has an escape or invalid UTF-8.
func needsDecoding[T Text](body T) bool {
	switch b := any(body).(type) {
	case string:
		return strings.IndexByte(b, '\\') >= 0 || !utf8.ValidString(b)
	case []byte:
		return bytes.IndexByte(b, '\\') >= 0 || !utf8.Valid(b)
	}
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			return true
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := decodeRune(body, i)
			if r == utf8.RuneError && size == 1 {
				return true
			}
			i += size
		}
	}
	return false
}

// decodeRune decodes the UTF-8 sequence at s[i].
func decodeRune[T Text](s T, i int) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v[i:])
	case []byte:
		return utf8.DecodeRune(v[i:])
	}
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], s[i:min(i+utf8.UTFMax, len(s))])
	return utf8.DecodeRune(buf[:n])
}

// hex4 reads the four hex digits of a \u escape at i, -1 when there are
// not four.
func hex4[T Text](s T, i int) rune {
	if i+4 > len(s) {
		return -1
	}
	r := hexDigit(s[i])<<12 | hexDigit(s[i+1])<<8 | hexDigit(s[i+2])<<4 | hexDigit(s[i+3])
	if r < 0 {
		return -1
	}
	return r
}
