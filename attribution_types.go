package promptcanary

import "strings"

// The causes an Attribution names (see docs/attribution.md).
const (
	// CauseSuite: the suite changed since the baseline (a prompt, a probe's
	// configuration or the call parameters), so the pairs it touched are
	// measuring something else.
	CauseSuite = "suite"
	// CauseProvider: the provider changed what answers: the served model
	// id or system fingerprint changed, or the alias moved while its
	// control arm held.
	CauseProvider = "provider"
	// CauseProviderWide: the control arm moved as well (a provider-wide
	// change or a bad hour shared by both arms).
	CauseProviderWide = "provider-wide"
	// CauseApp: an http/ application moved while the raw model behind it,
	// its control arm, held.
	CauseApp = "app"
	// CauseJudge: an llm_judge verdict moved while the answers did not
	// (the judge model, re-run on the baseline's answers, judges them
	// differently now).
	CauseJudge = "judge"
	// CauseNoise: what moved is within the model's usual run-to-run spread.
	CauseNoise = "noise"
	// CauseUnknown: a change with no recorded evidence of who made it.
	CauseUnknown = "unknown"
)

// Attribution is the likely cause of a drift report's or an incident's
// change, with the recorded facts that point to it. It is a reading of
// the evidence, not a test: Evidence lists what was seen, in plain
// sentences, so a reader can check it.
type Attribution struct {
	// Cause is one of the Cause constants.
	Cause string `json:"cause"`
	// Evidence holds the facts behind Cause, most telling first.
	Evidence []string `json:"evidence,omitempty"`
}

// Line is the attribution in one line of plain text for the report
// formats: "likely cause: provider (served model changed: …; …)".
func (a *Attribution) Line() string {
	if a == nil || a.Cause == "" {
		return ""
	}
	if len(a.Evidence) == 0 {
		return "likely cause: " + a.Cause
	}
	return "likely cause: " + a.Cause + " (" + strings.Join(a.Evidence, "; ") + ")"
}
