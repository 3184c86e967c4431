package report

import "github.com/promptcanary/promptcanary"

// identity writes the model identity test under the verdict: yellow and
// marked when it says the answers no longer look like the same model's.
func (t *term) identity(id *promptcanary.IdentityTest) {
	if id == nil {
		return
	}
	t.line()
	if id.Different() {
		t.whole(t.paint(ansiBold+ansiYellow, "⚠ "), 2, id.Line()+".")
		return
	}
	t.whole("  ", 2, id.Line()+".")
}

// identity writes the model identity test under the verdict.
func (w *md) identity(id *promptcanary.IdentityTest) {
	if id == nil {
		return
	}
	w.line()
	if id.Different() {
		w.line("⚠️ **", mdText(id.Line(), 500), ".**")
		return
	}
	w.line(mdText(id.Line(), 500), ".")
}
