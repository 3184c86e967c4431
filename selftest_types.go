package promptcanary

import (
	"math"
	"strings"
)

// The outcome of a suite self-test (see package selftest): which drifts of
// a catalogue the suite's probes catch on a baseline's stored answers.
// The types live here, with the other reports, so that renderers need not
// import the self-test itself.

// SelftestOutcome is what one probe instance made of one drift.
type SelftestOutcome string

// The outcomes of a matrix cell.
const (
	// SelftestCaught: the probe passes an original answer and fails its drifted
	// version, on at least one prompt.
	SelftestCaught SelftestOutcome = "caught"
	// SelftestMissed: the drift changed answers the probe judges, and the probe
	// failed none of them that it passed before.
	SelftestMissed SelftestOutcome = "missed"
	// SelftestNotApplicable: the drift changed none of the answers the probe judges.
	SelftestNotApplicable SelftestOutcome = "not_applicable"
)

// SelftestSamples are the per-prompt sample counts of a baseline and of a current
// run, the sizes the drift statistics will compare.
type SelftestSamples struct {
	Baseline int `json:"baseline"`
	Current  int `json:"current"`
}

// SelftestResult is the outcome of a self-test.
type SelftestResult struct {
	Suite string `json:"suite"`
	// BaselineID and Model identify the baseline whose answers were used.
	BaselineID string `json:"baseline_id"`
	Model      string `json:"model"`
	// Answers counts the stored answers used, over Prompts prompts.
	Answers int `json:"answers"`
	Prompts int `json:"prompts"`
	// Probes are the suite's probe instances, suite-wide ones first.
	Probes []SelftestProbe `json:"probes"`
	// Drifts hold one row of the matrix each, in catalogue order.
	Drifts []SelftestDrift `json:"drifts"`
	// Samples are the sample counts the detectable drops were computed for.
	Samples *SelftestSamples `json:"samples,omitempty"`
	// Alpha is the level the detectable drops were computed at.
	Alpha float64 `json:"alpha,omitempty"`
	// Notes are caveats: prompts without stored answers, probes that fail
	// on the baseline's own answers.
	Notes []string `json:"notes,omitempty"`
}

// SelftestProbe is one probe instance of the suite.
type SelftestProbe struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Name     string   `json:"name"`
	Category Category `json:"category"`
	// Prompts are the prompts the instance judges that have stored answers.
	Prompts []string `json:"prompts"`
	// Judged and Passed count the stored answers it judged and passed.
	Judged int `json:"judged"`
	Passed int `json:"passed"`
	// Detectable is the smallest drop of one prompt's pass rate for this
	// probe that the drift statistics detect with power 0.8 at the sample
	// counts of Samples, starting from the probe's pass rate on
	// the stored answers; nil without SelftestSamples.
	Detectable *SelftestDetectable `json:"detectable,omitempty"`
}

// PassRate is Passed/Judged, NaN when nothing was judged (no rate, "n/a").
func (p *SelftestProbe) PassRate() float64 {
	if p.Judged == 0 {
		return math.NaN()
	}
	return float64(p.Passed) / float64(p.Judged)
}

// SelftestDrift is one drift's row of the matrix.
type SelftestDrift struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Changed counts the stored answers the drift applies to, over the
	// prompts listed in Prompts.
	Changed int      `json:"changed"`
	Prompts []string `json:"prompts"`
	// Cells hold one cell per probe, in SelftestResult.Probes order.
	Cells []SelftestCell `json:"cells"`
	// CaughtBy lists the probe instances that catch the drift.
	CaughtBy []string `json:"caught_by"`
	// Gaps are the prompts on which the drift applies and no probe catches
	// it, grouped by the probe suggested to close them.
	Gaps []SelftestGap `json:"gaps,omitempty"`
}

// Applicable reports whether the drift changed any stored answer.
func (d *SelftestDrift) Applicable() bool { return d.Changed > 0 }

// Missed reports whether the drift applies and no probe catches it.
func (d *SelftestDrift) Missed() bool { return d.Changed > 0 && len(d.CaughtBy) == 0 }

// SelftestCell is what one probe instance made of one drift.
type SelftestCell struct {
	Probe   string          `json:"probe"`
	Outcome SelftestOutcome `json:"outcome"`
	// Answers counts the drifted answers the probe judged; Caught those it
	// passed in their original form and failed drifted; AlreadyFailing
	// those it failed in their original form already.
	Answers        int `json:"answers"`
	Caught         int `json:"caught"`
	AlreadyFailing int `json:"already_failing,omitempty"`
	// ScoreDelta is the mean change of the probe's score, drifted minus
	// original, over those answers.
	ScoreDelta float64 `json:"score_delta"`
	// Prompts are the prompts on which the probe caught the drift.
	Prompts []string `json:"prompts,omitempty"`
	// Details are the probe's details on the first caught answer.
	Details string `json:"details,omitempty"`
}

// SelftestGap is a set of prompts on which a drift goes unnoticed, with the probe
// that would notice it.
type SelftestGap struct {
	Prompts    []string           `json:"prompts"`
	Suggestion SelftestSuggestion `json:"suggestion"`
}

// Caught counts the applicable drifts that some probe catches.
func (r *SelftestResult) Caught() (caught, applicable int) {
	for i := range r.Drifts {
		if r.Drifts[i].Applicable() {
			applicable++
			if !r.Drifts[i].Missed() {
				caught++
			}
		}
	}
	return caught, applicable
}

// SelftestSuggestion is a probe to add to a suite so that it catches a drift.
type SelftestSuggestion struct {
	// ProbeType is a built-in probe type id.
	ProbeType string `json:"probe_type"`
	// Params are the parameters to set, as the body of a YAML flow mapping
	// ("expect_refusal: false"); empty when the defaults do.
	Params string `json:"params,omitempty"`
	// Why says in one sentence what the probe would check.
	Why string `json:"why"`
}

// String returns "type" or "type with params".
func (s SelftestSuggestion) String() string {
	if s.Params == "" {
		return s.ProbeType
	}
	return s.ProbeType + " with " + s.Params
}

// Detectable is the smallest drop of a pair's pass rate that the drift
// statistics detect with power 0.8.
type SelftestDetectable struct {
	// Drop is that drop, a fraction (0.4 = 40 points of pass rate); 0 when
	// Reason says why there is none.
	Drop float64 `json:"drop"`
	// From is the baseline pass rate the drop starts from.
	From float64 `json:"from"`
	// Reason is set when no drop is detectable: too few samples, or a
	// probe that never passes on the stored answers.
	Reason string `json:"reason,omitempty"`
}

// YAML returns the suggestion as an item of a canary.yaml `probes:` list:
// "- type: refusal\n  expect_refusal: false\n".
func (s SelftestSuggestion) YAML() string {
	if s.Params == "" {
		return "- " + s.ProbeType + "\n"
	}
	var b strings.Builder
	b.WriteString("- type: " + s.ProbeType + "\n")
	for _, kv := range splitParams(s.Params) {
		b.WriteString("  " + kv + "\n")
	}
	return b.String()
}

// splitParams splits "a: 1, b: [x, y]" at the commas outside brackets.
func splitParams(s string) []string {
	var out []string
	depth, start := 0, 0
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && inQuote:
			i++
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}
