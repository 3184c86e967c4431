// Package drift compares a run against a baseline and decides whether the
// behaviour of the model drifted.
//
// Two decision rules are offered. The single-sample rule is the original
// tool's: a pair regresses when its score drops by at least 0.05 and it now
// fails. It cannot tell drift from the nondeterminism of a hosted model, so
// when both sides hold several samples per pair Compare runs one-sided
// statistical tests instead (Fisher's exact test and Mann–Whitney U per pair,
// exact stratified tests per probe and category, a stratified permutation
// test for the suite) and controls the false-discovery rate with a discrete,
// weighted Benjamini–Hochberg step that uses each test's null distribution
// given its margins (Döhler, Durand and Roquain's DBH-SU), which also drops,
// like Tarone's screening, the tests that cannot reach significance.
// Informational change
// signals (response length, tokens, finish reasons, lexical similarity,
// served model) form a separate two-sided family and never gate on their own.
//
// Evidence lines show two-sided 95% intervals (Wilson for rates, Newcombe
// for differences). Severity grades the conservative effect g, the bound of
// the difference nearest zero scaled by breadth; since the tests are
// one-sided, that bound is the one-sided 95% bound (z = 1.645), recorded as
// TestedUnit.EffectBound.
//
// # One decision per pair
//
// A pair with continuous scores has two units in the family: Fisher's test
// of its pass counts and Mann–Whitney's of its scores. The pair is decided
// once: it is a regression when either unit is rejected in the
// multiplicity step, and its severity and evidence are those of the most
// severe of its rejected units, each graded from its own effect (the
// one-sided 95% bound of the pass-rate drop, or the score-only shift; the
// pass-count test decides a tie). Every rejected unit is a claim the
// family's false-discovery control stands behind, so the pair is as severe
// as the strongest of them, and the report's severity, the maximum over
// rejected hypotheses, stays the maximum over the pairs' decisions and the
// probe, category and suite units. Comparison.Severity and Evidence and
// every pair unit's TestedUnit.Severity and Evidence carry that one
// decision (a clean pair's evidence is its minimum detectable drop);
// TestedUnit.TestEvidence keeps each test's own line and
// TestedUnit.Decisive marks the unit that decided. Pairs of one prompt
// whose results are identical sample for sample (the same responses judged
// alike) run the same tests on the same evidence: their tests count once
// in the family, and Comparison.SharedTestWith names the pair whose
// decision they share.
//
// # Nothing compared
//
// A report in which no pair could be compared (stale baseline, not
// measured, added or removed; see DriftReport.Compared) is no verdict:
// HasDrift is false, Severity none, both overall scores 0, and the summary
// says that nothing was compared, or that nothing was measured when every
// call of the current run failed, with the counts by reason. The overall
// scores are means over the compared pairs only; when only some pairs were
// compared, the summary says how many of how many.
//
// The package does no I/O. Every random step is driven by Options.Seed,
// and the report time and id come from Options.Now and Options.NewID;
// only when those are nil does Compare fall back to the clock and to
// crypto/rand.
package drift
