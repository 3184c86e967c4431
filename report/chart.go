package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/promptcanary/promptcanary"
)

// Geometry of the pass-rate chart of a drift report, in SVG user units.
const (
	chartWidth  = 760
	chartLabelW = 220 // room for the probe ids left of the plot
	chartRight  = 20
	chartTop    = 34 // room for the legend and the axis labels
	chartRowH   = 30
	chartBottom = 10
	// chartMaxProbes bounds the rows; the rest are counted.
	chartMaxProbes = 60
	// chartLabelRunes bounds a probe id shown as a label; the whole id is
	// in the row's tooltip.
	chartLabelRunes = 28
)

// chartModel is the pass rate of each probe on both sides of a drift
// report, with 95% Wilson intervals, drawn as inline SVG.
type chartModel struct {
	Width, Height int
	PlotX, PlotW  int
	Ticks         []chartTick
	Rows          []chartRow
	More          int // probes left out
}

// chartTick is a vertical grid line of the plot.
type chartTick struct {
	X     float64
	Label string
}

// chartRow is one probe.
type chartRow struct {
	Label, ID  string
	Y, TextY   float64
	Base, Cur  chartMark
	Regressed  bool
	Title      string
	LabelClass string
}

// chartMark is one side's pass rate with its interval.
type chartMark struct {
	X, Lo, Hi, Y float64
	Title        string
}

// wilson returns the 95% Wilson score interval of passes out of n.
func wilson(passes, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	const z = 1.959963984540054
	p := float64(passes) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return max(0, center-half), min(1, center+half)
}

// newChart sums the compared pairs of each probe on both sides; nil when
// no pair was compared.
func newChart(cs []promptcanary.Comparison) *chartModel {
	type tally struct {
		bp, bn, cp, cn int
		regressed      bool
	}
	probes := make(map[string]*tally)
	for i := range cs {
		c := &cs[i]
		if !c.Compared() {
			continue
		}
		t := probes[c.ProbeID]
		if t == nil {
			t = &tally{}
			probes[c.ProbeID] = t
		}
		bp, bn := sidePasses(c.Baseline, c.BaselinePassed)
		cp, cn := sidePasses(c.Current, c.CurrentPassed)
		t.bp, t.bn, t.cp, t.cn = t.bp+bp, t.bn+bn, t.cp+cp, t.cn+cn
		t.regressed = t.regressed || c.Regression
	}
	if len(probes) == 0 {
		return nil
	}
	ids := make([]string, 0, len(probes))
	for id := range probes {
		ids = append(ids, id)
	}
	// Regressed probes first, then by the drop, then by id.
	drop := func(t *tally) float64 { return float64(t.bp)/float64(t.bn) - float64(t.cp)/float64(t.cn) }
	slices.SortFunc(ids, func(a, b string) int {
		ta, tb := probes[a], probes[b]
		return cmp.Or(-cmp.Compare(b2i(ta.regressed), b2i(tb.regressed)), cmp.Compare(drop(tb), drop(ta)), cmp.Compare(a, b))
	})
	m := &chartModel{Width: chartWidth, PlotX: chartLabelW, PlotW: chartWidth - chartLabelW - chartRight}
	if len(ids) > chartMaxProbes {
		m.More = len(ids) - chartMaxProbes
		ids = ids[:chartMaxProbes]
	}
	x := func(f float64) float64 { return math.Round((float64(m.PlotX)+f*float64(m.PlotW))*10) / 10 }
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		m.Ticks = append(m.Ticks, chartTick{X: x(v), Label: strconv.Itoa(int(v*100)) + "%"})
	}
	for i, id := range ids {
		t := probes[id]
		y := float64(chartTop + i*chartRowH)
		mark := func(p, n int, dy float64, side string) chartMark {
			lo, hi := wilson(p, n)
			r := float64(p) / float64(n)
			return chartMark{X: x(r), Lo: x(lo), Hi: x(hi), Y: y + dy,
				Title: fmt.Sprintf("%s: %d/%d passed, %s [95%% CI %s–%s]", side, p, n, percent(r), percent(lo), percent(hi))}
		}
		row := chartRow{Label: cut(id, chartLabelRunes), ID: id, Y: y, TextY: y + chartRowH/2 + 4, Regressed: t.regressed,
			Base: mark(t.bp, t.bn, chartRowH/2-5, "baseline"), Cur: mark(t.cp, t.cn, chartRowH/2+5, "current")}
		row.Title = id + ": " + row.Base.Title + "; " + row.Cur.Title
		if t.regressed {
			row.LabelClass = "regressed"
		}
		m.Rows = append(m.Rows, row)
	}
	m.Height = chartTop + len(m.Rows)*chartRowH + chartBottom
	return m
}

// sidePasses is one side's passes and samples; a report without sample
// counts has one sample per side.
func sidePasses(st promptcanary.SampleStats, passed bool) (int, int) {
	if st.N > 0 {
		return st.Passes, st.N
	}
	if passed {
		return 1, 1
	}
	return 0, 1
}

// AxisY is where the axis labels sit.
func (m *chartModel) AxisY() int { return chartTop - 6 }

// Bottom is the lower end of the grid lines.
func (m *chartModel) Bottom() int { return m.Height - chartBottom }
