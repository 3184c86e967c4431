package report

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"github.com/promptcanary/promptcanary/internal/quote"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// sideKind is the "kind" of a side-by-side report written as JSON.
const sideKind = "side_by_side"

// writeSideJSON writes the JSON of a side-by-side report followed by a
// newline: {"kind": "side_by_side", "runs": [...]}, indented as
// json.MarshalIndent would, each run in the layout its own file would have
// (see writeRunJSON).
func writeSideJSON(buf *bytes.Buffer, runs []*promptcanary.Run) error {
	buf.WriteString("{\n  \"kind\": \"" + sideKind + "\",\n  \"runs\": [")
	for i, r := range runs {
		data, err := store.MarshalRunIndent(r, store.LayoutAuto)
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		// A run nested two levels deep: every line four spaces further in
		// (JSON strings hold no raw newline).
		buf.WriteString("\n    ")
		buf.Write(bytes.ReplaceAll(data, []byte("\n"), []byte("\n    ")))
	}
	buf.WriteString("\n  ]\n}\n")
	return nil
}

// Side renders several runs of the same suite, one per provider, side by
// side: a summary with one column per provider, a matrix of every (probe
// instance, prompt) pair with the providers' verdicts, where pairs on which
// providers disagree come first, pass rates per category, and each
// provider's call errors apart. Columns follow the order of runs.
//
// A provider passes a pair when every sample of it passed. The matrix shows,
// in order: disagreements (some providers pass, others fail), differences
// (the same verdict with other scores or pass counts, or a provider without
// a result), pairs every provider fails alike, and pairs every provider
// passes alike. The last are collapsed: listed in terminal output only with
// opts.Verbose, and in a <details> element in Markdown and HTML.
//
// In JSON the output is {"kind": "side_by_side", "runs": [...]}. It is not a
// report input: Decode does not read it back. Nothing is written when
// rendering fails; runs must hold at least one run and no nil run.
func Side(w io.Writer, f Format, runs []*promptcanary.Run, opts Options) error {
	if len(runs) == 0 {
		return errors.New("render side-by-side report: no runs")
	}
	for i, r := range runs {
		if r == nil {
			return fmt.Errorf("render side-by-side report: run %d is nil", i+1)
		}
	}
	return (&renderer{
		name:     "side-by-side report",
		terminal: func(b *bytes.Buffer) { renderSideTerminal(b, newSideModel(runs), opts) },
		markdown: func(b *bytes.Buffer) { renderSideMarkdown(b, newSideModel(runs)) },
		html:     func(b *bytes.Buffer) error { return renderHTML(b, "sidebyside.html.tmpl", newSideModel(runs)) },
		json:     func(b *bytes.Buffer) error { return writeSideJSON(b, runs) },
		junit:    func(b *bytes.Buffer) error { return renderRunJUnit(b, runs, len(runs) > 1) },
	}).write(w, f)
}

// sideModel is a set of runs prepared for display side by side.
type sideModel struct {
	Suite     string
	Providers int
	Samples   string // "5 per prompt", or "1–5 per prompt" when runs differ
	Started   string // the earliest start
	Notes     []string
	Columns   []sideColumn
	Summary   []sideMetric
	Pairs     int
	Disagree  []sideRow // some providers pass, others fail
	Differ    []sideRow // same verdict, different scores or missing results
	FailAll   []sideRow // every provider fails the pair alike
	Identical []sideRow // every provider passes the pair alike
	// FailAllExplain and IdenticalExplain explain the last two groups.
	FailAllExplain   string
	IdenticalExplain string
	// AllPass is set when every result of every run passed and no call failed.
	AllPass    bool
	Categories []sideCatRow
	Errors     []sideErrors
	ErrorCount int
	RunIDs     []string
	Tool       string
	// Answers are each provider's answer per prompt, prompts with a
	// disagreement first.
	Answers []sideAnswers
}

// sideAnswers is one prompt's answers, one per provider column ("" when
// the provider has none).
type sideAnswers struct {
	PromptID string
	Texts    []string
	// Disagree is set when providers disagree on a pair of the prompt.
	Disagree bool
}

// Cells pairs each answer with its provider for the templates.
func (a sideAnswers) Cells(cols []sideColumn) []sideDetail {
	out := make([]sideDetail, len(a.Texts))
	for i, t := range a.Texts {
		out[i] = sideDetail{Provider: cols[i].Name, Text: t, col: i}
	}
	return out
}

// sideAnswerRunes bounds an answer in the side-by-side report.
const sideAnswerRunes = 2000

// sideAnswersOf collects the answer of the first sample of each prompt in
// each run.
func (m *sideModel) sideAnswersOf(runs []*promptcanary.Run) {
	type first struct {
		sample int
		text   string
	}
	byPrompt := make(map[string][]*first)
	var prompts []string
	for i, r := range runs {
		for k := range r.LLMResponses {
			resp := &r.LLMResponses[k]
			texts := byPrompt[resp.PromptID]
			if texts == nil {
				texts = make([]*first, len(runs))
				byPrompt[resp.PromptID] = texts
				prompts = append(prompts, resp.PromptID)
			}
			if texts[i] == nil || resp.Sample < texts[i].sample {
				texts[i] = &first{resp.Sample, resp.Content}
			}
		}
	}
	disagree := make(map[string]bool)
	for _, r := range m.Disagree {
		disagree[r.PromptID] = true
	}
	slices.SortFunc(prompts, func(a, b string) int {
		return cmp.Or(-cmp.Compare(b2i(disagree[a]), b2i(disagree[b])), cmp.Compare(a, b))
	})
	for _, p := range prompts {
		a := sideAnswers{PromptID: p, Texts: make([]string, len(runs)), Disagree: disagree[p]}
		for i, f := range byPrompt[p] {
			if f != nil {
				a.Texts[i] = cut(f.text, sideAnswerRunes)
			}
		}
		m.Answers = append(m.Answers, a)
	}
}

// sideColumn is one provider of the report.
type sideColumn struct {
	Name  string // the model id, made unique among the columns
	RunID string
}

// sideCell is one provider's value in a row; Class is "pass", "fail",
// "warn" or "".
type sideCell struct {
	Text  string
	Class string
	// untrusted marks text from the input; other cells hold only numbers,
	// marks and fixed words.
	untrusted bool
}

// sideMetric is one row of the summary table.
type sideMetric struct {
	Label string
	Cells []sideCell
}

// sideRow is one (probe instance, prompt) pair across providers.
type sideRow struct {
	Probe    string
	Category string
	PromptID string
	Cells    []sideCell
	// Details are the failing providers' details.
	Details []sideDetail

	probeID string
	spread  float64 // highest minus lowest mean score
}

// sideDetail is the details of one provider's failing verdict on a pair.
type sideDetail struct {
	Provider string
	Text     string
	col      int // the provider's column
}

// sideCatRow is the pass rate of one category per provider.
type sideCatRow struct {
	Category string
	Cells    []sideCell
}

// sideErrors is the call errors of one provider.
type sideErrors struct {
	Provider string
	Rows     []errorRow
}

// sideMatrix is the data of the HTML matrix template.
type sideMatrix struct {
	Columns []sideColumn
	Rows    []sideRow
	Class   string // of every row: "warn" highlights
	Details bool   // show the failing providers' details
}

// DisagreeMatrix is the HTML matrix of the disagreements, highlighted.
func (m *sideModel) DisagreeMatrix() sideMatrix {
	return sideMatrix{Columns: m.Columns, Rows: m.Disagree, Class: "warn", Details: true}
}

// DifferMatrix is the HTML matrix of the differences.
func (m *sideModel) DifferMatrix() sideMatrix {
	return sideMatrix{Columns: m.Columns, Rows: m.Differ, Details: true}
}

// FailAllMatrix is the HTML matrix of the pairs every provider fails alike.
func (m *sideModel) FailAllMatrix() sideMatrix {
	return sideMatrix{Columns: m.Columns, Rows: m.FailAll, Details: true}
}

// IdenticalMatrix is the HTML matrix of the identical passing rows.
func (m *sideModel) IdenticalMatrix() sideMatrix {
	return sideMatrix{Columns: m.Columns, Rows: m.Identical}
}

// sidePairStats accumulates the results of one pair in one run.
type sidePairStats struct {
	n, passes    int
	sum          float64
	details      string // of the first failing sample
	detailSample int
}

// sidePairInfo is what the rows show about a pair, from the first run that has it.
type sidePairInfo struct {
	name     string
	category promptcanary.Category
}

func newSideModel(runs []*promptcanary.Run) *sideModel {
	m := &sideModel{
		Suite:     orDash(runs[0].SuiteName),
		Providers: len(runs),
		Columns:   sideColumns(runs),
	}
	if len(runs) == 1 {
		m.Notes = append(m.Notes, "Only one provider: there is nothing to compare side by side.")
	}
	var suites []string
	minSamples, maxSamples := math.MaxInt, 0
	var started time.Time
	for _, r := range runs {
		if !slices.Contains(suites, r.SuiteName) {
			suites = append(suites, r.SuiteName)
		}
		n := max(r.Samples, r.SamplesPerPrompt(), 1)
		minSamples, maxSamples = min(minSamples, n), max(maxSamples, n)
		if !r.StartedAt.IsZero() && (started.IsZero() || r.StartedAt.Before(started)) {
			started = r.StartedAt
		}
		m.RunIDs = append(m.RunIDs, orDash(r.RunID))
		if m.Tool == "" {
			m.Tool = r.Tool
		}
	}
	if len(suites) > 1 {
		quoted := make([]string, len(suites))
		for i, s := range suites {
			quoted[i] = strconv.Quote(s)
		}
		m.Notes = append(m.Notes, "The runs come from different suites ("+strings.Join(quoted, ", ")+"): only pairs they share compare like for like.")
	}
	for i, r := range runs {
		if !r.Measured() {
			m.Notes = append(m.Notes, "The run of "+m.Columns[i].Name+" measured nothing: every call failed, so it has no score (n/a).")
		}
		if r.Interrupted {
			m.Notes = append(m.Notes, "The run of "+m.Columns[i].Name+" was interrupted: its results are incomplete.")
		}
		for _, a := range r.Adjustments {
			m.Notes = append(m.Notes, "Sent to "+m.Columns[i].Name+" what the model takes: "+a+".")
		}
		for _, w := range r.Warnings {
			m.Notes = append(m.Notes, "Note on "+m.Columns[i].Name+": "+w+".")
		}
	}
	m.FailAllExplain = "Every provider fails these pairs alike: look at the prompt or the probe rather than at a provider."
	m.IdenticalExplain = "Every provider passes these pairs with the same score and pass count."
	if len(runs) == 1 {
		m.FailAllExplain = "The provider fails these pairs."
		m.IdenticalExplain = "The provider passes these pairs."
	}
	m.Samples = strconv.Itoa(maxSamples) + " per prompt"
	if minSamples != maxSamples {
		m.Samples = fmt.Sprintf("%d–%d per prompt", minSamples, maxSamples)
	}
	m.Started = timestamp(started)
	m.Summary = sideSummary(runs)
	m.sideRows(runs)
	m.Categories = sideCategories(runs)
	m.sideAnswersOf(runs)
	for i, r := range runs {
		if len(r.Errors) > 0 {
			m.Errors = append(m.Errors, sideErrors{Provider: m.Columns[i].Name, Rows: errorRows(r.Errors)})
			m.ErrorCount += len(r.Errors)
		}
	}
	m.AllPass = m.ErrorCount == 0
	for _, r := range runs {
		m.AllPass = m.AllPass && len(r.Failed()) == 0
	}
	return m
}

// sideColumns names each run's column after its model id, numbering model
// ids that appear more than once ("gpt-4o #2") and naming missing ones
// after their position.
func sideColumns(runs []*promptcanary.Run) []sideColumn {
	cols := make([]sideColumn, len(runs))
	count := make(map[string]int, len(runs))
	for i, r := range runs {
		name := r.Provider.ModelID
		if strings.TrimSpace(name) == "" {
			name = "provider " + strconv.Itoa(i+1)
		}
		cols[i] = sideColumn{Name: name, RunID: orDash(r.RunID)}
		count[name]++
	}
	seen := make(map[string]int, len(runs))
	for i := range cols {
		name := cols[i].Name
		if count[name] > 1 {
			seen[name]++
			cols[i].Name = name + " #" + strconv.Itoa(seen[name])
		}
	}
	return cols
}

// sideSummary is the summary table: one metric per row, one cell per run.
func sideSummary(runs []*promptcanary.Run) []sideMetric {
	labels := []string{"Score", "Pass rate", "Results passed", "Call errors", "Tokens prompt/completion", "Tokens total",
		"Estimated cost", "Latency mean", "Latency p95", "Duration", "Run ID"}
	rows := make([]sideMetric, len(labels))
	for i, l := range labels {
		rows[i] = sideMetric{Label: l, Cells: make([]sideCell, len(runs))}
	}
	var latencies []float64
	for j, r := range runs {
		passed := 0
		for k := range r.ProbeResults {
			if r.ProbeResults[k].Passed {
				passed++
			}
		}
		verdict := "pass"
		if passed < len(r.ProbeResults) {
			verdict = "fail"
		}
		errClass := ""
		if len(r.Errors) > 0 {
			errClass = "warn"
		}
		var prompt, completion, total int
		latencies = latencies[:0]
		for k := range r.LLMResponses {
			resp := &r.LLMResponses[k]
			prompt += resp.PromptTokens
			completion += resp.CompletionTokens
			t := resp.TotalTokens
			if t == 0 {
				t = resp.PromptTokens + resp.CompletionTokens
			}
			total += t
			if l := resp.LatencyMS; l > 0 && !math.IsInf(l, 0) {
				latencies = append(latencies, l)
			}
		}
		mean, p95 := sideLatencyStats(latencies)
		cost := "price unknown"
		if r.CostUSD != nil {
			cost = fmt.Sprintf("$%.4f", *r.CostUSD)
		}
		scoreText, rateText := score(r.OverallScore()), percent(r.PassRate())
		if !r.Measured() {
			scoreText, rateText, verdict = "n/a", "n/a", "warn"
		}
		values := []sideCell{
			{Text: scoreText, Class: verdict},
			{Text: rateText, Class: verdict},
			{Text: fmt.Sprintf("%d/%d", passed, len(r.ProbeResults))},
			{Text: strconv.Itoa(len(r.Errors)), Class: errClass},
			{Text: quote.Thousands(prompt) + " / " + quote.Thousands(completion)},
			{Text: quote.Thousands(total)},
			{Text: cost},
			{Text: sideLatency(mean)},
			{Text: sideLatency(p95)},
			{Text: duration(r.Duration())},
			{Text: orDash(r.RunID), untrusted: true},
		}
		for i := range rows {
			rows[i].Cells[j] = values[i]
		}
	}
	return rows
}

// sideLatencyStats returns the mean and the 95th percentile (nearest rank) of
// ms, sorting it; both are 0 when ms is empty.
func sideLatencyStats(ms []float64) (mean, p95 float64) {
	if len(ms) == 0 {
		return 0, 0
	}
	slices.Sort(ms)
	var sum float64
	for _, v := range ms {
		sum += v
	}
	rank := int(math.Ceil(0.95 * float64(len(ms))))
	return sum / float64(len(ms)), ms[max(rank, 1)-1]
}

// sideLatency formats milliseconds like a duration, "—" when unknown.
func sideLatency(ms float64) string {
	return duration(time.Duration(ms * float64(time.Millisecond)))
}

// sideRows fills the matrix: every pair of every run, grouped and sorted.
func (m *sideModel) sideRows(runs []*promptcanary.Run) {
	tl := tallySides(runs)
	m.Pairs = len(tl.keys)
	for _, key := range tl.keys {
		in := tl.info[key]
		row := sideRow{
			Probe:    probeLabel(key.ProbeID, in.name),
			Category: string(in.category),
			PromptID: key.PromptID,
			Cells:    make([]sideCell, len(runs)),
			probeID:  key.ProbeID,
		}
		var anyPass, anyFail, allPresent = false, false, true
		alike := true
		var first *sidePairStats
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range runs {
			s := tl.stats[i][key]
			if s == nil {
				allPresent = false
				row.Cells[i] = sideCell{Text: "—"}
				if tl.failedPrompts[i][key.PromptID] {
					row.Cells[i] = sideCell{Text: "error", Class: "warn"}
				}
				continue
			}
			mean := s.sum / float64(s.n)
			passed := s.passes == s.n
			row.Cells[i] = sideCell{Text: side(mean, passed, promptcanary.SampleStats{N: s.n, Passes: s.passes, MeanScore: mean}), Class: "fail"}
			if passed {
				row.Cells[i].Class = "pass"
				anyPass = true
			} else {
				anyFail = true
				if s.details != "" {
					row.Details = append(row.Details, sideDetail{Provider: m.Columns[i].Name, Text: s.details, col: i})
				}
			}
			lo, hi = min(lo, mean), max(hi, mean)
			if first == nil {
				first = s
			} else if score(mean) != score(first.sum/float64(first.n)) || s.passes*first.n != first.passes*s.n {
				alike = false
			}
		}
		row.spread = hi - lo
		switch {
		case anyPass && anyFail:
			m.Disagree = append(m.Disagree, row)
		case !allPresent || !alike:
			m.Differ = append(m.Differ, row)
		case anyFail:
			m.FailAll = append(m.FailAll, row)
		default:
			m.Identical = append(m.Identical, row)
		}
	}
	byKey := func(a, b sideRow) int {
		return cmp.Or(cmp.Compare(a.probeID, b.probeID), cmp.Compare(a.PromptID, b.PromptID))
	}
	bySpread := func(a, b sideRow) int {
		return cmp.Or(cmp.Compare(b.spread, a.spread), byKey(a, b))
	}
	slices.SortFunc(m.Disagree, bySpread)
	slices.SortFunc(m.Differ, bySpread)
	slices.SortFunc(m.FailAll, byKey)
	slices.SortFunc(m.Identical, byKey)
}

// sideTally holds the per-run statistics of every (probe, prompt) pair of
// a side-by-side report.
type sideTally struct {
	stats         []map[promptcanary.PairKey]*sidePairStats // by run
	failedPrompts []map[string]bool                         // by run: prompts with a call error
	info          map[promptcanary.PairKey]sidePairInfo
	keys          []promptcanary.PairKey // in the order first seen
}

// tallySides counts the results of every pair in each of runs.
func tallySides(runs []*promptcanary.Run) *sideTally {
	tl := &sideTally{}
	tl.stats = make([]map[promptcanary.PairKey]*sidePairStats, len(runs))
	tl.failedPrompts = make([]map[string]bool, len(runs))
	tl.info = make(map[promptcanary.PairKey]sidePairInfo)
	for i, r := range runs {
		tl.stats[i] = make(map[promptcanary.PairKey]*sidePairStats)
		tl.failedPrompts[i] = make(map[string]bool, len(r.Errors))
		for _, e := range r.Errors {
			tl.failedPrompts[i][e.PromptID] = true
		}
		for k := range r.ProbeResults {
			pr := &r.ProbeResults[k]
			key := pr.Key()
			s := tl.stats[i][key]
			if s == nil {
				s = &sidePairStats{}
				tl.stats[i][key] = s
			}
			if _, ok := tl.info[key]; !ok {
				tl.info[key] = sidePairInfo{name: pr.ProbeName, category: pr.Category}
				tl.keys = append(tl.keys, key)
			}
			s.n++
			s.sum += pr.Score
			if pr.Passed {
				s.passes++
			} else if pr.Details != "" && (s.details == "" || pr.Sample < s.detailSample) {
				s.details, s.detailSample = pr.Details, pr.Sample
			}
		}
	}
	return tl
}

// sideCategories is the pass rate of each category per run.
func sideCategories(runs []*promptcanary.Run) []sideCatRow {
	type tally struct{ passed, total int }
	per := make([]map[promptcanary.Category]*tally, len(runs))
	all := make(map[promptcanary.Category]bool)
	for i, r := range runs {
		per[i] = make(map[promptcanary.Category]*tally)
		for k := range r.ProbeResults {
			pr := &r.ProbeResults[k]
			t := per[i][pr.Category]
			if t == nil {
				t = &tally{}
				per[i][pr.Category] = t
			}
			t.total++
			if pr.Passed {
				t.passed++
			}
			all[pr.Category] = true
		}
	}
	var rows []sideCatRow
	for _, c := range categoryOrder(all) {
		row := sideCatRow{Category: string(c), Cells: make([]sideCell, len(runs))}
		for i := range runs {
			t := per[i][c]
			if t == nil {
				row.Cells[i] = sideCell{Text: "—"}
				continue
			}
			row.Cells[i] = sideCell{Text: fmt.Sprintf("%s %d/%d", percent(float64(t.passed)/float64(t.total)), t.passed, t.total), Class: "pass"}
			if t.passed < t.total {
				row.Cells[i].Class = "fail"
			}
		}
		rows = append(rows, row)
	}
	return rows
}
