package report

import (
	"strings"

	"github.com/promptcanary/promptcanary"
)

// attribution writes the likely cause of the report under the verdict
// (docs/attribution.md); evidence quotes served model ids and fingerprints,
// which whole makes terminal-safe.
func (t *term) attribution(a *promptcanary.Attribution) {
	if a == nil || a.Cause == "" {
		return
	}
	t.line()
	t.whole("  ", 2, a.Line()+".")
}

// attribution writes the likely cause of the report under the verdict, its
// evidence escaped as Markdown text.
func (w *md) attribution(a *promptcanary.Attribution) {
	if a == nil || a.Cause == "" {
		return
	}
	w.line()
	line := "Likely cause: **" + mdText(a.Cause, 50) + "**"
	if len(a.Evidence) > 0 {
		line += " (" + mdText(strings.Join(a.Evidence, "; "), 2000) + ")"
	}
	w.line(line, ".")
}
