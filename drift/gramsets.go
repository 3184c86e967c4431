package drift

import (
	"cmp"
	"math/bits"
	"slices"
)

// gramSets holds one kind of multiset (the tokens, or the character
// n-grams of one order) of each of a prompt's distinct answers, as a
// bitset over the hashes the answers hold between them plus the hashes an
// answer holds more than once with their counts. The size of the multiset
// intersection of two answers is then the popcount of the AND of their
// bitsets, plus what their repeated hashes share beyond one: a few dozen
// machine words for answers of a few hundred characters, where a merge of
// their sorted hashes takes hundreds of steps, for each of the many pairs
// the similarity matrices compare.
type gramSets struct {
	words int
	sets  [][]uint64
	multi [][]idCount
}

// idCount is a hash, by its number, held count > 1 times.
type idCount struct {
	id, count int32
}

// newGramSets numbers the hashes of bags with ids and makes their sets,
// in the memory of sc when it is set. A bag may be sorted with counts, or
// raw: its hashes as they came, which the numbering counts without the
// sort (see newBagIn).
func newGramSets(bags []*bag, ids *idTable, sc *signalScratch) gramSets {
	ids.reset()
	var u64 *arena[uint64]
	var i32 *arena[int32]
	if sc != nil {
		u64, i32 = &sc.u64, &sc.i32
	}
	// The number of each hash, bag after bag.
	total := 0
	for _, b := range bags {
		total += len(b.vals)
	}
	numbers := i32.take(total)
	k := 0
	for _, b := range bags {
		for _, v := range b.vals {
			numbers[k] = ids.id(v)
			k++
		}
	}
	s := gramSets{words: (ids.n + 63) / 64, sets: make([][]uint64, len(bags)), multi: make([][]idCount, len(bags))}
	words := u64.take(s.words * len(bags))
	var counts []int32 // of a raw bag, by number
	var seen []int32   // the numbers a raw bag holds
	k = 0
	for i, b := range bags {
		set := words[i*s.words : (i+1)*s.words : (i+1)*s.words]
		var multi []idCount
		if b.counts != nil {
			for j := range b.vals {
				id := numbers[k+j]
				set[id/64] |= 1 << (id % 64)
				if c := b.counts[j]; c > 1 {
					multi = append(multi, idCount{id, c})
				}
			}
		} else {
			if counts == nil {
				counts = i32.take(ids.n)
			}
			for _, id := range numbers[k : k+len(b.vals)] {
				if counts[id] == 0 {
					set[id/64] |= 1 << (id % 64)
					seen = append(seen, id)
				}
				counts[id]++
			}
			for _, id := range seen {
				if counts[id] > 1 {
					multi = append(multi, idCount{id, counts[id]})
				}
				counts[id] = 0
			}
			seen = seen[:0]
		}
		k += len(b.vals)
		sortIDCounts(multi)
		s.sets[i], s.multi[i] = set, multi
	}
	return s
}

// common is the size of the multiset intersection of answers x and y.
func (s *gramSets) common(x, y int) int {
	a, b := s.sets[x], s.sets[y]
	n := 0
	for i := range a {
		n += bits.OnesCount64(a[i] & b[i])
	}
	ma, mb := s.multi[x], s.multi[y]
	for i, j := 0, 0; i < len(ma) && j < len(mb); {
		switch {
		case ma[i].id == mb[j].id:
			n += int(min(ma[i].count, mb[j].count)) - 1
			i++
			j++
		case ma[i].id < mb[j].id:
			i++
		default:
			j++
		}
	}
	return n
}

// sortIDCounts sorts a list by id: by insertion when short, as the
// repeated hashes of one answer mostly are.
func sortIDCounts(v []idCount) {
	if len(v) > 32 {
		slices.SortFunc(v, func(a, b idCount) int { return cmp.Compare(a.id, b.id) })
		return
	}
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j].id < v[j-1].id; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// idTable numbers distinct hashes 0, 1, 2… in the order first seen: an
// open-addressing table, reused from one multiset kind to the next.
type idTable struct {
	keys []uint64
	vals []int32 // -1: empty
	n    int
	used []int // the slots taken, which reset empties
}

func (t *idTable) reset() {
	for _, i := range t.used {
		t.vals[i] = -1
	}
	t.n, t.used = 0, t.used[:0]
}

// id returns the number of h, numbering it if it is new.
func (t *idTable) id(h uint64) int32 {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	for i := (h * 0x9e3779b97f4a7c15) >> 32 & mask; ; i = (i + 1) & mask {
		switch v := t.vals[i]; {
		case v < 0:
			t.keys[i], t.vals[i] = h, int32(t.n)
			t.used = append(t.used, int(i))
			t.n++
			return int32(t.n - 1)
		case t.keys[i] == h:
			return v
		}
	}
}

func (t *idTable) grow() {
	keys, vals := t.keys, t.vals
	size := max(1024, 2*len(keys))
	t.keys, t.vals = make([]uint64, size), make([]int32, size)
	for i := range t.vals {
		t.vals[i] = -1
	}
	mask := uint64(size - 1)
	t.used = t.used[:0]
	for i, v := range vals {
		if v < 0 {
			continue
		}
		h := keys[i]
		j := (h * 0x9e3779b97f4a7c15) >> 32 & mask
		for t.vals[j] >= 0 {
			j = (j + 1) & mask
		}
		t.keys[j], t.vals[j] = h, v
		t.used = append(t.used, int(j))
	}
}
