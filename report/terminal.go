package report

import (
	"bytes"
	"fmt"
	"github.com/promptcanary/promptcanary/internal/quote"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

// ANSI styles used by the terminal renderer.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiStrike = "\x1b[9m"
)

// term writes terminal output into a buffer.
type term struct {
	b     *bytes.Buffer
	color bool
	width int
}

// paint wraps s in an ANSI style when colour is on.
func (t *term) paint(style, s string) string {
	if !t.color || style == "" || s == "" {
		return s
	}
	return style + s + ansiReset
}

func (t *term) line(parts ...string) {
	for _, p := range parts {
		t.b.WriteString(p)
	}
	t.b.WriteByte('\n')
}

// heading writes a bold section title preceded by a blank line.
func (t *term) heading(style, title string) {
	t.line()
	t.line(t.paint(ansiBold+style, title))
}

// field writes an aligned "label  value" line of the header block; value is
// untrusted, and wraps under the value column rather than being cut.
func (t *term) field(label, value string) { t.wfield(label, value) }

// para writes untrusted free text wrapped to the width, each line indented.
func (t *term) para(indent, first, s string) {
	for i, l := range wrap(termtext.Safe(s), t.width-termtext.Width(indent)-termtext.Width(first)) {
		if i == 0 {
			t.line(indent, first, l)
		} else {
			t.line(indent, strings.Repeat(" ", termtext.Width(first)), l)
		}
	}
}

// wfield writes an aligned "label  value" line like field, wrapping a long
// value onto continuation lines under the value column instead of cutting it.
func (t *term) wfield(label, value string) {
	lab := termtext.PadRight(label, 13)
	t.whole("  "+lab+" ", 3+termtext.Width(lab), value)
}

// whole writes untrusted text wrapped to the width without dropping any of
// it: the first line starts with prefix, which is safe, may hold colour and
// takes prefixWidth columns; the following lines are indented to line up
// with the text. Words wider than a line are broken, not cut.
func (t *term) whole(prefix string, prefixWidth int, s string) {
	pad := strings.Repeat(" ", prefixWidth)
	for i, l := range wrapWhole(termtext.Safe(s), t.width-prefixWidth) {
		if i == 0 {
			t.line(prefix, l)
		} else {
			t.line(pad, l)
		}
	}
}

// column describes one table column.
type column struct {
	head  string
	right bool
	max   int // widest the column may be; 0 for no cap
	min   int // narrowest the column may shrink to when the table is too wide; 0 never shrinks
}

// cell is one table cell; text is untrusted.
type cell struct {
	text  string
	style string
}

// trow is one table row with optional "label text" lines under it: whole
// lines (failure details, messages, evidence) are wrapped onto
// continuation lines and never cut, then extra lines (previews of an
// answer, already cut to a length) are cut to the width.
type trow struct {
	cells []cell
	whole [][2]string
	extra [][2]string
}

const (
	tableIndent    = "  "
	lastColumnKeep = 40 // width the last column keeps before other columns shrink
)

// table writes an aligned table. Cell texts are escaped, then wrapped
// within their column; when the table is wider than the terminal, the
// shrinkable columns give up width, widest first.
func (t *term) table(cols []column, rows []trow) {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = termtext.Width(c.head)
	}
	for ri := range rows {
		for i := range rows[ri].cells {
			c := &rows[ri].cells[i]
			c.text = termtext.Safe(c.text)
			widths[i] = max(widths[i], termtext.Width(c.text))
		}
	}
	total := termtext.Width(tableIndent) + 2*(len(cols)-1)
	for i, c := range cols {
		if c.max > 0 {
			widths[i] = min(widths[i], c.max)
		}
		widths[i] = min(widths[i], t.width)
		total += widths[i]
	}
	// The last column (details, messages) gives way first, down to a
	// readable width; then the widest shrinkable column, down to its minimum.
	last := len(cols) - 1
	if cols[last].min > 0 && total > t.width {
		shrink := min(total-t.width, widths[last]-max(cols[last].min, lastColumnKeep))
		if shrink > 0 {
			widths[last] -= shrink
			total -= shrink
		}
	}
	for total > t.width {
		widest := -1
		for i, c := range cols {
			if c.min > 0 && widths[i] > c.min && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
		total--
	}

	render := func(cells []cell, header bool) {
		// A cell wider than its column wraps within it, onto as many
		// lines as the row needs: nothing in a table is cut.
		parts := make([][]string, len(cells))
		height := 1
		for i, c := range cells {
			parts[i] = []string{c.text}
			if termtext.Width(c.text) > widths[i] {
				parts[i] = breakLines(c.text, widths[i])
			}
			height = max(height, len(parts[i]))
		}
		for k := range height {
			t.line(t.tableLine(cols, widths, cells, parts, k, header))
		}
	}
	head := make([]cell, len(cols))
	for i, c := range cols {
		head[i] = cell{text: c.head}
	}
	render(head, true)
	const extraIndent = tableIndent + "    "
	for _, r := range rows {
		render(r.cells, false)
		for _, x := range r.whole {
			label := termtext.PadRight(x[0], 9)
			t.whole(extraIndent+t.paint(ansiDim, label)+" ", len(extraIndent)+termtext.Width(label)+1, x[1])
		}
		for _, x := range r.extra {
			label := termtext.PadRight(x[0], 9)
			t.line(extraIndent, t.paint(ansiDim, label), " ", termtext.Truncate(termtext.Safe(x[1]), t.width-len(extraIndent)-10))
		}
	}
}

// tableLine renders line k of a table row whose cells are broken into
// parts; a cell with fewer lines is blank there.
func (t *term) tableLine(cols []column, widths []int, cells []cell, parts [][]string, k int, header bool) string {
	var sb strings.Builder
	sb.WriteString(tableIndent)
	last := len(cols) - 1
	for i, c := range cells {
		text := ""
		if k < len(parts[i]) {
			text = parts[i][k]
		}
		pad := strings.Repeat(" ", max(widths[i]-termtext.Width(text), 0))
		if i == last && !cols[i].right {
			pad = ""
		}
		style := c.style
		if header {
			style = ansiBold
		}
		if cols[i].right {
			sb.WriteString(pad)
			sb.WriteString(t.paint(style, text))
		} else {
			sb.WriteString(t.paint(style, text))
			sb.WriteString(pad)
		}
		if i < last {
			sb.WriteString("  ")
		}
	}
	return strings.TrimRight(sb.String(), " ")
}

// part is a piece of a summary line.
type part struct {
	sep   string // written before the piece, unless it starts a line
	text  string // trusted, already safe
	style string
}

// parts writes the pieces on one line, breaking lines between pieces so that
// no line is wider than the terminal.
func (t *term) parts(ps []part) {
	var sb strings.Builder
	w := 0
	for i, p := range ps {
		pw := termtext.Width(p.text)
		if i > 0 {
			// Keep room for the separator that ends a broken line.
			if w+termtext.Width(p.sep)+pw+2 > t.width {
				t.line(strings.TrimRight(sb.String()+p.sep, " "))
				sb.Reset()
				w = 0
			} else {
				sb.WriteString(p.sep)
				w += termtext.Width(p.sep)
			}
		}
		sb.WriteString(t.paint(p.style, p.text))
		w += pw
	}
	t.line(sb.String())
}

func renderRunTerminal(b *bytes.Buffer, m *runModel, opts Options) {
	t := &term{b: b, color: opts.Color, width: opts.width()}
	t.line(t.paint(ansiBold, "PromptCanary run report"), " · ", t.paint(ansiBold, termtext.Truncate(termtext.Safe(m.Suite), t.width-26)))
	t.line()
	t.runVerdict(m)
	if m.Interrupted {
		t.line()
		t.line(t.paint(ansiYellow, "⚠ The run was interrupted: results are incomplete."))
	}
	if m.Cut != "" {
		t.line()
		t.para("", "✂ ", m.Cut+".")
	}
	t.runResults(m, opts)
	t.runFields(m)

	t.line()
	var parts []string
	switch {
	case !m.Measured:
		parts = append(parts, t.paint(ansiYellow+ansiBold, "⚠ nothing measured"))
	case len(m.Failed) == 0 && len(m.Errors) == 0:
		parts = append(parts, t.paint(ansiGreen+ansiBold, "✓ all probes passed"))
	default:
		parts = append(parts, t.paint(ansiRed+ansiBold, "✗ "+plural(len(m.Failed), "failing pair", "failing pairs")))
	}
	if len(m.Errors) > 0 {
		parts = append(parts, t.paint(ansiYellow, plural(len(m.Errors), "call error", "call errors")))
	}
	parts = append(parts, "score "+m.Score, "pass rate "+m.PassRate)
	t.line(strings.Join(parts, " · "))
}

// statusMark returns the style and the mark of a verdict of status
// "pass", "fail" or "none" (nothing was judged).
func statusMark(status string) (style, mark string) {
	switch status {
	case "fail":
		return ansiRed, "✗ "
	case "none":
		return ansiYellow, "⚠ "
	}
	return ansiGreen, "✓ "
}

// runVerdict writes the verdict of run m, its score and pass rate, and the
// stream's source when the answers were read from one.
func (t *term) runVerdict(m *runModel) {
	verdictStyle, mark := statusMark(m.Status)
	for i, l := range wrap(m.Verdict, t.width-2) {
		if i == 0 {
			t.line(t.paint(ansiBold+verdictStyle, mark+l))
		} else {
			t.line("  ", t.paint(ansiBold+verdictStyle, l))
		}
	}
	if m.Measured {
		t.line("  score ", t.paint(ansiBold+verdictStyle, m.Score), " · pass rate ", t.paint(verdictStyle, m.PassRate),
			" ("+quote.Thousands(m.Passed)+"/"+quote.Thousands(m.Total)+" results passed)")
	} else {
		t.line("  score n/a · pass rate n/a: nothing was measured")
	}
	if m.Stream != nil {
		t.para("  ", "", m.Stream.Lines+" ("+m.Stream.Source+").")
		if m.Stream.Unknown != "" {
			t.line(t.paint(ansiYellow, "  ⚠ ") + termtext.Safe(cut(m.Stream.Unknown, 400)))
		}
	}
}

// runResults writes the failures, the errors, the categories and, with
// --verbose, the passing pairs of run m.
func (t *term) runResults(m *runModel, opts Options) {
	if len(m.Failed) > 0 {
		t.heading(ansiRed, fmt.Sprintf("Failures (%d)", len(m.Failed)))
		t.resultTable(m.Failed, true)
	}
	if len(m.Errors) > 0 {
		t.heading(ansiYellow, fmt.Sprintf("Errors (%d): calls that failed, not probe failures", len(m.Errors)))
		t.errorTable(m.Errors)
	}
	if len(m.Categories) > 0 {
		t.heading("", "By category")
		rows := make([]trow, len(m.Categories))
		for i, c := range m.Categories {
			style := ansiGreen
			if c.Passed < c.Total {
				style = ansiRed
			}
			rows[i] = trow{cells: []cell{{text: c.Category}, {text: fmt.Sprintf("%d/%d", c.Passed, c.Total)}, {text: c.Rate, style: style}, {text: c.Score}}}
		}
		t.table([]column{{head: "CATEGORY"}, {head: "PASSED", right: true}, {head: "RATE", right: true}, {head: "SCORE", right: true}}, rows)
	}
	if len(m.Passing) > 0 {
		if opts.Verbose {
			t.heading(ansiGreen, fmt.Sprintf("Passing (%d)", len(m.Passing)))
			t.resultTable(m.Passing, false)
		} else {
			t.line()
			t.line(t.paint(ansiDim, plural(len(m.Passing), "passing pair", "passing pairs")+" not listed (--verbose lists them)"))
		}
	}
}

// runFields writes the Run section: provider, sampling, timing, cost and
// ids of run m.
func (t *term) runFields(m *runModel) {
	t.heading("", "Run")
	t.field("provider", m.Model)
	t.field("sampling", m.Sampling)
	if m.Stream != nil {
		t.field("source", m.Stream.Source)
		t.field("answers", m.Stream.Lines)
	} else {
		t.field("samples", strconv.Itoa(m.Samples)+" per prompt")
	}
	t.field("started", m.Started)
	t.field("duration", m.Duration)
	t.field("tokens used", m.Tokens)
	if m.Cost != "" {
		t.field("cost", m.Cost)
	}
	for _, a := range m.Adjustments {
		t.field("adjusted", a)
	}
	for _, w := range m.Warnings {
		t.field("note", w)
	}
	t.field("run id", m.RunID)
	if m.Stream != nil {
		t.line()
		t.para("", "", m.Stream.Note)
	}
}

// resultTable lists (probe, prompt) pairs with their pass counts. Failing
// pairs get their distinct failure details, with counts, and an example
// response on lines of their own; passing pairs keep their details in a
// column.
func (t *term) resultTable(rows []resultGroup, failures bool) {
	cols := []column{{head: "PROBE", max: 40, min: 14}, {head: "CATEGORY", max: 10, min: 6}, {head: "PROMPT", max: 24, min: 10}, {head: "PASSED", right: true}, {head: "SCORE", right: true}}
	if !failures {
		cols = append(cols, column{head: "DETAILS", min: 16})
	}
	out := make([]trow, len(rows))
	for i, r := range rows {
		style := ansiGreen
		if !r.Passed {
			style = ansiRed
		}
		out[i].cells = []cell{{text: r.Probe}, {text: r.Category}, {text: r.PromptID}, {text: r.Count(), style: style}, {text: r.Score, style: style}}
		if !failures {
			out[i].cells = append(out[i].cells, cell{text: r.Details})
			continue
		}
		for j, d := range r.Failures {
			if j == failureLines {
				out[i].whole = append(out[i].whole, [2]string{"", fmt.Sprintf("and %s", plural(len(r.Failures)-j, "other failure", "other failures"))})
				break
			}
			label := ""
			if j == 0 {
				label = "failed"
			}
			out[i].whole = append(out[i].whole, [2]string{label, orDash(d.Label())})
		}
		if strings.TrimSpace(r.Example) != "" {
			out[i].extra = append(out[i].extra, [2]string{"response", r.Example})
		}
	}
	t.table(cols, out)
}

// failureLines is how many distinct failure details of a pair the
// terminal lists.
const failureLines = 3

func (t *term) errorTable(rows []errorRow) {
	out := make([]trow, len(rows))
	for i, e := range rows {
		out[i] = trow{cells: []cell{{text: e.PromptID}, {text: strconv.Itoa(e.Sample)}, {text: orDash(e.Provider)}, {text: e.Attempts}, {text: e.Message, style: ansiYellow}}}
	}
	t.table([]column{{head: "PROMPT", max: 24, min: 10}, {head: "SAMPLE", right: true}, {head: "PROVIDER", max: 24, min: 8}, {head: "ATTEMPTS", right: true}, {head: "MESSAGE", min: 16}}, out)
}

// statusStyle is the colour of a status's heading and marks.
func statusStyle(s promptcanary.Status) string {
	switch s {
	case promptcanary.StatusRegression:
		return ansiRed
	case promptcanary.StatusImprovement, promptcanary.StatusStable:
		return ansiGreen
	case promptcanary.StatusAdded, promptcanary.StatusRemoved:
		return ansiCyan
	}
	return ansiYellow
}

// severityStyle is the colour of a severity badge.
func severityStyle(s string) string {
	switch s {
	case "none":
		return ansiGreen
	case "low", "medium":
		return ansiYellow
	}
	return ansiRed
}

// flow writes safe items separated by sep, breaking lines between items so
// that no line is wider than the terminal; each line starts with indent.
func (t *term) flow(indent, sep string, items []string) {
	var sb strings.Builder
	w := 0
	limit := t.width - termtext.Width(indent)
	for _, it := range items {
		iw := termtext.Width(it)
		if w > 0 && w+termtext.Width(sep)+iw > limit {
			t.line(indent, strings.TrimRight(sb.String()+sep, " "))
			sb.Reset()
			w = 0
		}
		if w > 0 {
			sb.WriteString(sep)
			w += termtext.Width(sep)
		}
		sb.WriteString(it)
		w += iw
	}
	if w > 0 {
		t.line(indent, sb.String())
	}
}

// wrapWhole breaks s into lines of at most w columns at spaces, breaking
// a word longer than w across lines instead of cutting it; like wrap.
func wrapWhole(s string, w int) []string { return wrap(s, w) }

// wrap breaks s into lines of at most w (at least 20) columns at spaces. A
// word longer than a line is broken across lines, never cut: what wraps
// is a verdict, a message or advice.
func wrap(s string, w int) []string { return breakLines(s, max(w, 20)) }

// breakLines breaks s into lines of at most w columns at spaces, and a
// word wider than w into pieces of w columns.
func breakLines(s string, w int) []string {
	w = max(w, 1)
	var lines []string
	var cur strings.Builder
	curW := 0
	for _, word := range strings.Fields(s) {
		for {
			ww := termtext.Width(word)
			if curW > 0 && curW+1+ww > w {
				lines = append(lines, cur.String())
				cur.Reset()
				curW = 0
			}
			if ww <= w {
				break
			}
			head := breakWord(word, w)
			lines = append(lines, head)
			word = word[len(head):]
		}
		if curW > 0 {
			cur.WriteByte(' ')
			curW++
		}
		cur.WriteString(word)
		curW += termtext.Width(word)
	}
	if curW > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// breakWord returns the piece of a word wider than w that goes on a line
// of its own: up to the last "-", "/", "_", "." or ":" that fits in w
// columns (claude-3-5- | haiku), else as much as fits, at least one
// character.
func breakWord(s string, w int) string {
	n, fit, soft := 0, 0, 0
	for i, r := range s {
		if n += termtext.RuneWidth(r); n > w && i > 0 {
			break
		}
		fit = i + utf8.RuneLen(r)
		if strings.ContainsRune("-/_.:", r) && fit < len(s) {
			soft = fit
		}
	}
	if soft > 0 {
		return s[:soft]
	}
	return s[:fit]
}
