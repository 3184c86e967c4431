package text

import (
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Word identifies an interned keyword: a lowercase ASCII word that
// Analysis reports wherever a response holds it as a whole word.
type Word uint16

// Hit is a keyword found in a response: the whole word content[Start:End],
// a maximal run of ASCII word characters ([0-9A-Za-z_], the characters of
// a regexp's \w and \b) equal to the keyword up to ASCII case.
type Hit struct {
	Start, End int32
	Word       Word
}

// Analysis is what the text probes need of one response, computed in one
// pass and shared by every probe that judges the response: its field count,
// character count, whether it is ASCII, and the keywords it holds.
//
// Get one with Analyze and give it back with Release; it must not be used,
// nor any of its slices kept, after Release.
type Analysis struct {
	content string
	valid   bool
	state   uint8 // what is known: counted, built
	fields  int
	runes   int
	ascii   bool
	folds   bool
	hits    []Hit
	lower   []byte
	lowered bool
	lowerS  string
}

// What an analysis knows of its content, in order: each includes the one
// before. A probe that needs only counts does not pay for keywords.
const (
	counted = 1 + iota // fields, runes, ascii, folds
	built              // and hits
)

// need makes sure a knows at least what state says.
func (a *Analysis) need(state uint8) {
	switch {
	case a.state >= state:
	case state == counted:
		a.count()
	default:
		a.build(a.content)
	}
}

// Fields is the number of whitespace-separated words of the content, as
// len(strings.Fields(content)).
func (a *Analysis) Fields() int { a.need(counted); return a.fields }

// Runes is the number of characters (code points) of the content, as
// utf8.RuneCountInString.
func (a *Analysis) Runes() int { a.need(counted); return a.runes }

// Folds reports whether the content holds a character that
// case-insensitive regexp matching folds to an ASCII letter (ſ to s, the
// Kelvin sign to k). Keyword hits miss such spellings, so a probe that must
// agree with its (?i) regexps uses the regexps on such content. Only such
// a probe asks, so the analysis looks for the keywords at the same time.
func (a *Analysis) Folds() bool { a.need(built); return a.folds }

// Hits returns the keywords of the content in text order.
func (a *Analysis) Hits() []Hit { a.need(built); return a.hits }

// Content returns the analysed content.
func (a *Analysis) Content() string { return a.content }

// Lower returns strings.ToLower of the content. The string is valid only
// until Release.
func (a *Analysis) Lower() string {
	if a.lowered {
		return a.lowerS
	}
	a.lowered = true
	if a.need(counted); !a.ascii {
		a.lower = appendLower(a.lower[:0], a.content)
		a.lowerS = unsafeString(a.lower)
		return a.lowerS
	}
	a.lower, _ = appendLowerASCII(a.lower[:0], a.content)
	a.lowerS = unsafeString(a.lower)
	return a.lowerS
}

// pool keeps analyses for reuse. The runner evaluates all the probes of one
// response in one goroutine, one after the other, so the analysis a probe
// gives back is, most of the time, the one the next probe gets on the same
// P and finds already built for the same content. Any other interleaving
// only costs a rebuild: an analysis is used for a content only when the
// contents are equal. The pool is emptied by garbage collections, so it
// keeps no response alive for long.
var pool = sync.Pool{New: func() any { return new(Analysis) }}

// maxKept bounds the buffers an analysis keeps for reuse.
const maxKept = 1 << 16

// Analyze returns the analysis of content, reusing a cached one when it was
// made for the same content. Its parts are worked out when first asked for.
func Analyze(content string) *Analysis {
	a := pool.Get().(*Analysis)
	if a.valid && a.content == content {
		return a
	}
	a.reset(content)
	return a
}

// reset makes a the analysis of content, knowing nothing yet.
func (a *Analysis) reset(content string) {
	a.content, a.valid, a.state = content, true, 0
	a.lowered, a.lowerS = false, ""
}

// Release gives a back for reuse by the next Analyze.
func (a *Analysis) Release() {
	if cap(a.hits) > maxKept || cap(a.lower) > maxKept {
		return
	}
	pool.Put(a)
}

// Byte classes.
const (
	wordClass  = 1 << iota // [0-9A-Za-z_]
	spaceClass             // ASCII white space as strings.Fields sees it
)

// class and lowerByte classify and lowercase bytes; they are variables
// initialised before any keyword is interned, even in this package.
var class, lowerByte = byteTables()

func byteTables() (class [256]uint8, lowerByte [256]byte) {
	for c := range 256 {
		b := byte(c)
		lowerByte[c] = b
		switch {
		case 'a' <= b && b <= 'z', '0' <= b && b <= '9', b == '_':
			class[c] = wordClass
		case 'A' <= b && b <= 'Z':
			class[c] = wordClass
			lowerByte[c] = b + 'a' - 'A'
		case b == '\t', b == '\n', b == '\v', b == '\f', b == '\r', b == ' ':
			class[c] = spaceClass
		}
	}
	return class, lowerByte
}

// IsWordByte reports whether b is an ASCII word character, [0-9A-Za-z_].
func IsWordByte(b byte) bool { return class[b]&wordClass != 0 }

// build analyses content into a: eight bytes at a time where they are
// ASCII, with the word and space bytes of the eight as bit masks, so that
// the cost is a few operations a byte and one keyword lookup a word;
// character by character elsewhere.
func (a *Analysis) build(content string) {
	tab := keywordTable()
	a.content = content
	a.ascii, a.folds = true, false
	a.runes = 0
	if a.hits == nil {
		a.hits = make([]Hit, 0, 16)
	}
	a.lowered, a.lowerS = false, ""
	a.state = built
	s := content
	hits := a.hits[:0]
	fields, runes := 0, 0
	inField := false
	ws := -1 // the start of the word the last eight bytes ended in, else -1
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			if x := load64(s, i); x&high == 0 {
				// Bit 7 of byte b of word (nonSpace) is set when byte b
				// is a word character (no white space).
				word := between(x|lowerBits, 'a', 'z') | between(x, '0', '9') | equal(x, '_')
				nonSpace := ^(between(x, '\t', '\r') | equal(x, ' '))
				word, nonSpace = word&high, nonSpace&high
				var prevNonSpace, prevWord uint64
				if inField {
					prevNonSpace = 0x80
				}
				if ws >= 0 {
					prevWord = 0x80
				}
				fields += bits.OnesCount64(nonSpace &^ (nonSpace<<8 | prevNonSpace))
				inField = nonSpace>>63 != 0
				// A word starts or ends at each bit of edges, in turn.
				for edges := word ^ (word<<8 | prevWord); edges != 0; edges &= edges - 1 {
					at := i + bits.TrailingZeros64(edges)>>3
					if ws < 0 {
						ws = at
						continue
					}
					// tab.appendHit, inlined for a word of up to 8
					// bytes that is no keyword: most words.
					if n := at - ws; n <= 8 && ws+8 <= len(s) {
						k := (load64(s, ws) | lowerBits) & (^uint64(0) >> ((64 - 8*uint(n)) & 63))
						h := (k + uint64(n)) * hashMul
						if tab.tags[h>>(64-tableBits)] == 0 {
							ws = -1
							continue
						}
					}
					hits = tab.appendHit(hits, s, ws, at)
					ws = -1
				}
				runes += 8
				i += 8
				continue
			}
		}
		if ws >= 0 {
			// Finish the word the eight bytes before ended in.
			j := i
			for j < len(s) && class[s[j]]&wordClass != 0 {
				j++
			}
			hits = tab.appendHit(hits, s, ws, j)
			runes += j - i
			i, ws = j, -1
			continue
		}
		var n int
		i, n, inField, hits = a.scalar(tab, s, i, min(len(s), i+8), inField, hits)
		fields += n
	}
	if ws >= 0 {
		hits = tab.appendHit(hits, s, ws, len(s))
	}
	a.hits = hits
	a.fields = fields
	a.runes += runes
}

// field counts a character into fields, the fields (runs of characters
// other than white space) so far, and inField, whether the character
// before was in one: white space (space) ends a field, and any other
// character after white space begins one.
func field(space, inField bool, fields int) (int, bool) {
	if space {
		return fields, false
	}
	if !inField {
		fields++
	}
	return fields, true
}

// count works out the counts of a's content, as build does but without
// looking for keywords.
func (a *Analysis) count() {
	s := a.content
	fields, runes := 0, 0
	ascii, folds, inField := true, false, false
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			if x := load64(s, i); x&high == 0 {
				nonSpace := ^(between(x, '\t', '\r') | equal(x, ' ')) & high
				var prev uint64
				if inField {
					prev = 0x80
				}
				fields += bits.OnesCount64(nonSpace &^ (nonSpace<<8 | prev))
				inField = nonSpace>>63 != 0
				runes += 8
				i += 8
				continue
			}
		}
		if c := s[i]; c < utf8.RuneSelf {
			runes++
			fields, inField = field(class[c]&spaceClass != 0, inField, fields)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		ascii = false
		runes++
		if r == '\u017f' || r == '\u212a' {
			folds = true
		}
		fields, inField = field(unicode.IsSpace(r), inField, fields)
		i += size
	}
	a.fields, a.runes, a.ascii, a.folds = fields, runes, ascii, folds
	a.state = counted
}

// Masks of the bytes of a machine word.
const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// atLeast sets the high bit of each byte of x (all ASCII) that is >= c.
func atLeast(x, c uint64) uint64 { return x + ones*(0x80-c) }

// between sets the high bit of each byte of x (all ASCII) in [lo, hi].
func between(x, lo, hi uint64) uint64 { return atLeast(x, lo) &^ atLeast(x, hi+1) }

// equal sets the high bit of each byte of x (all ASCII) equal to c.
func equal(x, c uint64) uint64 { return ^(x ^ ones*c + ones*0x7f) }

// appendHit appends to hits the keyword s[start:end] is, if any.
func (t *table) appendHit(hits []Hit, s string, start, end int) []Hit {
	n := end - start
	if n > 8 || start+8 > len(s) {
		if n <= maxKeyword {
			if w, ok := t.find(s, start, end); ok {
				hits = append(hits, Hit{Start: int32(start), End: int32(end), Word: w})
			}
		}
		return hits
	}
	// find, inlined for a word of up to 8 bytes (k1 = 0): most words.
	k := (load64(s, start) | lowerBits) & (^uint64(0) >> ((64 - 8*uint(n)) & 63))
	h := (k + uint64(n)) * hashMul
	tag := uint8(h>>(56-tableBits)) | 1
	for j := h >> (64 - tableBits); ; j = (j + 1) & tableMask {
		c := t.tags[j]
		if c == 0 {
			return hits
		}
		if sl := &t.slots[j]; c == tag && sl.k0 == k && sl.k1 == 0 && sl.n == n {
			return append(hits, Hit{Start: int32(start), End: int32(end), Word: sl.word})
		}
	}
}

// scalar analyses s from i, which is not inside a word, character by
// character, and stops at the first word or character boundary at or
// after limit. It returns where it stopped and the fields it began.
func (a *Analysis) scalar(tab *table, s string, i, limit int, inField bool, hits []Hit) (int, int, bool, []Hit) {
	fields := 0
	for i < limit {
		c := s[i]
		if c < utf8.RuneSelf {
			cl := class[c]
			if cl&wordClass != 0 {
				start := i
				for i++; i < len(s) && class[s[i]]&wordClass != 0; i++ {
				}
				a.runes += i - start
				if !inField {
					fields++
					inField = true
				}
				hits = tab.appendHit(hits, s, start, i)
				continue
			}
			a.runes++
			fields, inField = field(cl&spaceClass != 0, inField, fields)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		a.ascii = false
		a.runes++
		if r == '\u017f' || r == '\u212a' {
			a.folds = true
		}
		fields, inField = field(unicode.IsSpace(r), inField, fields)
		i += size
	}
	return i, fields, inField, hits
}
