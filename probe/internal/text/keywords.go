package text

import (
	"sync"
	"unsafe"
)

// The keyword registry: probe families intern their keywords from package
// initialisation; the first Analyze freezes them into a hash table.
var (
	kwMu     sync.Mutex
	kwWords  []string
	kwIDs    = map[string]Word{}
	kwFrozen bool
	kwOnce   sync.Once
	kwTable  *table
)

// Intern returns the Word of keyword w, a lowercase ASCII word ([0-9a-z_]),
// interning it on first use. It panics on any other w, and when called
// after the first Analyze: keywords are package-level constants.
func Intern(w string) Word {
	kwMu.Lock()
	defer kwMu.Unlock()
	if id, ok := kwIDs[w]; ok {
		return id
	}
	if kwFrozen {
		panic("text: Intern(" + w + ") after the first Analyze")
	}
	if w == "" {
		panic("text: Intern of an empty keyword")
	}
	for i := 0; i < len(w); i++ {
		if !IsWordByte(w[i]) || lowerByte[w[i]] != w[i] {
			panic("text: Intern(" + w + "): not a lowercase ASCII word")
		}
	}
	id := Word(len(kwWords))
	kwWords = append(kwWords, w)
	kwIDs[w] = id
	return id
}

// table is an open-addressing hash table of the interned keywords.
type table struct {
	slots  []slot
	mask   uint32
	maxLen int
}

type slot struct {
	hash uint32
	word Word
	used bool
	text string
}

// keywordTable freezes the registry and returns its table.
func keywordTable() *table {
	kwOnce.Do(func() {
		kwMu.Lock()
		defer kwMu.Unlock()
		kwFrozen = true
		size := 64
		for size < 4*len(kwWords) {
			size *= 2
		}
		t := &table{slots: make([]slot, size), mask: uint32(size - 1)}
		for id, w := range kwWords {
			h := uint32(0)
			for i := 0; i < len(w); i++ {
				h = h*31 + uint32(w[i])
			}
			t.maxLen = max(t.maxLen, len(w))
			j := mix(h) & t.mask
			for t.slots[j].used {
				j = (j + 1) & t.mask
			}
			t.slots[j] = slot{hash: h, word: Word(id), used: true, text: w}
		}
		kwTable = t
	})
	return kwTable
}

// mix spreads a word hash over the table.
func mix(h uint32) uint32 { return (h * 0x9E3779B1) >> 7 }

// lookup returns the keyword equal to tok up to ASCII case, h being the
// hash of tok lowercased.
func (t *table) lookup(h uint32, tok string) (Word, bool) {
	for j := mix(h) & t.mask; t.slots[j].used; j = (j + 1) & t.mask {
		s := &t.slots[j]
		if s.hash == h && len(s.text) == len(tok) && EqualFold(tok, s.text) {
			return s.word, true
		}
	}
	return 0, false
}

// EqualFold reports whether s equals lower, a lowercase ASCII string, up to
// ASCII case.
func EqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lowerByte[s[i]] != lower[i] {
			return false
		}
	}
	return true
}

// HasPrefixFold reports whether s starts with lower, a lowercase ASCII
// string, up to ASCII case.
func HasPrefixFold(s, lower string) bool {
	return len(s) >= len(lower) && EqualFold(s[:len(lower)], lower)
}

// unsafeString views b as a string without copying; b must not change
// while the string is in use.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
