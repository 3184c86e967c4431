package promptcanary

// DriftStatistics is the evidence behind a statistical drift verdict: the
// tests run over pairs, probes, categories and the suite, with their
// multiplicity-adjusted q-values, and the informational change signals.
type DriftStatistics struct {
	// Seed drove every permutation, so the verdict can be reproduced.
	Seed uint64 `json:"seed"`
	// Alpha is the false-discovery level of the Benjamini–Hochberg step.
	Alpha float64 `json:"alpha"`
}
