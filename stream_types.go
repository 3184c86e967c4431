package promptcanary

import (
	"encoding/json"
	"math"
	"time"
)

// KindRunSummary is the "kind" of a RunSummary's JSON, which tells it
// apart from a Run (that has no kind) when a file is read back.
const KindRunSummary = "run_summary"

// IsRunSummary reports whether data is the JSON of a RunSummary (its
// "kind" is KindRunSummary), without decoding all of it.
func IsRunSummary(data []byte) bool {
	var probe struct {
		Kind string `json:"kind"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Kind == KindRunSummary
}

// MaxSummaryDetails bounds the distinct failure details a RunSummary keeps
// per (probe, prompt) pair; the failures past them are counted in
// PairSummary.OtherFailures.
const MaxSummaryDetails = 32

// MaxSummaryUnknown bounds the prompt ids a RunSummary lists among the
// lines for prompts that the suite does not hold; the lines past them are
// counted in RunSummary.UnknownLines all the same.
const MaxSummaryUnknown = 100

// RunSummary is a run judged as a stream, such as a replay file of a
// million logged answers: every answer was judged by its prompt's probes,
// but only aggregates were kept, per (probe, prompt) pair, never the
// answers or the results themselves. It cannot be a baseline nor be
// compared, and the history does not record it.
type RunSummary struct {
	// Kind is always KindRunSummary.
	Kind          string         `json:"kind"`
	SchemaVersion string         `json:"schema_version"`
	RunID         string         `json:"run_id"`
	SuiteName     string         `json:"suite_name"`
	Provider      ProviderConfig `json:"provider"`
	// Source names what was streamed (the replay file as given).
	Source     string    `json:"source"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Lines counts the answers read; Judged those of them for a prompt of
	// the suite (or of the prompts selected), which its probes judged.
	Lines  int64 `json:"lines"`
	Judged int64 `json:"judged"`
	// UnknownLines counts the answers for prompts the suite (or the
	// selection) does not hold; Unknown names the first of those prompts
	// with their counts, sorted by id (at most MaxSummaryUnknown).
	UnknownLines int64           `json:"unknown_lines,omitempty"`
	Unknown      []UnknownPrompt `json:"unknown_prompts,omitempty"`
	// Pairs are the aggregates of every (probe, prompt) pair with at least
	// one judged answer, sorted by prompt then probe.
	Pairs []PairSummary `json:"pairs"`
	// Errors are the prompts of the suite without any answer in the
	// source, one error each, as a run reports a prompt it could not
	// measure.
	Errors []CallError `json:"errors,omitempty"`
	// Token and latency totals over the judged answers.
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	TotalTokens      int64   `json:"total_tokens"`
	LatencyMS        float64 `json:"latency_ms_total"`
	// CostUSD is the estimated cost of the answers' tokens from the price
	// table; nil when the model's price is unknown.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// ConfigHash fingerprints the suite's prompts and probes as a run's.
	ConfigHash string `json:"config_hash,omitempty"`
	// Interrupted is set when the stream was stopped before its end.
	Interrupted bool   `json:"interrupted,omitempty"`
	Tool        string `json:"tool,omitempty"`
}

// PairSummary aggregates the results of one (probe, prompt) pair over
// every answer to the prompt in a stream.
type PairSummary struct {
	ProbeID   string   `json:"probe_id"`
	ProbeType string   `json:"probe_type,omitempty"`
	ProbeName string   `json:"probe_name"`
	Category  Category `json:"category"`
	PromptID  string   `json:"prompt_id"`
	// N counts the answers judged, Passes those that passed; ScoreSum is
	// the sum of their scores (see MeanScore).
	N        int64   `json:"n"`
	Passes   int64   `json:"passes"`
	ScoreSum float64 `json:"score_sum"`
	// Details are the details of the pair's first answer in the source,
	// shown when every answer passed.
	Details string `json:"details,omitempty"`
	// Failures are the distinct details of the failing answers with their
	// counts, most frequent first: those first seen in the source, at most
	// MaxSummaryDetails; OtherFailures counts the failing answers whose
	// details are not listed. The counts are exact while a pair has at
	// most MaxSummaryDetails distinct details.
	Failures      []DetailCount `json:"failures,omitempty"`
	OtherFailures int64         `json:"other_failures,omitempty"`
	// Example is the first failing answer in the source, cut short, and
	// ExampleLine its line.
	Example     string `json:"example,omitempty"`
	ExampleLine int64  `json:"example_line,omitempty"`
}

// MeanScore is ScoreSum/N, or 0 when nothing was judged.
func (p *PairSummary) MeanScore() float64 {
	if p.N == 0 {
		return 0
	}
	return p.ScoreSum / float64(p.N)
}

// Key returns the (probe instance, prompt) pair.
func (p *PairSummary) Key() PairKey { return PairKey{ProbeID: p.ProbeID, PromptID: p.PromptID} }

// DetailCount is one distinct details text and how many answers gave it.
type DetailCount struct {
	Details string `json:"details"`
	N       int64  `json:"n"`
}

// UnknownPrompt is a prompt id that a stream held answers for but that
// the suite (or the selection) does not hold.
type UnknownPrompt struct {
	PromptID string `json:"prompt_id"`
	Lines    int64  `json:"lines"`
}

// Measured reports whether at least one answer was judged.
func (s *RunSummary) Measured() bool { return s.Judged > 0 && len(s.Pairs) > 0 }

// Results returns the number of results aggregated and how many passed.
func (s *RunSummary) Results() (total, passed int64) {
	for i := range s.Pairs {
		total += s.Pairs[i].N
		passed += s.Pairs[i].Passes
	}
	return total, passed
}

// OverallScore is the mean score of all results, NaN when there are none
// (no score, "n/a").
func (s *RunSummary) OverallScore() float64 {
	var sum float64
	var n int64
	for i := range s.Pairs {
		sum += s.Pairs[i].ScoreSum
		n += s.Pairs[i].N
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// PassRate is the fraction of results that passed, NaN when there are
// none.
func (s *RunSummary) PassRate() float64 {
	total, passed := s.Results()
	if total == 0 {
		return math.NaN()
	}
	return float64(passed) / float64(total)
}

// Failing reports whether some answer of some pair failed.
func (s *RunSummary) Failing() bool {
	for i := range s.Pairs {
		if s.Pairs[i].Passes < s.Pairs[i].N {
			return true
		}
	}
	return false
}

// Duration is the wall-clock duration of the stream, 0 when unfinished.
func (s *RunSummary) Duration() time.Duration {
	if s.FinishedAt.IsZero() {
		return 0
	}
	return s.FinishedAt.Sub(s.StartedAt)
}
