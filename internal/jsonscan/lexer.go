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
	body, ok := l.StringLit()
	if !ok {
		return "", false
	}
	return unquote(body, true)
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
	s, _ := unquote(body, false)
	return s
}

// unquote is Unquote that, when strict, reports false instead of
// replacing invalid UTF-8 or an unpaired surrogate.
func unquote[T Text](body T, strict bool) (string, bool) {
	if !needsDecoding(body) {
		return string(body), true
	}
	out := make([]byte, 0, len(body))
	s := body
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			e := s[i+1]
			i += 2
			switch e {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(s, i)
				i += 4
				if utf16.IsSurrogate(r) {
					if r = utf8.RuneError; strict {
						r = -1
					}
					if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if d := utf16.DecodeRune(hex4(s, i-4), hex4(s, i+2)); d != utf8.RuneError {
							r = d
							i += 6
						}
					}
				}
				if r < 0 {
					return "", false
				}
				out = utf8.AppendRune(out, r)
			default: // " \\ /
				out = append(out, e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := decodeRune(s, i)
			if r == utf8.RuneError && size == 1 {
				if strict {
					return "", false
				}
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s[i:i+size]...)
			}
			i += size
		}
	}
	return string(out), true
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
	var buf [utf8.UTFMax]byte
	n := copy(buf[:], s[i:min(i+utf8.UTFMax, len(s))])
	return utf8.DecodeRune(buf[:n])
}

// hex4 reads the four hex digits of a \u escape (already checked) at i.
func hex4[T Text](s T, i int) rune {
	return hexDigit(s[i])<<12 | hexDigit(s[i+1])<<8 | hexDigit(s[i+2])<<4 | hexDigit(s[i+3])
}
