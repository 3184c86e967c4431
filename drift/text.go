package drift

import (
	"hash/fnv"
	"slices"
	"strings"
	"unicode"

	"github.com/promptcanary/promptcanary/internal/multiset"
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
// one response, each as sorted hashes.
type textProfile struct {
	tokens []uint64
	grams  [chrfOrder][]uint64
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// newProfile tokenises s: lowercase words of letters and digits for
// token-F1, and the character n-grams of s without whitespace for chrF.
func newProfile(s string) textProfile {
	var p textProfile
	runes := make([]rune, 0, min(len(s), maxSimilarityRunes))
	for _, r := range s {
		if len(runes) == maxSimilarityRunes {
			break
		}
		runes = append(runes, r)
	}
	lower := strings.ToLower(string(runes))
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		p.tokens = append(p.tokens, hashString(w))
	}
	slices.Sort(p.tokens)
	chars := runes[:0:0]
	for _, r := range runes {
		if !unicode.IsSpace(r) {
			chars = append(chars, r)
		}
	}
	for n := 1; n <= chrfOrder; n++ {
		for i := 0; i+n <= len(chars); i++ {
			p.grams[n-1] = append(p.grams[n-1], hashString(string(chars[i:i+n])))
		}
		slices.Sort(p.grams[n-1])
	}
	return p
}

// tokenF1 is the F1 score of the word overlap of two responses (1 when both
// are empty).
func tokenF1(a, b *textProfile) float64 {
	if len(a.tokens) == 0 && len(b.tokens) == 0 {
		return 1
	}
	if len(a.tokens) == 0 || len(b.tokens) == 0 {
		return 0
	}
	c := float64(multiset.Common(a.tokens, b.tokens))
	return 2 * c / float64(len(a.tokens)+len(b.tokens))
}

// chrF is the character n-gram F-score (orders 1 to 6, β = 2) of hypothesis
// a against reference b, as a fraction (1 when both are empty).
func chrF(a, b *textProfile) float64 {
	var prec, rec float64
	orders := 0
	for n := range chrfOrder {
		ga, gb := a.grams[n], b.grams[n]
		if len(ga) == 0 && len(gb) == 0 {
			continue
		}
		orders++
		if len(ga) == 0 || len(gb) == 0 {
			continue
		}
		c := float64(multiset.Common(ga, gb))
		prec += c / float64(len(ga))
		rec += c / float64(len(gb))
	}
	if orders == 0 {
		return 1
	}
	prec /= float64(orders)
	rec /= float64(orders)
	if prec+rec == 0 {
		return 0
	}
	b2 := chrfBeta * chrfBeta
	return (1 + b2) * prec * rec / (b2*prec + rec)
}
