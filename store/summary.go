package store

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
)

// Summarize returns the summary of r as every backend reports it. IsBaseline
// and Verdict depend on other records and are left for the backend.
func Summarize(r *promptcanary.Run) RunSummary {
	s := RunSummary{
		RunID:       r.RunID,
		Suite:       r.SuiteName,
		Model:       r.Provider.ModelID,
		StartedAt:   r.StartedAt,
		FinishedAt:  r.FinishedAt,
		Samples:     r.Samples,
		Results:     len(r.ProbeResults),
		Errors:      len(r.Errors),
		Score:       r.OverallScore(),
		PassRate:    r.PassRate(),
		Interrupted: r.Interrupted,
	}
	if s.Samples <= 0 {
		s.Samples = max(1, r.SamplesPerPrompt())
	}
	for i := range r.ProbeResults {
		if r.ProbeResults[i].Passed {
			s.Passed++
		}
	}
	if math.IsInf(s.Score, 0) {
		s.Score = math.NaN()
	}
	s.Settle()
	return s
}

// VerdictUnmeasured is the Verdict of a run that a compare was made of
// but that has no result to compare: every call failed.
const VerdictUnmeasured = "unmeasured"

// Measured reports whether the run has at least one result. A run whose
// every call failed measured nothing: its score and pass rate are NaN.
func (s *RunSummary) Measured() bool { return s.Results > 0 }

// Settle makes the summary of a run without results say so: Score and
// PassRate NaN, and Verdict VerdictUnmeasured when a compare was made of
// it (whose report, comparing nothing, says severity none). Backends call
// it on every summary they return, so rows written before a run of
// nothing read n/a (they stored 1) read right too.
func (s *RunSummary) Settle() {
	if s.Measured() {
		return
	}
	s.Score, s.PassRate = math.NaN(), math.NaN()
	if s.Verdict != "" {
		s.Verdict = VerdictUnmeasured
	}
}

// StoredPassRate is the PassRate a backend writes in its NOT NULL
// pass_rate column: 0 for a run without results, which Settle reads back
// as NaN.
func (s *RunSummary) StoredPassRate() float64 {
	if math.IsNaN(s.PassRate) || math.IsInf(s.PassRate, 0) {
		return 0
	}
	return s.PassRate
}

// ProbeScoresOf aggregates the results of r per probe instance, in
// ascending probe id order.
func ProbeScoresOf(r *promptcanary.Run) []ProbeScore {
	idx := make(map[string]int)
	var out []ProbeScore
	var passed []int
	for i := range r.ProbeResults {
		pr := &r.ProbeResults[i]
		j, ok := idx[pr.ProbeID]
		if !ok {
			j = len(out)
			idx[pr.ProbeID] = j
			out = append(out, ProbeScore{RunID: r.RunID, StartedAt: r.StartedAt, ProbeID: pr.ProbeID})
			passed = append(passed, 0)
		}
		out[j].N++
		out[j].Mean += pr.Score
		if pr.Passed {
			passed[j]++
		}
	}
	for j := range out {
		out[j].Mean /= float64(out[j].N)
		if math.IsInf(out[j].Mean, 0) {
			out[j].Mean = math.NaN()
		}
		out[j].PassRate = float64(passed[j]) / float64(out[j].N)
	}
	slices.SortFunc(out, func(a, b ProbeScore) int { return strings.Compare(a.ProbeID, b.ProbeID) })
	return out
}

// SummarizeDrift returns the summary of d.
func SummarizeDrift(d *promptcanary.DriftReport) DriftSummary {
	return DriftSummary{
		ReportID:     d.ReportID,
		Suite:        d.SuiteName,
		Model:        d.Provider.ModelID,
		BaselineID:   d.BaselineSnapshotID,
		CurrentRunID: d.CurrentRunID,
		GeneratedAt:  d.GeneratedAt,
		Severity:     d.Severity,
		HasDrift:     d.HasDrift,
		Regressions:  len(d.Regressions()),
		Summary:      d.Summary,
	}
}

// Info returns the listing entry of b; Path is left for file stores.
func Info(b *promptcanary.Baseline) BaselineInfo {
	return BaselineInfo{
		SnapshotID: b.SnapshotID,
		RunID:      b.RunResult.RunID,
		Suite:      b.SuiteName,
		Model:      b.Provider.ModelID,
		CreatedAt:  b.CreatedAt,
		Note:       b.Note,
	}
}

// NewBaseline returns a new baseline taken from r at now (to the
// microsecond, like the original tool's timestamps), with a fresh snapshot
// id: what Promote stores.
func NewBaseline(r *promptcanary.Run, note string, now time.Time) *promptcanary.Baseline {
	return &promptcanary.Baseline{
		SnapshotID:    promptcanary.NewID(),
		CreatedAt:     now.Truncate(time.Microsecond),
		SuiteName:     r.SuiteName,
		Provider:      r.Provider,
		SchemaVersion: promptcanary.SchemaVersion,
		RunResult:     *r,
		Note:          note,
	}
}

// CheckBaseline reports whether b can be stored: valid snapshot and run
// ids.
func CheckBaseline(b *promptcanary.Baseline) error {
	if err := CheckID("snapshot", b.SnapshotID); err != nil {
		return err
	}
	return CheckID("run", b.RunResult.RunID)
}

// Resolve picks the record that id names among matches, the ids of the
// stored records of kind ("run", "baseline", "drift report") that start
// with id: id itself if present, else the only match when id has at least
// MinPrefix characters. It fails with ErrNotFound or ErrAmbiguous.
func Resolve(kind, id string, matches []string) (string, error) {
	if slices.Contains(matches, id) {
		return id, nil
	}
	if len(id) < MinPrefix || len(matches) == 0 {
		return "", fmt.Errorf("%s %q: %w", kind, id, ErrNotFound)
	}
	if len(matches) == 1 {
		return matches[0], nil
	}
	slices.Sort(matches)
	shown := matches
	more := ""
	if len(shown) > 5 {
		shown, more = shown[:5], ", …"
	}
	return "", fmt.Errorf("%s %q: %w: matches %s%s", kind, id, ErrAmbiguous, strings.Join(shown, ", "), more)
}

// SortRuns orders summaries newest first: by start time, then by run id,
// both descending.
func SortRuns(s []RunSummary) {
	slices.SortFunc(s, func(a, b RunSummary) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(b.RunID, a.RunID)
	})
}

// SortBaselines orders baselines newest first: by creation time, then by
// snapshot id, both descending.
func SortBaselines(s []BaselineInfo) {
	slices.SortFunc(s, func(a, b BaselineInfo) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.SnapshotID, a.SnapshotID)
	})
}

// SortDrifts orders drift reports newest first: by generation time, then
// by report id, both descending.
func SortDrifts(s []DriftSummary) {
	slices.SortFunc(s, func(a, b DriftSummary) int {
		if c := b.GeneratedAt.Compare(a.GeneratedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ReportID, a.ReportID)
	})
}
