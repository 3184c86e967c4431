package report

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/promptcanary/promptcanary"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary/internal/termtext"
)

// Selftest writes the result of a suite self-test in format f to w: the
// matrix of drifts × probes (caught, missed, not applicable), the drifts the
// suite misses with a suggested probe for each and, when sample counts were
// given, the smallest drop each probe's pass rate must show to be detected.
// Nothing is written when rendering fails. A self-test has no JUnit form.
func Selftest(w io.Writer, f Format, r *promptcanary.SelftestResult, opts Options) error {
	if r == nil {
		return errors.New("render self-test: nil result")
	}
	return (&renderer{
		name:     "self-test",
		terminal: func(b *bytes.Buffer) { renderSelftestTerminal(b, newSelftestModel(r), opts) },
		markdown: func(b *bytes.Buffer) { renderSelftestMarkdown(b, newSelftestModel(r)) },
		html:     func(b *bytes.Buffer) error { return renderHTML(b, "selftest.html.tmpl", newSelftestModel(r)) },
		json:     func(b *bytes.Buffer) error { return writeJSON(b, r) },
		noJUnit:  "render self-test: no JUnit form: a self-test is not a test run (want terminal, markdown, html or json)",
	}).write(w, f)
}

// selftestModel is what every human-readable self-test format shows; its
// strings are untrusted (suite, probe and prompt ids, text derived from
// model answers) and are escaped by each renderer.
type selftestModel struct {
	Suite, Baseline, Model string
	Answers, Prompts       int
	Caught, Applicable     int
	Verdict                string
	// Status is "pass" when every applicable drift is caught, else "fail".
	Status  string
	Probes  []selftestProbe
	Rows    []selftestRow
	Missed  []selftestGap
	Partial []selftestGap
	// Sensitivity explains the detectable drops; empty without samples.
	Sensitivity string
	Notes       []string
}

// selftestProbe is one column of the matrix.
type selftestProbe struct {
	N                  int
	ID, Type, Category string
	Prompts            string
	PassRate           string
	Detectable         string
}

// selftestRow is one drift's row of the matrix.
type selftestRow struct {
	ID, Name, Description string
	Changed               int
	Prompts               string
	Cells                 []selftestCell
	CaughtBy              string
	Missed, Applicable    bool
}

// selftestCell is one cell of the matrix.
type selftestCell struct {
	Mark, Class, Title string
}

// selftestGap is a drift left unnoticed on some prompts, with the probe
// suggested to catch it there.
type selftestGap struct {
	Drift, Name string
	Prompts     string
	Suggestion  string
	YAML        string
	Why         string
}

// The marks of the matrix.
const (
	markCaught = "✓"
	markMissed = "✗"
	markNA     = "·"
)

func newSelftestModel(r *promptcanary.SelftestResult) *selftestModel {
	m := &selftestModel{Suite: r.Suite, Baseline: r.BaselineID, Model: r.Model, Answers: r.Answers, Prompts: r.Prompts, Notes: r.Notes}
	m.Caught, m.Applicable = r.Caught()
	m.Status = "pass"
	switch missed := m.Applicable - m.Caught; {
	case m.Applicable == 0:
		m.Verdict, m.Status = "No drift of the catalogue applies to the stored answers.", "none"
	case missed == 0:
		m.Verdict = fmt.Sprintf("All %d applicable drifts are caught by at least one probe.", m.Applicable)
	default:
		m.Status = "fail"
		m.Verdict = fmt.Sprintf("%d of %d applicable drifts are caught by at least one probe; %s.", m.Caught, m.Applicable, plural(missed, "drift is missed", "drifts are missed"))
	}
	for i, p := range r.Probes {
		sp := selftestProbe{N: i + 1, ID: p.ID, Type: p.Type, Category: string(p.Category), Prompts: strings.Join(p.Prompts, ", "),
			PassRate: fmt.Sprintf("%s (%d/%d)", percent(p.PassRate()), p.Passed, p.Judged)}
		if d := p.Detectable; d != nil {
			if d.Reason != "" {
				sp.Detectable = d.Reason
			} else {
				sp.Detectable = fmt.Sprintf("%.0f pts", math.Ceil(100*d.Drop-1e-9))
			}
		}
		m.Probes = append(m.Probes, sp)
	}
	if r.Samples != nil {
		m.Sensitivity = fmt.Sprintf("With %d baseline and %d current samples per prompt, the drift statistics (alpha %s, power 0.8) flag a probe on one prompt only when its pass rate drops by at least the drop shown: a drift that hits a smaller share of a prompt's answers goes unflagged even by a probe that catches it. The drops are those of a pair tested alone; in a suite with many testable pairs they are larger.",
			r.Samples.Baseline, r.Samples.Current, strconv.FormatFloat(r.Alpha, 'g', -1, 64))
	}
	for _, d := range r.Drifts {
		row := selftestRow{ID: d.ID, Name: d.Name, Description: d.Description, Changed: d.Changed, Prompts: strings.Join(d.Prompts, ", "),
			CaughtBy: strings.Join(d.CaughtBy, ", "), Missed: d.Missed(), Applicable: d.Applicable()}
		for _, c := range d.Cells {
			sc := selftestCell{Mark: markNA, Class: "na", Title: c.Probe + ": not applicable"}
			switch c.Outcome {
			case promptcanary.SelftestCaught:
				sc = selftestCell{Mark: markCaught, Class: "pass", Title: fmt.Sprintf("%s catches it on %s (%d of %d answers, score %s)", c.Probe, strings.Join(c.Prompts, ", "), c.Caught, c.Answers, delta(c.ScoreDelta))}
			case promptcanary.SelftestMissed:
				sc = selftestCell{Mark: markMissed, Class: "fail", Title: fmt.Sprintf("%s misses it (%d answers, score %s)", c.Probe, c.Answers, delta(c.ScoreDelta))}
			}
			row.Cells = append(row.Cells, sc)
		}
		m.Rows = append(m.Rows, row)
		for _, g := range d.Gaps {
			gap := selftestGap{Drift: d.ID, Name: d.Name, Prompts: strings.Join(g.Prompts, ", "), Suggestion: g.Suggestion.String(), YAML: g.Suggestion.YAML(), Why: g.Suggestion.Why}
			if d.Missed() {
				m.Missed = append(m.Missed, gap)
			} else {
				m.Partial = append(m.Partial, gap)
			}
		}
	}
	return m
}

func renderSelftestTerminal(b *bytes.Buffer, m *selftestModel, opts Options) {
	t := &term{b: b, color: opts.Color, width: opts.width()}
	t.line(t.paint(ansiBold, "PromptCanary self-test"), " · ", t.paint(ansiBold, termtext.Truncate(termtext.Safe(m.Suite), t.width-25)))
	t.line()
	style, mark := statusMark(m.Status)
	t.line(t.paint(ansiBold+style, mark+m.Verdict))
	t.field("baseline", fmt.Sprintf("%s (%s), %s to %s", m.Baseline, orDash(m.Model), plural(m.Answers, "answer", "answers"), plural(m.Prompts, "prompt", "prompts")))

	t.selftestProbes(m)

	t.selftestMatrix(m)

	if len(m.Missed) > 0 {
		t.heading(ansiRed, fmt.Sprintf("Missed: no probe catches %s", plural(countDrifts(m.Missed), "drift", "drifts")))
		t.gaps(m.Missed)
	}
	if len(m.Partial) > 0 {
		t.heading(ansiYellow, "Gaps: caught elsewhere, missed on these prompts")
		t.gaps(m.Partial)
	}
	if len(m.Notes) > 0 {
		t.heading("", "Notes")
		for _, n := range m.Notes {
			t.para("  ", "• ", n)
		}
	}
	if opts.Verbose {
		t.heading("", "Drifts")
		for _, r := range m.Rows {
			t.para("  ", termtext.Safe(r.ID)+": ", r.Description)
		}
	}
}

// selftestProbes writes the numbered probes of self-test m with their pass
// rates and, when measured, the drop each can detect.
func (t *term) selftestProbes(m *selftestModel) {
	t.heading("", "Probes")
	cols := []column{{head: "#", right: true}, {head: "PROBE", max: 32, min: 12}, {head: "TYPE", max: 22, min: 8}, {head: "PASSES", right: true}}
	if m.Sensitivity != "" {
		cols = append(cols, column{head: "DETECTABLE DROP", min: 12})
	}
	rows := make([]trow, len(m.Probes))
	for i, p := range m.Probes {
		rows[i] = trow{cells: []cell{{text: strconv.Itoa(p.N)}, {text: p.ID}, {text: p.Type}, {text: p.PassRate}}}
		if m.Sensitivity != "" {
			rows[i].cells = append(rows[i].cells, cell{text: p.Detectable})
		}
	}
	t.table(cols, rows)
	if m.Sensitivity != "" {
		t.para("  ", "", m.Sensitivity)
	}
}

// selftestMatrix writes the drifts × probes matrix of self-test m: one
// row per drift, a mark per probe and the probes that caught it.
func (t *term) selftestMatrix(m *selftestModel) {
	t.heading("", "Drifts × probes  ("+markCaught+" caught  "+markMissed+" missed  "+markNA+" not applicable)")
	w := len(strconv.Itoa(len(m.Probes)))
	nameW := len("DRIFT")
	for _, r := range m.Rows {
		nameW = max(nameW, termtext.Width(r.ID))
	}
	nameW = min(nameW, 24)
	var head strings.Builder
	head.WriteString("  " + termtext.PadRight("DRIFT", nameW) + " ")
	for _, p := range m.Probes {
		head.WriteString(" " + fmt.Sprintf("%*d", w, p.N))
	}
	head.WriteString("  CAUGHT BY")
	t.line(t.paint(ansiDim, head.String()))
	for _, r := range m.Rows {
		var l strings.Builder
		id := termtext.PadRight(termtext.Truncate(termtext.Safe(r.ID), nameW), nameW)
		switch {
		case r.Missed:
			id = t.paint(ansiRed, id)
		case !r.Applicable:
			id = t.paint(ansiDim, id)
		}
		l.WriteString("  " + id + " ")
		for _, c := range r.Cells {
			s := strings.Repeat(" ", w-1) + c.Mark
			switch c.Class {
			case "pass":
				s = t.paint(ansiGreen, s)
			case "fail":
				s = t.paint(ansiRed, s)
			default:
				s = t.paint(ansiDim, s)
			}
			l.WriteString(" " + s)
		}
		used := 2 + nameW + 1 + len(m.Probes)*(w+1) + 2
		caught := r.CaughtBy
		switch {
		case !r.Applicable:
			caught = "(not applicable)"
		case r.Missed:
			caught = "nothing"
		}
		// A long list of probes wraps under its column, never cut.
		l.WriteString("  ")
		indent := termtext.Width(stripANSI(l.String()))
		for i, part := range breakLines(termtext.Safe(caught), max(12, t.width-used)) {
			if i == 0 {
				t.line(l.String(), part)
			} else {
				t.line(strings.Repeat(" ", indent), part)
			}
		}
	}
}

// gaps lists drifts missed on some prompts with the suggested probes.
func (t *term) gaps(gs []selftestGap) {
	for _, g := range gs {
		t.para("  ", markMissed+" ", g.Drift+" ("+g.Name+") on "+g.Prompts)
		t.para("      ", "add ", g.Suggestion+": "+g.Why)
	}
}

// countDrifts counts the distinct drifts of gs.
func countDrifts(gs []selftestGap) int {
	n := 0
	for i, g := range gs {
		if i == 0 || gs[i-1].Drift != g.Drift {
			n++
		}
	}
	return n
}

func renderSelftestMarkdown(b *bytes.Buffer, m *selftestModel) {
	w := newMD(b)
	icon := map[string]string{"pass": "✅", "fail": "❌", "none": "⚠️"}[m.Status]
	w.line("## ", icon, " PromptCanary self-test: ", mdText(m.Suite, 200))
	w.line()
	w.line("**", mdText(m.Verdict, 300), "**")
	w.line()
	w.line("Baseline ", mdText(m.Baseline, 100), " (", mdText(orDash(m.Model), 100), "): ", plural(m.Answers, "answer", "answers"), " to ", plural(m.Prompts, "prompt", "prompts"), ". No API call was made: the drifts were applied to the stored answers.")
	w.cut()
	if len(m.Missed) > 0 {
		w.heading("### Missed: no probe catches these drifts")
		w.gapTable(m.Missed)
	}
	if len(m.Partial) > 0 {
		w.heading("### Gaps: caught elsewhere, missed on these prompts")
		w.gapTable(m.Partial)
	}
	w.heading("### Drifts × probes")
	w.line("✓ caught · ✗ missed · `·` not applicable; the numbers are the probes listed below.")
	w.line()
	w.selftestMatrix(m)
	w.heading("### Probes")
	w.selftestProbes(m)
	if m.Sensitivity != "" {
		w.line()
		w.line(mdText(m.Sensitivity, 1000))
		w.cut()
	}
	if len(m.Notes) > 0 {
		w.heading("### Notes")
		for _, n := range m.Notes {
			w.line("- ", mdText(n, mdDetailRunes))
			w.cut()
		}
	}
	w.details("What each drift models")
	for _, r := range m.Rows {
		w.line("- **", mdText(r.Name, 100), "** (", mdText(r.ID, 80), "): ", mdText(r.Description, mdDetailRunes))
		w.cut()
	}
	w.endDetails()
	w.finish()
}

// selftestMatrix writes the drifts × probes table of self-test m.
func (w *md) selftestMatrix(m *selftestModel) {
	head := []string{"Drift"}
	align := "l"
	for _, p := range m.Probes {
		head = append(head, strconv.Itoa(p.N))
		align += "c"
	}
	head = append(head, "Caught by")
	var rows [][]string
	for _, r := range m.Rows {
		name := mdText(r.ID, 80)
		if r.Missed {
			name = "**" + name + "**"
		}
		row := []string{name}
		for _, c := range r.Cells {
			row = append(row, c.Mark)
		}
		switch {
		case !r.Applicable:
			row = append(row, "not applicable")
		case r.Missed:
			row = append(row, "**nothing**")
		default:
			row = append(row, mdText(r.CaughtBy, mdDetailRunes))
		}
		rows = append(rows, row)
	}
	w.table(head, align, rows)
}

// selftestProbes writes the table of the numbered probes of self-test m.
func (w *md) selftestProbes(m *selftestModel) {
	ph := []string{"#", "Probe", "Type", "Prompts", "Passes"}
	if m.Sensitivity != "" {
		ph = append(ph, "Detectable drop")
	}
	var prows [][]string
	for _, p := range m.Probes {
		row := []string{strconv.Itoa(p.N), mdText(p.ID, 80), mdText(p.Type, 80), mdText(p.Prompts, mdDetailRunes), p.PassRate}
		if m.Sensitivity != "" {
			row = append(row, mdText(p.Detectable, 120))
		}
		prows = append(prows, row)
	}
	w.table(ph, "rlllrl", prows)
}

// gapTable writes drifts missed on some prompts with their suggestions.
func (w *md) gapTable(gs []selftestGap) {
	rows := make([][]string, len(gs))
	for i, g := range gs {
		rows[i] = []string{mdText(g.Name, 100) + " (" + mdText(g.Drift, 80) + ")", mdText(g.Prompts, mdDetailRunes),
			"add " + mdText(g.Suggestion, mdDetailRunes) + ": " + mdText(g.Why, mdDetailRunes)}
	}
	w.table([]string{"Drift", "Prompts", "Suggested probe"}, "lll", rows)
}
