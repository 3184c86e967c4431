package text

import (
	"encoding/binary"
	"strings"
	"sync"
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
	l.s = strings.ToLower(content)
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
	return strings.Contains(lowered, unsafeString(buf[:len(kw)]))
}
