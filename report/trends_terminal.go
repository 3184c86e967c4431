package report

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store"
)

// Layout of the terminal trend charts: every chart row is an indent, a
// label, a gap, one column per run, a gap and the latest value.
const (
	trendIndent     = "  "
	trendGap        = "  "
	trendValueWidth = 8  // columns kept for the latest value ("critical", "100.0%")
	trendLabelMax   = 32 // widest a probe id label gets
	trendMinColumns = 10 // runs shown however long the labels are
	trendProbeRows  = 30 // heatmap rows listed without Verbose
	trendNoCompare  = "─"
	legendSep       = "   "
)

// heatLevel is one shade of the terminal heatmap.
type heatLevel struct {
	min   float64
	glyph string
	style string
}

// heatLevels are the heatmap shades, best first: a full block is a probe
// that (nearly) always passes, the lightest shade one that mostly fails.
var heatLevels = []heatLevel{
	{0.9, "█", ansiGreen},
	{0.7, "▓", ansiYellow},
	{0.4, "▒", ansiRed},
	{math.Inf(-1), "░", ansiRed},
}

// heatCell returns the glyph and colour of a mean score.
func heatCell(c probeCell) (glyph, style string) {
	switch {
	case !c.Has:
		return " ", ""
	case math.IsNaN(c.Mean):
		return "?", ansiYellow
	}
	for _, l := range heatLevels {
		if c.Mean >= l.min {
			return l.glyph, l.style
		}
	}
	return heatLevels[len(heatLevels)-1].glyph, ansiRed
}

// markStyle colours a compare on the drift row: as its severity, dim
// for a compare of an unmeasured run.
func markStyle(s string) string {
	if s == store.VerdictUnmeasured {
		return ansiDim
	}
	return severityStyle(s)
}

// scoreStyle colours a score or pass rate like its heatmap shade.
func scoreStyle(v float64) string {
	_, style := heatCell(probeCell{Mean: v, Has: true})
	return style
}

func renderTrendsTerminal(b *bytes.Buffer, d *TrendData, opts Options) {
	t := &term{b: b, color: opts.Color, width: opts.width()}
	t.line(t.paint(ansiBold, "PromptCanary trends"), " · ", t.paint(ansiBold, termtext.Truncate(termtext.Safe(orDash(d.Suite)), t.width-22)))
	t.line()
	t.field("provider", orDash(d.Model))
	if len(d.Runs) == 0 {
		t.field("runs", "none")
		t.line()
		t.line("No runs stored for this suite and model yet: trends appear after the first run.")
		return
	}

	labelW := termtext.Width("pass rate")
	for i := range d.Scores {
		labelW = max(labelW, termtext.Width(termtext.Safe(d.Scores[i].ProbeID)))
	}
	fixed := termtext.Width(trendIndent) + 2*termtext.Width(trendGap) + trendValueWidth
	labelW = min(labelW, trendLabelMax, t.width-fixed-trendMinColumns)
	c := &trendChart{t: t, labelW: labelW, m: newTrendModel(d, t.width-fixed-labelW)}
	c.header(d)
	c.history(d)
	c.probes(opts)
}

// trendChart draws the charts of the terminal trends: a label column of
// labelW, then one cell per run of m.
type trendChart struct {
	t      *term
	labelW int
	m      *trendModel
}

// row draws one chart row: the label, the cells and the latest value.
func (c *trendChart) row(label, cells, value, style string) {
	t := c.t
	row := trendIndent + termtext.PadRight(termtext.Truncate(termtext.Safe(label), c.labelW), c.labelW) + trendGap + cells
	if value != "" {
		row += trendGap + t.paint(style, termtext.Truncate(termtext.Safe(value), trendValueWidth))
	}
	t.line(strings.TrimRight(row, " "))
}

// axis draws the time axis under the chart rows.
func (c *trendChart) axis() {
	t := c.t
	t.line(trendIndent, strings.Repeat(" ", c.labelW), trendGap, trendAxis(c.m.Runs, t.width-termtext.Width(trendIndent+trendGap)-c.labelW))
}

// header writes the fields about the runs: their span, the latest run and
// the baseline.
func (c *trendChart) header(d *TrendData) {
	t, m := c.t, c.m
	last := &m.Runs[len(m.Runs)-1]
	runs := fmt.Sprintf("%d · %s → %s", len(d.Runs), timestamp(d.Runs[0].StartedAt), timestamp(last.StartedAt))
	if len(d.Runs) == 1 {
		runs = "1 · " + timestamp(last.StartedAt)
	}
	t.field("runs", runs)
	latest := fmt.Sprintf("%s · score %s · pass rate %s", runLabel(last), score(last.Score), percent(last.PassRate))
	if last.Measured() && last.Verdict != "" {
		latest += " · drift " + strings.ToLower(last.Verdict)
	}
	t.field("latest run", latest)
	if why := unmeasuredWhy(last); why != "" {
		t.field("unmeasured", why)
	}
	for i := len(d.Runs) - 1; i >= 0; i-- {
		if r := &d.Runs[i]; r.IsBaseline {
			t.field("baseline", orDash(r.RunID)+" · "+timestamp(r.StartedAt))
			break
		}
	}
}

// history draws the score history: score, pass rate and drift per run,
// with their notes and legends.
func (c *trendChart) history(d *TrendData) {
	t, m := c.t, c.m
	n := len(m.Runs)
	last := &m.Runs[n-1]
	title := plural(n, "run", "runs")
	if m.Skipped > 0 {
		title = fmt.Sprintf("last %d of %d runs", n, len(d.Runs))
	}
	if n > 1 && termtext.Width("Score history · "+title+", oldest left") <= t.width {
		title += ", oldest left"
	}
	t.heading("", termtext.Truncate("Score history · "+title, t.width))
	scores, rates := m.scores(), m.passRates()
	c.row("score", sparkline(scores), score(last.Score), scoreStyle(last.Score))
	c.row("pass rate", sparkline(rates), percent(last.PassRate), scoreStyle(last.PassRate))
	if m.Total > 0 {
		cells := cellWriter{t: t}
		for _, mk := range m.columnMarks() {
			if mk == nil {
				cells.add(trendNoCompare, ansiDim)
				continue
			}
			cells.add(severityLetter(mk.Severity), markStyle(mk.Severity))
		}
		value, style := "", ""
		if len(m.Marks) > 0 {
			value = m.Marks[len(m.Marks)-1].Severity
			style = markStyle(value)
			if value == store.VerdictUnmeasured {
				value = "n/a" // the compare compared nothing
			}
		}
		c.row("drift", cells.String(), value, style)
	}
	c.axis()
	lo, hi, _ := spread(scores)
	plo, phi, _ := spread(rates)
	notes := []string{
		fmt.Sprintf("score min %s, max %s, last %s", score(lo), score(hi), score(last.Score)),
		fmt.Sprintf("pass rate min %s, max %s, last %s", percent(plo), percent(phi), percent(last.PassRate)),
	}
	switch {
	case m.Total == 0:
		notes = append(notes, "no drift reports yet")
	case len(m.Marks) == 0:
		notes = append(notes, "no compares in these runs")
	default:
		notes = append(notes, fmt.Sprintf("%s (%s)", plural(len(m.Marks), "compare", "compares"), termtext.Safe(m.severityCounts())))
	}
	if m.Earlier > 0 {
		notes = append(notes, plural(m.Earlier, "earlier compare", "earlier compares")+" not shown")
	}
	t.legend(notes, "")
	t.legend([]string{"sparklines: ▁ 0 … █ 1", "? n/a: a run unmeasured (every call failed) or a score not a number"}, ansiDim)
	if m.Total > 0 {
		t.legend([]string{"drift: · none", "L low", "M medium", "H high", "C critical", unmeasuredLetter + " unmeasured", trendNoCompare + " no compare"}, ansiDim)
	}
}

// probes draws the probes × runs heat map, worst latest mean first, with
// its legend, and the runs in verbose mode.
func (c *trendChart) probes(opts Options) {
	t, m := c.t, c.m
	if len(m.Probes) == 0 {
		t.line()
		t.line(t.paint(ansiDim, "No probe scores stored for these runs."))
		if opts.Verbose {
			t.trendRuns(m.Runs)
		}
		return
	}
	title := "Probes × runs · " + plural(len(m.Probes), "probe", "probes")
	if termtext.Width(title+", worst latest mean first") <= t.width {
		title += ", worst latest mean first"
	}
	t.heading("", termtext.Truncate(title, t.width))
	rows := m.Probes
	if !opts.Verbose && len(rows) > trendProbeRows {
		rows = rows[:trendProbeRows]
	}
	for _, p := range rows {
		cells := cellWriter{t: t}
		for _, c := range p.Cells {
			cells.add(heatCell(c))
		}
		c.row(p.ID, cells.String(), score(p.Latest.Mean), scoreStyle(p.Latest.Mean))
	}
	c.axis()
	if hidden := len(m.Probes) - len(rows); hidden > 0 {
		t.line(t.paint(ansiDim, plural(hidden, "better probe", "better probes")+" not listed (--verbose lists them)"))
	}
	var legend []string
	for i, l := range heatLevels {
		label := "≥ " + score(l.min)
		if i == len(heatLevels)-1 {
			label = "< " + score(heatLevels[i-1].min)
		}
		legend = append(legend, t.paint(l.style, l.glyph)+" "+label)
	}
	legend = append(legend, "? not a number", "blank: not scored in that run", "right: latest mean")
	t.legend(legend, "")
	if opts.Verbose {
		t.trendRuns(m.Runs)
	}
}

// trendAxis labels the run columns in at most avail columns: the first
// run's date under the first column and the last run's date ending under
// the last one, or "first → last" when the columns are too few for both;
// dates lose their year when the line would not fit.
func trendAxis(runs []store.RunSummary, avail int) string {
	label := dateLabels(runs)
	n := len(runs)
	var s string
	for _, short := range []bool{false, true} {
		f, l := label(0), label(n-1)
		if short {
			f, l = shortDate(runs[0]), shortDate(runs[n-1])
		}
		switch {
		case n == 1:
			s = "└ " + l
		case termtext.Width(f)+termtext.Width(l)+5 <= n:
			s = "└ " + f + strings.Repeat(" ", n-termtext.Width(f)-termtext.Width(l)-4) + l + " ┘"
		default:
			s = "└ " + f + " → " + l
		}
		if termtext.Width(s) <= avail {
			break
		}
	}
	return termtext.Truncate(s, avail)
}

// shortDate is a run's start as month-day, for narrow axes.
func shortDate(r store.RunSummary) string {
	if r.StartedAt.IsZero() {
		return "—"
	}
	return r.StartedAt.UTC().Format("01-02")
}

// legend writes items three spaces apart (a dot would read as a drift
// mark), indented and wrapped to the width. Items are trusted and may carry
// their own colours; style colours the items that do not.
func (t *term) legend(items []string, style string) {
	var sb strings.Builder
	w := 0
	limit := t.width - termtext.Width(trendIndent)
	flush := func() {
		if w > 0 {
			t.line(trendIndent, sb.String())
		}
		sb.Reset()
		w = 0
	}
	for _, it := range items {
		iw := termtext.Width(stripANSI(it))
		if w > 0 && w+len(legendSep)+iw > limit {
			flush()
		}
		if w > 0 {
			sb.WriteString(legendSep)
			w += len(legendSep)
		}
		if iw > limit {
			// Too long for a line of its own: wrapped at spaces.
			flush()
			for _, l := range wrap(stripANSI(it), limit) {
				t.line(trendIndent, t.paint(style, l))
			}
			continue
		}
		sb.WriteString(t.paint(style, it))
		w += iw
	}
	flush()
}

// cellWriter joins chart cells, painting each run of cells of one style
// with one colour sequence.
type cellWriter struct {
	t     *term
	out   strings.Builder
	run   strings.Builder
	style string
}

func (c *cellWriter) add(glyph, style string) {
	if style != c.style {
		c.flush()
		c.style = style
	}
	c.run.WriteString(glyph)
}

func (c *cellWriter) flush() {
	c.out.WriteString(c.t.paint(c.style, c.run.String()))
	c.run.Reset()
}

// String returns the cells written so far.
func (c *cellWriter) String() string {
	c.flush()
	return c.out.String()
}

// stripANSI removes the colour sequences this package writes.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexByte(s, 'm')
		if j < 0 {
			return b.String()
		}
		s = s[j+1:]
	}
}
