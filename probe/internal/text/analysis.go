package text

import (
	"strings"
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
	fields  int
	runes   int
	ascii   bool
	folds   bool
	hits    []Hit
	lower   []byte
	lowered bool
	lowerS  string
}

// Fields is the number of whitespace-separated words of the content, as
// len(strings.Fields(content)).
func (a *Analysis) Fields() int { return a.fields }

// Runes is the number of characters (code points) of the content, as
// utf8.RuneCountInString.
func (a *Analysis) Runes() int { return a.runes }

// Folds reports whether the content holds a character that
// case-insensitive regexp matching folds to an ASCII letter (ſ to s, the
// Kelvin sign to k). Keyword hits miss such spellings, so a probe that must
// agree with its (?i) regexps uses the regexps on such content.
func (a *Analysis) Folds() bool { return a.folds }

// Hits returns the keywords of the content in text order.
func (a *Analysis) Hits() []Hit { return a.hits }

// Content returns the analysed content.
func (a *Analysis) Content() string { return a.content }

// Lower returns strings.ToLower of the content. The string is valid only
// until Release.
func (a *Analysis) Lower() string {
	if a.lowered {
		return a.lowerS
	}
	a.lowered = true
	if !a.ascii {
		a.lowerS = strings.ToLower(a.content)
		return a.lowerS
	}
	a.lower = a.lower[:0]
	for i := 0; i < len(a.content); i++ {
		a.lower = append(a.lower, lowerByte[a.content[i]])
	}
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
// built for the same content.
func Analyze(content string) *Analysis {
	a := pool.Get().(*Analysis)
	if a.content == content && a.hits != nil {
		return a
	}
	a.build(content)
	return a
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

// build analyses content into a.
func (a *Analysis) build(content string) {
	tab := keywordTable()
	a.content = content
	a.fields, a.runes = 0, 0
	a.ascii, a.folds = true, false
	a.hits = a.hits[:0]
	if a.hits == nil {
		a.hits = make([]Hit, 0, 16)
	}
	a.lowered, a.lowerS = false, ""
	inField := false
	s := content
	n := len(s)
	for i := 0; i < n; {
		c := s[i]
		if c < utf8.RuneSelf {
			cl := class[c]
			if cl&wordClass != 0 {
				start := i
				h := uint32(0)
				for ; i < n && class[s[i]]&wordClass != 0; i++ {
					h = h*31 + uint32(lowerByte[s[i]])
				}
				a.runes += i - start
				if !inField {
					a.fields++
					inField = true
				}
				if i-start <= tab.maxLen {
					if w, ok := tab.lookup(h, s[start:i]); ok {
						a.hits = append(a.hits, Hit{Start: int32(start), End: int32(i), Word: w})
					}
				}
				continue
			}
			a.runes++
			if cl&spaceClass != 0 {
				inField = false
			} else if !inField {
				a.fields++
				inField = true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		a.ascii = false
		a.runes++
		if r == '\u017f' || r == '\u212a' {
			a.folds = true
		}
		if unicode.IsSpace(r) {
			inField = false
		} else if !inField {
			a.fields++
			inField = true
		}
		i += size
	}
}
