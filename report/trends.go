package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// TrendData is the history of one suite and model, newest last.
//
// Its JSON form, written by Trends in JSON and by MarshalJSON, uses
// snake_case fields and null for a score that is not a number.
type TrendData struct {
	Suite, Model string
	// Runs are the runs of the history, chronological (oldest first).
	Runs []store.RunSummary
	// Scores holds one row per run × probe instance.
	Scores []store.ProbeScore
	// Drifts are the drift reports of the history, chronological.
	Drifts []store.DriftSummary
}

// Trends writes the score history, the probe × run heatmap and the drift
// timeline of d in format f to w: sparklines and shaded cells in a
// terminal, a compact table in Markdown, inline SVG charts in one
// self-contained HTML page, and d itself in JSON. Every format puts runs,
// scores and drifts in chronological order first, whatever order d has; d
// is not modified. Nothing is written when rendering fails.
func Trends(w io.Writer, f Format, d *TrendData, opts Options) error {
	if d == nil {
		return errors.New("render trends: nil trend data")
	}
	sorted := d.sorted()
	return (&renderer{
		name:     "trends",
		terminal: func(b *bytes.Buffer) { renderTrendsTerminal(b, sorted, opts) },
		markdown: func(b *bytes.Buffer) { renderTrendsMarkdown(b, sorted) },
		html:     func(b *bytes.Buffer) error { return renderHTML(b, "trends.html.tmpl", newTrendPage(sorted)) },
		json:     func(b *bytes.Buffer) error { return writeJSON(b, sorted) },
		noJUnit:  "render trends: no JUnit form: trends are not tests (want terminal, markdown, html or json)",
	}).write(w, f)
}

// sorted returns a copy of d with runs ordered by start time, scores by
// run start time then probe id, and drifts by generation time; ids break
// ties so the order is total.
func (d *TrendData) sorted() *TrendData {
	out := &TrendData{
		Suite:  d.Suite,
		Model:  d.Model,
		Runs:   slices.Clone(d.Runs),
		Scores: slices.Clone(d.Scores),
		Drifts: slices.Clone(d.Drifts),
	}
	slices.SortStableFunc(out.Runs, func(a, b store.RunSummary) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), cmp.Compare(a.RunID, b.RunID))
	})
	slices.SortStableFunc(out.Scores, func(a, b store.ProbeScore) int {
		return cmp.Or(a.StartedAt.Compare(b.StartedAt), cmp.Compare(a.RunID, b.RunID), cmp.Compare(a.ProbeID, b.ProbeID))
	})
	slices.SortStableFunc(out.Drifts, func(a, b store.DriftSummary) int {
		return cmp.Or(a.GeneratedAt.Compare(b.GeneratedAt), cmp.Compare(a.ReportID, b.ReportID))
	})
	return out
}

// trendModel is the part of a history that charts show: a window of the
// newest runs, the probes scored in it and the compares placed on it.
type trendModel struct {
	Runs    []store.RunSummary // the window, oldest first
	Skipped int                // older runs left out of the window
	Probes  []probeTrend       // worst latest mean first
	Marks   []driftMark        // compares placed on a run of the window, chronological
	Earlier int                // compares before the window
	Total   int                // compares in the history
}

// probeTrend is the history of one probe instance over the window.
type probeTrend struct {
	ID     string
	Cells  []probeCell // one per run of the window
	Latest probeCell   // the cell of the newest run that scored the probe
	Run    int         // index of that run in the window
}

// probeCell is one probe instance in one run.
type probeCell struct {
	Mean, PassRate float64
	N              int
	Has            bool // false when the run did not score the probe
}

// driftMark is a compare placed on the run it compared, or on the newest
// run started before it was generated.
type driftMark struct {
	Col      int
	Drift    *store.DriftSummary
	Severity string // lower case, "none" when empty
}

// newTrendModel builds the model of the newest last runs of d (all when
// last <= 0); d must be sorted.
func newTrendModel(d *TrendData, last int) *trendModel {
	m := &trendModel{Runs: d.Runs, Total: len(d.Drifts)}
	if last > 0 && len(m.Runs) > last {
		m.Skipped = len(m.Runs) - last
		m.Runs = m.Runs[m.Skipped:]
	}
	col := make(map[string]int, len(d.Runs))
	for i := range d.Runs {
		col[d.Runs[i].RunID] = i - m.Skipped
	}

	byProbe := make(map[string]*probeTrend)
	for i := range d.Scores {
		s := &d.Scores[i]
		c, ok := col[s.RunID]
		if !ok || c < 0 {
			continue
		}
		p := byProbe[s.ProbeID]
		if p == nil {
			p = &probeTrend{ID: s.ProbeID, Cells: make([]probeCell, len(m.Runs)), Run: -1}
			byProbe[s.ProbeID] = p
		}
		p.Cells[c] = probeCell{Mean: s.Mean, PassRate: s.PassRate, N: s.N, Has: true}
		if c >= p.Run {
			p.Run, p.Latest = c, p.Cells[c]
		}
	}
	m.Probes = make([]probeTrend, 0, len(byProbe))
	for _, p := range byProbe {
		m.Probes = append(m.Probes, *p)
	}
	slices.SortFunc(m.Probes, func(a, b probeTrend) int {
		an, bn := math.IsNaN(a.Latest.Mean), math.IsNaN(b.Latest.Mean)
		switch {
		case an && !bn:
			return -1
		case bn && !an:
			return 1
		}
		return cmp.Or(cmp.Compare(a.Latest.Mean, b.Latest.Mean), cmp.Compare(a.ID, b.ID))
	})

	for i := range d.Drifts {
		dr := &d.Drifts[i]
		c, ok := col[dr.CurrentRunID]
		if !ok {
			// The newest run started at or before the compare.
			c = lastRunAt(d.Runs, dr.GeneratedAt) - m.Skipped
		}
		if c < 0 {
			m.Earlier++
			continue
		}
		sev := severity(dr.Severity)
		if c >= 0 && c < len(m.Runs) && m.Runs[c].RunID == dr.CurrentRunID && !m.Runs[c].Measured() {
			// A compare of a run whose every call failed compared
			// nothing: its "none" is no finding.
			sev = store.VerdictUnmeasured
		}
		m.Marks = append(m.Marks, driftMark{Col: c, Drift: dr, Severity: sev})
	}
	return m
}

// lastRunAt returns the index of the newest run of runs (sorted)
// started at or before t, or -1.
func lastRunAt(runs []store.RunSummary, t time.Time) int {
	i, _ := slices.BinarySearchFunc(runs, t, func(r store.RunSummary, t time.Time) int {
		if r.StartedAt.After(t) {
			return 1
		}
		return -1
	})
	return i - 1
}

// scores returns the overall score of every run of the window.
func (m *trendModel) scores() []float64 {
	out := make([]float64, len(m.Runs))
	for i := range m.Runs {
		out[i] = m.Runs[i].Score
	}
	return out
}

// passRates returns the pass rate of every run of the window.
func (m *trendModel) passRates() []float64 {
	out := make([]float64, len(m.Runs))
	for i := range m.Runs {
		out[i] = m.Runs[i].PassRate
	}
	return out
}

// columnMarks returns, per run of the window, the most severe compare
// placed on it, or nil.
func (m *trendModel) columnMarks() []*driftMark {
	out := make([]*driftMark, len(m.Runs))
	for i := range m.Marks {
		mk := &m.Marks[i]
		if cur := out[mk.Col]; cur == nil || severityRank(mk.Severity) >= severityRank(cur.Severity) {
			out[mk.Col] = mk
		}
	}
	return out
}

// severityCounts describes the compares placed on the window, most severe
// first: "1 high, 1 low, 1 none".
func (m *trendModel) severityCounts() string {
	n := make(map[string]int)
	var sevs []string
	for _, mk := range m.Marks {
		if n[mk.Severity] == 0 {
			sevs = append(sevs, mk.Severity)
		}
		n[mk.Severity]++
	}
	slices.SortFunc(sevs, func(a, b string) int {
		return cmp.Or(cmp.Compare(severityRank(b), severityRank(a)), cmp.Compare(a, b))
	})
	parts := make([]string, len(sevs))
	for i, s := range sevs {
		parts[i] = strconv.Itoa(n[s]) + " " + s
	}
	return strings.Join(parts, ", ")
}

// severityRank ranks a lower-case severity; unmeasured (a compare of a
// run without results) ranks below none, and an unknown one above
// critical, as the renderers cannot tell how bad it is.
func severityRank(s string) int {
	if r := promptcanary.Severity(s).Rank(); r >= 0 {
		return r
	}
	if s == store.VerdictUnmeasured {
		return -1
	}
	return 5
}

// unmeasuredLetter marks a compare of an unmeasured run on a timeline.
const unmeasuredLetter = "×"

// severityLetter marks a compare on a timeline: · for none, L, M, H, C,
// × for a compare of an unmeasured run and ? for a severity the renderers
// do not know.
func severityLetter(s string) string {
	switch s {
	case store.VerdictUnmeasured:
		return unmeasuredLetter
	case "none":
		return "·"
	case "low":
		return "L"
	case "medium":
		return "M"
	case "high":
		return "H"
	case "critical":
		return "C"
	}
	return "?"
}

// sparkRunes are the levels of a sparkline, lowest first.
var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values in [0,1] on a fixed scale, one rune per value: ▁
// below 1/8 up to █ from 7/8; a value that is not a number shows as ?.
func sparkline(values []float64) string {
	var b strings.Builder
	b.Grow(3 * len(values))
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteByte('?')
			continue
		}
		b.WriteRune(sparkRunes[min(max(int(v*8), 0), 7)])
	}
	return b.String()
}

// spread returns the smallest, the largest and the last value of values,
// ignoring values that are not numbers; NaN when there is none.
func spread(values []float64) (lo, hi, last float64) {
	lo, hi, last = math.NaN(), math.NaN(), math.NaN()
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if math.IsNaN(lo) || v < lo {
			lo = v
		}
		if math.IsNaN(hi) || v > hi {
			hi = v
		}
	}
	if len(values) > 0 {
		last = values[len(values)-1]
	}
	return lo, hi, last
}

// unmeasuredNote says why a run without results has no score ("unmeasured:
// 2 calls failed, none answered"), "" for a measured run.
func unmeasuredNote(r *store.RunSummary) string {
	if why := unmeasuredWhy(r); why != "" {
		return "unmeasured: " + why
	}
	return ""
}

// unmeasuredWhy is unmeasuredNote without its "unmeasured: ".
func unmeasuredWhy(r *store.RunSummary) string {
	switch {
	case r.Measured():
		return ""
	case r.Errors > 0:
		return plural(r.Errors, "call", "calls") + " failed, none answered"
	}
	return "no result"
}

// runLabel is a run's id with its baseline and interrupted marks.
func runLabel(r *store.RunSummary) string {
	s := orDash(r.RunID)
	if r.IsBaseline {
		s += " (baseline)"
	}
	if r.Interrupted {
		s += " (interrupted)"
	}
	return s
}

// dateLabels formats the start dates of runs for an axis: the day, or the
// day and time when two runs share a day.
func dateLabels(runs []store.RunSummary) func(i int) string {
	layout := "2006-01-02"
	seen := make(map[string]bool, len(runs))
	for i := range runs {
		day := runs[i].StartedAt.UTC().Format(layout)
		if seen[day] {
			layout = "01-02 15:04"
			break
		}
		seen[day] = true
	}
	return func(i int) string {
		if runs[i].StartedAt.IsZero() {
			return "—"
		}
		return runs[i].StartedAt.UTC().Format(layout)
	}
}

// jsonNumber returns f for JSON, nil (null) when f is not finite: encoding/json
// cannot write NaN.
func jsonNumber(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// fromJSON reads a number written by jsonNumber: null is NaN.
func fromJSON(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

// The JSON forms of the store's summaries.
type (
	trendJSON struct {
		Suite  string      `json:"suite"`
		Model  string      `json:"model"`
		Runs   []runJSON   `json:"runs"`
		Scores []scoreJSON `json:"scores"`
		Drifts []driftJSON `json:"drifts"`
	}
	runJSON struct {
		RunID       string    `json:"run_id"`
		Suite       string    `json:"suite"`
		Model       string    `json:"model"`
		StartedAt   time.Time `json:"started_at"`
		FinishedAt  time.Time `json:"finished_at,omitzero"`
		Samples     int       `json:"samples"`
		Results     int       `json:"results"`
		Passed      int       `json:"passed"`
		Errors      int       `json:"errors"`
		Measured    bool      `json:"measured"`
		Score       *float64  `json:"score"`
		PassRate    *float64  `json:"pass_rate"`
		IsBaseline  bool      `json:"is_baseline,omitempty"`
		Verdict     string    `json:"verdict,omitempty"`
		Interrupted bool      `json:"interrupted,omitempty"`
	}
	scoreJSON struct {
		RunID     string    `json:"run_id"`
		StartedAt time.Time `json:"started_at"`
		ProbeID   string    `json:"probe_id"`
		Mean      *float64  `json:"mean"`
		PassRate  *float64  `json:"pass_rate"`
		N         int       `json:"n"`
	}
	driftJSON struct {
		ReportID     string                `json:"report_id"`
		Suite        string                `json:"suite"`
		Model        string                `json:"model"`
		BaselineID   string                `json:"baseline_id"`
		CurrentRunID string                `json:"current_run_id"`
		GeneratedAt  time.Time             `json:"generated_at"`
		Severity     promptcanary.Severity `json:"severity"`
		HasDrift     bool                  `json:"has_drift"`
		Regressions  int                   `json:"regressions"`
		Summary      string                `json:"summary"`
	}
)

// MarshalJSON writes d with snake_case field names, empty lists as [] and
// scores that are not numbers as null; a run says whether it measured
// anything ("measured": false, score and pass rate null, when every call
// failed).
func (d TrendData) MarshalJSON() ([]byte, error) {
	out := trendJSON{
		Suite:  d.Suite,
		Model:  d.Model,
		Runs:   make([]runJSON, len(d.Runs)),
		Scores: make([]scoreJSON, len(d.Scores)),
		Drifts: make([]driftJSON, len(d.Drifts)),
	}
	for i, r := range d.Runs {
		out.Runs[i] = runJSON{r.RunID, r.Suite, r.Model, r.StartedAt, r.FinishedAt, r.Samples, r.Results, r.Passed, r.Errors,
			r.Measured(), jsonNumber(r.Score), jsonNumber(r.PassRate), r.IsBaseline, r.Verdict, r.Interrupted}
	}
	for i, s := range d.Scores {
		out.Scores[i] = scoreJSON{s.RunID, s.StartedAt, s.ProbeID, jsonNumber(s.Mean), jsonNumber(s.PassRate), s.N}
	}
	for i, dr := range d.Drifts {
		out.Drifts[i] = driftJSON{dr.ReportID, dr.Suite, dr.Model, dr.BaselineID, dr.CurrentRunID, dr.GeneratedAt,
			dr.Severity, dr.HasDrift, dr.Regressions, dr.Summary}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes; null scores become NaN.
func (d *TrendData) UnmarshalJSON(b []byte) error {
	var in trendJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("decode trend data: %w", err)
	}
	*d = TrendData{Suite: in.Suite, Model: in.Model}
	for _, r := range in.Runs {
		sum := store.RunSummary{RunID: r.RunID, Suite: r.Suite, Model: r.Model, StartedAt: r.StartedAt,
			FinishedAt: r.FinishedAt, Samples: r.Samples, Results: r.Results, Passed: r.Passed, Errors: r.Errors,
			Score: fromJSON(r.Score), PassRate: fromJSON(r.PassRate), IsBaseline: r.IsBaseline, Verdict: r.Verdict,
			Interrupted: r.Interrupted}
		d.Runs = append(d.Runs, sum)
	}
	for _, s := range in.Scores {
		d.Scores = append(d.Scores, store.ProbeScore{RunID: s.RunID, StartedAt: s.StartedAt, ProbeID: s.ProbeID,
			Mean: fromJSON(s.Mean), PassRate: fromJSON(s.PassRate), N: s.N})
	}
	for _, dr := range in.Drifts {
		d.Drifts = append(d.Drifts, store.DriftSummary{ReportID: dr.ReportID, Suite: dr.Suite, Model: dr.Model,
			BaselineID: dr.BaselineID, CurrentRunID: dr.CurrentRunID, GeneratedAt: dr.GeneratedAt, Severity: dr.Severity,
			HasDrift: dr.HasDrift, Regressions: dr.Regressions, Summary: dr.Summary})
	}
	return nil
}
