package drift

import "math"

// z95 is the two-sided 95% normal quantile; intervals shown in evidence
// lines use it.
const z95 = 1.959963984540054

// zOneSided95 is the one-sided 95% normal quantile. The drift tests are
// one-sided ("current is worse"), so the conservative effect g that grades
// severity is the one-sided 95% bound of the difference nearest zero, the
// upper end of the interval built with this quantile (a two-sided 90%
// interval), not the two-sided 95% interval's.
const zOneSided95 = 1.6448536269514722

// wilson returns the Wilson score interval for k successes in n trials at
// normal quantile z; [0, 1] when n is 0.
func wilson(k, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	lo, hi = max(0, centre-half), min(1, centre+half)
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}

// newcombe returns Newcombe's hybrid score interval (method 10) for the
// difference of proportions cPass/cN − bPass/bN, built from the two Wilson
// intervals.
func newcombe(bPass, bN, cPass, cN int, z float64) (diff, lo, hi float64) {
	pb, pc := float64(bPass)/float64(max(bN, 1)), float64(cPass)/float64(max(cN, 1))
	lb, ub := wilson(bPass, bN, z)
	lc, uc := wilson(cPass, cN, z)
	diff = pc - pb
	lo = diff - math.Sqrt((pc-lc)*(pc-lc)+(ub-pb)*(ub-pb))
	hi = diff + math.Sqrt((uc-pc)*(uc-pc)+(pb-lb)*(pb-lb))
	return diff, lo, hi
}

// moverMean combines per-stratum estimates d_i with intervals [l_i, u_i]
// into the interval of their mean by the method of variance estimates
// recovery (Zou and Donner), which reduces to Newcombe's interval for one
// stratum.
func moverMean(d, l, u []float64) (mean, lo, hi float64) {
	k := float64(len(d))
	if k == 0 {
		return 0, 0, 0
	}
	var sl, su float64
	for i := range d {
		mean += d[i]
		sl += (d[i] - l[i]) * (d[i] - l[i])
		su += (u[i] - d[i]) * (u[i] - d[i])
	}
	mean /= k
	return mean, mean - math.Sqrt(sl)/k, mean + math.Sqrt(su)/k
}
