package report

import "github.com/promptcanary/promptcanary"

// runSpread writes, under the verdict, how much of the suite's change lies
// within the model's usual run-to-run spread (a baseline pooling runs).
func (t *term) runSpread(s *promptcanary.RunSpread) {
	if s == nil {
		return
	}
	t.line()
	t.whole("  ", 2, s.Line()+".")
}

// runSpread writes the run-to-run spread line under the verdict.
func (w *md) runSpread(s *promptcanary.RunSpread) {
	if s == nil {
		return
	}
	w.line()
	w.line(mdText(s.Line(), 500), ".")
}
