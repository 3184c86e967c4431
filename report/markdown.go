package report

import (
	"bytes"
	"fmt"
	"github.com/promptcanary/promptcanary/internal/quote"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
)

// Limits that keep a Markdown report fit for a pull-request comment.
const (
	mdDetailRunes = 300 // probe details and error messages per cell
	mdMaxRows     = 200 // rows per table; the rest are counted
	// mdMaxBytes bounds a whole report: GitHub refuses a comment longer
	// than 65,536 characters, and a byte is never less than a character.
	mdMaxBytes = 65536
)

// md writes Markdown into a buffer. It remembers the places where the
// report may be cut (after a block or a table row, with the <details>
// elements open there), so that finish can keep a long report under
// mdMaxBytes by dropping its end, which holds the least important parts.
type md struct {
	b     *bytes.Buffer
	start int
	depth int // open <details> elements
	cuts  []mdCut
}

// mdCut is a place where the report may be cut.
type mdCut struct {
	off, depth int
}

func newMD(b *bytes.Buffer) *md { return &md{b: b, start: b.Len()} }

func (m *md) line(parts ...string) {
	for _, p := range parts {
		m.b.WriteString(p)
	}
	m.b.WriteByte('\n')
}

// heading writes a Markdown heading line (its "### " included) between
// blank lines.
func (w *md) heading(h string) {
	w.line()
	w.line(h)
	w.line()
}

// cut marks the end of a block: the report may be cut here.
func (m *md) cut() { m.cuts = append(m.cuts, mdCut{off: m.b.Len(), depth: m.depth}) }

// table writes a GFM table; cells must already be escaped. It writes at most
// mdMaxRows rows and says how many it left out.
func (m *md) table(head []string, align string, rows [][]string) {
	m.line("| ", strings.Join(head, " | "), " |")
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---"
		if i < len(align) && align[i] == 'r' {
			seps[i] = "---:"
		}
	}
	m.line("|", strings.Join(seps, "|"), "|")
	for i, r := range rows {
		if i == mdMaxRows {
			break
		}
		m.line("| ", strings.Join(r, " | "), " |")
		m.cut()
	}
	if len(rows) > mdMaxRows {
		m.line()
		m.line(fmt.Sprintf("…and %d more, listed in the JSON and HTML reports.", len(rows)-mdMaxRows))
	}
	m.cut()
}

// details opens a collapsed section; summary must already be escaped.
func (m *md) details(summary string) {
	m.line()
	m.line("<details>")
	m.line("<summary>", summary, "</summary>")
	m.line()
	m.depth++
}

func (m *md) endDetails() {
	m.line()
	m.line("</details>")
	m.depth--
	m.cut()
}

// mdTruncated is the note that ends a report cut to fit; %s is how much was
// left out.
const mdTruncated = "\n✂️ **This report was cut to fit a GitHub comment (65,536 characters): %s left out.** " +
	"The HTML and JSON reports (`--output-html`, `--output-json`) have everything.\n"

// finish keeps the report under mdMaxBytes: when it is longer, it is cut at
// the last place that leaves room to close the open <details> elements and
// to say so.
func (m *md) finish() {
	total := m.b.Len() - m.start
	if total <= mdMaxBytes {
		return
	}
	room := mdMaxBytes - len(mdTruncated) - 40
	best := mdCut{off: m.start}
	for _, c := range m.cuts {
		if c.off-m.start+c.depth*len("\n</details>\n") <= room && c.off > best.off {
			best = c
		}
	}
	left := total - (best.off - m.start)
	m.b.Truncate(best.off)
	for range best.depth {
		m.line()
		m.line("</details>")
	}
	fmt.Fprintf(m.b, mdTruncated, quote.Thousands(left)+" bytes")
}

func renderRunMarkdown(b *bytes.Buffer, m *runModel) {
	w := newMD(b)
	icon := "✅"
	switch m.Status {
	case "fail":
		icon = "❌"
	case "none":
		icon = "⚠️"
	}
	w.line("## ", icon, " PromptCanary run report: ", mdText(m.Suite, 200))
	w.line()
	w.line("**", mdText(m.Verdict, 500), "**")
	w.line()
	line := "Score n/a · pass rate n/a: nothing was measured"
	if m.Measured {
		line = fmt.Sprintf("Score **%s** · pass rate **%s** (%s/%s results passed)", m.Score, m.PassRate, quote.Thousands(m.Passed), quote.Thousands(m.Total))
	}
	if len(m.Errors) > 0 {
		line += " · " + plural(len(m.Errors), "call error", "call errors")
	}
	w.line(line)
	if m.Stream != nil {
		w.line()
		w.line(mdText(m.Stream.Lines, 200), " (", mdCode(cut(m.Stream.Source, 200)), ").")
		if m.Stream.Unknown != "" {
			w.line()
			w.line("⚠️ ", mdText(m.Stream.Unknown, 1000))
		}
	}
	if m.Interrupted {
		w.line()
		w.line("⚠️ **The run was interrupted: results are incomplete.**")
	}
	if m.Cut != "" {
		w.line()
		w.line("✂️ ", mdText(m.Cut, 400), ".")
	}
	w.cut()

	w.runResults(m)
	w.runDetails(m)
	if len(m.Passing) > 0 {
		w.details(fmt.Sprintf("✅ Passing pairs (%d)", len(m.Passing)))
		rows := make([][]string, len(m.Passing))
		for i, r := range m.Passing {
			rows[i] = []string{mdText(r.Probe, 200), mdText(r.Category, 100), mdText(r.PromptID, 200), r.Count(), r.Score, mdText(r.Details, mdDetailRunes)}
		}
		w.table([]string{"Probe", "Category", "Prompt", "Passed", "Score", "Details"}, "lllrr", rows)
		w.endDetails()
	}
	w.footer(m.Tool, "run "+mdText(m.RunID, 200), m.ConfigHash)
	w.finish()
}

// runResults writes the failures, the call errors and the categories of
// run m.
func (w *md) runResults(m *runModel) {
	if len(m.Failed) > 0 {
		w.heading(fmt.Sprintf("### ❌ Failures (%d)", len(m.Failed)))
		rows := make([][]string, len(m.Failed))
		for i, r := range m.Failed {
			rows[i] = []string{mdText(r.Probe, 200), mdText(r.Category, 100), mdText(r.PromptID, 200), r.Count(), r.Score,
				mdFailures(r.Failures), mdPreview(r.Example)}
		}
		w.table([]string{"Probe", "Category", "Prompt", "Passed", "Score", "Failure details", "Example response"}, "lllrr", rows)
	}
	if len(m.Errors) > 0 {
		w.mdErrors(m.Errors, "not probe failures")
	}
	if len(m.Categories) > 0 {
		w.heading("### By category")
		rows := make([][]string, len(m.Categories))
		for i, c := range m.Categories {
			rows[i] = []string{mdText(c.Category, 100), fmt.Sprintf("%d/%d", c.Passed, c.Total), c.Rate, c.Score}
		}
		w.table([]string{"Category", "Passed", "Pass rate", "Mean score"}, "lrrr", rows)
	}
}

// runDetails writes the folded Run details table of run m.
func (w *md) runDetails(m *runModel) {
	w.details("Run details")
	rows := [][]string{
		{"Provider", mdText(m.Model, 200)},
		{"Sampling", mdText(m.Sampling, 200)},
		{"Samples per prompt", strconv.Itoa(m.Samples)},
		{"Started", m.Started},
		{"Duration", m.Duration},
		{"Tokens used", m.Tokens},
	}
	if m.Cost != "" {
		rows = append(rows, []string{"Cost", mdText(m.Cost, 200)})
	}
	for _, a := range m.Adjustments {
		rows = append(rows, []string{"Adjusted", mdText(a, 500)})
	}
	for _, n := range m.Warnings {
		rows = append(rows, []string{"Note", mdText(n, 500)})
	}
	rows = append(rows, []string{"Run ID", mdText(m.RunID, 200)})
	if m.Stream != nil {
		rows[2] = []string{"Answers", mdText(m.Stream.Lines, 200)}
		rows = append(rows, []string{"Source", mdText(m.Stream.Source, 200)})
	}
	w.table([]string{"Run", ""}, "", rows)
	if m.Stream != nil {
		w.line()
		w.line(mdText(m.Stream.Note, 500))
	}
	w.endDetails()
}

// mdFailures lists a pair's distinct failure details with their counts in
// one table cell.
func mdFailures(ds []detailCount) string {
	parts := make([]string, 0, len(ds))
	for i, d := range ds {
		if i == failureLines {
			parts = append(parts, "and "+plural(len(ds)-i, "other failure", "other failures"))
			break
		}
		parts = append(parts, orDash(mdText(d.Label(), mdDetailRunes)))
	}
	return orDash(strings.Join(parts, "<br>"))
}

func (w *md) mdErrors(errs []errorRow, what string) {
	w.heading(fmt.Sprintf("### ⚠️ Errors (%d)", len(errs)))
	w.line("Calls that failed for good: their prompts were not measured for those samples. These are ", what, ".")
	w.line()
	rows := make([][]string, len(errs))
	for i, e := range errs {
		rows[i] = []string{mdText(e.PromptID, 200), strconv.Itoa(e.Sample), mdText(orDash(e.Provider), 200), e.Attempts, mdText(e.Message, mdDetailRunes)}
	}
	w.table([]string{"Prompt", "Sample", "Provider", "Attempts", "Message"}, "lrlr", rows)
}

func (w *md) footer(tool, id, hash string) {
	parts := []string{mdText(generatedBy(cut(tool, 100)), 200), id}
	if hash != "" {
		parts = append(parts, "config "+mdText(hash, 100))
	}
	w.line()
	w.line("---")
	w.line("<sub>", strings.Join(parts, " · "), "</sub>")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// severityIcon marks a severity in Markdown.
func severityIcon(s string) string {
	switch s {
	case "none":
		return "✅"
	case "low":
		return "🟡"
	case "medium":
		return "🟠"
	case "high":
		return "🔴"
	}
	return "🚨"
}

func renderDriftMarkdown(b *bytes.Buffer, m *driftModel) {
	w := newMD(b)
	icon := severityIcon(m.Severity)
	if m.NothingCompared() {
		icon = "⚠️"
	}
	w.line("## ", icon, " PromptCanary drift report: ", mdText(m.Suite, 200))
	w.line()
	w.line("**", mdText(m.Verdict, 2000), "**")
	w.identity(m.Report.Identity)
	w.attribution(m.Report.Attribution)
	w.runSpread(m.Report.RunSpread)
	w.economics(m.Report.Economics)
	if len(m.NotCompared) > 0 && (m.NothingCompared() || m.PartlyCompared()) {
		w.line()
		w.line(mdText(m.CoverageLine(), 200))
		w.line()
		for _, g := range m.NotCompared {
			w.line("- ", mdText(g.Line(), 2000))
		}
	}
	if d := m.Report; len(d.Adjustments)+len(d.Warnings) > 0 {
		w.line()
		for _, a := range d.Adjustments {
			w.line("- Adjusted to what the model takes: ", mdText(a, 500))
		}
		for _, n := range d.Warnings {
			w.line("- Note: ", mdText(n, 500))
		}
	}
	w.cut()
	w.whatRegressed(m)

	w.driftSeverity(m, icon)

	if len(m.Regressions) > 0 {
		w.line()
		w.line(fmt.Sprintf("### 🔴 Regressions (%d)", len(m.Regressions)))
		for i, r := range m.Regressions {
			if i == mdRegressionDetails {
				w.line()
				w.line(fmt.Sprintf("The other %d regressions, without their answers:", len(m.Regressions)-i))
				w.line()
				w.comparisonTable(m.Regressions[i:], true)
				break
			}
			w.regression(r)
		}
	}
	if m.Stats != nil && len(m.Stats.Flagged) > 0 {
		w.flaggedUnits(m.Stats)
	}
	for _, g := range m.Groups {
		w.line()
		w.line(fmt.Sprintf("### %s %s (%d)", g.Icon, mdText(g.Title, 100), len(g.Rows)))
		if g.Explain != "" {
			w.line()
			w.line(g.Explain)
		}
		w.line()
		w.comparisonTable(g.Rows, true)
	}
	if n := len(m.Stable.Rows); n > 0 {
		w.details(fmt.Sprintf("✅ Stable (%d)", n))
		w.comparisonTable(m.Stable.Rows, false)
		w.endDetails()
	}
	if len(m.Errors) > 0 {
		w.mdErrors(m.Errors, "not drift")
	}
	w.driftDetails(m)
	if m.Stats != nil {
		w.statistics(m.Stats)
	}
	w.info(m)
	w.footer("", "report "+mdText(m.ReportID, 200), "")
	w.finish()
}

// driftSeverity writes the line of the severity, the method, the score
// and the counts by status of drift report m.
func (w *md) driftSeverity(m *driftModel, icon string) {
	w.line()
	sev := icon + " **Severity: " + strings.ToUpper(mdText(m.Severity, 50)) + "**"
	if m.NothingCompared() {
		sev = "⚠️ **Severity: n/a (nothing was compared)**"
	}
	counts := make([]string, 0, len(m.Counts))
	for _, c := range m.Counts {
		if c.N > 0 || c.Status == promptcanary.StatusRegression || c.Status == promptcanary.StatusStable {
			counts = append(counts, mdText(countLabel(c), 100))
		}
	}
	w.line(sev, " · method: ", mdText(m.Method, 100), " · score ", mdText(m.ScoreLine, 100), " · ", strings.Join(counts, ", "))
	w.cut()
}

// driftDetails writes the folded Comparison details of drift report m.
func (w *md) driftDetails(m *driftModel) {
	meta := [][]string{{"Provider", mdText(m.Model, 200)}}
	if m.BaselineModel != "" {
		meta = append(meta, []string{"Baseline provider", mdText(m.BaselineModel, 200)})
	}
	meta = append(meta,
		[]string{"Baseline", mdText(m.BaselineID, 200) + " (" + m.BaselineAt + ")"},
		[]string{"Current run", mdText(m.CurrentRunID, 200)},
		[]string{"Generated", m.Generated},
	)
	w.details("Comparison details")
	w.table([]string{"Comparison", ""}, "", meta)
	w.endDetails()
}

// Bounds of the regressions in Markdown.
const (
	// mdSummaryRows is how many regressions the summary table lists.
	mdSummaryRows = 20
	// mdRegressionDetails is how many regressions get their answers; the
	// others are listed in a table.
	mdRegressionDetails = 25
	// mdExampleRunes bounds each example answer.
	mdExampleRunes = 1200
)

// whatRegressed is the summary table of the regressions and flagged groups.
func (w *md) whatRegressed(m *driftModel) {
	flagged := 0
	if m.Stats != nil {
		flagged = len(m.Stats.Flagged)
	}
	if len(m.Regressions) == 0 && flagged == 0 {
		return
	}
	w.heading("### What regressed")
	var rows [][]string
	for i, r := range m.Regressions {
		if i == mdSummaryRows {
			break
		}
		note := "—"
		if r.SharedWith != "" {
			note = "same test as pair " + mdText(r.SharedWith, 200)
		}
		rows = append(rows, []string{severityIcon(r.Severity) + " " + mdText(r.Severity, 50), mdText(r.Key, 200), mdText(r.RateLine(), 100), note})
	}
	if m.Stats != nil {
		for _, u := range m.Stats.Flagged {
			rows = append(rows, []string{severityIcon(u.Severity) + " " + mdText(u.Severity, 50), mdText(u.Kind+" "+u.Key, 200), "—", "a group of pairs that got worse together"})
		}
	}
	w.table([]string{"Severity", "Pair", "Baseline → current pass rate", "Note"}, "", rows)
	if n := len(m.Regressions) - mdSummaryRows; n > 0 {
		w.line()
		w.line(fmt.Sprintf("…and %d more regressions, below.", n))
	}
}

// regression writes one regressed pair with its evidence and both example
// answers in fenced blocks.
func (w *md) regression(r compRow) {
	w.line()
	w.line(severityIcon(r.Severity), " **", strings.ToUpper(mdText(r.Severity, 50)), " · ", mdText(r.Probe, 200), " · ", mdText(r.PromptID, 200), "** (", mdText(r.Category, 100), ")")
	w.line()
	w.line("Pass rate ", mdText(r.RateLine(), 100), " · score ", mdText(r.Baseline, 50), " → ", mdText(r.Current, 50), " (", r.Delta, ")")
	if r.SharedWith != "" {
		w.line()
		w.line("Same test as pair ", mdText(r.SharedWith, 200), ": identical results sample for sample, one verdict.")
	}
	if r.Evidence != "" {
		w.line()
		w.line("**Evidence:** ", mdText(r.Evidence, evidenceRunes))
	}
	if r.BaselineDetails != "" {
		w.line()
		w.line("**Baseline details:** ", mdText(r.BaselineDetails, mdDetailRunes))
	}
	if r.CurrentDetails != "" {
		w.line()
		w.line("**Current details:** ", mdText(r.CurrentDetails, mdDetailRunes))
	}
	if r.HasExamples() {
		w.answer("Baseline answer", r.BaseDistinct, r.BaseExample)
		w.answer("Current answer", r.CurDistinct, r.CurExample)
	}
	w.cut()
}

// answer writes an example answer in a fenced block.
func (w *md) answer(title, distinct, text string) {
	w.line()
	if distinct != "" {
		w.line("**", title, "** (", mdText(distinct, 100), "):")
	} else {
		w.line("**", title, ":**")
	}
	w.line()
	w.fenced(cut(text, mdExampleRunes))
}

// fenced writes untrusted text as a fenced code block, which GitHub shows
// as it is: the fence is longer than any run of backticks in the text, so
// no line of it can close the block, and control and bidirectional
// characters are replaced.
func (w *md) fenced(s string) {
	s = mdCode(s)
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	if strings.TrimSpace(s) == "" {
		s = "(empty)"
	}
	w.line(fence, "text")
	w.line(s)
	w.line(fence)
}

// mdCode makes text safe inside a fenced block: line breaks are "\n", and
// control, bidirectional-override and invalid characters are U+FFFD.
func mdCode(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t':
			return ' '
		case r == utf8.RuneError, r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return utf8.RuneError
		}
		return r
	}, strings.TrimRight(s, "\n"))
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// info writes the notes and warnings, grouped by kind, each kind collapsed.
func (w *md) info(m *driftModel) {
	if len(m.Info) == 0 {
		return
	}
	w.heading(fmt.Sprintf("### ℹ️ Informational (%d)", m.InfoCount()))
	if m.Stats != nil {
		w.line(m.Stats.WarningsExplain())
	} else {
		w.line("Caveats of the comparison; they are not drift on their own.")
	}
	for _, g := range m.Info {
		w.details(mdText(g.Kind, 100) + fmt.Sprintf(" (%d)", len(g.Items)))
		for _, it := range g.Items {
			w.line("- ", mdText(it, evidenceRunes))
			w.cut()
		}
		w.endDetails()
	}
}

// flaggedUnits lists the flagged groups of pairs with their evidence.
func (w *md) flaggedUnits(s *statsModel) {
	w.heading(fmt.Sprintf("### 🚩 Flagged groups (%d)", len(s.Flagged)))
	w.line(s.FlaggedExplain())
	w.line()
	rows := make([][]string, len(s.Flagged))
	for i, u := range s.Flagged {
		rows[i] = []string{severityIcon(u.Severity) + " " + mdText(u.Severity, 50), mdText(u.Kind, 50), mdText(u.Key, 200), mdText(u.Evidence, evidenceRunes)}
	}
	w.table([]string{"Severity", "Unit", "Name", "Evidence"}, "", rows)
}

// statistics writes the method, what a clean run could have detected, every
// tested unit, the change warnings and signals, and the nondeterminism.
func (w *md) statistics(s *statsModel) {
	w.heading("### 📐 Statistics")
	if s.HasCleanLine() {
		w.line("✅ **", mdText(s.CleanLine(), 500), "**")
		w.line()
	}
	rows := [][]string{
		{"Tests", mdText(s.Tests, 1000)},
		{"Multiplicity", mdText(s.MultiplicityLine(), 500)},
		{"Seed", mdText(s.Seed, 50) + " · " + strconv.Itoa(s.Permutations) + " permutations"},
		{"Samples", mdText(s.SamplesLine(), 200)},
	}
	if l := s.QBelowPLine(); l != "" {
		rows = slices.Insert(rows, 2, []string{"q < p", mdText(l, 500)})
	}
	if !s.HasCleanLine() {
		rows = append(rows, []string{"Detectable drop", mdText(s.DetectableLine(), 200)})
	}
	w.table([]string{"Method", ""}, "", rows)

	if len(s.Units) > 0 {
		w.details(fmt.Sprintf("All tested units (%d: %d flagged, %d screened out)", len(s.Units), s.Rejected, s.Screened))
		w.line(s.UnitsExplain())
		w.line()
		rows := make([][]string, len(s.Units))
		for i, u := range s.Units {
			outcome := mdText(u.Outcome, 300)
			if u.Flagged {
				outcome = severityIcon(u.Severity) + " " + outcome + " (" + mdText(u.Severity, 50) + ")"
			}
			rows[i] = []string{mdText(u.Kind, 50), mdText(u.Key, 200), mdText(u.Test, 100), u.P, u.Q, mdText(u.Effect, 100), outcome}
		}
		w.table([]string{"Unit", "Name", "Test", "p", "q", "Effect [95% CI]", "Outcome"}, "lllrrr", rows)
		w.endDetails()
	}

	if len(s.Signals) > 0 {
		w.details(fmt.Sprintf("Change signals (%d)", len(s.Signals)))
		rows := make([][]string, len(s.Signals))
		for i, g := range s.Signals {
			flag := "—"
			if g.Flagged {
				flag = "⚠️ yes"
			}
			rows[i] = []string{mdText(g.Kind, 100), mdText(g.PromptID, 200), g.Baseline, g.Current, g.P, g.Q, flag}
		}
		w.table([]string{"Signal", "Prompt", "Baseline", "Current", "p", "q", "Flagged"}, "llrrrr", rows)
		w.endDetails()
	}

	if len(s.Nondet) > 0 {
		w.details("🎲 Distinct answers per prompt")
		w.line(mdText(s.NondetLine(), 500))
		w.line()
		rows := make([][]string, len(s.Nondet))
		for i, r := range s.Nondet {
			rows[i] = []string{mdText(r.PromptID, 200), r.Baseline, r.Current}
		}
		w.table([]string{"Prompt", "Baseline distinct", "Current distinct"}, "lrr", rows)
		if s.NondetMore > 0 {
			w.line()
			w.line(fmt.Sprintf("…and %s, listed in the JSON report.", plural(s.NondetMore, "more prompt", "more prompts")))
		}
		w.endDetails()
	}
}

// comparisonTable writes comparisons; withDetails adds their evidence and
// details, and without them a table still shows the evidence (for a stable
// pair of a statistical report, the smallest drop it could show) when a row
// has some.
func (w *md) comparisonTable(rows []compRow, withDetails bool) {
	head := []string{"Probe", "Category", "Prompt", "Baseline", "Current", "Δ", "Severity"}
	evidenceOnly := false
	if withDetails {
		head = append(head, "Details")
	} else if slices.ContainsFunc(rows, func(r compRow) bool { return r.Evidence != "" }) {
		evidenceOnly = true
		head = append(head, "Evidence")
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		sev := r.Severity
		if sev != "—" {
			sev = severityIcon(sev) + " " + mdText(sev, 50)
		}
		out[i] = []string{mdText(r.Probe, 200), mdText(r.Category, 100), mdText(r.PromptID, 200), r.Baseline, r.Current, r.Delta, sev}
		if evidenceOnly {
			out[i] = append(out[i], orDash(mdText(r.Evidence, evidenceRunes)))
		}
		if !withDetails {
			continue
		}
		var parts []string
		if r.SharedWith != "" {
			parts = append(parts, "**same test as pair** "+mdText(r.SharedWith, 200))
		}
		if r.Evidence != "" {
			parts = append(parts, "**evidence:** "+mdText(r.Evidence, evidenceRunes))
		}
		if r.BaselineDetails != "" {
			parts = append(parts, "**baseline:** "+mdText(r.BaselineDetails, mdDetailRunes))
		}
		if r.CurrentDetails != "" {
			parts = append(parts, "**current:** "+mdText(r.CurrentDetails, mdDetailRunes))
		}
		out[i] = append(out[i], orDash(strings.Join(parts, "<br>")))
	}
	w.table(head, "lllrrr", out)
}

// mdPreview shows a response preview in a table cell, "—" when empty.
func mdPreview(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return mdText(s, previewRunes+1)
}

// mdText escapes untrusted text for inline Markdown, cut to limit runes: it
// cannot end a table cell, open a code span, a link, emphasis, raw HTML or an
// HTML comment or math, start a heading, quote or list, or mention a user.
// Markup characters get backslash escapes; &, <, >, | (which splits table
// cells even inside code), ` and $ become HTML entities. Line breaks become
// <br>; control and bidirectional-override characters are replaced.
func mdText(s string, limit int) string {
	s = strings.TrimLeft(cut(s, limit), " \t\r\n")
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	lastBreak := false
	for i, w := 0, 0; i < len(s); i += w {
		r, size := utf8.DecodeRuneInString(s[i:])
		w = size
		if r == '\r' || r == '\n' {
			if !lastBreak {
				b.WriteString("<br>")
			}
			lastBreak = true
			continue
		}
		lastBreak = false
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '|':
			b.WriteString("&#124;")
		case '`':
			b.WriteString("&#96;")
		case '\\':
			b.WriteString(`\\`)
		case '[':
			b.WriteString(`\[`)
		case ']':
			b.WriteString(`\]`)
		case '*':
			b.WriteString(`\*`)
		case '_':
			b.WriteString(`\_`)
		case '~':
			b.WriteString(`\~`)
		case '$':
			b.WriteString("&#36;")
		case '@':
			// A word joiner keeps "@name" from notifying anyone.
			b.WriteString("@\u2060")
		case '#', '-', '+', '=':
			if b.Len() == 0 {
				b.WriteByte('\\')
				b.WriteRune(r)
			} else {
				b.WriteRune(r)
			}
		case '.', ')':
			// "1." or "1)" at the very start would open an ordered list.
			if isDigits(b.String()) && b.Len() > 0 {
				b.WriteByte('\\')
				b.WriteRune(r)
			} else {
				b.WriteRune(r)
			}
		case '\t':
			b.WriteByte(' ')
		default:
			switch {
			case r == utf8.RuneError && size == 1, r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0,
				r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
				b.WriteRune(utf8.RuneError)
			default:
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

func isDigits(s string) bool {
	if len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
