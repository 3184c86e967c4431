package report

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/promptcanary/promptcanary/internal/termtext"
)

// Layout of provider columns in terminal output.
const (
	sideMaxColumns = 6  // provider columns per table; more wrap into another table
	sideNameMax    = 24 // widest a provider column may be; longer names end in "…"
	sideCellMin    = 12 // narrowest a provider column shrinks to
	sideCellKeep   = 16 // widest cell content a provider column keeps when shrinking
)

// sideClassStyle is the terminal colour of a cell class.
func sideClassStyle(class string) string {
	switch class {
	case "pass":
		return ansiGreen
	case "fail":
		return ansiRed
	case "warn":
		return ansiYellow
	}
	return ""
}

func renderSideTerminal(b *bytes.Buffer, m *sideModel, opts Options) {
	t := &term{b: b, color: opts.Color, width: opts.width()}
	const title = "PromptCanary side-by-side report"
	t.line(t.paint(ansiBold, title), " · ", t.paint(ansiBold, termtext.Truncate(termtext.Safe(m.Suite), t.width-termtext.Width(title)-3)))
	t.line()
	t.field("providers", strconv.Itoa(m.Providers))
	t.field("samples", m.Samples)
	t.field("started", m.Started)
	t.field("pairs", fmt.Sprintf("%d: %d disagreements, %d differences, %d failing everywhere, %d identical", m.Pairs, len(m.Disagree), len(m.Differ), len(m.FailAll), len(m.Identical)))
	if len(m.Notes) > 0 {
		t.line()
		for _, n := range m.Notes {
			for i, l := range wrap(termtext.Safe(n), t.width-4) {
				lead := "⚠ "
				if i > 0 {
					lead = "  "
				}
				t.line(t.paint(ansiYellow, lead+l))
			}
		}
	}

	t.heading("", "Summary")
	t.labelledTable(m.Columns, column{head: "", max: 26, min: 12}, len(m.Summary), func(i int) (string, []sideCell) {
		return m.Summary[i].Label, m.Summary[i].Cells
	})

	t.sideGroups(m, opts.Verbose)

	if len(m.Categories) > 0 {
		t.heading("", "By category")
		t.labelledTable(m.Columns, column{head: "CATEGORY", max: 16, min: 8}, len(m.Categories), func(i int) (string, []sideCell) {
			return m.Categories[i].Category, m.Categories[i].Cells
		})
	}

	t.sideAnswers(m, opts.Verbose)

	for _, e := range m.Errors {
		suffix := fmt.Sprintf(" (%d)", len(e.Rows))
		const prefix = "Errors: "
		t.heading(ansiYellow, prefix+termtext.Truncate(termtext.Safe(e.Provider), t.width-termtext.Width(prefix+suffix))+suffix)
		t.sideExplain("Calls that failed for good, not probe failures.")
		t.sideErrorTable(e.Rows)
	}

	t.sideFooter(m)
}

// sideGroups writes the pairs on which providers disagree, differ and all
// fail, and, when verbose, those passing identically.
func (t *term) sideGroups(m *sideModel, verbose bool) {
	if len(m.Disagree) > 0 {
		t.heading(ansiYellow, fmt.Sprintf("Disagreements (%d)", len(m.Disagree)))
		t.sideExplain("Some providers pass these pairs and others fail them.")
		t.sideMatrix(m.Columns, m.Disagree, ansiYellow)
	} else if len(m.Columns) > 1 {
		t.line()
		t.line(t.paint(ansiGreen, "No disagreements: the providers give the same verdict on every pair."))
	}
	if len(m.Differ) > 0 {
		t.heading(ansiCyan, fmt.Sprintf("Differences (%d)", len(m.Differ)))
		t.sideExplain("Same verdict from every provider that answered, with different scores or pass counts, or a provider without a result.")
		t.sideMatrix(m.Columns, m.Differ, "")
	}
	if len(m.FailAll) > 0 {
		t.heading(ansiRed, fmt.Sprintf("Failing everywhere (%d)", len(m.FailAll)))
		t.sideExplain(m.FailAllExplain)
		t.sideMatrix(m.Columns, m.FailAll, "")
	}
	if n := len(m.Identical); n > 0 {
		if verbose {
			t.heading(ansiGreen, fmt.Sprintf("Identical (%d)", n))
			t.sideExplain(m.IdenticalExplain)
			t.sideMatrix(m.Columns, m.Identical, "")
		} else {
			t.line()
			for _, l := range wrap(plural(n, "pair", "pairs")+" passing identically everywhere not listed (--verbose lists them)", t.width) {
				t.line(t.paint(ansiDim, l))
			}
		}
	}
}

// sideFooter writes the closing line of counts of side-by-side report m.
func (t *term) sideFooter(m *sideModel) {
	t.line()
	disagreeStyle := ansiGreen
	if len(m.Disagree) > 0 {
		disagreeStyle = ansiYellow
	}
	ps := []part{
		{"", plural(m.Providers, "provider", "providers"), ansiBold},
		{" · ", plural(len(m.Disagree), "disagreement", "disagreements"), disagreeStyle},
		{", ", plural(len(m.Differ), "difference", "differences"), ""},
	}
	if len(m.FailAll) > 0 {
		ps = append(ps, part{", ", strconv.Itoa(len(m.FailAll)) + " failing everywhere", ansiRed})
	}
	ps = append(ps, part{", ", strconv.Itoa(len(m.Identical)) + " identical", ""})
	if m.ErrorCount > 0 {
		ps = append(ps, part{" · ", plural(m.ErrorCount, "call error", "call errors"), ansiYellow})
	}
	t.parts(ps)
}

// sideExplain writes a dim explanation under a heading, wrapped to the width.
func (t *term) sideExplain(s string) {
	for _, l := range wrap(s, t.width-2) {
		t.line("  ", t.paint(ansiDim, l))
	}
}

// labelledTable writes n rows of one label and a cell per provider
// column; row returns the label and cells of row i.
func (t *term) labelledTable(cols []sideColumn, head column, n int, row func(i int) (string, []sideCell)) {
	rows := make([]sideTableRow, n)
	for i := range rows {
		label, cells := row(i)
		rows[i] = sideTableRow{labels: []cell{{text: label}}, cells: cells}
	}
	t.sideTables(cols, []column{head}, rows)
}

// sideTableRow is a row of a table with provider columns: label cells, one
// cell per provider and optional lines under the row, each for a provider.
type sideTableRow struct {
	labels []cell
	cells  []sideCell
	extra  []sideExtra
}

// sideExtra is a line under a row that belongs to one provider's column.
type sideExtra struct {
	col   int
	label string // trusted
	text  string // untrusted
}

// sideMatrix writes matrix rows, naming probes by their instance id to save
// room; style colours the probe of every row.
func (t *term) sideMatrix(cols []sideColumn, rows []sideRow, style string) {
	out := make([]sideTableRow, len(rows))
	for i, r := range rows {
		out[i] = sideTableRow{labels: []cell{{text: r.probeID, style: style}, {text: r.PromptID}}, cells: r.Cells}
		for _, d := range r.Details {
			out[i].extra = append(out[i].extra, sideExtra{col: d.col, label: "failed", text: d.Provider + ": " + d.Text})
		}
	}
	t.sideTables(cols, []column{{head: "PROBE", max: 32, min: 12}, {head: "PROMPT", max: 20, min: 8}}, out)
}

// sideTables writes rows as one or more tables: the label columns, then as
// many provider columns as fit the width, at most sideMaxColumns; the other
// providers wrap into further tables of about the same size.
func (t *term) sideTables(cols []sideColumn, labels []column, rows []sideTableRow) {
	// A provider column keeps its widest cell, up to sideCellKeep, before
	// the name gives way; every column gets the same room for the count.
	keep := sideCellMin
	for _, r := range rows {
		for _, c := range r.cells {
			keep = max(keep, min(termtext.Width(termtext.Safe(c.Text)), sideCellKeep))
		}
	}
	fixed := termtext.Width(tableIndent)
	for _, l := range labels {
		fixed += l.min + 2
	}
	perTable := min(max((t.width-fixed+2)/(keep+2), 1), sideMaxColumns)
	tables := (len(cols) + perTable - 1) / perTable
	perTable = (len(cols) + tables - 1) / tables

	for lo := 0; lo < len(cols); lo += perTable {
		hi := min(lo+perTable, len(cols))
		if tables > 1 {
			if lo > 0 {
				t.line()
			}
			caption := fmt.Sprintf("providers %d–%d of %d", lo+1, hi, len(cols))
			if hi == lo+1 {
				caption = fmt.Sprintf("provider %d of %d", hi, len(cols))
			}
			t.line(tableIndent, t.paint(ansiDim, caption))
		}
		tc := append([]column(nil), labels...)
		for _, c := range cols[lo:hi] {
			tc = append(tc, column{head: termtext.Safe(c.Name), right: true, max: max(keep, sideNameMax), min: keep})
		}
		out := make([]trow, len(rows))
		for i, r := range rows {
			out[i].cells = append(append(make([]cell, 0, len(tc)), r.labels...), make([]cell, hi-lo)...)
			for j, c := range r.cells[lo:hi] {
				out[i].cells[len(labels)+j] = cell{text: c.Text, style: sideClassStyle(c.Class)}
			}
			for _, x := range r.extra {
				if x.col >= lo && x.col < hi {
					out[i].whole = append(out[i].whole, [2]string{x.label, x.text})
				}
			}
		}
		t.table(tc, out)
	}
}

// sideErrorTable lists one provider's call errors, each message on a line
// of its own so that the table fits a narrow terminal.
func (t *term) sideErrorTable(rows []errorRow) {
	out := make([]trow, len(rows))
	for i, e := range rows {
		out[i] = trow{cells: []cell{{text: e.PromptID}, {text: strconv.Itoa(e.Sample)}, {text: e.Attempts}},
			whole: [][2]string{{"message", e.Message}}}
	}
	t.table([]column{{head: "PROMPT", max: 40, min: 10}, {head: "SAMPLE", right: true}, {head: "ATTEMPTS", right: true}}, out)
}

// sideAnswerLines bounds the lines of one answer in a terminal.
const sideAnswerLines = 4

// sideAnswers writes each provider's answer to the prompts with a
// disagreement, or to every prompt with verbose.
func (t *term) sideAnswers(m *sideModel, verbose bool) {
	var shown []sideAnswers
	for _, a := range m.Answers {
		if a.Disagree || verbose {
			shown = append(shown, a)
		}
	}
	if len(shown) == 0 {
		if len(m.Answers) > 0 {
			t.line()
			t.line(t.paint(ansiDim, "answers not listed (--verbose lists every provider's answer per prompt)"))
		}
		return
	}
	t.heading("", fmt.Sprintf("Answers (%d prompts)", len(shown)))
	t.sideExplain("The first sample's answer of each provider.")
	for _, a := range shown {
		t.line("  ", t.paint(ansiBold, termtext.Truncate(termtext.Safe(a.PromptID), t.width-4)))
		for i, text := range a.Texts {
			name := termtext.Truncate(termtext.Safe(m.Columns[i].Name), 24)
			prefix := "    " + t.paint(ansiDim, name+":") + " "
			lines := wrapWhole(termtext.Safe(orDash(text)), t.width-6)
			if !verbose && len(lines) > sideAnswerLines {
				lines = append(lines[:sideAnswerLines:sideAnswerLines], "…")
			}
			t.line(prefix)
			for _, l := range lines {
				t.line("      ", l)
			}
		}
	}
}
