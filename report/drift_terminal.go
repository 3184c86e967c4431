package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

// Bounds of the drift report in a terminal.
const (
	// termSummaryRows is how many regressions the summary lists.
	termSummaryRows = 10
	// termExampleRunes bounds each example answer, and termDiffLines the
	// lines of a diff, unless Verbose.
	termExampleRunes = 600
	termDiffLines    = 12
)

func renderDriftTerminal(b *bytes.Buffer, m *driftModel, opts Options) {
	t := &term{b: b, color: opts.Color, width: opts.width()}
	t.line(t.paint(ansiBold, "PromptCanary drift report"), " · ", t.paint(ansiBold, termtext.Truncate(termtext.Safe(m.Suite), t.width-28)))
	t.line()
	t.verdict(m)
	t.identity(m.Report.Identity)
	t.attribution(m.Report.Attribution)
	t.runSpread(m.Report.RunSpread)
	t.economics(m.Report.Economics)
	t.whatRegressed(m)

	t.line()
	if m.NothingCompared() {
		t.line("  ", termtext.PadRight("severity", 13), " ", t.paint(ansiBold+ansiYellow, "n/a (nothing was compared)"))
	} else {
		t.line("  ", termtext.PadRight("severity", 13), " ", t.paint(ansiBold+severityStyle(m.Severity), strings.ToUpper(m.Severity)))
	}
	t.field("method", m.Method)
	t.field("score", m.ScoreLine)
	t.field("provider", m.Model)
	if m.BaselineModel != "" {
		t.field("baseline on", m.BaselineModel)
	}
	t.field("baseline", m.BaselineID+" ("+m.BaselineAt+")")
	t.field("current run", m.CurrentRunID)
	for _, a := range m.Report.Adjustments {
		t.field("adjusted", a)
	}
	for _, w := range m.Report.Warnings {
		t.field("note", w)
	}
	t.field("generated", m.Generated)
	t.field("report id", m.ReportID)

	if len(m.Regressions) > 0 {
		t.heading(ansiRed, fmt.Sprintf("Regressions (%d)", len(m.Regressions)))
		for _, r := range m.Regressions {
			t.regression(r, opts.Verbose)
		}
	}
	if m.Stats != nil && len(m.Stats.Flagged) > 0 {
		t.flaggedUnits(m.Stats)
	}
	for _, g := range m.Groups {
		t.heading(statusStyle(g.Status), fmt.Sprintf("%s (%d)", g.Title, len(g.Rows)))
		if g.Explain != "" {
			t.sideExplain(g.Explain)
		}
		t.comparisonTable(g, true)
	}
	if n := len(m.Stable.Rows); n > 0 {
		if opts.Verbose {
			t.heading(ansiGreen, fmt.Sprintf("Stable (%d)", n))
			t.comparisonTable(m.Stable, false)
		} else {
			t.line()
			t.line(t.paint(ansiDim, plural(n, "stable pair", "stable pairs")+" not listed (--verbose lists them)"))
		}
	}
	if len(m.Errors) > 0 {
		t.heading(ansiYellow, fmt.Sprintf("Errors (%d): calls that failed, not drift", len(m.Errors)))
		t.errorTable(m.Errors)
	}
	if m.Stats != nil {
		t.statistics(m.Stats)
	}
	t.info(m, opts.Verbose)

	t.line()
	t.parts(driftSummary(m))
}

// verdict writes the verdict sentence and, when not every pair was
// compared, which were not and why.
func (t *term) verdict(m *driftModel) {
	style, mark := ansiGreen, "✓ "
	switch {
	case m.NothingCompared():
		style, mark = ansiYellow, "⚠ "
	case m.HasDrift:
		style, mark = severityStyle(m.Severity), "✗ "
	}
	t.whole(t.paint(ansiBold+style, mark), 2, m.Verdict)
	if len(m.NotCompared) == 0 || (!m.NothingCompared() && !m.PartlyCompared()) {
		return
	}
	t.line()
	t.whole("  ", 2, m.CoverageLine())
	for _, g := range m.NotCompared {
		t.whole("  • ", 4, g.Line())
	}
}

// whatRegressed lists the regressions, one line each, and the flagged
// groups of pairs: what broke and where, on the first screen.
func (t *term) whatRegressed(m *driftModel) {
	if len(m.Regressions) == 0 && (m.Stats == nil || len(m.Stats.Flagged) == 0) {
		return
	}
	t.heading(ansiRed, "What regressed")
	for i, r := range m.Regressions {
		if i == termSummaryRows {
			t.line("  ", t.paint(ansiDim, fmt.Sprintf("and %d more, listed under Regressions", len(m.Regressions)-i)))
			break
		}
		sev := termtext.PadRight(strings.ToUpper(r.Severity), 9)
		line := r.Key + " · " + r.RateLine()
		if r.SharedWith != "" {
			line += " (same test as pair " + r.SharedWith + ")"
		}
		t.whole("  "+t.paint(ansiBold+severityStyle(r.Severity), sev)+" ", 12, line)
	}
	if m.Stats != nil {
		for _, u := range m.Stats.Flagged {
			sev := termtext.PadRight(strings.ToUpper(termtext.Safe(u.Severity)), 9)
			t.whole("  "+t.paint(ansiBold+severityStyle(u.Severity), sev)+" ", 12, u.Kind+" "+u.Key+" (a group of pairs that got worse together)")
		}
	}
}

// regression writes one regressed pair: its rates, evidence, details and
// the two example answers as a word diff.
func (t *term) regression(r compRow, verbose bool) {
	t.line()
	sev := strings.ToUpper(r.Severity)
	t.whole("  "+t.paint(ansiBold+severityStyle(r.Severity), sev)+"  ", 4+termtext.Width(sev), r.Probe+" · "+r.PromptID+" · "+r.Category)
	label := func(l string) (string, int) {
		const indent = "      "
		l = termtext.PadRight(l, 9)
		return indent + t.paint(ansiDim, l) + " ", len(indent) + termtext.Width(l) + 1
	}
	p, w := label("pass rate")
	t.whole(p, w, r.RateLine()+" · score "+r.Baseline+" → "+r.Current+" ("+r.Delta+")")
	if r.SharedWith != "" {
		p, w = label("test")
		t.whole(p, w, "same test as pair "+r.SharedWith+": identical results sample for sample, one verdict")
	}
	if r.Evidence != "" {
		p, w = label("evidence")
		t.whole(p, w, cut(r.Evidence, evidenceRunes))
	}
	if r.BaselineDetails != "" {
		p, w = label("baseline")
		t.whole(p, w, cut(r.BaselineDetails, termExampleRunes))
	}
	if r.CurrentDetails != "" {
		p, w = label("current")
		t.whole(p, w, cut(r.CurrentDetails, termExampleRunes))
	}
	if !r.HasExamples() {
		return
	}
	var counts []string
	if r.BaseDistinct != "" {
		counts = append(counts, "baseline "+r.BaseDistinct)
	}
	if r.CurDistinct != "" {
		counts = append(counts, "current "+r.CurDistinct)
	}
	head := "baseline → current"
	if len(counts) > 0 {
		head += " (" + strings.Join(counts, ", ") + ")"
	}
	if !t.color {
		head += ": [-removed-] {+added+}"
	}
	p, w = label("answers")
	t.whole(p, w, head)
	limit, maxLines := termExampleRunes, termDiffLines
	if verbose {
		limit, maxLines = exampleRunes, 0
	}
	ops := r.Diff
	if verbose || (len([]rune(r.BaseExample)) <= limit && len([]rune(r.CurExample)) <= limit) {
		// The model's diff is of the examples as shown.
	} else {
		ops = wordDiff(cut(r.BaseExample, limit), cut(r.CurExample, limit))
	}
	if !diffChanged(ops) {
		t.whole(strings.Repeat(" ", 16)+t.paint(ansiDim, "identical: "), 16+11, cut(r.CurExample, limit))
		return
	}
	t.diff(16, ops, maxLines)
}

// diff writes a word diff wrapped to the width, each line indented:
// deletions in red and insertions in green with colour, between [- -] and
// {+ +} without; line breaks of the answers are kept. maxLines > 0 bounds
// the lines written.
func (t *term) diff(indent int, ops []diffOp, maxLines int) {
	type piece struct {
		text  string
		style string
	}
	var pieces []piece
	for _, o := range ops {
		style := ""
		text := termtext.SafeLines(o.Text)
		switch o.Kind {
		case '-':
			style = ansiRed + ansiStrike
			if !t.color {
				text = "[-" + text + "-]"
			}
		case '+':
			style = ansiGreen + ansiBold
			if !t.color {
				text = "{+" + text + "+}"
			}
		}
		pieces = append(pieces, piece{text, style})
	}
	width := max(t.width-indent, 20)
	pad := strings.Repeat(" ", indent)
	var lines []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		lines = append(lines, strings.TrimRight(cur.String(), " "))
		cur.Reset()
		curW = 0
	}
	add := func(word, style string) {
		for word != "" {
			ww := termtext.Width(word)
			if curW+ww > width && curW > 0 {
				flush()
				word = strings.TrimLeft(word, " ")
				continue
			}
			if ww > width {
				head := termtext.Truncate(word, width+1)
				head = strings.TrimSuffix(head, "…")
				cur.WriteString(t.paint(style, head))
				word = word[len(head):]
				flush()
				continue
			}
			cur.WriteString(t.paint(style, word))
			curW += ww
			word = ""
		}
	}
	for _, p := range pieces {
		for i, l := range strings.Split(p.text, "\n") {
			if i > 0 {
				flush()
			}
			for _, w := range splitKeepSpace(l) {
				add(w, p.style)
			}
		}
	}
	if curW > 0 || cur.Len() > 0 {
		flush()
	}
	for i, l := range lines {
		if maxLines > 0 && i == maxLines {
			t.line(pad, t.paint(ansiDim, fmt.Sprintf("… %s more (--verbose or the HTML report shows the whole answers)", plural(len(lines)-i, "line", "lines"))))
			return
		}
		t.line(pad, l)
	}
}

// splitKeepSpace splits s into words, each with the spaces before it.
func splitKeepSpace(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' && s[i-1] != ' ' {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// flaggedUnits lists the flagged groups of pairs, each with its whole
// evidence line.
func (t *term) flaggedUnits(s *statsModel) {
	t.heading(ansiRed, fmt.Sprintf("Flagged groups (%d)", len(s.Flagged)))
	t.sideExplain(s.FlaggedExplain())
	for _, u := range s.Flagged {
		sev := termtext.PadRight(strings.ToUpper(termtext.Safe(u.Severity)), 9)
		kind := termtext.PadRight(termtext.Truncate(termtext.Safe(u.Kind), 12), 9)
		t.whole("  "+t.paint(ansiBold+severityStyle(u.Severity), sev)+" "+kind+" ", 2+termtext.Width(sev)+1+termtext.Width(kind)+1, u.Key)
		t.whole("      ", 6, cut(u.Evidence, evidenceRunes))
	}
}

// statistics writes the method of a statistical comparison, what a clean
// run could have detected and the nondeterminism.
func (t *term) statistics(s *statsModel) {
	t.heading("", "Statistics")
	if s.HasCleanLine() {
		t.whole("  "+t.paint(ansiGreen, "✓")+" ", 4, s.CleanLine())
	}
	t.wfield("tests", s.Tests)
	t.wfield("multiplicity", s.MultiplicityLine())
	if l := s.QBelowPLine(); l != "" {
		t.wfield("q < p", l)
	}
	t.wfield("seed", fmt.Sprintf("%s · %d permutations", s.Seed, s.Permutations))
	t.wfield("samples", s.SamplesLine())
	if !s.HasCleanLine() {
		t.wfield("detectable", s.DetectableLine())
	}
	if len(s.Nondet) > 0 {
		t.wfield("distinct", s.NondetLine())
		items := make([]string, 0, len(s.Nondet)+1)
		for _, r := range s.Nondet {
			items = append(items, termtext.Truncate(termtext.Safe(r.PromptID), t.width/2)+" "+r.Baseline+" → "+r.Current)
		}
		if s.NondetMore > 0 {
			items = append(items, fmt.Sprintf("and %d more", s.NondetMore))
		}
		t.flow("                ", " · ", items)
	}
}

// info writes the informational notes and warnings: a count line per
// kind, and every item with verbose.
func (t *term) info(m *driftModel, verbose bool) {
	if len(m.Info) == 0 {
		return
	}
	t.heading(ansiYellow, fmt.Sprintf("Informational (%d)", m.InfoCount()))
	if !verbose {
		items := make([]string, len(m.Info))
		for i, g := range m.Info {
			items[i] = strconv.Itoa(len(g.Items)) + " " + termtext.Safe(g.Kind)
			if g.Kind == "notes" && len(g.Items) == 1 {
				items[i] = "1 note"
			}
		}
		t.flow("  ", " · ", items)
		t.line("  ", t.paint(ansiDim, "not drift on their own; --verbose lists them"))
		return
	}
	if m.Stats != nil {
		t.sideExplain(m.Stats.WarningsExplain())
	}
	for _, g := range m.Info {
		t.line("  ", t.paint(ansiBold, termtext.Truncate(termtext.Safe(g.Kind), t.width-10)), fmt.Sprintf(" (%d)", len(g.Items)))
		for _, it := range g.Items {
			t.whole("    • ", 6, cut(it, evidenceRunes))
		}
	}
}

// driftSummary is the closing line: "2 regressions, 1 improvement, 5 stable,
// … · severity HIGH", or what was not compared.
func driftSummary(m *driftModel) []part {
	n := make(map[promptcanary.Status]int, len(m.Counts))
	for _, c := range m.Counts {
		n[c.Status] = c.N
	}
	var ps []part
	if m.NothingCompared() {
		ps = append(ps, part{"", "⚠ nothing compared", ansiBold + ansiYellow})
	} else {
		ps = append(ps,
			part{"", plural(n[promptcanary.StatusRegression], "regression", "regressions"), statusStyle(promptcanary.StatusRegression)},
			part{", ", plural(n[promptcanary.StatusImprovement], "improvement", "improvements"), statusStyle(promptcanary.StatusImprovement)},
			part{", ", strconv.Itoa(n[promptcanary.StatusStable]) + " stable", ""})
	}
	for _, c := range m.Counts {
		switch c.Status {
		case promptcanary.StatusRegression, promptcanary.StatusImprovement, promptcanary.StatusStable:
			continue
		}
		if c.N > 0 {
			ps = append(ps, part{", ", fmt.Sprintf("%d %s", c.N, termtext.Safe(c.Label)), statusStyle(c.Status)})
		}
	}
	if len(m.Errors) > 0 {
		ps = append(ps, part{" · ", plural(len(m.Errors), "call error", "call errors"), ansiYellow})
	}
	if m.NothingCompared() {
		return ps
	}
	return append(ps, part{" · ", "severity " + strings.ToUpper(termtext.Safe(m.Severity)), ansiBold + severityStyle(m.Severity)})
}

func (t *term) comparisonTable(g statusGroup, withDetails bool) {
	style := statusStyle(g.Status)
	rows := make([]trow, len(g.Rows))
	for i, r := range g.Rows {
		sev := ""
		if r.Severity != "—" {
			sev = severityStyle(r.Severity)
		}
		rows[i].cells = []cell{{text: r.Probe}, {text: r.Category}, {text: r.PromptID}, {text: r.Baseline}, {text: r.Current, style: style}, {text: r.Delta, style: style}, {text: r.Severity, style: sev}}
		if r.SharedWith != "" {
			rows[i].whole = append(rows[i].whole, [2]string{"test", "same test as pair " + r.SharedWith})
		}
		// Evidence is shown for every listed pair: for a stable pair of a
		// statistical report it is the smallest drop the pair could show.
		if r.Evidence != "" {
			rows[i].whole = append(rows[i].whole, [2]string{"evidence", cut(r.Evidence, evidenceRunes)})
		}
		if !withDetails {
			continue
		}
		if r.BaselineDetails != "" {
			rows[i].whole = append(rows[i].whole, [2]string{"baseline", r.BaselineDetails})
		}
		if r.CurrentDetails != "" {
			rows[i].whole = append(rows[i].whole, [2]string{"current", r.CurrentDetails})
		}
	}
	t.table([]column{{head: "PROBE", max: 32, min: 12}, {head: "CATEGORY", max: 10, min: 6}, {head: "PROMPT", max: 20, min: 10}, {head: "BASELINE", right: true}, {head: "CURRENT", right: true}, {head: "Δ", right: true}, {head: "SEVERITY", min: 6}}, rows)
}
