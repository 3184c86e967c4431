package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/promptcanary/promptcanary"
)

// The embeddable forms of the HTML reports. A page that shows a report
// inside its own layout (the monitor's dashboard) needs the report's body
// without the document around it, and its style as a file: a
// Content-Security-Policy without 'unsafe-inline' blocks the inline <style>
// of a standalone report.

// DriftFragment writes the body of d's HTML drift report: exactly what
// Drift writes in HTML between the report's header and the end of its
// <main> element (the verdict, what regressed with the baseline's and the
// current answers side by side, the tables, the statistics), without the
// document, its head and its inline style. The page that embeds it links
// Stylesheet. Nothing is written when rendering fails.
func DriftFragment(w io.Writer, d *promptcanary.DriftReport) error {
	if d == nil {
		return errors.New("render drift report fragment: nil report")
	}
	return writeFragment(w, "drift report", "drift.html.tmpl", newDriftModel(d))
}

// RunFragment writes the body of r's HTML run report (its verdict,
// failures, errors and categories), as DriftFragment does for a drift
// report. Nothing is written when rendering fails.
func RunFragment(w io.Writer, r *promptcanary.Run) error {
	if r == nil {
		return errors.New("render run report fragment: nil run")
	}
	return writeFragment(w, "run report", "run.html.tmpl", newRunModel(r))
}

// Stylesheet returns the CSS of the HTML reports, the rules of their inline
// <style>, for a page that embeds fragments and serves it as a file. The
// rules style whole elements (body, table, h2, …): a page that embeds a
// fragment loads its own rules after them.
func Stylesheet() []byte {
	var buf bytes.Buffer
	if err := htmlTemplates.ExecuteTemplate(&buf, "style", nil); err != nil {
		// The style template holds no actions: it cannot fail.
		panic("report: style template: " + err.Error())
	}
	css := bytes.TrimSpace(buf.Bytes())
	css = bytes.TrimPrefix(css, []byte("<style>"))
	css = bytes.TrimSuffix(css, []byte("</style>"))
	return append(bytes.TrimSpace(css), '\n')
}

// writeFragment renders the named page and writes its body: what lies
// between the end of its <header> and the end of its <main>. The markers
// are the templates' own: html/template escapes every '<' of the data, so
// none can come from a rendered value.
func writeFragment(w io.Writer, what, page string, data any) error {
	var buf bytes.Buffer
	if err := renderHTML(&buf, page, data); err != nil {
		return fmt.Errorf("render %s fragment: %w", what, err)
	}
	body, err := fragmentOf(buf.Bytes())
	if err != nil {
		return fmt.Errorf("render %s fragment: %w", what, err)
	}
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("write %s fragment: %w", what, err)
	}
	return nil
}

// fragmentOf returns the body of a rendered report page.
func fragmentOf(page []byte) ([]byte, error) {
	start := bytes.Index(page, []byte("</header>"))
	end := bytes.LastIndex(page, []byte("</main>"))
	if start < 0 || end < start {
		return nil, errors.New("the page has no header or main element")
	}
	body := bytes.TrimSpace(page[start+len("</header>") : end])
	return append(body, '\n'), nil
}
