package text

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// JSONKind is the type of a JSON document's top-level value.
type JSONKind uint8

// The JSON kinds; JSONInvalid is the kind of text that is not JSON.
const (
	JSONInvalid JSONKind = iota
	JSONObject
	JSONArray
	JSONString
	JSONNumber
	JSONBoolean
	JSONNull
)

// String names the kind as the format probes' details do: object, array,
// string, number, boolean or null.
func (k JSONKind) String() string {
	switch k {
	case JSONObject:
		return "object"
	case JSONArray:
		return "array"
	case JSONString:
		return "string"
	case JSONNumber:
		return "number"
	case JSONBoolean:
		return "boolean"
	case JSONNull:
		return "null"
	}
	return "invalid"
}

// maxJSONDepth is encoding/json's nesting limit: a document nested deeper
// is not valid for json.Valid.
const maxJSONDepth = 10000

// ScanJSON reports whether s is one JSON value exactly as json.Valid
// decides it (same grammar, whitespace, nesting limit; invalid UTF-8 inside
// strings accepted), and the kind of its top-level value. When keys is not
// nil it is called with the literal of each object key (quotes excluded,
// escapes undecoded; see JSONUnquote) in document order, duplicates
// included, and the depth of its object (1 for the keys of a top-level
// object, 2 for those of an object in it, ...), as the scan meets them: a
// caller must ignore what it saw when ok is false. It never allocates.
func ScanJSON(s string, keys func(depth int, lit string)) (kind JSONKind, ok bool) {
	if keys == nil {
		return ScanJSONKeys(s, nil)
	}
	return ScanJSONKeys(s, keyFunc(keys))
}

// KeyVisitor is told the keys of a JSON document by ScanJSONKeys.
type KeyVisitor interface {
	// Key is called with the literal of each object key and the depth of
	// its object, as ScanJSON calls its keys function.
	Key(depth int, lit string)
}

// ValueVisitor is a KeyVisitor that is also told the first byte of each
// key's value, right after the key: in a valid document '"', '{', '[',
// 't', 'f', 'n', '-' or a digit (anything when the document turns out not
// to be JSON).
type ValueVisitor interface {
	KeyVisitor
	Value(first byte)
}

// keyFunc adapts a keys function of ScanJSON to a KeyVisitor.
type keyFunc func(depth int, lit string)

func (f keyFunc) Key(depth int, lit string) { f(depth, lit) }

// ScanJSONKeys is ScanJSON with a KeyVisitor (nil for none) instead of a
// function: a caller whose visitor is already on the heap scans without
// allocating, where a closure would escape.
func ScanJSONKeys(s string, keys KeyVisitor) (kind JSONKind, ok bool) {
	sc := jsonScanner{s: s, keys: keys}
	sc.values, _ = keys.(ValueVisitor)
	sc.ws()
	if sc.i >= len(s) {
		return JSONInvalid, false
	}
	switch c := s[sc.i]; {
	case c == '{':
		kind = JSONObject
	case c == '[':
		kind = JSONArray
	case c == '"':
		kind = JSONString
	case c == 't' || c == 'f':
		kind = JSONBoolean
	case c == 'n':
		kind = JSONNull
	default:
		kind = JSONNumber
	}
	if !sc.value(0) {
		return JSONInvalid, false
	}
	sc.ws()
	if sc.i != len(s) {
		return JSONInvalid, false
	}
	return kind, true
}

// jsonScanner validates JSON by recursive descent.
type jsonScanner struct {
	s      string
	i      int
	keys   KeyVisitor
	values ValueVisitor // keys, when it is one
}

func (sc *jsonScanner) ws() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\r', '\n':
			sc.i++
		default:
			return
		}
	}
}

// value scans one value at sc.i (after white space), depth being the
// number of containers around it.
func (sc *jsonScanner) value(depth int) bool {
	if sc.i >= len(sc.s) {
		return false
	}
	switch c := sc.s[sc.i]; c {
	case '{':
		return sc.object(depth + 1)
	case '[':
		return sc.array(depth + 1)
	case '"':
		_, ok := sc.str()
		return ok
	case 't':
		return sc.lit("true")
	case 'f':
		return sc.lit("false")
	case 'n':
		return sc.lit("null")
	}
	return sc.number()
}

func (sc *jsonScanner) lit(w string) bool {
	if strings.HasPrefix(sc.s[sc.i:], w) {
		sc.i += len(w)
		return true
	}
	return false
}

func (sc *jsonScanner) object(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	sc.i++ // {
	sc.ws()
	if sc.i < len(sc.s) && sc.s[sc.i] == '}' {
		sc.i++
		return true
	}
	for {
		if sc.i >= len(sc.s) || sc.s[sc.i] != '"' {
			return false
		}
		lit, ok := sc.str()
		if !ok {
			return false
		}
		if sc.keys != nil {
			sc.keys.Key(depth, lit)
		}
		sc.ws()
		if sc.i >= len(sc.s) || sc.s[sc.i] != ':' {
			return false
		}
		sc.i++
		sc.ws()
		if sc.values != nil && sc.i < len(sc.s) {
			sc.values.Value(sc.s[sc.i])
		}
		if !sc.value(depth) {
			return false
		}
		sc.ws()
		if sc.i >= len(sc.s) {
			return false
		}
		switch sc.s[sc.i] {
		case ',':
			sc.i++
			sc.ws()
		case '}':
			sc.i++
			return true
		default:
			return false
		}
	}
}

func (sc *jsonScanner) array(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	sc.i++ // [
	sc.ws()
	if sc.i < len(sc.s) && sc.s[sc.i] == ']' {
		sc.i++
		return true
	}
	for {
		if !sc.value(depth) {
			return false
		}
		sc.ws()
		if sc.i >= len(sc.s) {
			return false
		}
		switch sc.s[sc.i] {
		case ',':
			sc.i++
			sc.ws()
		case ']':
			sc.i++
			return true
		default:
			return false
		}
	}
}

// str scans a string literal at its opening quote and returns its body.
func (sc *jsonScanner) str() (string, bool) {
	s := sc.s
	start := sc.i + 1
	i := start
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			sc.i = i + 1
			return s[start:i], true
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) {
					return "", false
				}
				for _, h := range []byte(s[i+2 : i+6]) {
					if !isHex(h) {
						return "", false
					}
				}
				i += 6
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		default:
			i++
		}
	}
	return "", false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// wideNoter is told of each number literal that might not fit a float64:
// one with an exponent or of more than maxNarrowNumber characters.
type wideNoter interface{ wideNumber() }

// maxNarrowNumber is the longest literal without an exponent that surely
// fits a float64 (whose largest value has 309 digits).
const maxNarrowNumber = 300

func (sc *jsonScanner) noteWide(start int, exp bool) {
	if (exp || sc.i-start > maxNarrowNumber) && sc.keys != nil {
		if w, ok := sc.keys.(wideNoter); ok {
			w.wideNumber()
		}
	}
}

func (sc *jsonScanner) number() bool {
	s, i := sc.s, sc.i
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i >= len(s):
		return false
	case s[i] == '0':
		i++
	case '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	exp := i < len(s) && (s[i] == 'e' || s[i] == 'E')
	if exp {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	sc.i = i
	sc.noteWide(start, exp)
	return true
}

// JSONUnquote decodes the body of a valid JSON string literal exactly as
// encoding/json does: invalid UTF-8 and unpaired surrogates become U+FFFD.
// A body without escapes that is valid UTF-8 is returned as is.
func JSONUnquote(body string) string {
	if strings.IndexByte(body, '\\') < 0 && utf8.ValidString(body) {
		return body
	}
	var b strings.Builder
	b.Grow(len(body))
	s := body
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			e := s[i+1]
			i += 2
			switch e {
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r := hex4(s[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
					if strings.HasPrefix(s[i:], `\u`) {
						if d := utf16.DecodeRune(hex4(s[i-4:]), hex4(s[i+2:])); d != utf8.RuneError {
							r = d
							i += 6
						}
					}
				}
				b.WriteRune(r)
			default: // " \\ /
				b.WriteByte(e)
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
		}
	}
	return b.String()
}

// hex4 reads the four hex digits of a \u escape (already validated).
func hex4(s string) rune {
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
