package promptcanary

import "strings"

// DriftStatistics is the evidence behind a statistical drift verdict: the
// tests run over pairs, probes, categories and the suite, with their
// multiplicity-adjusted q-values, and the informational change signals.
type DriftStatistics struct {
	// Seed drove every permutation, so the verdict can be reproduced.
	Seed uint64 `json:"seed"`
	// Alpha is the false-discovery level of the Benjamini–Hochberg step.
	Alpha float64 `json:"alpha"`
	// Permutations is the number of random permutations a Monte Carlo test
	// draws when its exact null distribution is too large to enumerate.
	Permutations int `json:"permutations"`
	// BaselineSamples and CurrentSamples are the largest sample counts of
	// any compared pair on each side.
	BaselineSamples int `json:"baseline_samples"`
	CurrentSamples  int `json:"current_samples"`
	// Hypotheses counts the units of the drift family; Testable counts those
	// that could reach significance given their margins: the discrete
	// Benjamini–Hochberg step leaves out every unit whose smallest
	// achievable p-value exceeds ScreeningLevel (its largest critical
	// value) times the unit's weight.
	Hypotheses     int     `json:"hypotheses"`
	Testable       int     `json:"testable"`
	ScreeningLevel float64 `json:"screening_level"`
	// UnitLevel is the largest p-value (divided by the unit's weight) at
	// which a unit is flagged when it is the only one: the first critical
	// value of the discrete Benjamini–Hochberg step. A clean pair's minimum
	// detectable drop and an improvement are judged at this level.
	UnitLevel float64 `json:"unit_level"`
	// Units lists every tested unit, flagged or not.
	Units []TestedUnit `json:"units"`
	// MinDetectableDrop is the smallest uniform drop of the pass rate of
	// every pair (a fraction, 0.05 = 5 points) the suite test would detect
	// with power 0.8; 0 when it could not be computed.
	MinDetectableDrop float64 `json:"min_detectable_drop"`
	// PairDetectableDrop spans the smallest drops of a pair's pass rate
	// that each clean pair's own test detects with power 0.8: Lower for the
	// most sensitive pair, Upper for the least. It sizes a clean run when
	// MinDetectableDrop cannot be computed (nothing failed on either side).
	PairDetectableDrop Interval `json:"pair_detectable_drop"`
	// Nondeterminism reports how many distinct outputs each prompt gave.
	Nondeterminism []PromptNondeterminism `json:"nondeterminism,omitempty"`
	// Signals are the informational change signals (two-sided tests with
	// their own Benjamini–Hochberg family); they never raise severity above
	// low on their own.
	Signals []ChangeSignal `json:"signals,omitempty"`
	// Warnings are the flagged change signals in plain words.
	Warnings []string `json:"warnings,omitempty"`
	// Notes are the report's notes (DriftReport.Notes, same texts in the
	// same order) with their kinds, so a report can group them.
	Notes []Note `json:"notes,omitempty"`
}

// The kinds of tested unit.
const (
	UnitPair     = "pair"
	UnitProbe    = "probe"
	UnitCategory = "category"
	UnitSuite    = "suite"
)

// Interval is a two-sided confidence interval.
type Interval struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// TestedUnit is one hypothesis of the drift family: a pair, a probe across
// prompts, a category or the whole suite, with its test and outcome.
type TestedUnit struct {
	// Kind is UnitPair, UnitProbe, UnitCategory or UnitSuite.
	Kind string `json:"kind"`
	// Key names the unit: "probe/prompt", a probe id, a category or the
	// suite name.
	Key string `json:"key"`
	// Test names the test and how its p-value was obtained, for example
	// "fisher", "mann_whitney_exact" or "stratified_permutation_exact".
	Test string `json:"test"`
	// Statistic is the observed test statistic (current passes, U, …).
	Statistic float64 `json:"statistic"`
	// P is the one-sided p-value ("current is worse").
	P float64 `json:"p"`
	// MinP is the smallest p-value the unit could reach given its margins.
	MinP float64 `json:"min_p"`
	// Screened is set when the unit could not reach significance given its
	// margins (MinP > Weight × ScreeningLevel) and was left out of the family.
	Screened bool `json:"screened"`
	// Weight is the unit's share of the level relative to a pair's Fisher
	// unit in the weighted discrete Benjamini–Hochberg step: a unit is
	// screened out when MinP exceeds Weight × ScreeningLevel. It
	// is 0 for a unit whose test repeats another's (SameTestAs).
	Weight float64 `json:"weight"`
	// Q is the weighted Benjamini–Hochberg adjusted p-value (1 when
	// screened).
	Q float64 `json:"q"`
	// Rejected is set when the unit is flagged as drift.
	Rejected bool `json:"rejected"`
	// SameTestAs, when set, names ("kind key") an earlier unit whose test
	// this unit repeats exactly: every pair outside that unit is constant on
	// both sides, or the unit is the test of a pair whose results are
	// identical sample for sample to an earlier pair's of the same prompt
	// (Comparison.SharedTestWith), so the two p-values are equal. Such a
	// unit is not counted again in the family; it shares that unit's P,
	// MinP, q-value and outcome, and its evidence line gives that test's
	// numbers ("same test as pair …: Δ …; Fisher p=…, q=…"). Its Effect
	// and Interval stay its own estimate, which grades its severity.
	SameTestAs string `json:"same_test_as,omitempty"`
	// Effect is the estimated change (pass-rate difference, current minus
	// baseline, or the Hodges–Lehmann score shift) with its 95% interval.
	Effect   float64  `json:"effect"`
	Interval Interval `json:"interval"`
	// EffectBound is the one-sided 95% confidence bound of a pass-count
	// unit's effect nearest zero (the upper bound of the drop's
	// difference, z = 1.645), matching the one-sided test; severity grades
	// the conservative effect g = max(0, −EffectBound). It is 0 for a
	// score-only unit, whose severity comes from its shift.
	EffectBound float64 `json:"effect_bound,omitempty"`
	// Severity of the unit when rejected, none otherwise. A pair unit
	// carries its pair's severity (Comparison.Severity): a pair is decided
	// once, by the most severe of its rejected units (see Decisive).
	Severity Severity `json:"severity"`
	// Evidence is the one-line evidence for the unit. A pair unit carries
	// its pair's evidence (Comparison.Evidence): the deciding test's line
	// when the pair is flagged, the pair's minimum detectable drop when it
	// is clean; its own test's line is TestEvidence.
	Evidence string `json:"evidence"`
	// TestEvidence is the one-line evidence of this unit's own test, with
	// its p and q; for a probe, category or suite unit it equals Evidence.
	TestEvidence string `json:"test_evidence,omitempty"`
	// Decisive is set on the pair unit whose test decided its flagged
	// pair's verdict, severity and evidence.
	Decisive bool `json:"decisive,omitempty"`
}

// PromptNondeterminism counts distinct outputs among the samples of one
// prompt on each side.
type PromptNondeterminism struct {
	PromptID         string `json:"prompt_id"`
	BaselineSamples  int    `json:"baseline_samples"`
	BaselineDistinct int    `json:"baseline_distinct"`
	CurrentSamples   int    `json:"current_samples"`
	CurrentDistinct  int    `json:"current_distinct"`
}

// ChangeSignal is one informational two-sided test of a change in the
// responses themselves (length, tokens, finish reasons, lexical similarity,
// served model), with its own multiplicity control.
type ChangeSignal struct {
	// Kind names the signal: "response_length", "completion_tokens",
	// "finish_reason", "token_f1", "chrf", "energy_distance", "model" or
	// "system_fingerprint".
	Kind string `json:"kind"`
	// Group is the stable, coarser kind a report groups signals by:
	// SignalLength, SignalTokens, SignalFinish, SignalLexical or
	// SignalModel (see SignalGroup).
	Group string `json:"group,omitempty"`
	// PromptID is the prompt the signal is about, empty for run-wide ones.
	PromptID string `json:"prompt_id,omitempty"`
	// Baseline and Current summarise each side (means, rates or counts).
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	// P and Q are the two-sided p-value and its Benjamini–Hochberg
	// adjustment within the signal family; both are 0 for a fingerprint
	// change, which is a fact rather than a test.
	P float64 `json:"p"`
	Q float64 `json:"q"`
	// Flagged is set when the signal is shown as a warning.
	Flagged bool `json:"flagged"`
	// Detail describes the signal in words.
	Detail string `json:"detail"`
}

// The groups of change signals (ChangeSignal.Group) and the kinds of notes
// (NoteKind), stable strings a report groups them by.
const (
	// SignalLength groups the response-length signals.
	SignalLength = "length"
	// SignalTokens groups the token-count signals.
	SignalTokens = "tokens"
	// SignalFinish groups the finish-reason signals.
	SignalFinish = "finish_reason"
	// SignalLexical groups the lexical-similarity and energy-distance
	// signals: the answers' wording moved.
	SignalLexical = "lexical"
	// SignalModel groups the served-model and system-fingerprint changes.
	SignalModel = "model"
	// SignalOther groups a signal of an unknown kind.
	SignalOther = "other"
)

// ScoresTest reports whether u's test is of scores (Mann–Whitney), not
// of pass counts.
func (u *TestedUnit) ScoresTest() bool { return strings.HasPrefix(u.Test, "mann_whitney") }

// RepeatedIn returns the unit of units whose test u repeats: SameTestAs
// names it "kind key", and of the units of that name it is the one whose
// test is of the same family (pass counts or scores), as a pair can have
// both. It returns nil when u's test is its own.
func (u *TestedUnit) RepeatedIn(units []TestedUnit) *TestedUnit {
	if u.SameTestAs == "" {
		return nil
	}
	for i := range units {
		o := &units[i]
		if o.Kind+" "+o.Key == u.SameTestAs && o.ScoresTest() == u.ScoresTest() {
			return o
		}
	}
	return nil
}

// SignalGroup returns the group of a change signal kind (ChangeSignal.Kind),
// SignalOther for an unknown one.
func SignalGroup(kind string) string {
	switch kind {
	case "response_length":
		return SignalLength
	case "completion_tokens", "prompt_tokens", "total_tokens":
		return SignalTokens
	case "finish_reason":
		return SignalFinish
	case "token_f1", "chrf", "energy_distance":
		return SignalLexical
	case "model", "system_fingerprint":
		return SignalModel
	}
	return SignalOther
}

// The kinds of the notes of a drift report (see Note).
const (
	// NoteCoverage notes pairs that were not compared (stale baseline, not
	// measured, added, removed) or lack evidence (one sample on a side).
	NoteCoverage = "coverage"
	// NoteMethod notes a caveat of the decision rule (the single-sample
	// rule).
	NoteMethod = "method"
	// NoteSensitivity notes how small a drop a clean comparison could have
	// detected.
	NoteSensitivity = "sensitivity"
	// NoteSignals notes flagged informational change signals.
	NoteSignals = "signals"
)

// Note is one plain-language caveat of a drift report with its kind
// (NoteCoverage, NoteMethod, NoteSensitivity or NoteSignals), so a report
// can group notes by kind. DriftStatistics.Notes holds the notes of a
// statistical report; DriftReport.Notes holds their texts, in the same
// order, for every report.
type Note struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}
