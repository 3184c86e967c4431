package promptcanary

import "time"

// The outcome of an upgrade gate (compare --candidate, see drift.Candidate):
// is a candidate model no worse than the current one, pair by pair? The
// types live here, with the other reports, so that renderers need not
// import the statistics.

// CandidateVerdict is what the samples show of one pair.
type CandidateVerdict string

// The verdicts of a pair, from the candidate's side.
const (
	// CandidateWorse: the candidate passes less often than the current
	// model by more than the margin (significant after the FDR step).
	CandidateWorse CandidateVerdict = "worse"
	// CandidateBetter: the candidate passes more often (significant).
	CandidateBetter CandidateVerdict = "better"
	// CandidateNoWorse: the candidate is shown to pass at most the margin
	// less often (non-inferior), though not shown better.
	CandidateNoWorse CandidateVerdict = "no_worse"
	// CandidateInconclusive: the samples show none of the above.
	CandidateInconclusive CandidateVerdict = "inconclusive"
)

// PassCount is how many of a pair's n samples passed on one side.
type PassCount struct {
	Passed int `json:"passed"`
	N      int `json:"n"`
}

// CandidatePair is the evidence and verdict of one (probe, prompt) pair.
// Rates, Delta, Interval and margins are shares (0.05 is 5 points).
type CandidatePair struct {
	ProbeID   string    `json:"probe_id"`
	PromptID  string    `json:"prompt_id"`
	Current   PassCount `json:"current"`
	Candidate PassCount `json:"candidate"`
	// Delta is the candidate's pass rate minus the current one's, and
	// Interval its two-sided 95% Newcombe interval.
	Delta    float64    `json:"delta"`
	Interval [2]float64 `json:"interval"`
	// PWorse tests H0 "Delta ≥ −margin" (rejected: worse beyond the
	// margin), PNoWorse H0 "Delta ≤ −margin" (rejected: no worse) and
	// PBetter H0 "Delta ≤ 0" (rejected: better); the Q values are their
	// Benjamini–Hochberg adjusted values over all pairs of the comparison.
	PWorse   float64          `json:"p_worse"`
	QWorse   float64          `json:"q_worse"`
	PNoWorse float64          `json:"p_no_worse"`
	QNoWorse float64          `json:"q_no_worse"`
	PBetter  float64          `json:"p_better"`
	QBetter  float64          `json:"q_better"`
	Verdict  CandidateVerdict `json:"verdict"`
}

// CandidateSummary counts the pairs of a candidate comparison by verdict.
// NoWorse counts every pair shown no worse, the better ones included.
type CandidateSummary struct {
	Pairs        int `json:"pairs"`
	Better       int `json:"better"`
	NoWorse      int `json:"no_worse"`
	Worse        int `json:"worse"`
	Inconclusive int `json:"inconclusive"`
	// NotCompared counts the pairs measured on one side only (a failed
	// call, a probe that judged nothing); they have no verdict.
	NotCompared int `json:"not_compared"`
}

// CandidateReport is the outcome of an upgrade gate: the current and the
// candidate model run on the same prompts, samples and seed, and each
// pair's pass rates compared with a non-inferiority test.
type CandidateReport struct {
	Suite string `json:"suite"`
	// Current and Candidate are the two models as provider/model.
	Current   string  `json:"current"`
	Candidate string  `json:"candidate"`
	Margin    float64 `json:"margin"`
	Alpha     float64 `json:"alpha"`
	// Samples is the number of samples per prompt asked of each model.
	Samples int              `json:"samples"`
	Pairs   []CandidatePair  `json:"pairs"`
	Summary CandidateSummary `json:"summary"`
	// SamplesToShowNoWorse, set when a pair is inconclusive, is the fewest
	// samples per prompt with which a pair that passes every sample on
	// both models is shown no worse at this margin (0: more than 200).
	SamplesToShowNoWorse int `json:"samples_to_show_no_worse,omitempty"`
	// NotCompared lists the pairs measured on one side only, as
	// "probe_id/prompt_id".
	NotCompared []string `json:"not_compared,omitempty"`
}

// With returns the pairs whose verdict is v, in the report's order.
func (r *CandidateReport) With(v CandidateVerdict) []CandidatePair {
	var out []CandidatePair
	for _, p := range r.Pairs {
		if p.Verdict == v {
			out = append(out, p)
		}
	}
	return out
}

// IncidentCandidate is the incident kind of a monitor check's upgrade
// gate (candidate:): the candidate is worse than the check's provider
// beyond the margin on at least one pair. A gate with no pair worse
// resolves it.
const IncidentCandidate IncidentKind = "candidate"

// CandidateGate is one upgrade gate of a monitor check (candidate:): the
// gate of one scheduled slot, as the store keeps it.
type CandidateGate struct {
	ID        string    `json:"id"`        // identifies the gate
	Check     string    `json:"check"`     // the monitor check
	Provider  string    `json:"provider"`  // the check's provider: the current model
	Candidate string    `json:"candidate"` // the candidate as monitor.yaml names it
	Slot      time.Time `json:"slot"`      // the check's slot
	At        time.Time `json:"at"`        // when the gate finished
	// CheckRunID is the check run of the slot.
	CheckRunID string `json:"check_run_id,omitempty"`
	// CostUSD is the estimated spend of both runs.
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Reason says, in one scrubbed line, why the gate has no report.
	Reason string `json:"reason,omitempty"`
	// Report is the comparison, nil when a model could not be measured.
	Report *CandidateReport `json:"report,omitempty"`
}
