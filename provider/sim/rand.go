package sim

import "math/rand/v2"

// FNV-1a, 64 bits.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	h = fnvUint(h, uint64(len(s)))
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

func fnvUint(h, v uint64) uint64 {
	for range 8 {
		h ^= v & 0xff
		h *= fnvPrime
		v >>= 8
	}
	return h
}

// mix is the splitmix64 finalizer: it spreads the bits of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// callHash seeds one call: sample is -1 when the sample index must not
// change the answer.
func callHash(model string, seed int64, text, system string, sample int) uint64 {
	h := fnvString(fnvOffset, model)
	h = fnvUint(h, uint64(seed))
	h = fnvString(h, text)
	h = fnvString(h, system)
	return fnvUint(h, uint64(int64(sample)))
}

// promptHash identifies a prompt independently of model, seed and sample; it
// decides which prompts a model's noise or drift touches.
func promptHash(text, system string) uint64 {
	return mix(fnvString(fnvString(fnvOffset, text), system))
}

// Salts for the per-prompt draws.
const (
	saltNoise uint64 = iota + 1
	saltNoiseKind
	saltSubtle
	saltSubtleP
	saltDrift
	saltDriftRefuse
	saltDriftEach
	saltDriftPick
	saltDriftFactor
	saltPreamble
	saltDisclaimer
	saltSteps
	saltTemplate
)

// unit is a uniform draw in [0,1) fixed by a prompt hash and a salt.
func unit(h, salt uint64) float64 { return float64(mix(h^(salt*0x9e3779b97f4a7c15))>>11) * 0x1p-53 }

// pick is a uniform index in [0,n) fixed by a prompt hash and a salt.
func pick(h, salt uint64, n int) int { return int(mix(h^(salt*0x9e3779b97f4a7c15)) % uint64(n)) }

// prng is a PCG generator used by value, so a call allocates nothing for it.
type prng struct{ src rand.PCG }

func newPRNG(h uint64) prng {
	var p prng
	p.src.Seed(h, mix(h))
	return p
}

func (p *prng) float() float64 { return float64(p.src.Uint64()>>11) * 0x1p-53 }

func (p *prng) intn(n int) int { return int(p.src.Uint64() % uint64(n)) }

// between returns an integer in [lo, hi].
func (p *prng) between(lo, hi int) int { return lo + p.intn(hi-lo+1) }
