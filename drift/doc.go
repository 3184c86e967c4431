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
// The package does no I/O and reads no clock: the report time comes from
// Options.Now, and every random step is driven by Options.Seed.
package drift
