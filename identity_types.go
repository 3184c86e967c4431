package promptcanary

import "fmt"

// The verdicts of IdentityTest.Verdict.
const (
	IdentitySame      = "same model"
	IdentityDifferent = "different"
)

// IdentityDifferentText is the sentence every drift report format shows
// when the identity test rejects.
const IdentityDifferentText = "the answers no longer look like the same model"

// IdentityTest is the model identity test of a drift report: a two-sample
// test of whether the baseline's and the run's raw answers come from the
// same distribution, prompt by prompt, whatever the probes say. Its
// statistic is the maximum mean discrepancy (MMD²) under a string kernel,
// averaged over the prompts tested; its p-value is from permutations of
// the answers within each prompt (see docs/identity.md). It is a signal of
// its own: a rejection does not make the report's drift or severity.
type IdentityTest struct {
	// MMD is the observed statistic: the mean over the prompts tested of
	// the unbiased MMD² of each prompt's answers (about 0 for the same
	// model; at most 2).
	MMD float64 `json:"mmd"`
	// P is the permutation p-value: (1 + #{permuted ≥ observed}) /
	// (Permutations + 1), or 50 / Permutations when the permutations
	// stopped at the 50th permuted statistic reaching the observed one.
	P float64 `json:"p"`
	// Alpha is the level at which the verdict rejects.
	Alpha float64 `json:"alpha"`
	// Permutations is the number of within-prompt permutations drawn (at
	// most 1000), and Seed the seed of their generator (the report's).
	Permutations int    `json:"permutations"`
	Seed         uint64 `json:"seed"`
	// Prompts counts the prompts tested (two answers or more on each
	// side); Answers the answers compared, both sides.
	Prompts int `json:"prompts"`
	Answers int `json:"answers"`
	// Kernel names the string kernel.
	Kernel string `json:"kernel"`
	// Verdict is IdentitySame or IdentityDifferent (P < Alpha).
	Verdict string `json:"verdict"`
}

// Different reports whether the test rejected: the answers no longer look
// like the same model's.
func (t *IdentityTest) Different() bool { return t != nil && t.Verdict == IdentityDifferent }

// Line is the test in one line of plain text, for the report formats.
func (t *IdentityTest) Line() string {
	what := "the answers are consistent with the same model"
	if t.Different() {
		what = IdentityDifferentText
	}
	return fmt.Sprintf("Model identity: %s (MMD² %.4f, p = %.4f at α = %g; %d answers to %d prompts, %d permutations)",
		what, t.MMD, t.P, t.Alpha, t.Answers, t.Prompts, t.Permutations)
}
