package similarity

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary/internal/multiset"
)

// Metric is a text similarity measure, a score in [0,1] where 1 means the
// texts are alike for the measure.
type Metric string

// The metrics.
const (
	// TokenF1 is the F1 score of the bags of lowercase word tokens: twice
	// the size of their multiset intersection over the sum of their sizes.
	TokenF1 Metric = "token_f1"
	// ChrF is the character n-gram F-score of Popović (2015), orders 1 to 6
	// with β = 2, on the text without white space, case-sensitive.
	ChrF Metric = "chrf"
	// RougeL is the ROUGE-L F1 score over lowercase word tokens: twice the
	// length of their longest common subsequence over the sum of their
	// lengths.
	RougeL Metric = "rouge_l"
)

// metrics lists the metrics in the order `probes show` gives them.
var metrics = []string{string(ChrF), string(TokenF1), string(RougeL)}

// displayName is how details name a metric.
func (m Metric) displayName() string {
	switch m {
	case TokenF1:
		return "token F1"
	case ChrF:
		return "chrF"
	case RougeL:
		return "ROUGE-L"
	}
	return string(m)
}

// valid reports whether m is one of the metrics.
func (m Metric) valid() bool { return m == TokenF1 || m == ChrF || m == RougeL }

// symmetric reports whether the metric gives the same score when the answer
// and the reference swap places (chrF weighs recall over precision).
func (m Metric) symmetric() bool { return m != ChrF }

// chrfOrder is the largest character n-gram of chrF, and chrfBeta weighs
// recall over precision, as in Popović (2015).
const (
	chrfOrder = 6
	chrfBeta  = 2.0
)

// Score returns the metric's similarity of answer a to reference b. Only
// chrF tells them apart. Texts are compared whole, in time O(n log n) for
// token F1 and chrF and O(n·m/64) for ROUGE-L.
func Score(m Metric, a, b string) float64 {
	sc := scorer{metric: m}
	ps := sc.profiles([]string{a, b})
	return sc.score(&ps[0], &ps[1])
}

// scorer computes one metric over a few texts that share a vocabulary: an
// answer and its references. It is not safe for concurrent use; a probe
// makes one per evaluation.
type scorer struct {
	metric Metric
	// vocab numbers the distinct lowercase words of the texts, for token
	// F1 and ROUGE-L.
	vocab map[string]int32
	// masks and carry are ROUGE-L's work space (see lcs).
	masks []uint64
	carry []uint64
	// chars numbers the distinct characters of the texts from 1, for chrF
	// (0 pads an n-gram that runs past the end of its text); ascii holds
	// the numbers of ASCII characters.
	chars map[rune]uint32
	ascii [utf8.RuneSelf]uint32
	nchar uint32
	// narrow is set when every character's number fits in narrowBits, so
	// that an n-gram packs into one word.
	narrow bool
}

// narrowBits is the width of a character number in a narrow n-gram: six
// of them fill 60 bits of a word.
const narrowBits = 10

// wideBits is the width of a character in a wide n-gram: a code point + 1.
const wideBits = 21

// gram is a wide character n-gram: its first three characters (code
// point + 1) in hi and the next three in lo, the first most significant,
// 0 past the end of the text.
type gram struct{ hi, lo uint64 }

func compareGrams(x, y gram) int {
	if c := cmp.Compare(x.hi, y.hi); c != 0 {
		return c
	}
	return cmp.Compare(x.lo, y.lo)
}

// profile is what a metric needs of one text.
type profile struct {
	// words are the word ids in text order (ROUGE-L), and bag the same
	// sorted (token F1).
	words, bag []int32
	// ids are the character numbers of the text without white space, or
	// in wide mode the code points; n is their count.
	ids []uint32
	n   int
	// grams holds, sorted, the n-gram of chrfOrder characters that starts
	// at each character, padded with 0 past the end of the text (wide in
	// wide mode, narrow otherwise). Sorted so, each order's n-grams, which
	// are their prefixes, are sorted too.
	grams []uint64
	wide  []gram
}

// profiles analyses texts for the scorer's metric, numbering their words
// or characters together.
func (sc *scorer) profiles(texts []string) []profile {
	ps := make([]profile, len(texts))
	switch sc.metric {
	case ChrF:
		for i, s := range texts {
			ps[i].ids = sc.charIDs(s)
			ps[i].n = len(ps[i].ids)
		}
		sc.narrow = sc.nchar < 1<<narrowBits
		for i := range ps {
			sc.packGrams(&ps[i], texts[i])
		}
	case TokenF1:
		for i, s := range texts {
			ps[i].bag = sc.words(s)
			slices.Sort(ps[i].bag)
		}
	default:
		for i, s := range texts {
			ps[i].words = sc.words(s)
		}
	}
	return ps
}

// score returns the metric's similarity of answer a to reference b.
func (sc *scorer) score(a, b *profile) float64 {
	switch sc.metric {
	case ChrF:
		return sc.chrF(a, b)
	case TokenF1:
		return f1(multiset.Common(a.bag, b.bag), len(a.bag), len(b.bag))
	default:
		return f1(sc.lcs(a.words, b.words), len(a.words), len(b.words))
	}
}

// f1 is 2·c/(m+n), the F1 score of c matches between m and n items: 1 when
// both are empty, 0 when only one is.
func f1(c, m, n int) float64 {
	if m+n == 0 {
		return 1
	}
	return 2 * float64(c) / float64(m+n)
}

// isWordRune reports whether r belongs to a word: letters, digits and
// combining marks (so that the vowel signs of Devanagari do not split a
// word).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// words returns the ids of the lowercase words of s, each a maximal run of
// word runes, numbering new words in sc.vocab.
func (sc *scorer) words(s string) []int32 {
	if sc.vocab == nil {
		sc.vocab = make(map[string]int32)
	}
	lower := strings.ToLower(s)
	ids := make([]int32, 0, len(lower)/6+1)
	start := -1
	for i, r := range lower {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			ids = append(ids, sc.id(lower[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		ids = append(ids, sc.id(lower[start:]))
	}
	return ids
}

func (sc *scorer) id(w string) int32 {
	if id, ok := sc.vocab[w]; ok {
		return id
	}
	id := int32(len(sc.vocab))
	sc.vocab[w] = id
	return id
}

// charIDs numbers the characters of s other than white space, invalid
// UTF-8 counting as U+FFFD.
func (sc *scorer) charIDs(s string) []uint32 {
	ids := make([]uint32, 0, len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			if r == ' ' || '\t' <= r && r <= '\r' {
				continue
			}
			id := sc.ascii[r]
			if id == 0 {
				sc.nchar++
				id = sc.nchar
				sc.ascii[r] = id
			}
			ids = append(ids, id)
			continue
		}
		if unicode.IsSpace(r) {
			continue
		}
		if sc.chars == nil {
			sc.chars = make(map[rune]uint32)
		}
		id, ok := sc.chars[r]
		if !ok {
			sc.nchar++
			id = sc.nchar
			sc.chars[r] = id
		}
		ids = append(ids, id)
	}
	return ids
}

// packGrams fills p's sorted n-grams of chrfOrder characters from p.ids,
// narrow when every number fits in narrowBits, else from the code points
// of s.
func (sc *scorer) packGrams(p *profile, s string) {
	if sc.narrow {
		p.grams = make([]uint64, p.n)
		for i := range p.grams {
			var g uint64
			for k := range chrfOrder {
				g <<= narrowBits
				if i+k < p.n {
					g |= uint64(p.ids[i+k])
				}
			}
			p.grams[i] = g
		}
		slices.Sort(p.grams)
		return
	}
	// Wide: the code points + 1, in place of the numbers.
	p.ids = p.ids[:0]
	for _, r := range s {
		if !unicode.IsSpace(r) {
			p.ids = append(p.ids, uint32(r)+1)
		}
	}
	p.wide = make([]gram, p.n)
	for i := range p.wide {
		var g gram
		for k := range chrfOrder {
			var c uint64
			if i+k < p.n {
				c = uint64(p.ids[i+k])
			}
			if k < 3 {
				g.hi = g.hi<<wideBits | c
			} else {
				g.lo = g.lo<<wideBits | c
			}
		}
		p.wide[i] = g
	}
	slices.SortFunc(p.wide, compareGrams)
}

// commonGrams returns how many n-grams of order n a and b share (the size
// of the multiset intersection).
func (sc *scorer) commonGrams(a, b *profile, n int) int {
	if !sc.narrow {
		return commonWide(a.wide, b.wide, n)
	}
	// The order-n prefix of a packed n-gram, and the bits of its last
	// character, 0 when the n-gram runs past the end of its text.
	shift := uint(narrowBits * (chrfOrder - n))
	const last = 1<<narrowBits - 1
	ga, gb := a.grams, b.grams
	c, i, j := 0, 0, 0
	for i < len(ga) && j < len(gb) {
		x, y := ga[i]>>shift, gb[j]>>shift
		switch {
		case x&last == 0:
			i++
		case y&last == 0:
			j++
		case x == y:
			c++
			i++
			j++
		case x < y:
			i++
		default:
			j++
		}
	}
	return c
}

// commonWide is commonGrams for wide n-grams.
func commonWide(ga, gb []gram, n int) int {
	// prefix returns the order-n prefix of g and whether it lies within
	// its text (its last character is not 0).
	prefix := func(g gram) (gram, bool) {
		const last = 1<<wideBits - 1
		if n <= 3 {
			g = gram{hi: g.hi >> (wideBits * (3 - n))}
			return g, g.hi&last != 0
		}
		g.lo >>= wideBits * (chrfOrder - n)
		return g, g.lo&last != 0
	}
	c, i, j := 0, 0, 0
	for i < len(ga) && j < len(gb) {
		x, inX := prefix(ga[i])
		y, inY := prefix(gb[j])
		switch cmpXY := compareGrams(x, y); {
		case !inX:
			i++
		case !inY:
			j++
		case cmpXY == 0:
			c++
			i++
			j++
		case cmpXY < 0:
			i++
		default:
			j++
		}
	}
	return c
}

// chrF is the character n-gram F-score of answer a against reference b
// (Popović 2015): the n-gram precision and recall of each order, averaged
// arithmetically over the orders, then combined as an F-score with β = 2.
// An order counts when either text has n-grams of it (one with none scores
// 0 on it); two texts without characters score 1.
func (sc *scorer) chrF(a, b *profile) float64 {
	var prec, rec float64
	orders := 0
	for n := 1; n <= chrfOrder; n++ {
		na, nb := max(a.n-n+1, 0), max(b.n-n+1, 0)
		if na == 0 && nb == 0 {
			break
		}
		orders++
		if na == 0 || nb == 0 {
			continue
		}
		c := float64(sc.commonGrams(a, b, n))
		prec += c / float64(na)
		rec += c / float64(nb)
	}
	if orders == 0 {
		return 1
	}
	prec /= float64(orders)
	rec /= float64(orders)
	if prec+rec == 0 {
		return 0
	}
	const b2 = chrfBeta * chrfBeta
	return (1 + b2) * prec * rec / (b2*prec + rec)
}

// lcs returns the length of the longest common subsequence of a and b, by
// the bit-vector algorithm of Crochemore, Iliopoulos, Pinzon and Reid
// (2001): V' = (V + (V & M[c])) | (V &^ M[c]) for each symbol c of b, where
// M[c] marks the positions of c in a; the LCS is the number of zero bits
// left in V. V is processed 64 positions of a at a time, keeping the carry
// of each step for the next block, so the work space is one mask per word
// of the vocabulary and one bit per symbol of b.
func (sc *scorer) lcs(a, b []int32) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(sc.masks) < len(sc.vocab) {
		sc.masks = make([]uint64, len(sc.vocab))
	}
	nc := (len(b) + 63) / 64
	if cap(sc.carry) < nc {
		sc.carry = make([]uint64, nc)
	}
	carry := sc.carry[:nc]
	clear(carry)
	masks := sc.masks
	n := 0
	for start := 0; start < len(a); start += 64 {
		block := a[start:min(start+64, len(a))]
		for i, c := range block {
			masks[c] |= 1 << i
		}
		v := ^uint64(0)
		for j, c := range b {
			m := masks[c]
			w, bit := j>>6, uint(j&63)
			in := carry[w] >> bit & 1
			if m == 0 && in == 0 {
				continue // V' = V, and no carry
			}
			sum, out := bits.Add64(v, v&m, in)
			v = sum | v&^m
			carry[w] = carry[w]&^(1<<bit) | out<<bit
		}
		valid := ^uint64(0) >> (64 - len(block))
		n += bits.OnesCount64(^v & valid)
		for _, c := range block {
			masks[c] = 0
		}
	}
	return n
}
