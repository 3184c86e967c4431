package report

import (
	"cmp"
	"fmt"
	"github.com/promptcanary/promptcanary/internal/quote"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/textcut"
)

// Limits on how much untrusted text a report shows.
const (
	previewRunes = 200  // response preview of a failing result
	detailRunes  = 2000 // details in HTML (Markdown and terminal cut shorter)
)

// runModel is a run prepared for display: sorted, counted and formatted.
type runModel struct {
	Run      *promptcanary.Run
	Suite    string
	Model    string
	Sampling string
	Samples  int
	Started  string
	Duration string
	Tokens   string
	// Cost is the estimated cost of the run's calls, PriceUnknown when the
	// model's price is unknown.
	Cost string
	// Adjustments say what the model's rules changed in the request (see
	// promptcanary.Run.Adjustments).
	Adjustments []string
	// Warnings are the model rules' warnings (promptcanary.Run.Warnings).
	Warnings []string
	// Measured is set when the run has at least one probe result; Score
	// and PassRate are "n/a" otherwise.
	Measured bool
	Score    string
	PassRate string
	// Passed and Total count probe results (every sample of every pair).
	Passed int
	Total  int
	// Verdict says in one sentence what the run found.
	Verdict string
	// Failed and Passing are the (probe, prompt) pairs with at least one
	// failing sample and those that passed every sample.
	Failed     []resultGroup
	Passing    []resultGroup
	Categories []categoryRow
	Errors     []errorRow
	// Calls counts the run's calls, answered or failed; 0 when unknown (a
	// streamed run's summary counts prompts without an answer instead).
	Calls       int
	Interrupted bool
	// Cut says which answers were cut to the run's bound and that probes
	// judged the part kept; "" when none was.
	Cut        string
	Tool       string
	ConfigHash string
	RunID      string
	Status     string // "pass", "fail" or "none" (nothing measured), for colour and icons
	// Stream is set for a streamed run (see Summary), nil for a run.
	Stream *streamModel
}

// PriceUnknown is what a report shows for the cost of a run whose model
// has no known price: never $0.
const PriceUnknown = "price unknown (add the model under prices: in canary.yaml)"

// costText is a run's estimated cost, or PriceUnknown.
func costText(usd *float64) string {
	if usd == nil {
		return PriceUnknown
	}
	return fmt.Sprintf("$%.4f (estimate from list prices)", *usd)
}

// resultGroup is the results of one (probe, prompt) pair across its
// samples: how many passed, the distinct failure details with their
// counts, and one example response.
type resultGroup struct {
	ProbeID  string
	Probe    string // "id (name)"
	Category string
	PromptID string
	Passes   int
	N        int
	Score    string // the mean score
	Passed   bool   // every sample passed
	// Failures are the distinct details of the failing samples, most
	// frequent first; Details is the details of the first sample when
	// every sample passed.
	Failures []detailCount
	Details  string
	// Example is a response to the prompt: of the first failing sample
	// when one failed, cut to previewRunes.
	Example string
}

// Count is "3/5 passed", or "passed"/"failed" for a single sample.
func (g resultGroup) Count() string {
	if g.N == 1 {
		if g.Passed {
			return "passed"
		}
		return "failed"
	}
	return quote.Thousands(g.Passes) + "/" + quote.Thousands(g.N) + " passed"
}

// detailCount is one distinct details text and how many samples gave it.
type detailCount struct {
	Text string
	N    int
}

// Label is the text prefixed with its count when more than one sample
// gave it: "×3 text".
func (d detailCount) Label() string {
	if d.N > 1 {
		return "×" + strconv.Itoa(d.N) + " " + d.Text
	}
	return d.Text
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
		Measured:    r.Measured(),
		Score:       "n/a",
		PassRate:    "n/a",
		Total:       len(r.ProbeResults),
		Interrupted: r.Interrupted,
		Tool:        r.Tool,
		ConfigHash:  r.ConfigHash,
		RunID:       orDash(r.RunID),
		Errors:      errorRows(r.Errors),
		Calls:       len(r.LLMResponses) + len(r.Errors),
	}
	if m.Measured {
		m.Score, m.PassRate = score(r.OverallScore()), percent(r.PassRate())
	}
	tokens, previews := responseTokens(r.LLMResponses)
	m.Cut = CutNote(r.LLMResponses)
	m.Tokens = quote.Thousands(tokens)
	if in, out := r.Tokens(); in+out > 0 {
		m.Tokens += " (" + quote.Thousands(in) + " prompt + " + quote.Thousands(out) + " completion)"
	}
	m.Cost = costText(r.CostUSD)
	m.Adjustments, m.Warnings = r.Adjustments, r.Warnings

	cats, catScore := m.groupResults(r.ProbeResults, previews)
	m.conclude(cats, catScore)
	return m
}

// responseTokens returns the tokens the responses used and the first
// answer of each sample, to preview a failure with.
func responseTokens(responses []promptcanary.Response) (tokens int, previews map[sampleKey]string) {
	previews = make(map[sampleKey]string)
	for i := range responses {
		resp := &responses[i]
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
	return tokens, previews
}

// groupResults groups the results by (probe, prompt) pair into the failed
// and passing rows of m, counts the passes, and returns the results and
// score sums by category.
func (m *runModel) groupResults(results []promptcanary.ProbeResult, previews map[sampleKey]string) (cats map[promptcanary.Category]*categoryRow, catScore map[promptcanary.Category]float64) {
	order := make([]*promptcanary.ProbeResult, len(results))
	for i := range results {
		order[i] = &results[i]
	}
	slices.SortStableFunc(order, func(a, b *promptcanary.ProbeResult) int {
		return cmp.Or(cmp.Compare(a.PromptID, b.PromptID), cmp.Compare(a.ProbeID, b.ProbeID), cmp.Compare(a.Sample, b.Sample))
	})
	cats = make(map[promptcanary.Category]*categoryRow)
	catScore = make(map[promptcanary.Category]float64)
	var groups []*resultGroup
	var sums []float64
	byKey := make(map[promptcanary.PairKey]int)
	for _, pr := range order {
		c := cats[pr.Category]
		if c == nil {
			c = &categoryRow{Category: string(pr.Category)}
			cats[pr.Category] = c
		}
		c.Total++
		catScore[pr.Category] += pr.Score
		gi, ok := byKey[pr.Key()]
		if !ok {
			gi = len(groups)
			byKey[pr.Key()] = gi
			groups = append(groups, &resultGroup{ProbeID: pr.ProbeID, Probe: probeLabel(pr.ProbeID, pr.ProbeName), Category: string(pr.Category),
				PromptID: pr.PromptID, Details: pr.Details})
			sums = append(sums, 0)
		}
		g := groups[gi]
		g.N++
		sums[gi] += pr.Score
		if pr.Passed {
			g.Passes++
			c.Passed++
			m.Passed++
			continue
		}
		if g.Example == "" {
			if content, ok := previews[sampleKey{pr.PromptID, pr.Sample}]; ok {
				g.Example = cut(content, previewRunes)
			}
		}
		if i := slices.IndexFunc(g.Failures, func(d detailCount) bool { return d.Text == pr.Details }); i >= 0 {
			g.Failures[i].N++
		} else {
			g.Failures = append(g.Failures, detailCount{Text: pr.Details, N: 1})
		}
	}
	for i, g := range groups {
		g.Score = score(sums[i] / float64(g.N))
		g.Passed = g.Passes == g.N
		if g.Passed {
			m.Passing = append(m.Passing, *g)
			continue
		}
		g.Details = ""
		slices.SortStableFunc(g.Failures, func(a, b detailCount) int { return cmp.Compare(b.N, a.N) })
		m.Failed = append(m.Failed, *g)
	}
	return cats, catScore
}

// conclude fills in m's category rows from their tallies (catScore holds
// each category's sum of scores), its status and its verdict, once its
// results, failures and errors are in: a run and a streamed run's summary
// conclude alike.
func (m *runModel) conclude(cats map[promptcanary.Category]*categoryRow, catScore map[promptcanary.Category]float64) {
	for _, k := range categoryOrder(cats) {
		c := cats[k]
		c.Rate = percent(float64(c.Passed) / float64(max(c.Total, 1)))
		c.Score = score(catScore[k] / float64(max(c.Total, 1)))
		m.Categories = append(m.Categories, *c)
	}
	m.Status = "pass"
	switch {
	case !m.Measured:
		m.Status = "none"
	case len(m.Failed) > 0 || len(m.Errors) > 0 || m.Interrupted:
		m.Status = "fail"
	}
	m.Verdict = m.verdict()
}

// verdict says in one sentence what the run found.
func (m *runModel) verdict() string {
	pairs := len(m.Failed) + len(m.Passing)
	var s string
	switch {
	case !m.Measured && len(m.Errors) > 0:
		s = "Nothing was measured: every call failed (" + plural(len(m.Errors), "call error", "call errors") + "), so there is no score."
	case !m.Measured:
		s = "Nothing was measured: the run has no probe results, so there is no score."
	case len(m.Failed) > 0:
		s = fmt.Sprintf("%s of %s failed (%s of %s).", quote.Thousands(len(m.Failed)), Count(int64(pairs), "probe × prompt pair"),
			quote.Thousands(m.Total-m.Passed), Count(int64(m.Total), "result"))
	default:
		s = fmt.Sprintf("All %s passed (%s).", Count(int64(pairs), "probe × prompt pair"), Count(int64(m.Total), "result"))
		if pairs == 1 {
			s = "The only probe × prompt pair passed (" + Count(int64(m.Total), "result") + ")."
		}
	}
	if m.Measured && len(m.Errors) > 0 {
		s = strings.TrimSuffix(s, ".") + "; " + m.failedCalls() + "."
	}
	return s
}

// failedCalls says what became of the calls that failed in a run that
// measured the others: "1 of 200 calls failed after retries, so its answer
// was not judged".
func (m *runModel) failedCalls() string {
	n := len(m.Errors)
	what := "so their answers were not judged"
	if n == 1 {
		what = "so its answer was not judged"
	}
	if m.Calls == 0 {
		return plural(n, "call", "calls") + " failed, " + what
	}
	calls := "calls"
	if m.Calls == 1 {
		calls = "call"
	}
	return fmt.Sprintf("%s of %s %s failed after retries, %s", quote.Thousands(n), quote.Thousands(m.Calls), calls, what)
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
	BaselineID    string
	BaselineAt    string
	CurrentRunID  string
	Generated     string
	ReportID      string
	ScoreLine     string // "0.95 → 0.80 (−0.15)", "n/a" when nothing was compared
	// Verdict says in one sentence what the comparison found; VerdictClass
	// is the severity, or "nothing" when no pair was compared.
	Verdict      string
	VerdictClass string
	// Compared counts the pairs compared, out of Total.
	Compared int
	Total    int
	// NotCompared lists the pairs that were not compared, by reason.
	NotCompared []notComparedGroup
	// Regressions are the regressed pairs, most severe first, with their
	// example answers.
	Regressions []compRow
	// Groups are the other statuses with pairs, stable excepted.
	Groups []statusGroup
	Stable statusGroup
	Counts []statusCount
	Errors []errorRow
	// HasDrift is the report's verdict.
	HasDrift bool
	// Stats is the statistical evidence; nil for a single-sample report.
	Stats *statsModel
	// Chart is the pass rate of each probe on both sides, for HTML.
	Chart *chartModel
	// Info is the informational notes and warnings, grouped by kind.
	Info []infoGroup
}

// NothingCompared reports whether no pair was compared.
func (m *driftModel) NothingCompared() bool { return m.Compared == 0 }

// PartlyCompared reports whether some pairs but not all were compared.
func (m *driftModel) PartlyCompared() bool { return m.Compared > 0 && m.Compared < m.Total }

// CoverageLine says how many pairs were compared, for a report that did
// not compare them all.
func (m *driftModel) CoverageLine() string {
	if m.Compared == 0 {
		return "None of the " + plural(m.Total, "pair", "pairs") + " was compared:"
	}
	return fmt.Sprintf("Only %d of %s were compared; not compared:", m.Compared, plural(m.Total, "pair", "pairs"))
}

// InfoCount is the number of informational items.
func (m *driftModel) InfoCount() int {
	n := 0
	for _, g := range m.Info {
		n += len(g.Items)
	}
	return n
}

// notComparedGroup is the pairs not compared for one reason.
type notComparedGroup struct {
	Status promptcanary.Status
	Label  string // "not measured"
	Reason string // why they were not compared
	N      int
	// Names are the first pairs ("probe/prompt"); More counts the others.
	Names []string
	More  int
}

// Line is "3 not measured (the current run's calls failed): a/b, c/d and 1 more".
func (g notComparedGroup) Line() string {
	s := strconv.Itoa(g.N) + " " + g.Label
	if g.Reason != "" {
		s += " (" + g.Reason + ")"
	}
	s += ": " + strings.Join(g.Names, ", ")
	if g.More > 0 {
		s += " and " + strconv.Itoa(g.More) + " more"
	}
	return s
}

// notComparedNames is how many pairs a reason lists by name.
const notComparedNames = 5

// infoGroup is informational items of one kind: notes, or the warnings of
// one kind of change signal.
type infoGroup struct {
	Kind  string
	Items []string
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
	Key             string // "probe/prompt"
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
	// SharedWith names the pair whose test this pair shares.
	SharedWith string
	// BaseRate and CurRate are each side's pass rate with its counts:
	// "100% (30/30)", or "passed"/"failed" for one sample.
	BaseRate string
	CurRate  string
	// BaseExample and CurExample are a typical answer of each side, cut to
	// exampleRunes; BaseDistinct and CurDistinct say how many distinct
	// answers each side gave, "" when unknown.
	BaseExample  string
	CurExample   string
	BaseDistinct string
	CurDistinct  string
	// Diff is the word diff from BaseExample to CurExample; BaseDiff and
	// CurDiff are what each side shows of it.
	Diff     []diffOp
	BaseDiff []diffOp
	CurDiff  []diffOp
}

// HasExamples reports whether the row has an answer of either side.
func (r compRow) HasExamples() bool { return r.BaseExample != "" || r.CurExample != "" }

// Changed reports whether the two examples differ.
func (r compRow) Changed() bool { return diffChanged(r.Diff) }

// RateLine is "100% (30/30) → 0% (0/5)".
func (r compRow) RateLine() string { return r.BaseRate + " → " + r.CurRate }

// countLabel is "2 regressions", "1 improvement" or "3 not measured".
func countLabel(c statusCount) string {
	switch c.Status {
	case promptcanary.StatusRegression, promptcanary.StatusImprovement:
		return plural(c.N, c.Label, c.Label+"s")
	}
	return strconv.Itoa(c.N) + " " + c.Label
}

// exampleRunes bounds an example answer in a drift report.
const exampleRunes = 4000

// statusInfo describes a status for display, in the order groups appear.
var statusInfo = []struct {
	status  promptcanary.Status
	title   string
	label   string
	icon    string
	explain string
	reason  string // why a pair with this status was not compared
}{
	{promptcanary.StatusRegression, "Regressions", "regression", "🔴", "Pairs that got worse than the baseline.", ""},
	{promptcanary.StatusNotMeasured, "Not measured", "not measured", "⚠️", "The current run's calls failed for these pairs, so they were not compared.", "the current run's calls failed"},
	{promptcanary.StatusStale, "Stale baseline", "stale baseline", "🕰️", "The baseline was recorded with a different configuration; save a new baseline to compare these pairs.", "the prompt, its probes or the parameters sent changed since the baseline"},
	{promptcanary.StatusInsufficient, "Insufficient evidence", "insufficient evidence", "❔", "Too few samples to tell drift from noise; run with more samples.", ""},
	{promptcanary.StatusImprovement, "Improvements", "improvement", "🟢", "Pairs that got better than the baseline.", ""},
	{promptcanary.StatusAdded, "Added", "added", "➕", "Pairs present only in the current run.", "only in the current run"},
	{promptcanary.StatusRemoved, "Removed", "removed", "➖", "Pairs present only in the baseline.", "only in the baseline"},
	{promptcanary.StatusStable, "Stable", "stable", "✅", "Pairs that behave as in the baseline.", ""},
}

// methodLine names the decision rule, with the caveat that matters most
// next to it: one sample per side cannot tell drift from noise. It is not
// left to the collapsed notes, because it says how far to trust the verdict.
func methodLine(d *promptcanary.DriftReport) string {
	line := orDash(strings.ReplaceAll(d.Method, "_", " "))
	oneSample := false
	for i := 0; d.Method == "single_sample" && i < len(d.Comparisons); i++ {
		c := &d.Comparisons[i]
		if c.Compared() && (c.Baseline.N <= 1 || c.Current.N <= 1) {
			oneSample = true
			break
		}
	}
	if oneSample {
		line += " (one sample per pair cannot tell drift from noise: use --samples 5 or more)"
	}
	return line
}

func newDriftModel(d *promptcanary.DriftReport) *driftModel {
	m := &driftModel{
		Report:       d,
		Suite:        orDash(d.SuiteName),
		Model:        orDash(d.Provider.ModelID),
		Summary:      strings.TrimSpace(d.Summary),
		Severity:     severity(d.Severity),
		Method:       methodLine(d),
		BaselineID:   orDash(d.BaselineSnapshotID),
		BaselineAt:   timestamp(d.BaselineCreatedAt),
		CurrentRunID: orDash(d.CurrentRunID),
		Generated:    timestamp(d.GeneratedAt),
		ReportID:     orDash(d.ReportID),
		ScoreLine: fmt.Sprintf("%s → %s (%s)", score(d.OverallBaselineScore), score(d.OverallCurrentScore),
			delta(d.OverallCurrentScore-d.OverallBaselineScore)),
		Errors:   errorRows(d.Errors),
		HasDrift: d.HasDrift,
		Compared: d.Compared(),
		Total:    len(d.Comparisons),
	}
	if d.BaselineModelID != "" && d.BaselineModelID != d.Provider.ModelID {
		m.BaselineModel = d.BaselineModelID
	}
	if m.Summary == "" {
		m.Summary = "No summary."
	}
	if m.Compared == 0 {
		m.ScoreLine = "n/a (nothing was compared)"
	}
	if d.Statistics != nil {
		m.Stats = newStatsModel(d.Statistics, d.Comparisons)
	}

	byStatus := make(map[promptcanary.Status][]*promptcanary.Comparison)
	for i := range d.Comparisons {
		c := &d.Comparisons[i]
		byStatus[c.Status] = append(byStatus[c.Status], c)
	}
	known := make(map[promptcanary.Status]bool, len(statusInfo))
	for _, info := range statusInfo {
		known[info.status] = true
		rows := compRows(byStatus[info.status], info.status == promptcanary.StatusRegression)
		g := statusGroup{Status: info.status, Title: info.title, Explain: info.explain, Icon: info.icon, Rows: rows}
		m.Counts = append(m.Counts, statusCount{Status: info.status, Label: info.label, N: len(g.Rows)})
		if info.reason != "" && len(rows) > 0 {
			m.NotCompared = append(m.NotCompared, notComparedGroupOf(info.status, info.label, info.reason, rows))
		}
		switch {
		case info.status == promptcanary.StatusRegression:
			m.Regressions = rows
		case info.status == promptcanary.StatusStable:
			m.Stable = g
		case len(g.Rows) > 0:
			m.Groups = append(m.Groups, g)
		}
	}
	// Statuses this renderer does not know still get shown, after the rest;
	// they were not compared.
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
		rows := compRows(byStatus[s], false)
		m.Groups = append(m.Groups, statusGroup{Status: s, Title: label, Icon: "❓", Rows: rows})
		m.Counts = append(m.Counts, statusCount{Status: s, Label: label, N: len(rows)})
		m.NotCompared = append(m.NotCompared, notComparedGroupOf(s, label, "", rows))
	}
	m.verdict(d)
	m.Chart = newChart(d.Comparisons)
	m.Info = infoGroups(d)
	return m
}

// verdict sets the one-sentence verdict: nothing compared, drift with what
// regressed, or no drift in the pairs compared.
func (m *driftModel) verdict(d *promptcanary.DriftReport) {
	m.VerdictClass = m.Severity
	sev := strings.ToUpper(m.Severity)
	switch {
	case m.Total == 0:
		m.VerdictClass = "nothing"
		m.Verdict = "Nothing was compared: the report has no pairs, so there is no verdict on drift."
		return
	case m.Compared == 0 && d.Count(promptcanary.StatusNotMeasured) == m.Total:
		m.VerdictClass = "nothing"
		m.Verdict = "Nothing was measured: every call of the current run failed (" + plural(len(d.Errors), "call error", "call errors") +
			"), so nothing was compared and there is no verdict on drift."
		return
	case m.Compared == 0:
		m.VerdictClass = "nothing"
		parts := make([]string, len(m.NotCompared))
		for i, g := range m.NotCompared {
			parts[i] = strconv.Itoa(g.N) + " " + g.Label
		}
		m.Verdict = "Nothing was compared, so there is no verdict on drift: of " + plural(m.Total, "pair", "pairs") + ", " + joinAnd(parts) + "."
		return
	case len(m.Regressions) > 0:
		m.Verdict = fmt.Sprintf("Drift detected (severity %s): %d of %s regressed.", sev, len(m.Regressions), plural(m.Compared, "compared pair", "compared pairs"))
	case d.HasDrift:
		m.Verdict = fmt.Sprintf("Drift detected (severity %s) without a regressed pair: see the evidence below.", sev)
		if m.Stats != nil && len(m.Stats.Flagged) > 0 {
			m.Verdict = fmt.Sprintf("Drift detected (severity %s): %s got worse together, though no single pair regressed.", sev,
				plural(len(m.Stats.Flagged), "group of pairs", "groups of pairs"))
		}
	case m.Compared == 1:
		m.Verdict = "No drift detected in the only compared pair."
	default:
		m.Verdict = "No drift detected in the " + strconv.Itoa(m.Compared) + " compared pairs."
	}
	if m.PartlyCompared() {
		m.Verdict += fmt.Sprintf(" Only %d of %d pairs were compared.", m.Compared, m.Total)
	}
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func notComparedGroupOf(s promptcanary.Status, label, reason string, rows []compRow) notComparedGroup {
	g := notComparedGroup{Status: s, Label: label, Reason: reason, N: len(rows)}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Key
	}
	slices.Sort(names)
	if len(names) > notComparedNames {
		g.More = len(names) - notComparedNames
		names = names[:notComparedNames]
	}
	g.Names = names
	return g
}

// infoGroups gathers the notes and the warnings by the kind of their
// change signal, in order of appearance.
func infoGroups(d *promptcanary.DriftReport) []infoGroup {
	var out []infoGroup
	if len(d.Notes) > 0 {
		out = append(out, infoGroup{Kind: "notes", Items: d.Notes})
	}
	st := d.Statistics
	if st == nil || len(st.Warnings) == 0 {
		return out
	}
	kindOf := make(map[string]string)
	for _, s := range st.Signals {
		if s.Flagged {
			kindOf[s.Detail] = orDefault(strings.ReplaceAll(s.Kind, "_", " "), "other")
		}
	}
	index := make(map[string]int)
	for _, w := range st.Warnings {
		kind := kindOf[w]
		if kind == "" {
			kind = "other warnings"
		}
		i, ok := index[kind]
		if !ok {
			i = len(out)
			index[kind] = i
			out = append(out, infoGroup{Kind: kind})
		}
		out[i].Items = append(out[i].Items, w)
	}
	return out
}

// compRows sorts and formats comparisons; examples adds the example
// answers and their diff (for regressions).
func compRows(cs []*promptcanary.Comparison, examples bool) []compRow {
	slices.SortStableFunc(cs, func(a, b *promptcanary.Comparison) int {
		return cmp.Or(cmp.Compare(b.Severity.Rank(), a.Severity.Rank()), cmp.Compare(math.Abs(b.ScoreDelta), math.Abs(a.ScoreDelta)),
			cmp.Compare(a.ProbeID, b.ProbeID), cmp.Compare(a.PromptID, b.PromptID))
	})
	rows := make([]compRow, len(cs))
	for i, c := range cs {
		hasBase := c.Status != promptcanary.StatusAdded
		hasCur := c.Status != promptcanary.StatusRemoved && c.Status != promptcanary.StatusNotMeasured
		r := compRow{
			Key:             promptcanary.PairKey{ProbeID: c.ProbeID, PromptID: c.PromptID}.String(),
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
			SharedWith:      c.SharedTestWith,
			BaseRate:        "—",
			CurRate:         "—",
		}
		if hasBase {
			r.Baseline = side(c.BaselineScore, c.BaselinePassed, c.Baseline)
			r.BaseRate = rate(c.Baseline, c.BaselinePassed)
		}
		if hasCur {
			r.Current = side(c.CurrentScore, c.CurrentPassed, c.Current)
			r.CurRate = rate(c.Current, c.CurrentPassed)
		}
		if hasBase && hasCur {
			r.Delta = delta(c.ScoreDelta)
		}
		if s := severity(c.Severity); s != "none" {
			r.Severity, r.SeverityClass = s, s
		}
		if examples {
			r.BaseExample, r.CurExample = cut(c.BaselineExample, exampleRunes), cut(c.CurrentExample, exampleRunes)
			r.BaseDistinct = distinct(c.BaselineDistinct, c.Baseline.N)
			r.CurDistinct = distinct(c.CurrentDistinct, c.Current.N)
			if r.HasExamples() {
				r.Diff = wordDiff(r.BaseExample, r.CurExample)
				r.BaseDiff, r.CurDiff = diffSides(r.Diff)
			}
		}
		rows[i] = r
	}
	return rows
}

// rate formats one side's pass rate: "96.7% (29/30)", or "passed" or
// "failed" for a single sample. A report without sample counts (the
// original tool's) has one sample per side.
func rate(st promptcanary.SampleStats, passed bool) string {
	if st.N <= 1 {
		if passed || (st.N == 1 && st.Passes == 1) {
			return "passed"
		}
		return "failed"
	}
	return fmt.Sprintf("%s (%d/%d)", percent(st.PassRate()), st.Passes, st.N)
}

// distinct says how many distinct answers a side gave: "1 distinct answer
// in 30 samples"; "" when unknown or for a single sample.
func distinct(d, n int) string {
	if d <= 0 || n <= 1 {
		return ""
	}
	return plural(d, "distinct answer", "distinct answers") + " in " + strconv.Itoa(n) + " samples"
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

// generatedBy is the footer's credit: the product name, then the program
// and version that wrote the input when known ("Generated by PromptCanary
// (promptcanary-go v1.2.0)").
func generatedBy(tool string) string {
	if strings.TrimSpace(tool) == "" {
		return "Generated by PromptCanary"
	}
	return "Generated by PromptCanary (" + tool + ")"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// cut returns the first n runes of s, with "…" when s was longer.
func cut(s string, n int) string {
	return textcut.Runes(s, n, textcut.Ellipsis)
}

// plural returns "1 regression" or "2 regressions".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Limits of the statistical sections.
const (
	// evidenceRunes bounds an evidence line or a warning in terminal and
	// Markdown output. Real evidence is a few hundred characters and is
	// shown whole; the bound only stops a hostile report file.
	evidenceRunes = 1000
	// nondetTop is how many prompts the nondeterminism section lists.
	nondetTop = 10
)

// statsModel is the statistical evidence of a drift report prepared for
// display.
type statsModel struct {
	// Clean is set when no unit was flagged.
	Clean bool
	// Detectable is the minimum detectable uniform drop in points ("2.7"),
	// empty when it could not be computed.
	Detectable string
	// PairDetectable is the drop the least sensitive pair's own test
	// detects ("68"), PairDetectableMin the most sensitive pair's, equal
	// when every pair sees the same; for a run whose suite-wide drop could
	// not be sized.
	PairDetectable    string
	PairDetectableMin string
	// UnitLevel is the p-value at which a unit alone is flagged.
	UnitLevel string
	// FlaggedSameTest is set when a flagged group was flagged by the same
	// test as another unit (TestedUnit.SameTestAs).
	FlaggedSameTest bool
	// QBelowP counts the flagged units whose q-value is below their
	// p-value, which the discrete step allows (see QBelowPLine).
	QBelowP        int
	Tests          string // "Fisher exact ×16 · exact stratified ×5 · …"
	Alpha          string
	Testable       int
	Hypotheses     int
	ScreeningLevel string
	Seed           string
	Permutations   int
	BaselineN      int
	CurrentN       int
	// Flagged are the rejected groups of pairs: probes, categories and the
	// suite (the pairs are the regressions).
	Flagged []unitRow
	// Units is every tested unit, flagged ones first.
	Units    []unitRow
	Rejected int
	Screened int
	Warnings []string
	Signals  []signalRow
	// Nondet lists the most nondeterministic prompts, worst first; NondetMore
	// counts those left out and NondetVaried those with more than one
	// distinct output on either side, out of NondetTotal.
	Nondet       []nondetRow
	NondetMore   int
	NondetVaried int
	NondetTotal  int
}

// unitRow is one tested unit.
type unitRow struct {
	Kind     string
	Key      string
	Test     string // readable test name
	P        string
	Q        string
	Effect   string // "−66.7 pts [−86.1, −33.5]" or "HL −0.12 [−0.14, −0.10]"
	Outcome  string // "flagged", "not flagged" or "screened out", and the unit whose test it repeats
	Severity string // lower case; "none" when not flagged
	Flagged  bool
	Evidence string
}

// signalRow is one informational change signal.
type signalRow struct {
	Kind     string
	PromptID string
	Baseline string
	Current  string
	P        string // "—" for a change that is a fact, not a test
	Q        string
	Flagged  bool
	Detail   string
}

// nondetRow is the number of distinct outputs among one prompt's samples.
type nondetRow struct {
	PromptID string
	Baseline string // "11/30"
	Current  string
}

// unitKindOrder orders the kinds of unit from broadest to narrowest.
var unitKindOrder = map[string]int{promptcanary.UnitSuite: 0, promptcanary.UnitCategory: 1, promptcanary.UnitProbe: 2, promptcanary.UnitPair: 3}

func kindRank(k string) int {
	if r, ok := unitKindOrder[k]; ok {
		return r
	}
	return len(unitKindOrder)
}

func newStatsModel(st *promptcanary.DriftStatistics, cs []promptcanary.Comparison) *statsModel {
	m := &statsModel{
		Clean:          true,
		Alpha:          strconv.FormatFloat(st.Alpha, 'g', -1, 64),
		Testable:       st.Testable,
		Hypotheses:     st.Hypotheses,
		ScreeningLevel: pValue(st.ScreeningLevel),
		Seed:           strconv.FormatUint(st.Seed, 10),
		Permutations:   st.Permutations,
		BaselineN:      st.BaselineSamples,
		CurrentN:       st.CurrentSamples,
		Warnings:       st.Warnings,
	}
	if d := st.MinDetectableDrop; d > 0 && !math.IsInf(d, 0) {
		m.Detectable = strconv.FormatFloat(100*d, 'f', 1, 64)
	}
	if pd := st.PairDetectableDrop; pd.Upper > 0 && !math.IsInf(pd.Upper, 0) {
		lo, hi := math.Ceil(100*pd.Lower-1e-9), math.Ceil(100*pd.Upper-1e-9)
		m.PairDetectable, m.PairDetectableMin = strconv.FormatFloat(hi, 'f', 0, 64), strconv.FormatFloat(lo, 'f', 0, 64)
	}
	if st.UnitLevel > 0 {
		m.UnitLevel = pValue(st.UnitLevel)
	}

	m.addUnits(st, cs)
	m.addSignals(st.Signals)
	m.addNondeterminism(st.Nondeterminism)
	return m
}

// addUnits fills the tested units of st, flagged first, and the counts of
// rejected and screened units. A pair's verdict, severity and evidence are
// its comparison's in cs.
func (m *statsModel) addUnits(st *promptcanary.DriftStatistics, cs []promptcanary.Comparison) {
	// A pair's verdict, severity and evidence are its comparison's: its
	// tested units show that severity, and the flagged units are the
	// groups of pairs (probes, categories, the suite), not the pairs the
	// regressions already show.
	pairs := make(map[string]*promptcanary.Comparison, len(cs))
	for i := range cs {
		pairs[promptcanary.PairKey{ProbeID: cs[i].ProbeID, PromptID: cs[i].PromptID}.String()] = &cs[i]
	}
	var tests []string
	testCount := make(map[string]int)
	units := make([]*promptcanary.TestedUnit, len(st.Units))
	for i := range st.Units {
		u := &st.Units[i]
		units[i] = u
		if testCount[u.Test] == 0 {
			tests = append(tests, u.Test)
		}
		testCount[u.Test]++
	}
	labels := make([]string, len(tests))
	for i, name := range tests {
		labels[i] = testLabel(name) + " ×" + strconv.Itoa(testCount[name])
	}
	m.Tests = orDash(strings.Join(labels, " · "))

	slices.SortStableFunc(units, func(a, b *promptcanary.TestedUnit) int {
		return cmp.Or(-cmp.Compare(b2i(a.Rejected), b2i(b.Rejected)), cmp.Compare(b.Severity.Rank(), a.Severity.Rank()),
			cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)), cmp.Compare(a.Q, b.Q), cmp.Compare(a.Key, b.Key))
	})
	m.Units = make([]unitRow, len(units))
	for i, u := range units {
		r, shownP := newUnitRow(st.Units, u)
		c := pairs[u.Key]
		if u.Kind != promptcanary.UnitPair {
			c = nil
		}
		if r.Flagged && u.Q < shownP {
			m.QBelowP++
		}
		switch {
		case c != nil:
			// The pair's decision, and what this one test says of it.
			r.Severity, r.Outcome = "none", "pair "+strings.ReplaceAll(string(c.Status), "_", " ")
			if c.Regression && u.Rejected {
				r.Severity = severity(c.Severity)
				m.Rejected++
				m.Clean = false
			} else if c.Regression {
				r.Outcome = "not flagged by this test; the pair regressed by its " + decidingTest(st.Units, u.Key) + " test"
			}
			if u.Screened {
				r.Q = "—"
				m.Screened++
			}
			if c.SharedTestWith != "" {
				r.Outcome += ", same test as pair " + c.SharedTestWith
			}
		case u.Rejected:
			r.Outcome, r.Severity = "flagged", severity(u.Severity)
			m.Rejected++
			m.Clean = false
			m.Flagged = append(m.Flagged, r)
			m.FlaggedSameTest = m.FlaggedSameTest || u.SameTestAs != ""
		case u.Screened:
			r.Outcome, r.Q = "screened out", "—"
			m.Screened++
		}
		if u.SameTestAs != "" && (c == nil || c.SharedTestWith == "") {
			r.Outcome += ", same test as " + u.SameTestAs
		}
		m.Units[i] = r
	}
}

// addSignals fills the rows of the change signals.
func (m *statsModel) addSignals(signals []promptcanary.ChangeSignal) {
	m.Signals = make([]signalRow, len(signals))
	for i, s := range signals {
		r := signalRow{Kind: orDash(strings.ReplaceAll(s.Kind, "_", " ")), PromptID: orDash(s.PromptID), Baseline: measure(s.Baseline),
			Current: measure(s.Current), P: pValue(s.P), Q: qValue(s.Q), Flagged: s.Flagged, Detail: s.Detail}
		if s.P == 0 && s.Q == 0 {
			r.P, r.Q = "—", "—" // a fact (a new fingerprint), not a test
		}
		if s.Kind == "energy_distance" {
			r.Baseline = "—" // the distance is one number between the sides
		}
		m.Signals[i] = r
	}
}

// addNondeterminism fills the rows of the prompts whose answers vary most,
// by share of distinct answers.
func (m *statsModel) addNondeterminism(nondet []promptcanary.PromptNondeterminism) {
	nd := slices.Clone(nondet)
	slices.SortStableFunc(nd, func(a, b promptcanary.PromptNondeterminism) int {
		return cmp.Or(cmp.Compare(distinctShare(b), distinctShare(a)),
			cmp.Compare(b.BaselineDistinct+b.CurrentDistinct, a.BaselineDistinct+a.CurrentDistinct), cmp.Compare(a.PromptID, b.PromptID))
	})
	m.NondetTotal = len(nd)
	for i, p := range nd {
		if p.BaselineDistinct > 1 || p.CurrentDistinct > 1 {
			m.NondetVaried++
		}
		if i < nondetTop {
			m.Nondet = append(m.Nondet, nondetRow{PromptID: orDash(p.PromptID),
				Baseline: fmt.Sprintf("%d/%d", p.BaselineDistinct, p.BaselineSamples), Current: fmt.Sprintf("%d/%d", p.CurrentDistinct, p.CurrentSamples)})
		}
	}
	m.NondetMore = len(nd) - len(m.Nondet)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// distinctShare is the larger share of distinct outputs among the samples
// of either side of a prompt.
func distinctShare(p promptcanary.PromptNondeterminism) float64 {
	share := func(d, n int) float64 {
		if n <= 0 {
			return 0
		}
		return float64(d) / float64(n)
	}
	return max(share(p.BaselineDistinct, p.BaselineSamples), share(p.CurrentDistinct, p.CurrentSamples))
}

// testBases names the tests of the drift family; a recorded test name is a
// base, optionally followed by "_" and how its p-value was obtained.
var testBases = []struct{ id, label string }{
	{"stratified_permutation", "stratified permutation"},
	{"stratified_exact", "stratified exact"},
	{"mann_whitney", "Mann–Whitney"},
	{"fisher", "Fisher exact"},
}

// testHows names how a p-value was obtained.
var testHows = map[string]string{"exact": "exact", "normal": "normal approximation", "permutation": "Monte Carlo"}

// testLabel is the readable name of a recorded test: "mann_whitney_exact"
// reads "Mann–Whitney (exact)"; an unknown name has its underscores
// replaced.
func testLabel(name string) string {
	for _, b := range testBases {
		if name == b.id {
			return b.label
		}
		if how, ok := strings.CutPrefix(name, b.id+"_"); ok {
			if h, ok := testHows[how]; ok {
				how = h
			}
			return b.label + " (" + strings.ReplaceAll(how, "_", " ") + ")"
		}
	}
	return orDash(strings.ReplaceAll(name, "_", " "))
}

// effect formats a unit's estimated change with its 95% interval: points of
// pass rate, or the Hodges–Lehmann score shift of a Mann–Whitney unit.
// newUnitRow formats one tested unit of units. A unit that repeats
// another's test (SameTestAs) shows that test's p-value, and, for a
// probe, category or suite, its effect: the numbers of the test that
// decided it, not the unit's own mean, which the test did not measure.
// It returns the row and the p-value it shows.
func newUnitRow(units []promptcanary.TestedUnit, u *promptcanary.TestedUnit) (unitRow, float64) {
	r := unitRow{
		Kind: orDash(u.Kind), Key: orDash(u.Key), Test: testLabel(u.Test), P: pValue(u.P), Q: qValue(u.Q),
		Effect: effect(u), Outcome: "not flagged", Severity: "none", Flagged: u.Rejected, Evidence: u.Evidence,
	}
	o := u.RepeatedIn(units)
	if o == nil {
		return r, u.P
	}
	r.P = pValue(o.P)
	if u.Kind != promptcanary.UnitPair {
		r.Effect = effect(o)
	}
	return r, o.P
}

// decidingTest names the test that decided the flagged pair key: its
// decisive unit's, else its first rejected unit's.
func decidingTest(units []promptcanary.TestedUnit, key string) string {
	name := ""
	for i := range units {
		u := &units[i]
		if u.Kind != promptcanary.UnitPair || u.Key != key || !u.Rejected {
			continue
		}
		if u.Decisive {
			return testLabel(u.Test)
		}
		if name == "" {
			name = testLabel(u.Test)
		}
	}
	return orDefault(name, "other")
}

func effect(u *promptcanary.TestedUnit) string {
	if u.ScoresTest() {
		return fmt.Sprintf("HL %s [%s, %s]", signedFixed(u.Effect, 2), signedFixed(u.Interval.Lower, 2), signedFixed(u.Interval.Upper, 2))
	}
	return fmt.Sprintf("%s pts [%s, %s]", signedFixed(100*u.Effect, 1), signedFixed(100*u.Interval.Lower, 1), signedFixed(100*u.Interval.Upper, 1))
}

// signedFixed formats f with a sign and prec decimals: "+3.3", "−36.7",
// "+0.0".
func signedFixed(f float64, prec int) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	s := strconv.FormatFloat(math.Abs(f), 'f', prec, 64)
	if f < 0 && strings.Trim(s, "0.") != "" {
		return "−" + s
	}
	return "+" + s
}

// pValue formats a p-value as the drift evidence does: three decimals, or
// two significant digits in exponent form below 0.001.
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p >= 0.001 || p == 0:
		return strconv.FormatFloat(p, 'f', 3, 64)
	}
	return strconv.FormatFloat(p, 'e', 1, 64)
}

// qValue formats a q-value: two decimals, three below 0.01, exponent form
// below 0.001.
func qValue(q float64) string {
	switch {
	case math.IsNaN(q):
		return "n/a"
	case q >= 0.01 || q == 0:
		return strconv.FormatFloat(q, 'f', 2, 64)
	case q >= 0.001:
		return strconv.FormatFloat(q, 'f', 3, 64)
	}
	return strconv.FormatFloat(q, 'e', 1, 64)
}

// measure formats a signal's summary of one side: whole numbers from 100
// up, three significant digits below.
func measure(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "n/a"
	case math.Abs(f) >= 100:
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}

// The texts of the statistical sections are methods, so that every format,
// the HTML templates included, says the same.

// FlaggedExplain introduces the flagged units.
func (s *statsModel) FlaggedExplain() string {
	const groups = "Groups of pairs that got worse together (a probe across prompts, a category, the whole suite), with the evidence of each test."
	if s.FlaggedSameTest {
		return groups + " A group whose only changed pair is one pair runs that pair's test and shows its numbers; its severity grades the group's mean drop."
	}
	return groups
}

// WarningsExplain introduces the change warnings.
func (s *statsModel) WarningsExplain() string {
	return "Changes in the responses themselves (length, tokens, finish reasons, wording, served model), tested two-sided with their own false-discovery control; they are not drift on their own."
}

// UnitsExplain introduces the list of every tested unit.
func (s *statsModel) UnitsExplain() string {
	return "Every hypothesis of the drift family: pairs, probes across prompts, categories and the suite. Screened-out units could not reach significance given their margins, so they do not count against the others."
}

// HasCleanLine reports whether a clean run can say what it could have seen.
func (s *statsModel) HasCleanLine() bool {
	return s.Clean && (s.Detectable != "" || s.PairDetectable != "")
}

// CleanLine says what a clean run could see, as the limit it is rather
// than an assurance: a drop spread over every pair, or, when nothing
// failed on either side to size that, a drop of one pair seen by its own
// test; and how to see smaller ones.
func (s *statsModel) CleanLine() string {
	const more = "; use --samples N with --no-adaptive to see smaller ones"
	if s.Detectable == "" {
		most := ""
		if s.PairDetectableMin != s.PairDetectable {
			most = "; " + s.PairDetectableMin + " on the most sensitive pair"
		}
		return "this run could only see drops of " + s.PairDetectable + " points or more per pair (power 0.8" + most + ")" + more
	}
	return "this run could only see a drop of " + s.Detectable + " points or more across every pair (power 0.8)" + more
}

// pairRange spans the drops the pairs' own tests detect: "68" or "35–68".
func (s *statsModel) pairRange() string {
	if s.PairDetectableMin == s.PairDetectable {
		return s.PairDetectable
	}
	return s.PairDetectableMin + "–" + s.PairDetectable
}

// DetectableLine says what a run with drift could have detected.
func (s *statsModel) DetectableLine() string {
	if s.Detectable == "" {
		if s.PairDetectable != "" {
			return "a drop of " + s.pairRange() + " points in one pair's pass rate is caught by its own test with power 0.8"
		}
		return "the smallest detectable drop could not be computed"
	}
	return "a drop of " + s.Detectable + " points in every pair's pass rate is caught with power 0.8"
}

// MultiplicityLine describes the false-discovery control of the family.
func (s *statsModel) MultiplicityLine() string {
	lone := ""
	if s.UnitLevel != "" {
		lone = "; a unit alone is flagged at p ≤ " + s.UnitLevel
	}
	return fmt.Sprintf("discrete Benjamini–Hochberg at q = %s over the %d of %d hypotheses that could reach significance%s; %s",
		s.Alpha, s.Testable, s.Hypotheses, lone, plural(s.Rejected, "unit flagged", "units flagged"))
}

// QBelowPLine says why a flagged unit's q-value can be below its p-value,
// so that no one reads it as a bug; "" when none is.
func (s *statsModel) QBelowPLine() string {
	if s.QBelowP == 0 {
		return ""
	}
	have := " flagged units have"
	if s.QBelowP == 1 {
		have = " flagged unit has"
	}
	return fmt.Sprintf("%d%s q below p, as expected: discrete Benjamini–Hochberg (Döhler, Durand & Roquain 2018) scales a p-value by how many of the %d testable units could reach one that small given their margins, not by all %d, then divides by the unit's rank; when fewer could than the rank, q < p",
		s.QBelowP, have, s.Testable, s.Testable)
}

// SamplesLine gives the largest sample counts of a pair on each side.
func (s *statsModel) SamplesLine() string {
	return fmt.Sprintf("%d baseline / %d current per pair (largest)", s.BaselineN, s.CurrentN)
}

// NondetLine introduces the nondeterminism list.
func (s *statsModel) NondetLine() string {
	return fmt.Sprintf("Distinct outputs among the samples of a prompt, baseline → current, most varied first; %d of %s gave more than one distinct output.",
		s.NondetVaried, plural(s.NondetTotal, "prompt", "prompts"))
}

// CutNote says how many of a run's answers were cut to its bound and
// what was kept of them: "answer cut to 1.0 MiB of 5.0 MiB (prompt p1,
// sample 0); probes judged the part kept" for one, the count and the
// largest for several; "" when none was. The run reports show it, and
// the dashboard's run page above a drift report.
func CutNote(resps []promptcanary.Response) string {
	var cut []*promptcanary.Response
	for i := range resps {
		if resps[i].Truncated {
			cut = append(cut, &resps[i])
		}
	}
	switch len(cut) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s (prompt %s, sample %d); probes judged the part kept", cut[0].CutNote(), cut[0].PromptID, cut[0].Sample)
	}
	var parts []string
	if s := bytesCut(cut, len(resps)); s != "" {
		parts = append(parts, s)
	}
	if s := toolCallsCut(cut, len(resps)); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ") + "; probes judged the part kept"
}

// bytesCut summarises the answers of cut whose text was cut, of n; ""
// when none was (their tool calls were).
func bytesCut(cut []*promptcanary.Response, n int) string {
	var largest, kept *promptcanary.Response
	count := 0
	for _, r := range cut {
		if r.OriginalBytes <= r.ContentLen() {
			continue
		}
		count++
		if largest == nil || r.OriginalBytes > largest.OriginalBytes {
			largest = r
		}
		if kept == nil || r.ContentLen() > kept.ContentLen() {
			kept = r
		}
	}
	if count == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d answers cut to at most %s (the largest was %s)",
		count, n, promptcanary.FormatBytes(kept.ContentLen()), promptcanary.FormatBytes(largest.OriginalBytes))
}

// toolCallsCut summarises the answers of cut whose tool calls were cut,
// of n; "" when none were.
func toolCallsCut(cut []*promptcanary.Response, n int) string {
	count, most, kept := 0, 0, 0
	for _, r := range cut {
		if r.OriginalToolCalls <= len(r.ToolCalls) {
			continue
		}
		count++
		most, kept = max(most, r.OriginalToolCalls), max(kept, len(r.ToolCalls))
	}
	if count == 0 {
		return ""
	}
	return fmt.Sprintf("tool calls of %d of %d answers cut to the first %d (the most was %d)", count, n, kept, most)
}
