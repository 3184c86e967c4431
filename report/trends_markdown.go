package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary/store"
)

// Limits that keep a Markdown trends report compact.
const (
	mdTrendRuns   = 20  // newest runs listed in the runs table
	mdTrendProbes = 10  // worst probes listed
	mdSparkRuns   = 100 // newest runs drawn in a sparkline
	mdNotScored   = "_" // a run that did not score a probe, in its sparkline
)

func renderTrendsMarkdown(b *bytes.Buffer, d *TrendData) {
	w := newMD(b)
	w.line("## 📈 PromptCanary trends: ", mdText(orDash(d.Suite), 200))
	w.line()
	model := mdText(orDash(d.Model), 200)
	if len(d.Runs) == 0 {
		w.line("**", model, "** · no runs stored yet: trends appear after the first run.")
		w.footer("", "no runs", "")
		return
	}
	m := newTrendModel(d, mdSparkRuns)
	last := &m.Runs[len(m.Runs)-1]
	span := fmt.Sprintf("%d runs from %s to %s", len(d.Runs), timestamp(d.Runs[0].StartedAt), timestamp(last.StartedAt))
	if len(d.Runs) == 1 {
		span = "1 run on " + timestamp(last.StartedAt)
	}
	latest := fmt.Sprintf("**%s** · %s · latest score **%s** · pass rate **%s**", model, span, score(last.Score), percent(last.PassRate))
	if note := unmeasuredNote(last); note != "" {
		latest += " · " + note
	}
	w.line(latest)
	w.line()

	span = "oldest → newest"
	if m.Skipped > 0 {
		span = fmt.Sprintf("last %d of %d runs, oldest → newest", len(m.Runs), len(d.Runs))
	}
	scores, rates := m.scores(), m.passRates()
	lo, hi, _ := spread(scores)
	plo, phi, _ := spread(rates)
	rows := [][]string{
		{"Score", "`" + sparkline(scores) + "`", score(lo), score(hi), score(last.Score)},
		{"Pass rate", "`" + sparkline(rates) + "`", percent(plo), percent(phi), percent(last.PassRate)},
	}
	if m.Total > 0 {
		var line strings.Builder
		for _, mk := range m.columnMarks() {
			if mk == nil {
				line.WriteString(trendNoCompare)
				continue
			}
			line.WriteString(severityLetter(mk.Severity))
		}
		latest := "—"
		if len(m.Marks) > 0 {
			latest = mdSeverity(m.Marks[len(m.Marks)-1].Severity)
		}
		rows = append(rows, []string{"Drift", "`" + line.String() + "`", "", "", latest})
	}
	w.table([]string{"", "Trend (" + span + ")", "Min", "Max", "Last"}, "llrrr", rows)
	w.line()
	legend := "<sub>Sparklines: ▁ 0 … █ 1, ? n/a: a run unmeasured (every call failed) or a score not a number."
	if m.Total > 0 {
		legend += " Drift: · none, L low, M medium, H high, C critical, " + unmeasuredLetter + " unmeasured, " + trendNoCompare + " no compare"
		if m.Earlier > 0 {
			legend += "; " + plural(m.Earlier, "earlier compare", "earlier compares") + " not shown"
		}
		legend += "."
	}
	w.line(legend, "</sub>")

	w.trendProbes(m)

	w.trendRuns(d.Runs)
	w.footer("", plural(len(d.Runs), "run", "runs"), "")
}

// trendProbes writes the probes of trend m, worst latest mean first, each
// with its sparkline of means.
func (w *md) trendProbes(m *trendModel) {
	if len(m.Probes) > 0 {
		w.heading("### Probes, worst latest mean first")
		probes := m.Probes[:min(len(m.Probes), mdTrendProbes)]
		rows := make([][]string, len(probes))
		for i, p := range probes {
			var spark strings.Builder
			for _, c := range p.Cells {
				if !c.Has {
					spark.WriteString(mdNotScored)
					continue
				}
				spark.WriteString(sparkline([]float64{c.Mean}))
			}
			rows[i] = []string{mdText(p.ID, 200), "`" + spark.String() + "`", score(p.Latest.Mean), percent(p.Latest.PassRate)}
		}
		w.table([]string{"Probe", "Trend", "Latest mean", "Latest pass rate"}, "llrr", rows)
		if more := len(m.Probes) - len(probes); more > 0 {
			w.line()
			w.line(fmt.Sprintf("…and %s, listed in the JSON and HTML reports.", plural(more, "better probe", "better probes")))
		}
		w.line()
		w.line("<sub>`", mdNotScored, "` not scored in that run.</sub>")
	}
}

// trendRuns writes the latest runs, newest first.
func (w *md) trendRuns(runs []store.RunSummary) {
	w.heading("### Runs, newest first")
	n := min(len(runs), mdTrendRuns)
	runRows := make([][]string, n)
	for i := range n {
		r := &runs[len(runs)-1-i]
		runRows[i] = []string{timestamp(r.StartedAt), mdText(runLabel(r), 200), score(r.Score), percent(r.PassRate), mdSeverity(strings.ToLower(r.Verdict))}
	}
	w.table([]string{"Started", "Run", "Score", "Pass rate", "Verdict"}, "llrrl", runRows)
	if more := len(runs) - n; more > 0 {
		w.line()
		w.line(fmt.Sprintf("…and %s, listed in the JSON and HTML reports.", plural(more, "earlier run", "earlier runs")))
	}
}

// mdSeverity is a severity with its icon, or "—" when empty; an unknown
// severity is escaped and gets no icon.
func mdSeverity(s string) string {
	switch s {
	case "":
		return "—"
	case "none", "low", "medium", "high", "critical":
		return severityIcon(s) + " " + s
	case store.VerdictUnmeasured:
		return unmeasuredLetter + " " + s
	}
	return mdText(s, 40)
}
