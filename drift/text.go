package drift

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxSimilarityRunes caps the text compared by the lexical similarities, so
// untrusted model output cannot make a comparison slow.
const maxSimilarityRunes = 4000

// chrfOrder is the largest character n-gram of chrF, and chrfBeta weighs
// recall over precision, as in the standard chrF.
const (
	chrfOrder = 6
	chrfBeta  = 2.0
)

// textProfile holds the precomputed token and character n-gram multisets of
// one response, each as a bag of hashes.
type textProfile struct {
	tokens bag
	grams  [chrfOrder]bag
}

// bag is a multiset of hashes: the distinct values in ascending order with
// how often each occurs, and their total. Characters and short n-grams
// repeat, so two bags are compared over their distinct values only. A raw
// bag (counts nil) holds its hashes as they came instead, unsorted, for
// newGramSets, which counts them while it numbers them.
type bag struct {
	vals   []uint64
	counts []int32
	n      int
}

// newBag makes the bag of hs, which it sorts.
func newBag(hs []uint64) bag { return newBagIn(hs, nil) }

// newBagIn is newBag, or with sc set a raw bag in the memory of sc: the
// change signals compare answers through gram sets, which need no sort.
func newBagIn(hs []uint64, sc *signalScratch) bag {
	if sc != nil {
		raw := sc.u64.take(len(hs))
		copy(raw, hs)
		return bag{vals: raw, n: len(hs)}
	}
	slices.Sort(hs)
	distinct := 0
	for i, h := range hs {
		if i == 0 || h != hs[i-1] {
			distinct++
		}
	}
	b := bag{n: len(hs), vals: make([]uint64, 0, distinct), counts: make([]int32, 0, distinct)}
	for i, h := range hs {
		if i > 0 && h == hs[i-1] {
			b.counts[len(b.counts)-1]++
			continue
		}
		b.vals = append(b.vals, h)
		b.counts = append(b.counts, 1)
	}
	return b
}

// profiler makes text profiles, reusing its scratch space, their bags in
// the memory of sc when it is set.
type profiler struct {
	runes []rune
	utf   []byte
	at    []int
	hs    []uint64
	sc    *signalScratch
}

// common returns the size of the multiset intersection of a and b.
func common(a, b *bag) int {
	n, i, j := 0, 0, 0
	for i < len(a.vals) && j < len(b.vals) {
		switch x, y := a.vals[i], b.vals[j]; {
		case x == y:
			n += int(min(a.counts[i], b.counts[j]))
			i++
			j++
		case x < y:
			i++
		default:
			j++
		}
	}
	return n
}

// nonSpace appends the characters of s other than whitespace to utf, in
// UTF-8, and where each starts to at, then len(utf): the n-grams of the
// characters are utf[at[i]:at[i+n]].
func nonSpace(utf []byte, at []int, s string) ([]byte, []int) {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			at = append(at, len(utf))
			utf = utf8.AppendRune(utf, r)
		}
	}
	return utf, append(at, len(utf))
}

// appendGrams appends to hs the hash of each n-gram of the characters of
// utf that at marks (nonSpace's), in order.
func appendGrams(hs []uint64, utf []byte, at []int, n int) []uint64 {
	for i := 0; i+n < len(at); i++ {
		hs = append(hs, hashBytes(utf[at[i]:at[i+n]]))
	}
	return hs
}

// FNV-1a, 64 bits, as hash/fnv computes it.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hashString is the 64-bit FNV-1a hash of s (hash/fnv's New64a).
func hashString(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// hashBytes is hashString of string(b), without the string.
func hashBytes(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// newProfile tokenises s: lowercase words of letters and digits for
// token-F1, and the character n-grams of s without whitespace for chrF.
func newProfile(s string) textProfile {
	var pr profiler
	return pr.profile(s)
}

// profile is newProfile.
func (pr *profiler) profile(s string) textProfile {
	var p textProfile
	runes := pr.runes[:0]
	for _, r := range s {
		if len(runes) == maxSimilarityRunes {
			break
		}
		runes = append(runes, r)
	}
	pr.runes = runes
	text := string(runes)
	lower := strings.ToLower(text)
	hs := pr.hs[:0]
	// The words are strings.FieldsFunc's, with any rune but a letter or a
	// digit as the separator, hashed as they are found instead of listed.
	start := -1
	for i, r := range lower {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			hs = append(hs, hashString(lower[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		hs = append(hs, hashString(lower[start:]))
	}
	p.tokens = newBagIn(hs, pr.sc)
	// The characters other than whitespace: an n-gram is hashed as the
	// bytes of string(chars[i:i+n]).
	utf, at := nonSpace(pr.utf[:0], pr.at[:0], text)
	pr.utf, pr.at = utf, at
	for n := 1; n <= chrfOrder; n++ {
		hs = appendGrams(hs[:0], utf, at, n)
		p.grams[n-1] = newBagIn(hs, pr.sc)
	}
	pr.hs = hs
	return p
}

// tokenF1 is the F1 score of the word overlap of two responses (1 when both
// are empty).
func tokenF1(a, b *textProfile) float64 {
	return tokenF1Of(common(&a.tokens, &b.tokens), a.tokens.n, b.tokens.n)
}

// tokenF1Of is token-F1 of two responses of na and nb tokens that share c.
func tokenF1Of(c, na, nb int) float64 {
	if na == 0 && nb == 0 {
		return 1
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return 2 * float64(c) / float64(na+nb)
}

// chrF is the character n-gram F-score (orders 1 to 6, β = 2) of hypothesis
// a against reference b, as a fraction (1 when both are empty).
func chrF(a, b *textProfile) float64 {
	var c, na, nb [chrfOrder]int
	for n := range chrfOrder {
		c[n], na[n], nb[n] = common(&a.grams[n], &b.grams[n]), a.grams[n].n, b.grams[n].n
	}
	ab, _ := chrFOf(&c, &na, &nb)
	return ab
}

// chrFOf returns chrF(a, b) and chrF(b, a) of two responses with na[n]
// and nb[n] character (n+1)-grams, c[n] of them shared: the overlaps give
// both directions at once.
func chrFOf(c, na, nb *[chrfOrder]int) (ab, ba float64) {
	var prec, rec float64
	orders := 0
	for n := range chrfOrder {
		if na[n] == 0 && nb[n] == 0 {
			continue
		}
		orders++
		if na[n] == 0 || nb[n] == 0 {
			continue
		}
		cn := float64(c[n])
		prec += cn / float64(na[n])
		rec += cn / float64(nb[n])
	}
	if orders == 0 {
		return 1, 1
	}
	prec /= float64(orders)
	rec /= float64(orders)
	// b against a swaps precision and recall.
	return chrFScore(prec, rec), chrFScore(rec, prec)
}

func chrFScore(prec, rec float64) float64 {
	if prec+rec == 0 {
		return 0
	}
	b2 := chrfBeta * chrfBeta
	return (1 + b2) * prec * rec / (b2*prec + rec)
}
