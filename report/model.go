package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
)

// Limits on how much untrusted text a report shows.
const (
	previewRunes = 200  // response preview of a failing result
	detailRunes  = 2000 // details in HTML (Markdown and terminal cut shorter)
)

// runModel is a run prepared for display: sorted, counted and formatted.
type runModel struct {
	Run         *promptcanary.Run
	Suite       string
	Model       string
	Sampling    string
	Samples     int
	Started     string
	Duration    string
	Tokens      string
	Score       string
	PassRate    string
	Passed      int
	Total       int
	Failed      []resultRow
	Passing     []resultRow
	Categories  []categoryRow
	Errors      []errorRow
	Interrupted bool
	Tool        string
	ConfigHash  string
	RunID       string
	Status      string // "pass" or "fail", for colour and icons
}

// resultRow is one probe result.
type resultRow struct {
	Probe    string // "id (name)"
	Category string
	PromptID string
	Sample   int
	Score    string
	Passed   bool
	Details  string
	Preview  string // the response's first previewRunes runes, failing rows only
}

// categoryRow is the pass rate of one category.
type categoryRow struct {
	Category string
	Passed   int
	Total    int
	Rate     string
	Score    string
}

// errorRow is one failed call.
type errorRow struct {
	PromptID string
	Sample   int
	Provider string
	Attempts string
	Message  string
}

func newRunModel(r *promptcanary.Run) *runModel {
	m := &runModel{
		Run:         r,
		Suite:       orDash(r.SuiteName),
		Model:       orDash(r.Provider.ModelID),
		Sampling:    sampling(r.Provider),
		Samples:     max(r.Samples, r.SamplesPerPrompt(), 1),
		Started:     timestamp(r.StartedAt),
		Duration:    duration(r.Duration()),
		Score:       score(r.OverallScore()),
		PassRate:    percent(r.PassRate()),
		Total:       len(r.ProbeResults),
		Interrupted: r.Interrupted,
		Tool:        r.Tool,
		ConfigHash:  r.ConfigHash,
		RunID:       orDash(r.RunID),
		Errors:      errorRows(r.Errors),
	}
	tokens := 0
	previews := make(map[sampleKey]string)
	for i := range r.LLMResponses {
		resp := &r.LLMResponses[i]
		t := resp.TotalTokens
		if t == 0 {
			t = resp.PromptTokens + resp.CompletionTokens
		}
		tokens += t
		k := sampleKey{resp.PromptID, resp.Sample}
		if _, ok := previews[k]; !ok {
			previews[k] = resp.Content
		}
	}
	m.Tokens = thousands(tokens)

	order := make([]*promptcanary.ProbeResult, len(r.ProbeResults))
	for i := range r.ProbeResults {
		order[i] = &r.ProbeResults[i]
	}
	slices.SortStableFunc(order, func(a, b *promptcanary.ProbeResult) int {
		return cmp.Or(cmp.Compare(a.PromptID, b.PromptID), cmp.Compare(a.ProbeID, b.ProbeID), cmp.Compare(a.Sample, b.Sample))
	})
	cats := make(map[promptcanary.Category]*categoryRow)
	catScore := make(map[promptcanary.Category]float64)
	for _, pr := range order {
		row := resultRow{
			Probe:    probeLabel(pr.ProbeID, pr.ProbeName),
			Category: string(pr.Category),
			PromptID: pr.PromptID,
			Sample:   pr.Sample,
			Score:    score(pr.Score),
			Passed:   pr.Passed,
			Details:  pr.Details,
		}
		c := cats[pr.Category]
		if c == nil {
			c = &categoryRow{Category: string(pr.Category)}
			cats[pr.Category] = c
		}
		c.Total++
		catScore[pr.Category] += pr.Score
		if pr.Passed {
			c.Passed++
			m.Passed++
			m.Passing = append(m.Passing, row)
			continue
		}
		if content, ok := previews[sampleKey{pr.PromptID, pr.Sample}]; ok {
			row.Preview = cut(content, previewRunes)
		}
		m.Failed = append(m.Failed, row)
	}
	for _, k := range categoryOrder(cats) {
		c := cats[k]
		c.Rate = percent(float64(c.Passed) / float64(c.Total))
		c.Score = score(catScore[k] / float64(c.Total))
		m.Categories = append(m.Categories, *c)
	}
	m.Status = "pass"
	if len(m.Failed) > 0 || len(m.Errors) > 0 || m.Interrupted {
		m.Status = "fail"
	}
	return m
}

// sampleKey identifies one response of a run.
type sampleKey struct {
	prompt string
	sample int
}

// categoryOrder returns the categories of m in display order: the known
// ones as listed in promptcanary.Categories, then unknown ones by name.
func categoryOrder[V any](m map[promptcanary.Category]V) []promptcanary.Category {
	var out []promptcanary.Category
	for _, c := range promptcanary.Categories {
		if _, ok := m[c]; ok {
			out = append(out, c)
		}
	}
	var extra []promptcanary.Category
	for c := range m {
		if !c.Valid() {
			extra = append(extra, c)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

func errorRows(errs []promptcanary.CallError) []errorRow {
	sorted := slices.Clone(errs)
	slices.SortStableFunc(sorted, func(a, b promptcanary.CallError) int {
		return cmp.Or(cmp.Compare(a.PromptID, b.PromptID), cmp.Compare(a.Sample, b.Sample), cmp.Compare(a.Provider, b.Provider))
	})
	rows := make([]errorRow, len(sorted))
	for i, e := range sorted {
		rows[i] = errorRow{PromptID: e.PromptID, Sample: e.Sample, Provider: e.Provider, Attempts: "—", Message: e.Message}
		if e.Attempts > 0 {
			rows[i].Attempts = strconv.Itoa(e.Attempts)
		}
	}
	return rows
}

// driftModel is a drift report prepared for display.
type driftModel struct {
	Report        *promptcanary.DriftReport
	Suite         string
	Model         string
	BaselineModel string // set only when it differs from Model
	Summary       string
	Severity      string // lower case; "none" when empty
	Method        string
	Notes         []string
	BaselineID    string
	BaselineAt    string
	CurrentRunID  string
	Generated     string
	ReportID      string
	ScoreLine     string // "0.95 → 0.80 (−0.15)"
	Groups        []statusGroup
	Stable        statusGroup
	Counts        []statusCount
	Errors        []errorRow
	HasDrift      bool
}

// statusGroup is the comparisons with one status.
type statusGroup struct {
	Status  promptcanary.Status
	Title   string
	Explain string
	Icon    string
	Rows    []compRow
}

// statusCount is how many comparisons have one status.
type statusCount struct {
	Status promptcanary.Status
	Label  string
	N      int
}

// compRow is one comparison.
type compRow struct {
	Probe           string
	Category        string
	PromptID        string
	Baseline        string
	Current         string
	Delta           string
	Severity        string // lower case, "—" for none
	SeverityClass   string
	Evidence        string
	BaselineDetails string
	CurrentDetails  string
}

// statusInfo describes a status for display, in the order groups appear.
var statusInfo = []struct {
	status  promptcanary.Status
	title   string
	label   string
	icon    string
	explain string
}{
	{promptcanary.StatusRegression, "Regressions", "regression", "🔴", "Pairs that got worse than the baseline."},
	{promptcanary.StatusNotMeasured, "Not measured", "not measured", "⚠️", "The current run's calls failed for these pairs, so they were not compared."},
	{promptcanary.StatusStale, "Stale baseline", "stale baseline", "🕰️", "The baseline was recorded with a different configuration; save a new baseline to compare these pairs."},
	{promptcanary.StatusInsufficient, "Insufficient evidence", "insufficient evidence", "❔", "Too few samples to tell drift from noise; run with more samples."},
	{promptcanary.StatusImprovement, "Improvements", "improvement", "🟢", "Pairs that got better than the baseline."},
	{promptcanary.StatusAdded, "Added", "added", "➕", "Pairs present only in the current run."},
	{promptcanary.StatusRemoved, "Removed", "removed", "➖", "Pairs present only in the baseline."},
	{promptcanary.StatusStable, "Stable", "stable", "✅", "Pairs that behave as in the baseline."},
}

func newDriftModel(d *promptcanary.DriftReport) *driftModel {
	m := &driftModel{
		Report:       d,
		Suite:        orDash(d.SuiteName),
		Model:        orDash(d.Provider.ModelID),
		Summary:      strings.TrimSpace(d.Summary),
		Severity:     severity(d.Severity),
		Method:       orDash(strings.ReplaceAll(d.Method, "_", " ")),
		Notes:        d.Notes,
		BaselineID:   orDash(d.BaselineSnapshotID),
		BaselineAt:   timestamp(d.BaselineCreatedAt),
		CurrentRunID: orDash(d.CurrentRunID),
		Generated:    timestamp(d.GeneratedAt),
		ReportID:     orDash(d.ReportID),
		ScoreLine: fmt.Sprintf("%s → %s (%s)", score(d.OverallBaselineScore), score(d.OverallCurrentScore),
			delta(d.OverallCurrentScore-d.OverallBaselineScore)),
		Errors:   errorRows(d.Errors),
		HasDrift: d.HasDrift,
	}
	if d.BaselineModelID != "" && d.BaselineModelID != d.Provider.ModelID {
		m.BaselineModel = d.BaselineModelID
	}
	if m.Summary == "" {
		m.Summary = "No summary."
	}

	byStatus := make(map[promptcanary.Status][]*promptcanary.Comparison)
	for i := range d.Comparisons {
		c := &d.Comparisons[i]
		byStatus[c.Status] = append(byStatus[c.Status], c)
	}
	known := make(map[promptcanary.Status]bool, len(statusInfo))
	for _, info := range statusInfo {
		known[info.status] = true
		g := statusGroup{Status: info.status, Title: info.title, Explain: info.explain, Icon: info.icon, Rows: compRows(byStatus[info.status])}
		m.Counts = append(m.Counts, statusCount{Status: info.status, Label: info.label, N: len(g.Rows)})
		switch {
		case info.status == promptcanary.StatusStable:
			m.Stable = g
		case len(g.Rows) > 0:
			m.Groups = append(m.Groups, g)
		}
	}
	// Statuses this renderer does not know still get shown, after the rest.
	var unknown []promptcanary.Status
	for s := range byStatus {
		if !known[s] {
			unknown = append(unknown, s)
		}
	}
	slices.Sort(unknown)
	for _, s := range unknown {
		label := strings.ReplaceAll(string(s), "_", " ")
		if s == "" {
			label = "no status"
		}
		m.Groups = append(m.Groups, statusGroup{Status: s, Title: label, Icon: "❓", Rows: compRows(byStatus[s])})
		m.Counts = append(m.Counts, statusCount{Status: s, Label: label, N: len(byStatus[s])})
	}
	return m
}

func compRows(cs []*promptcanary.Comparison) []compRow {
	slices.SortStableFunc(cs, func(a, b *promptcanary.Comparison) int {
		return cmp.Or(cmp.Compare(b.Severity.Rank(), a.Severity.Rank()), cmp.Compare(math.Abs(b.ScoreDelta), math.Abs(a.ScoreDelta)),
			cmp.Compare(a.ProbeID, b.ProbeID), cmp.Compare(a.PromptID, b.PromptID))
	})
	rows := make([]compRow, len(cs))
	for i, c := range cs {
		hasBase := c.Status != promptcanary.StatusAdded
		hasCur := c.Status != promptcanary.StatusRemoved && c.Status != promptcanary.StatusNotMeasured
		r := compRow{
			Probe:           probeLabel(c.ProbeID, c.ProbeName),
			Category:        string(c.Category),
			PromptID:        c.PromptID,
			Baseline:        "—",
			Current:         "—",
			Delta:           "—",
			Severity:        "—",
			SeverityClass:   "none",
			Evidence:        c.Evidence,
			BaselineDetails: c.BaselineDetails,
			CurrentDetails:  c.CurrentDetails,
		}
		if hasBase {
			r.Baseline = side(c.BaselineScore, c.BaselinePassed, c.Baseline)
		}
		if hasCur {
			r.Current = side(c.CurrentScore, c.CurrentPassed, c.Current)
		}
		if hasBase && hasCur {
			r.Delta = delta(c.ScoreDelta)
		}
		if s := severity(c.Severity); s != "none" {
			r.Severity, r.SeverityClass = s, s
		}
		rows[i] = r
	}
	return rows
}

// side formats one side of a comparison: "0.95 ✓", or "0.97 ✓ 29/30" when
// the side has several samples.
func side(s float64, passed bool, st promptcanary.SampleStats) string {
	mark := "✗"
	if passed {
		mark = "✓"
	}
	if st.N > 1 {
		return fmt.Sprintf("%s %s %d/%d", score(s), mark, st.Passes, st.N)
	}
	return score(s) + " " + mark
}

// probeLabel is "id (name)", or the id alone when the name adds nothing.
func probeLabel(id, name string) string {
	switch {
	case id == "":
		return orDash(name)
	case name == "" || name == id:
		return id
	}
	return id + " (" + name + ")"
}

func severity(s promptcanary.Severity) string {
	if s == "" {
		return "none"
	}
	return strings.ToLower(string(s))
}

func sampling(p promptcanary.ProviderConfig) string {
	seed := "none"
	if p.Seed != nil {
		seed = strconv.FormatInt(*p.Seed, 10)
	}
	return fmt.Sprintf("temperature %s · max_tokens %d · seed %s", strconv.FormatFloat(p.Temperature, 'f', -1, 64), p.MaxTokens, seed)
}

// score formats a score with two decimals.
func score(f float64) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// percent formats a rate in [0,1] as a percentage with one decimal.
func percent(f float64) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	return strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
}

// delta formats a signed score difference: "+0.10", "−0.25", "0.00".
func delta(f float64) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	s := strconv.FormatFloat(math.Abs(f), 'f', 2, 64)
	switch {
	case s == "0.00":
		return s
	case f < 0:
		return "−" + s
	}
	return "+" + s
}

// thousands formats n with comma separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func timestamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func duration(d time.Duration) string {
	if d <= 0 {
		return "—"
	}
	if d >= time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// cut returns the first n runes of s, with "…" when s was longer.
func cut(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}

// plural returns "1 regression" or "2 regressions".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
