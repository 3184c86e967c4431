package report

import (
	"strings"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store"
)

// trendRuns lists the charted runs, newest first, with the ids that
// 'promptcanary show' and 'baseline promote' take: what --verbose adds to
// the terminal trends. Each run is one line, broken between its pieces on
// a narrow terminal.
func (t *term) trendRuns(runs []store.RunSummary) {
	t.heading("", "Runs charted · newest first")
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		ps := []part{
			{text: "  " + termtext.Safe(runLabel(r))},
			{sep: " · ", text: timestamp(r.StartedAt)},
			{sep: " · ", text: "score " + score(r.Score), style: scoreStyle(r.Score)},
			{sep: " · ", text: "pass rate " + percent(r.PassRate), style: scoreStyle(r.PassRate)},
			{sep: " · ", text: plural(r.Errors, "error", "errors")},
		}
		if r.Verdict != "" {
			ps = append(ps, part{sep: " · ", text: "drift " + termtext.Safe(strings.ToLower(r.Verdict)), style: severityStyle(strings.ToLower(r.Verdict))})
		}
		t.parts(ps)
	}
}
