package report

import (
	"strings"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store"
)

// trendRuns lists the charted runs, newest first, with the ids that
// 'promptcanary show' and 'baseline promote' take: what --verbose adds to
// the terminal trends. Each run is one line, broken between its items on
// a narrow terminal.
func (t *term) trendRuns(runs []store.RunSummary) {
	t.heading("", "Runs charted · newest first")
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		items := []string{termtext.Safe(runLabel(r)), timestamp(r.StartedAt), "score " + score(r.Score),
			"pass rate " + percent(r.PassRate), plural(r.Errors, "error", "errors")}
		if r.Verdict != "" {
			items = append(items, "drift "+termtext.Safe(strings.ToLower(r.Verdict)))
		}
		t.flow("  ", " · ", items)
	}
}
