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
	if w == "" || len(w) > maxKeyword {
		panic("text: Intern(" + w + "): a keyword has 1 to 16 bytes")
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

// maxKeyword is the longest keyword: a word of up to 16 bytes is its own
// hash key, two machine words.
const maxKeyword = 16

// table is an open-addressing hash table of the interned keywords, keyed
// by their bytes. It has a fixed size, at least eight times the number of
// keywords, and each slot a one-byte tag in a separate array, so that a
// word that is no keyword (most words) costs one multiplication and, most
// of the time, one load from a small array that stays in cache.
type table struct {
	tags  [tableSize]uint8 // 0 for an empty slot
	slots [tableSize]slot
}

// The size of the keyword table, a power of two.
const (
	tableBits = 11
	tableSize = 1 << tableBits
	tableMask = tableSize - 1
)

type slot struct {
	k0, k1 uint64
	n      int
	word   Word
}

// keywordTable freezes the registry and returns its table.
func keywordTable() *table {
	kwOnce.Do(func() {
		kwMu.Lock()
		defer kwMu.Unlock()
		kwFrozen = true
		if 8*len(kwWords) > tableSize {
			panic("text: more than tableSize/8 keywords: make the keyword table larger")
		}
		t := new(table)
		for id, w := range kwWords {
			k0, k1 := wordKey(w, 0, len(w))
			j, tag := home(k0, k1, len(w))
			for t.tags[j] != 0 {
				j = (j + 1) & tableMask
			}
			t.tags[j] = tag
			t.slots[j] = slot{k0: k0, k1: k1, n: len(w), word: Word(id)}
		}
		kwTable = t
	})
	return kwTable
}

// The constants of the key hash.
const (
	hashMul   = 0x9E3779B97F4A7C15
	hashMul1  = 0xC2B2AE3D27D4EB4F
	lowerBits = 0x2020202020202020
)

// home is the first slot of a key and its tag. Analysis.block inlines it
// for keys of up to 8 bytes (k1 = 0).
func home(k0, k1 uint64, n int) (uint64, uint8) {
	h := (k0 ^ k1*hashMul1 + uint64(n)) * hashMul
	return h >> (64 - tableBits), uint8(h>>(56-tableBits)) | 1
}

// find returns the keyword equal to s[start:end], 1 to maxKeyword word
// characters, up to ASCII case.
func (t *table) find(s string, start, end int) (Word, bool) {
	k0, k1 := wordKey(s, start, end)
	n := end - start
	j, tag := home(k0, k1, n)
	for ; ; j = (j + 1) & tableMask {
		switch t.tags[j] {
		case 0:
			return 0, false
		case tag:
			if sl := &t.slots[j]; sl.k0 == k0 && sl.k1 == k1 && sl.n == n {
				return sl.word, true
			}
		}
	}
}

// wordKey packs the word characters s[start:end] (at most maxKeyword)
// into two machine words, each byte ORed with 0x20: that lowercases the
// letters and keeps every word character distinct (_ becomes 0x7f).
func wordKey(s string, start, end int) (k0, k1 uint64) {
	const lower = lowerBits
	n := end - start
	if start+16 <= len(s) {
		if n <= 8 {
			return (load64(s, start) | lower) & lowBytes(n), 0
		}
		return load64(s, start) | lower, (load64(s, start+8) | lower) & lowBytes(n-8)
	}
	for i := start; i < end; i++ {
		b := uint64(s[i] | 0x20)
		if j := i - start; j < 8 {
			k0 |= b << (8 * j)
		} else {
			k1 |= b << (8 * (j - 8))
		}
	}
	return k0, k1
}

// lowBytes is the mask of the n low bytes of a machine word, n capped to
// [0,8].
func lowBytes(n int) uint64 {
	if n <= 0 {
		return 0
	}
	return ^uint64(0) >> ((64 - 8*uint(min(n, 8))) & 63)
}

// load64 reads the 8 bytes of s at i as a little-endian machine word.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
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
