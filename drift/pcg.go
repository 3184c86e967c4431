package drift

import "math/bits"

// pcg is math/rand/v2's PCG generator with its Uint64N inlined: it draws
// exactly the numbers rand.New(rand.NewPCG(seed1, seed2)) draws, Uint64
// for Uint64 and Uint64N for Uint64N, without a call through the
// rand.Source interface per number. The response permutation tests of the
// change signals draw millions of numbers per compare.
type pcg struct{ hi, lo uint64 }

// newPCG is rand.NewPCG(seed1, seed2).
func newPCG(seed1, seed2 uint64) *pcg { return &pcg{hi: seed1, lo: seed2} }

// Uint64 is (*rand.PCG).Uint64: a 128-bit LCG step and the DXSM output
// function.
func (p *pcg) Uint64() uint64 {
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
	)
	hi, lo := bits.Mul64(p.lo, mulLo)
	hi += p.hi*mulLo + p.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	p.lo, p.hi = lo, hi

	const cheapMul = 0xda942042e4dd58b5
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	hi *= lo | 1
	return hi
}

// Uint64N is (*rand.Rand).Uint64N on a 64-bit system, whose numbers
// rand's 32-bit code reproduces: a power of two masks one draw, any other
// n takes the high word of a draw times n, drawing again in the rare case
// that it would be biased (Lemire's method). n must not be 0.
func (p *pcg) Uint64N(n uint64) uint64 {
	if n&(n-1) == 0 {
		return p.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(p.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(p.Uint64(), n)
		}
	}
	return hi
}
