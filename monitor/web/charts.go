package web

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// The charts are inline SVG built here as coordinates; the templates only
// place them, and the stylesheet colours them by class (a CSP without
// 'unsafe-inline' forbids style attributes).

// sparkRuns is how many check runs the overview's sparklines show.
const sparkRuns = 48

// measured reports whether a check run has a pass rate to plot.
func measured(cr *promptcanary.CheckRun) bool {
	return cr.Measured() && finite(cr.PassRate)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// coord formats an SVG coordinate.
func coord(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// point is a point of a chart with what hovering it tells.
type point struct {
	X, Y string
	// D is the outline of a marker drawn as a path.
	D     string
	Class string
	Title string
	URL   string
}

// sparkline is the overview's pass-rate history of one check.
type sparkline struct {
	W, H  int
	Lines []string // polyline points, one per stretch of measured runs
	// Base is the y of the latest baseline pass rate, "" when unknown.
	Base   string
	Points []point // drift runs (red) and unmeasured runs (grey, at the bottom)
	Label  string  // what a screen reader says
	Empty  bool
}

// yDomain returns the lower end of a pass-rate axis that ends at 1: at
// most top, and low enough for every value with a margin, in steps of 0.1.
func yDomain(top float64, values ...float64) float64 {
	lo := top
	for _, v := range values {
		if finite(v) && v-0.02 < lo {
			lo = v - 0.02
		}
	}
	return math.Max(0, math.Floor(lo*10+1e-9)/10)
}

// newSparkline draws runs (newest first) oldest to newest, left to right.
func newSparkline(runs []promptcanary.CheckRun) sparkline {
	sp := sparkline{W: 120, H: 26}
	if len(runs) > sparkRuns {
		runs = runs[:sparkRuns]
	}
	if len(runs) == 0 {
		sp.Empty, sp.Label = true, "no runs yet"
		return sp
	}
	var vals []float64
	for i := range runs {
		if measured(&runs[i]) {
			vals = append(vals, runs[i].PassRate, runs[i].BaselinePassRate)
		}
	}
	lo := yDomain(0.8, vals...)
	const pad = 3.0
	w, h := float64(sp.W), float64(sp.H)
	y := func(v float64) float64 { return pad + (1-(v-lo)/(1-lo))*(h-2*pad) }
	x := func(i int) float64 {
		if len(runs) == 1 {
			return w / 2
		}
		return pad + float64(len(runs)-1-i)*(w-2*pad)/float64(len(runs)-1)
	}
	var line []string
	flush := func() {
		if len(line) > 1 {
			sp.Lines = append(sp.Lines, strings.Join(line, " "))
		}
		line = nil
	}
	first, last := math.NaN(), math.NaN()
	for i := len(runs) - 1; i >= 0; i-- {
		cr := &runs[i]
		switch {
		case measured(cr):
			px, py := x(i), y(cr.PassRate)
			line = append(line, coord(px)+","+coord(py))
			if math.IsNaN(first) {
				first = cr.PassRate
			}
			last = cr.PassRate
			if cr.Outcome == promptcanary.CheckDrift {
				sp.Points = append(sp.Points, point{X: coord(px), Y: coord(py), Class: "drift"})
			}
		case cr.Outcome == promptcanary.CheckUnmeasured:
			flush()
			sp.Points = append(sp.Points, point{X: coord(x(i)), Y: coord(h - 2), Class: "unmeasured"})
		}
	}
	flush()
	if len(sp.Lines) == 0 {
		// One measured run, or stretches of one: dots stand for them.
		for i := range runs {
			if measured(&runs[i]) && runs[i].Outcome == promptcanary.CheckClean {
				sp.Points = append(sp.Points, point{X: coord(x(i)), Y: coord(y(runs[i].PassRate)), Class: "clean"})
			}
		}
	}
	for i := range runs {
		if measured(&runs[i]) && finite(runs[i].BaselinePassRate) && runs[i].BaselinePassRate > 0 {
			sp.Base = coord(y(runs[i].BaselinePassRate))
			break
		}
	}
	if math.IsNaN(first) {
		sp.Label = fmt.Sprintf("%d runs, none measured", len(runs))
	} else {
		sp.Label = fmt.Sprintf("pass rate over the last %d runs: %s to %s", len(runs), pct(first), pct(last))
	}
	return sp
}

// wilson returns the 95% Wilson score interval of a pass rate p measured
// on n results.
func wilson(p float64, n int) (lo, hi float64) {
	if n <= 0 || !finite(p) {
		return p, p
	}
	const z = 1.959963984540054
	nf := float64(n)
	den := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// tick is a labelled position on an axis.
type tick struct {
	Pos   string
	Label string
}

// historyChart is a check's pass-rate history with its baseline band.
type historyChart struct {
	W, H                                int
	Left, Right, Top, Bottom            string
	YTicks, XTicks                      []tick
	Bands                               []string // polygon points of baseline ± Wilson 95%
	BaseLines                           []string // polyline points of the baseline pass rate
	Lines                               []string // polyline points of the runs' pass rates
	Points                              []point  // drift runs, confirmed ones larger
	Unmeasured                          []point  // runs that could not measure, on the axis
	Spans                               []rect   // incidents, opened to resolved
	Hits                                []rect   // one per run: a link with a tooltip
	Runs, MeasuredRuns                  int
	From, To                            time.Time
	HasBand, HasIncident, HasUnmeasured bool
}

// rect is an area of a chart.
type rect struct {
	X, Y, W, H string
	Class      string
	Title      string
	URL        string
}

// The margins of a history chart, around its plot area.
const histLeft, histRight, histTop, histBottom = 44.0, 12.0, 10.0, 26.0

// band is a baseline's Wilson interval at one run.
type band struct{ lo, hi float64 }

// newHistoryChart draws runs (newest first) against time. baseN maps a
// baseline snapshot id to the number of results of its run, for the width
// of the band; incidents are shaded from opening to resolution.
func newHistoryChart(runs []promptcanary.CheckRun, baseN map[string]int, incidents []promptcanary.Incident, now time.Time) historyChart {
	c := historyChart{W: 1200, H: 250, Runs: len(runs)}
	if len(runs) == 0 {
		return c
	}
	w, h := float64(c.W), float64(c.H)
	c.Left, c.Right, c.Top, c.Bottom = coord(histLeft), coord(w-histRight), coord(histTop), coord(h-histBottom)
	// Oldest first from here on.
	rs := slices.Clone(runs)
	slices.Reverse(rs)
	c.From, c.To = rs[0].Slot, rs[len(rs)-1].Slot
	span := c.To.Sub(c.From)
	if span <= 0 {
		span = time.Hour
		c.From = c.From.Add(-span / 2)
	}
	x := func(t time.Time) float64 {
		return histLeft + float64(t.Sub(c.From))/float64(span)*(w-histLeft-histRight)
	}
	var vals []float64
	bands := make([]band, len(rs))
	for i := range rs {
		cr := &rs[i]
		if !measured(cr) {
			continue
		}
		c.MeasuredRuns++
		vals = append(vals, cr.PassRate)
		if finite(cr.BaselinePassRate) && cr.BaselinePassRate > 0 {
			lo, hi := wilson(cr.BaselinePassRate, baseN[cr.BaselineID])
			bands[i] = band{lo, hi}
			vals = append(vals, lo)
		}
	}
	lo := yDomain(0.8, vals...)
	y := func(v float64) float64 { return histTop + (1-(v-lo)/(1-lo))*(h-histTop-histBottom) }
	for v := lo; v <= 1.0001; v += yStep(lo) {
		c.YTicks = append(c.YTicks, tick{Pos: coord(y(v)), Label: pct0(v) + "%"})
	}
	c.XTicks = timeTicks(c.From, c.To, x)
	c.addIncidents(incidents, now, span, x) // behind everything
	c.addRuns(rs, bands, x, y)
	c.addHits(rs, x)
	return c
}

// addIncidents shades the incidents of the chart's time span, from
// opening to resolution (now for an open one).
func (c *historyChart) addIncidents(incidents []promptcanary.Incident, now time.Time, span time.Duration, x func(time.Time) float64) {
	w, h := float64(c.W), float64(c.H)
	for _, inc := range incidents {
		end := inc.ResolvedAt
		if end.IsZero() {
			end = now
		}
		if end.Before(c.From) || inc.OpenedAt.After(c.To.Add(span/20)) {
			continue
		}
		x0, x1 := math.Max(histLeft, x(inc.OpenedAt)), math.Min(w-histRight, x(end))
		c.Spans = append(c.Spans, rect{X: coord(x0), Y: coord(histTop), W: coord(math.Max(2, x1-x0)), H: coord(h - histTop - histBottom),
			Class: "incident " + string(inc.Kind), URL: IncidentPath(inc.ID),
			Title: fmt.Sprintf("%s incident (%s): %s", inc.Kind, inc.Severity, oneLine(inc.Summary))})
		c.HasIncident = true
	}
}

// addRuns draws the runs rs (oldest first): the baseline band and line,
// one stretch per baseline, the pass-rate line, broken by unmeasured
// runs, and the drifts.
func (c *historyChart) addRuns(rs []promptcanary.CheckRun, bands []band, x func(time.Time) float64, y func(float64) float64) {
	h := float64(c.H)
	var top, bot, base, line []string
	flushBand := func() {
		if len(top) > 0 {
			slices.Reverse(bot)
			c.Bands = append(c.Bands, strings.Join(append(top, bot...), " "))
			c.BaseLines = append(c.BaseLines, strings.Join(base, " "))
		}
		top, bot, base = nil, nil, nil
	}
	flushLine := func() {
		if len(line) > 0 {
			c.Lines = append(c.Lines, strings.Join(line, " "))
		}
		line = nil
	}
	prevBase := ""
	for i := range rs {
		cr := &rs[i]
		px := x(cr.Slot)
		if !measured(cr) {
			if cr.Outcome == promptcanary.CheckUnmeasured {
				flushLine()
				by := h - histBottom - 2
				c.Unmeasured = append(c.Unmeasured, point{X: coord(px), Y: coord(by), Class: "unmeasured",
					D:     "M" + coord(px-4) + "," + coord(by) + " L" + coord(px+4) + "," + coord(by) + " L" + coord(px) + "," + coord(by-7) + " Z",
					Title: stamp(cr.Slot) + ": unmeasured: " + oneLine(cr.Reason), URL: checkRunURL(cr)})
				c.HasUnmeasured = true
			}
			continue
		}
		if cr.BaselineID != prevBase {
			flushBand()
			prevBase = cr.BaselineID
		}
		if b := bands[i]; b.hi > 0 {
			top = append(top, coord(px)+","+coord(y(b.hi)))
			bot = append(bot, coord(px)+","+coord(y(b.lo)))
			base = append(base, coord(px)+","+coord(y(cr.BaselinePassRate)))
			c.HasBand = true
		}
		py := y(cr.PassRate)
		line = append(line, coord(px)+","+coord(py))
		if cr.Outcome == promptcanary.CheckDrift {
			c.Points = append(c.Points, driftPoint(cr, px, py))
		}
	}
	flushBand()
	flushLine()
}

// driftPoint marks the drift cr at (px, py).
func driftPoint(cr *promptcanary.CheckRun, px, py float64) point {
	cls := "drift"
	if cr.Confirmed {
		cls = "drift confirmed"
	}
	return point{X: coord(px), Y: coord(py), Class: cls, URL: checkRunURL(cr),
		Title: fmt.Sprintf("%s: pass rate %s (baseline %s), drift%s", stamp(cr.Slot), pct(cr.PassRate), pct(cr.BaselinePassRate), confirmedNote(cr))}
}

// addHits adds a hit area per run, so that every run has a tooltip and a
// link.
func (c *historyChart) addHits(rs []promptcanary.CheckRun, x func(time.Time) float64) {
	w, h := float64(c.W), float64(c.H)
	step := (w - histLeft - histRight) / float64(max(len(rs), 1))
	for i := range rs {
		cr := &rs[i]
		px := x(cr.Slot)
		title := stamp(cr.Slot) + ": " + string(cr.Outcome)
		if measured(cr) {
			title += ", pass rate " + pct(cr.PassRate) + " (baseline " + pct(cr.BaselinePassRate) + ")"
		}
		c.Hits = append(c.Hits, rect{X: coord(math.Max(histLeft, px-step/2)), Y: coord(histTop), W: coord(math.Max(step, 1)), H: coord(h - histTop - histBottom),
			Title: title, URL: checkRunURL(cr)})
	}
}

func confirmedNote(cr *promptcanary.CheckRun) string {
	if cr.Confirmed {
		return " (confirmed)"
	}
	return ""
}

// checkRunURL is the page of a check run's stored run, "" when it made none.
func checkRunURL(cr *promptcanary.CheckRun) string {
	if cr.RunID == "" {
		return ""
	}
	return runReportPath(cr.RunID, cr.ReportID)
}

// yStep is the spacing of the pass-rate axis' ticks.
func yStep(lo float64) float64 {
	switch {
	case 1-lo <= 0.25:
		return 0.05
	case 1-lo <= 0.5:
		return 0.1
	}
	return 0.25
}

// timeTicks returns about six ticks between from and to, on round times.
func timeTicks(from, to time.Time, x func(time.Time) float64) []tick {
	span := to.Sub(from)
	steps := []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour,
		12 * time.Hour, 24 * time.Hour, 2 * 24 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour, 30 * 24 * time.Hour}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if span/s <= 7 {
			step = s
			break
		}
	}
	layout := "15:04"
	if step >= 24*time.Hour {
		layout = "Jan 2"
	} else if span > 24*time.Hour {
		layout = "Jan 2 15:04"
	}
	var ticks []tick
	for t := from.UTC().Truncate(step).Add(step); !t.After(to); t = t.Add(step) {
		ticks = append(ticks, tick{Pos: coord(x(t)), Label: t.Format(layout)})
	}
	return ticks
}

// heatRuns is how many runs the heatmap shows.
const heatRuns = 50

// heatmap is the pass rate of each probe (rows) in each run (columns,
// oldest left).
type heatmap struct {
	Runs []heatRun
	Rows []heatRow
}

type heatRun struct {
	ID, URL, Label, Title string
	// Tick is set on the columns whose label is shown; Last on the last
	// column, whose label ends at its right edge.
	Tick, Last bool
}

type heatRow struct {
	Probe string
	Cells []heatCell
}

type heatCell struct {
	Class, Text, Title, URL string
}

// heatCol is one run of the heatmap: scored, or a check run that measured
// nothing (every call failed), which has no probe score and shows as not
// measured.
type heatCol struct {
	id         string
	at         time.Time
	unmeasured string // why, for a run that measured nothing
}

// newHeatmap arranges store.ProbeScores rows (newest run first) and the
// unmeasured runs among checkRuns (newest first) into the newest heatRuns
// columns, oldest left.
func newHeatmap(scores []store.ProbeScore, checkRuns []promptcanary.CheckRun) heatmap {
	var hm heatmap
	type key struct{ run, probe string }
	cells := make(map[key]store.ProbeScore, len(scores))
	var probes []string
	seenProbe := map[string]bool{}
	var cols []heatCol
	seenRun := map[string]bool{}
	for _, ps := range scores {
		if !seenRun[ps.RunID] {
			seenRun[ps.RunID] = true
			cols = append(cols, heatCol{id: ps.RunID, at: ps.StartedAt})
		}
		cells[key{ps.RunID, ps.ProbeID}] = ps
		if !seenProbe[ps.ProbeID] {
			seenProbe[ps.ProbeID] = true
			probes = append(probes, ps.ProbeID)
		}
	}
	for i := range checkRuns {
		cr := &checkRuns[i]
		if cr.Outcome == promptcanary.CheckUnmeasured && cr.RunID != "" && !seenRun[cr.RunID] {
			seenRun[cr.RunID] = true
			cols = append(cols, heatCol{id: cr.RunID, at: cr.StartedAt, unmeasured: oneLine(cr.Reason)})
		}
	}
	slices.SortStableFunc(cols, func(a, b heatCol) int { return b.at.Compare(a.at) })
	cols = cols[:min(len(cols), heatRuns)]
	slices.Sort(probes)
	slices.Reverse(cols)
	for i, c := range cols {
		hm.Runs = append(hm.Runs, heatRun{ID: c.id, URL: RunPath(c.id), Label: c.at.UTC().Format("01-02 15:04"),
			Title: "run " + c.id + " · " + stamp(c.at), Tick: i%10 == 0 && i+5 < len(cols) || i == len(cols)-1, Last: i == len(cols)-1 && i > 0})
	}
	for _, p := range probes {
		row := heatRow{Probe: p, Cells: make([]heatCell, len(cols))}
		for i, c := range cols {
			ps, ok := cells[key{c.id, p}]
			switch {
			case c.unmeasured != "":
				row.Cells[i] = heatCell{Class: "h-na", Title: p + " · " + stamp(c.at) + ": unmeasured: " + c.unmeasured, URL: RunPath(c.id)}
			case !ok || ps.N == 0 || !finite(ps.PassRate):
				row.Cells[i] = heatCell{Class: "h-na", Title: p + " · " + stamp(c.at) + ": not measured", URL: RunPath(c.id)}
			default:
				row.Cells[i] = scoredCell(p, c.at, ps)
			}
		}
		hm.Rows = append(hm.Rows, row)
	}
	return hm
}

// scoredCell is the heatmap cell of probe p in a run started at that
// scored it.
func scoredCell(p string, at time.Time, ps store.ProbeScore) heatCell {
	bucket := int(math.Floor(ps.PassRate * 10))
	return heatCell{
		Class: "h" + strconv.Itoa(min(max(bucket, 0), 10)),
		Text:  pct0(ps.PassRate),
		Title: fmt.Sprintf("%s · %s: pass rate %s of %d results, mean score %s", p, stamp(at), pct(ps.PassRate), ps.N, scoreText(ps.Mean)),
		URL:   RunPath(ps.RunID),
	}
}

func scoreText(f float64) string {
	if !finite(f) {
		return "n/a"
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}
