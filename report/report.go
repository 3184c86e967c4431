// Package report renders runs and drift reports for people and programs: a
// terminal table, GitHub-flavoured Markdown for pull-request comments, one
// self-contained HTML file, JSON (written by the store's codec, so that
// every file is read and written one way) and JUnit XML for CI.
//
// Every renderer treats model output, probe details and error messages as
// untrusted: the terminal renderer escapes control characters, the Markdown
// renderer escapes everything that could break a table or inject markup, and
// the HTML renderer uses html/template. Output is deterministic: it is sorted
// and only uses the times stored in the rendered value.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/store"
)

// Format names an output format.
type Format string

// The output formats.
const (
	Terminal Format = "terminal"
	Markdown Format = "markdown"
	HTML     Format = "html"
	JSON     Format = "json"
	// JUnit is JUnit XML for CI systems: a testcase per (probe, prompt)
	// pair of a run, or per pair of a drift report or an upgrade gate.
	// Trends have no JUnit form.
	JUnit Format = "junit"
)

// Formats lists every format in display order.
var Formats = []Format{Terminal, Markdown, HTML, JSON, JUnit}

// ParseFormat parses a format name, case-insensitively; "md" is accepted for
// markdown and "xml" for junit. An unknown name fails with the valid names and the likely intent.
func ParseFormat(s string) (Format, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	switch name {
	case "md":
		return Markdown, nil
	case "xml":
		return JUnit, nil
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		if name == string(f) {
			return f, nil
		}
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown report format %q%s: want terminal, markdown, html, json or junit", s, suggest.Hint(name, names))
}

// Options tune the human-readable renderers; JSON ignores them.
type Options struct {
	// Color enables ANSI colour in terminal output. The caller decides
	// (a TTY, NO_COLOR, a flag); other formats ignore it.
	Color bool
	// Width is the terminal width in columns; 0 means 100.
	Width int
	// Verbose lists every result in terminal output, not only the failures
	// and changes.
	Verbose bool
}

// width returns the terminal width to lay out for.
func (o Options) width() int {
	switch {
	case o.Width <= 0:
		return 100
	case o.Width < 40:
		return 40
	}
	return o.Width
}

// Run writes run in format f to w. Nothing is written when rendering fails.
func Run(w io.Writer, f Format, run *promptcanary.Run, opts Options) error {
	if run == nil {
		return errors.New("render run: nil run")
	}
	return (&renderer{
		name:     "run",
		terminal: func(b *bytes.Buffer) { renderRunTerminal(b, newRunModel(run), opts) },
		markdown: func(b *bytes.Buffer) { renderRunMarkdown(b, newRunModel(run)) },
		html:     func(b *bytes.Buffer) error { return renderHTML(b, "run.html.tmpl", newRunModel(run)) },
		json:     func(b *bytes.Buffer) error { return writeRunJSON(b, run) },
		junit:    func(b *bytes.Buffer) error { return renderRunJUnit(b, []*promptcanary.Run{run}, false) },
	}).write(w, f)
}

// Drift writes d in format f to w. Nothing is written when rendering fails,
// but for JSON, which is written as it is encoded (store.EncodeIndent): a
// value that store.Marshal cannot encode, which no report of numbers
// (NaN and infinities included) holds, would end it part way.
func Drift(w io.Writer, f Format, d *promptcanary.DriftReport, opts Options) error {
	if d == nil {
		return errors.New("render drift report: nil report")
	}
	if f == JSON {
		// Indented as it is written, its compact JSON held once: a
		// statistical run's report is tens of megabytes.
		ew := &errWriter{w: w}
		if err := store.EncodeIndent(ew, d); err != nil {
			if ew.err != nil {
				return fmt.Errorf("write drift report: %w", ew.err)
			}
			return fmt.Errorf("render drift report as %s: %w", f, err)
		}
		return nil
	}
	return (&renderer{
		name:     "drift report",
		terminal: func(b *bytes.Buffer) { renderDriftTerminal(b, newDriftModel(d), opts) },
		markdown: func(b *bytes.Buffer) { renderDriftMarkdown(b, newDriftModel(d)) },
		html:     func(b *bytes.Buffer) error { return renderHTML(b, "drift.html.tmpl", newDriftModel(d)) },
		junit:    func(b *bytes.Buffer) error { return renderDriftJUnit(b, d) },
	}).write(w, f)
}

// renderer renders one kind of report in each format. A nil junit has no
// JUnit form, and noJUnit says why; json is nil only where the caller
// writes JSON itself.
type renderer struct {
	name     string // the report in errors: "run", "drift report"
	terminal func(*bytes.Buffer)
	markdown func(*bytes.Buffer)
	html     func(*bytes.Buffer) error
	json     func(*bytes.Buffer) error
	junit    func(*bytes.Buffer) error
	noJUnit  string
}

// write renders the report in format f and writes it to w whole: nothing
// is written when rendering fails.
func (r *renderer) write(w io.Writer, f Format) error {
	var buf bytes.Buffer
	var err error
	switch {
	case f == Terminal:
		r.terminal(&buf)
	case f == Markdown:
		r.markdown(&buf)
	case f == HTML:
		err = r.html(&buf)
	case f == JSON && r.json != nil:
		err = r.json(&buf)
	case f == JUnit && r.junit == nil:
		return errors.New(r.noJUnit)
	case f == JUnit:
		err = r.junit(&buf)
	default:
		return fmt.Errorf("render %s: unknown format %q", r.name, f)
	}
	if err != nil {
		return fmt.Errorf("render %s as %s: %w", r.name, f, err)
	}
	written := r.name
	if !strings.HasSuffix(written, "report") {
		written += " report"
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", written, err)
	}
	return nil
}

// writeRunJSON writes run as indented JSON followed by a newline, in the
// layout the history keeps it (store.LayoutAuto): a run of many samples per
// prompt stores each distinct answer, detail and metadata value once, so
// that a statistical run's file is a tenth of its plain size and reads back
// (compare --current) in a fraction of the time and memory.
func writeRunJSON(buf *bytes.Buffer, run *promptcanary.Run) error {
	data, err := store.MarshalRunIndent(run, store.LayoutAuto)
	if err != nil {
		return err
	}
	buf.Write(data)
	buf.WriteByte('\n')
	return nil
}

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(buf *bytes.Buffer, v any) error {
	// The store's codec writes what encoding/json cannot (a NaN score
	// read from a Python baseline's null) the way the files are read back.
	data, err := store.MarshalIndent(v)
	if err != nil {
		return err
	}
	buf.Write(data)
	buf.WriteByte('\n')
	return nil
}

// errWriter is w, keeping the first error it returned: a failed write is
// told from a value that cannot be encoded.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}
