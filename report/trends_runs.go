package report

import (
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary/store"
)

// trendRuns lists the charted runs, newest first, with the ids that
// 'promptcanary show' and 'baseline promote' take: what --verbose adds to
// the terminal trends.
func (t *term) trendRuns(runs []store.RunSummary) {
	t.heading("", "Runs charted · newest first")
	cols := []column{{head: "RUN"}, {head: "STARTED"}, {head: "SCORE", right: true}, {head: "PASS RATE", right: true}, {head: "ERRORS", right: true}, {head: "DRIFT"}}
	rows := make([]trow, 0, len(runs))
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		rows = append(rows, trow{cells: []cell{
			{text: runLabel(r)}, {text: timestamp(r.StartedAt)}, {text: score(r.Score)}, {text: percent(r.PassRate)},
			{text: strconv.Itoa(r.Errors)}, {text: orDash(strings.ToLower(r.Verdict))},
		}})
	}
	t.table(cols, rows)
}
