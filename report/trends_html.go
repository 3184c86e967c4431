package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary/store"
)

// Geometry of the SVG charts, in SVG user units (pixels at 100%). Every
// chart shares the label column and the run columns, so a run is at the
// same x in the line chart, the heatmap and the drift timeline.
const (
	svgLeft     = 210 // label column
	svgRight    = 64  // latest values right of the plot
	svgPlot     = 720 // widest plot
	svgBandMax  = 56  // widest run column
	svgAxis     = 34  // date labels under a plot
	svgLineTop  = 12
	svgLineH    = 200
	svgRowH     = 20
	svgLabelMax = 30 // runes of a probe id shown as a row label
	svgTickGap  = 84 // narrowest space between two date labels
	svgLaneH    = 20 // one lane of drift markers
)

// trendPage is the data of the trends HTML template.
type trendPage struct {
	Suite, Model  string
	Empty         bool
	RunCount      int
	Span          string
	LatestScore   string
	LatestPass    string
	LatestRun     string
	LatestClass   string // "pass", "warn" or "fail"
	DriftCount    int
	DriftSeverity string // of the newest compare, "" when none
	Line          lineChart
	Heat          heatChart
	Timeline      timelineChart
	Scale         []swatch
	Drifts        []trendDriftRow
	Runs          []trendRunRow
	Footer        string
}

// svgFrame is the size of one SVG chart and its date axis.
type svgFrame struct {
	Width, Height     int
	PlotLeft, PlotEnd int // the run columns
	PlotBottom        int // where the date axis is drawn
	AxisY, AxisTitleY int // baselines of the date labels and the axis title
	Ticks             []svgTick
	AxisTitle         string
	ValueX            int    // left end of the latest values
	LabelX            int    // right end of row and grid labels
	Label             string // aria-label
}

// svgTick is one labelled position on an axis.
type svgTick struct {
	X, Y  string
	Label string
}

// lineChart is the score and pass-rate history.
type lineChart struct {
	svgFrame
	Grid       []svgTick // horizontal grid lines, Y set
	ScoreLines []string  // polyline points, one per run of finite scores
	PassLines  []string
	Dots       []svgDot
	// Unmeasured is set when a run of the chart measured nothing: it is
	// drawn as a hollow marker on the axis, not as a value.
	Unmeasured bool
	YTitleX    int
	YTitleY    int
}

// svgDot is one data point with its tooltip.
type svgDot struct {
	X, Y, R string
	Class   string
	Title   string
}

// heatChart is the probe × run grid.
type heatChart struct {
	svgFrame
	Rows []heatRow
}

// heatRow is one probe instance.
type heatRow struct {
	Y, TextY string
	Label    string // cut to svgLabelMax runes
	ID       string
	Cells    []heatRect
	Value    string
}

// heatRect is one coloured cell.
type heatRect struct {
	X, W, H string
	Fill    string
	Title   string
}

// timelineChart is the drift timeline.
type timelineChart struct {
	svgFrame
	LineY   string
	Markers []timelineMark
	// Unmeasured is set when a compare of a run without results is shown.
	Unmeasured bool
}

// timelineMark is one compare.
type timelineMark struct {
	X, Y, R, TextY string
	Class          string
	Letter         string // "" when the marker is too small for it
	Title          string
}

// swatch is one step of the colour scale legend.
type swatch struct {
	X     string
	Fill  string
	Label string
}

// trendDriftRow is one compare in the drift table.
type trendDriftRow struct {
	Generated, ReportID, RunID, Severity, Summary string
	Regressions                                   int
}

// trendRunRow is one run in the runs table.
type trendRunRow struct {
	Started, Run, Score, PassRate, Verdict string
	Results, Passed, Errors                int
}

func newTrendPage(d *TrendData) *trendPage {
	p := &trendPage{Suite: orDash(d.Suite), Model: orDash(d.Model), Empty: len(d.Runs) == 0, RunCount: len(d.Runs), DriftCount: len(d.Drifts),
		Footer: "trends of " + plural(len(d.Runs), "run", "runs")}
	if p.Empty {
		return p
	}
	m := newTrendModel(d, 0)
	last := &m.Runs[len(m.Runs)-1]
	p.Span = timestamp(m.Runs[0].StartedAt)
	if len(m.Runs) > 1 {
		p.Span += " → " + timestamp(last.StartedAt)
	}
	p.LatestScore, p.LatestPass, p.LatestRun = score(last.Score), percent(last.PassRate), runLabel(last)
	p.LatestClass = levelClass(last.Score)
	if !last.Measured() {
		p.LatestClass = "na"
	}

	band := min(float64(svgPlot)/float64(len(m.Runs)), svgBandMax)
	x := func(i int) float64 { return svgLeft + (float64(i)+0.5)*band }
	p.Line = newLineChart(m, band, x)
	p.Heat = newHeatChart(m, band)
	p.Timeline = newTimeline(m, band, x)
	for i := 0; i <= 10; i++ {
		v := float64(i) / 10
		s := swatch{X: coord(float64(i) * 30), Fill: heatColor(v)}
		if i%5 == 0 {
			s.Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
		p.Scale = append(p.Scale, s)
	}
	unmeasured := make(map[string]bool)
	for i := range d.Runs {
		if !d.Runs[i].Measured() {
			unmeasured[d.Runs[i].RunID] = true
		}
	}
	for i := len(d.Drifts) - 1; i >= 0; i-- {
		dr := &d.Drifts[i]
		sev := severity(dr.Severity)
		if unmeasured[dr.CurrentRunID] {
			sev = store.VerdictUnmeasured
		}
		if i == len(d.Drifts)-1 {
			p.DriftSeverity = sev
		}
		p.Drifts = append(p.Drifts, trendDriftRow{Generated: timestamp(dr.GeneratedAt), ReportID: orDash(dr.ReportID), RunID: orDash(dr.CurrentRunID),
			Severity: sev, Summary: cut(strings.TrimSpace(dr.Summary), detailRunes), Regressions: dr.Regressions})
	}
	for i := len(d.Runs) - 1; i >= 0; i-- {
		r := &d.Runs[i]
		p.Runs = append(p.Runs, trendRunRow{Started: timestamp(r.StartedAt), Run: runLabel(r), Score: score(r.Score), PassRate: percent(r.PassRate),
			Verdict: strings.ToLower(r.Verdict), Results: r.Results, Passed: r.Passed, Errors: r.Errors})
	}
	return p
}

// frame sizes a chart whose plot is plotH high.
func frame(runs []store.RunSummary, band float64, plotTop, plotH int, label string) svgFrame {
	plotEnd := svgLeft + int(math.Ceil(band*float64(len(runs))))
	f := svgFrame{
		Width:      plotEnd + svgRight,
		Height:     plotTop + plotH + svgAxis,
		PlotLeft:   svgLeft,
		PlotEnd:    plotEnd,
		PlotBottom: plotTop + plotH,
		AxisY:      plotTop + plotH + 16,
		AxisTitleY: plotTop + plotH + 30,
		ValueX:     plotEnd + 8,
		LabelX:     svgLeft - 8,
		Label:      label,
		AxisTitle:  "run start (UTC)",
	}
	if len(runs) > 1 {
		f.AxisTitle += ", oldest left"
	}
	// Date labels from the newest run back, at least svgTickGap apart.
	step := max(1, int(math.Ceil(svgTickGap/band)))
	date := dateLabels(runs)
	for i := len(runs) - 1; i >= 0; i -= step {
		f.Ticks = append(f.Ticks, svgTick{X: coord(svgLeft + (float64(i)+0.5)*band), Label: date(i)})
	}
	slices.Reverse(f.Ticks)
	return f
}

func newLineChart(m *trendModel, band float64, x func(int) float64) lineChart {
	c := lineChart{svgFrame: frame(m.Runs, band, svgLineTop, svgLineH, "Overall score and pass rate per run, oldest left")}
	c.YTitleX, c.YTitleY = -(svgLineTop + svgLineH/2), svgLeft-48
	y := func(v float64) float64 { return svgLineTop + (1-min(max(v, 0), 1))*svgLineH }
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		c.Grid = append(c.Grid, svgTick{Y: coord(y(v)), Label: score(v)})
	}
	r := coord(min(4, max(1.5, band/4)))
	c.ScoreLines = polylines(m.scores(), x, y)
	c.PassLines = polylines(m.passRates(), x, y)
	for i := range m.Runs {
		run := &m.Runs[i]
		title := fmt.Sprintf("%s · %s · score %s · pass rate %s · %d/%d results passed", runLabel(run), timestamp(run.StartedAt),
			score(run.Score), percent(run.PassRate), run.Passed, run.Results)
		if run.Errors > 0 {
			title += " · " + plural(run.Errors, "call error", "call errors")
		}
		if note := unmeasuredNote(run); note != "" {
			title += " · " + note
			c.Unmeasured = true
			c.Dots = append(c.Dots, svgDot{X: coord(x(i)), Y: coord(y(0)), R: r, Class: "dot-unmeasured", Title: title})
			continue
		}
		if run.Verdict != "" {
			title += " · drift " + strings.ToLower(run.Verdict)
		}
		if finite(run.PassRate) {
			c.Dots = append(c.Dots, svgDot{X: coord(x(i)), Y: coord(y(run.PassRate)), R: r, Class: "dot-pass", Title: title})
		}
		if finite(run.Score) {
			c.Dots = append(c.Dots, svgDot{X: coord(x(i)), Y: coord(y(run.Score)), R: r, Class: "dot-score", Title: title})
		}
	}
	return c
}

// polylines returns the points of the runs of finite values, one string
// per polyline.
func polylines(values []float64, x func(int) float64, y func(float64) float64) []string {
	var out []string
	var sb strings.Builder
	for i, v := range values {
		if !finite(v) {
			if sb.Len() > 0 {
				out = append(out, sb.String())
				sb.Reset()
			}
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(coord(x(i)))
		sb.WriteByte(',')
		sb.WriteString(coord(y(v)))
	}
	if sb.Len() > 0 {
		out = append(out, sb.String())
	}
	// A lone point draws nothing; its dot shows it.
	return slices.DeleteFunc(out, func(pts string) bool { return !strings.Contains(pts, " ") })
}

func newHeatChart(m *trendModel, band float64) heatChart {
	c := heatChart{svgFrame: frame(m.Runs, band, 0, svgRowH*len(m.Probes), "Mean score per probe instance and run, worst latest mean first")}
	gap := 0.0
	if band >= 4 {
		gap = 1
	}
	w, h := coord(band-gap), coord(svgRowH-2)
	for i, p := range m.Probes {
		row := heatRow{Y: coord(float64(i*svgRowH + 1)), TextY: coord(float64(i*svgRowH) + svgRowH/2 + 4), Label: cut(p.ID, svgLabelMax), ID: p.ID,
			Value: score(p.Latest.Mean)}
		for j, cell := range p.Cells {
			if !cell.Has {
				continue
			}
			run := &m.Runs[j]
			row.Cells = append(row.Cells, heatRect{X: coord(svgLeft + float64(j)*band), W: w, H: h, Fill: heatColor(cell.Mean),
				Title: fmt.Sprintf("%s · %s · %s · mean %s · pass rate %s · %s", p.ID, orDash(run.RunID), timestamp(run.StartedAt),
					score(cell.Mean), percent(cell.PassRate), plural(cell.N, "result", "results"))})
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

func newTimeline(m *trendModel, band float64, x func(int) float64) timelineChart {
	lanes := make([]int, len(m.Runs))
	maxLane := 0
	for _, mk := range m.Marks {
		lanes[mk.Col]++
		maxLane = max(maxLane, lanes[mk.Col])
	}
	c := timelineChart{svgFrame: frame(m.Runs, band, 0, max(1, maxLane)*svgLaneH+4, "Drift reports by the run they compared, coloured by severity")}
	c.LineY = coord(svgLaneH/2 + 2)
	r := min(8, max(3, band/2-1))
	clear(lanes)
	for _, mk := range m.Marks {
		cy := float64(lanes[mk.Col]*svgLaneH) + svgLaneH/2 + 2
		lanes[mk.Col]++
		dr := mk.Drift
		title := fmt.Sprintf("%s · %s · severity %s · %s · current run %s", orDash(dr.ReportID), timestamp(dr.GeneratedAt), mk.Severity,
			plural(dr.Regressions, "regression", "regressions"), orDash(dr.CurrentRunID))
		if s := strings.TrimSpace(dr.Summary); s != "" {
			title += " · " + cut(s, 300)
		}
		t := timelineMark{X: coord(x(mk.Col)), Y: coord(cy), R: coord(r), TextY: coord(cy + 3.5), Class: "mk-" + markClass(mk.Severity), Title: title}
		if mk.Severity == store.VerdictUnmeasured {
			c.Unmeasured = true
		}
		if r >= 6 {
			t.Letter = severityLetter(mk.Severity)
		}
		c.Markers = append(c.Markers, t)
	}
	return c
}

// markClass is the CSS class suffix of a severity: the severity when known,
// "unknown" otherwise.
func markClass(s string) string {
	if severityRank(s) > 4 {
		return "unknown"
	}
	return s
}

// levelClass is the badge class of a score.
func levelClass(v float64) string {
	switch {
	case !finite(v) || v < 0.7:
		return "fail"
	case v < 0.9:
		return "warn"
	}
	return "pass"
}

// heatStops is the colour scale of the heatmap, red through amber to green.
var heatStops = [3][3]float64{{0xdc, 0x26, 0x26}, {0xf5, 0x9e, 0x0b}, {0x16, 0xa3, 0x4a}}

// heatColor is the fill of a mean score: red at 0, amber at 0.5, green at
// 1, and slate grey when it is not a number.
func heatColor(v float64) string {
	if !finite(v) {
		return "#94a3b8"
	}
	v = min(max(v, 0), 1)
	lo, hi, f := heatStops[0], heatStops[1], v*2
	if v > 0.5 {
		lo, hi, f = heatStops[1], heatStops[2], v*2-1
	}
	var rgb [3]int
	for i := range rgb {
		rgb[i] = int(math.Round(lo[i] + (hi[i]-lo[i])*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", rgb[0], rgb[1], rgb[2])
}

// coord formats an SVG coordinate with at most one decimal.
func coord(f float64) string {
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}

func finite(f float64) bool {
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}
