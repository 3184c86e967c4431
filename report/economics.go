package report

import "github.com/promptcanary/promptcanary"

// economics writes the economic drift section under the verdict when a
// measure is flagged: the sentence, then each measure. A report in which
// no measure moved shows nothing (its JSON holds the measures).
func (t *term) economics(e *promptcanary.Economics) {
	if !e.Flagged() {
		return
	}
	t.line()
	t.whole(t.paint(ansiBold+ansiYellow, "⚠ "), 2, e.Line()+".")
	for i := range e.Measures {
		t.whole("    ", 4, e.Measures[i].Line())
	}
}

// economics writes the economic drift section under the verdict when a
// measure is flagged.
func (w *md) economics(e *promptcanary.Economics) {
	if !e.Flagged() {
		return
	}
	w.line()
	w.line("⚠️ **", mdText(e.Line(), 1000), ".**")
	w.line()
	for i := range e.Measures {
		w.line("- ", mdText(e.Measures[i].Line(), 500))
	}
}

// economicsProps are the JUnit properties of the economic section when a
// measure is flagged: its sentence.
func economicsProps(e *promptcanary.Economics) []junitProperty {
	if !e.Flagged() {
		return nil
	}
	return []junitProperty{{"economics", xmlSafe(e.Line(), 1000)}}
}
