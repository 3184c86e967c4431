package drift

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPCGIsRandPCG: pcg draws the numbers of rand.New(rand.NewPCG), for
// small bounds, powers of two, and bounds whose draws are often rejected.
func TestPCGIsRandPCG(t *testing.T) {
	bounds := []uint64{1, 2, 3, 7, 31, 32, 33, 60, 61, 1000, 1 << 40, 1<<63 + 1, math.MaxUint64, math.MaxUint64/3*2 + 1}
	for _, seed := range [][2]uint64{{0, 0}, {1, 2}, {20250301, 7}, {math.MaxUint64, 1}} {
		got, want := newPCG(seed[0], seed[1]), rand.New(rand.NewPCG(seed[0], seed[1]))
		for i := range 20000 {
			if i%3 == 0 {
				if g, w := got.Uint64(), want.Uint64(); g != w {
					t.Fatalf("seed %v, draw %d: Uint64 %d, want %d", seed, i, g, w)
				}
				continue
			}
			n := bounds[i%len(bounds)]
			if g, w := got.Uint64N(n), want.Uint64N(n); g != w {
				t.Fatalf("seed %v, draw %d: Uint64N(%d) %d, want %d", seed, i, n, g, w)
			}
		}
	}
}

// TestShufflePCGIsShuffle: shufflePCG makes the swaps of shuffle (which
// is rand's Shuffle, see TestPermuterShuffleIsRandShuffle) for the same
// seed, and keeps the counts of the groups.
func TestShufflePCGIsShuffle(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 60} {
		a, b := newPCG(5, uint64(n)), rand.New(rand.NewPCG(5, uint64(n)))
		x, y := sideLabels(n, n/3), sideLabels(n, n/3)
		m := identityGroups(make([]float64, n*n), n, n/3)
		for i := range m.g.group {
			m.g.group[i] = i / 3
		}
		pa, pb := newPermuter(m), newPermuter(m)
		pa.count(x)
		pb.count(y)
		for range 200 {
			pa.shufflePCG(a, x)
			pb.shuffle(b, y)
			if !slices.Equal(x, y) || !slices.Equal(pa.cur, pb.cur) {
				t.Fatalf("n=%d: got %v (counts %v), want %v (counts %v)", n, x, pa.cur, y, pb.cur)
			}
		}
		if a.Uint64() != b.Uint64() {
			t.Errorf("n=%d: the generators drew different numbers", n)
		}
	}
}
