package drift

import "math"

// studentTwoSided is the two-sided p-value of t under Student's t
// distribution with df degrees of freedom: P(|T| ≥ |t|) =
// I_{df/(df+t²)}(df/2, 1/2), the regularized incomplete beta function of
// the run-level test (regIncBeta).
func studentTwoSided(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	return regIncBeta(df/2, 0.5, df/(df+t*t))
}
