package text

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Lowered is strings.ToLower of one response, computed once and shared by
// the probes that match text ignoring case (keyword_presence,
// expected_keywords, factual_consistency), the way Analysis is shared by
// the word-list probes but without the cost of a word analysis.
//
// Get one with Lower and give it back with Release; neither it nor its
// string may be used after Release.
type Lowered struct {
	content string
	buf     []byte
	s       string
	valid   bool
	ascii   bool
}

// String returns strings.ToLower of the content.
func (l *Lowered) String() string { return l.s }

// ASCII reports whether the content is ASCII: then the lowercase copy has
// the content's length and every byte at the same index.
func (l *Lowered) ASCII() bool { return l.ascii }

// lowerPool keeps lowered copies for reuse, as pool keeps analyses: the
// probes of one response, evaluated one after the other, find the copy
// the previous one made.
var lowerPool = sync.Pool{New: func() any { return new(Lowered) }}

// Lower returns strings.ToLower of content, reusing the cached copy when
// it was made for the same content.
func Lower(content string) *Lowered {
	l := lowerPool.Get().(*Lowered)
	if l.valid && l.content == content {
		return l
	}
	l.content, l.valid, l.ascii = content, true, true
	if b, ok := appendLowerASCII(l.buf[:0], content); ok {
		l.buf = b
		l.s = unsafeString(b)
		return l
	}
	l.ascii = false
	l.buf = appendLower(l.buf[:0], content)
	l.s = unsafeString(l.buf)
	return l
}

// Release gives l back for reuse by the next Lower.
func (l *Lowered) Release() {
	if cap(l.buf) > maxKept {
		return
	}
	lowerPool.Put(l)
}

// appendLowerASCII appends s lowercased to b when s is ASCII, eight bytes
// at a time; it reports false, and b's content is undefined, when s is not
// ASCII.
func appendLowerASCII(b []byte, s string) ([]byte, bool) {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	n := len(b)
	b = append(b, s...)
	out := b[n:]
	i := 0
	for ; i+8 <= len(out); i += 8 {
		w := binary.LittleEndian.Uint64(out[i:])
		if w&high != 0 {
			return b, false
		}
		// High bit of each byte: >= 'A' and not > 'Z'.
		geA := w + ones*(0x80-'A')
		gtZ := w + ones*(0x7f-'Z')
		upper := geA &^ gtZ & high
		binary.LittleEndian.PutUint64(out[i:], w|upper>>2)
	}
	for ; i < len(out); i++ {
		c := out[i]
		if c >= utf8.RuneSelf {
			return b, false
		}
		out[i] = lowerByte[c]
	}
	return b, true
}

// appendLower appends strings.ToLower(s) to b: ASCII eight bytes at a time,
// every other character through unicode.ToLower (an invalid byte becoming
// U+FFFD, as strings.Map makes it), where strings.ToLower maps the whole
// string rune by rune as soon as it holds one non-ASCII byte.
func appendLower(b []byte, s string) []byte {
	b = slices.Grow(b, len(s))
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			if w := load64(s, i); w&high == 0 {
				geA := w + ones*(0x80-'A')
				gtZ := w + ones*(0x7f-'Z')
				b = binary.LittleEndian.AppendUint64(b, w|(geA&^gtZ&high)>>2)
				i += 8
				continue
			}
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, lowerByte[c])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r)) // RuneError for an invalid byte
		i += size
	}
	return b
}

// ContainsLower reports whether strings.Contains(lowered,
// strings.ToLower(kw)), lowered being a lowercased text; it does not
// allocate for an ASCII kw of up to 64 bytes.
func ContainsLower(lowered, kw string) bool {
	if len(kw) > 64 {
		return strings.Contains(lowered, strings.ToLower(kw))
	}
	var buf [64]byte
	for i := 0; i < len(kw); i++ {
		c := kw[i]
		if c >= utf8.RuneSelf {
			return strings.Contains(lowered, strings.ToLower(kw))
		}
		buf[i] = lowerByte[c]
	}
	return IndexRare(lowered, unsafeString(buf[:len(kw)])) >= 0
}

// IndexRare is strings.Index(s, sub), with the candidates found by the
// byte of sub that is rarest in English text rather than by its first
// byte, which is often a common letter: a search of a response for "oslo"
// looks at each "l", not at each "o".
func IndexRare(s, sub string) int {
	if len(sub) <= 1 {
		return strings.Index(s, sub)
	}
	r := 0
	for i := 1; i < len(sub); i++ {
		if rarity[sub[i]] < rarity[sub[r]] {
			r = i
		}
	}
	if r == 0 {
		return strings.Index(s, sub)
	}
	c := sub[r]
	for i := r; i < len(s); {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return -1
		}
		at := i + j - r
		if at+len(sub) <= len(s) && s[at:at+len(sub)] == sub {
			return at
		}
		i += j + 1
	}
	return -1
}

// rarity ranks bytes by how often they occur in English text, rarer lower:
// the letters by frequency (in either case), after everything else but
// white space and common punctuation.
var rarity = func() (t [256]uint8) {
	const letters = "zqjxkvbpygfwmucldrhsnioate" // rarest first
	for c := range 256 {
		t[c] = 100
	}
	for i := 0; i < len(letters); i++ {
		t[letters[i]] = 150 + uint8(i)
		t[letters[i]-'a'+'A'] = 150 + uint8(i)
	}
	for _, c := range []byte(" \n\t.,") {
		t[c] = 255
	}
	return t
}()
