package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"unicode/utf8"
)

//go:embed templates/*.html.tmpl
var templateFS embed.FS

// classRe matches the characters allowed in a CSS class built from data.
var classRe = regexp.MustCompile(`[^a-z0-9_-]`)

var htmlTemplates = template.Must(template.New("report").Funcs(template.FuncMap{
	"clip":        func(s string) string { return cut(s, detailRunes) },
	"orDash":      orDash,
	"orDefault":   orDefault,
	"generatedBy": func(tool string) string { return generatedBy(cut(tool, 100)) },
	"upper":       strings.ToUpper,
	"shortID":     shortID,
	"cls":         func(v any) string { return classRe.ReplaceAllString(strings.ToLower(fmt.Sprint(v)), "") },
	"errs": func(rows []errorRow, what string) errorSection {
		return errorSection{Rows: rows, What: what}
	},
}).ParseFS(templateFS, "templates/*.html.tmpl"))

// shortID is the first 8 characters of an id, as the CLI lists runs.
func shortID(id string) string {
	if r := []rune(id); len(r) > 8 {
		return string(r[:8])
	}
	return id
}

// errorSection is the data of the shared "errors" template.
type errorSection struct {
	Rows []errorRow
	What string
}

// renderHTML executes the named page template with data.
func renderHTML(buf *bytes.Buffer, name string, data any) error {
	start := buf.Len()
	if err := htmlTemplates.ExecuteTemplate(buf, name, data); err != nil {
		return err
	}
	if page := buf.Bytes()[start:]; mayBeUnsafeInHTML(page) {
		cleaned := CleanHTML(page)
		buf.Truncate(start)
		buf.Write(cleaned)
	}
	return nil
}

// CleanHTML replaces with U+FFFD what html/template passes through but an
// HTML page must not show as is (see unsafeInHTML), in a new slice; it
// returns b itself when b holds none. The dashboard's pages are cleaned
// with it as the reports are.
func CleanHTML(b []byte) []byte {
	if !mayBeUnsafeInHTML(b) {
		return b
	}
	return bytes.Map(func(r rune) rune {
		if unsafeInHTML(r) {
			return utf8.RuneError
		}
		return r
	}, b)
}

// mayBeUnsafeInHTML is a byte scan for what unsafeInHTML matches: ASCII
// controls, C1 controls (0xC2 0x80–0x9F) and the bidirectional overrides
// (0xE2 0x80 0xAA–0xAE, 0xE2 0x81 0xA6–0xA9). Invalid UTF-8 is left to the
// browser, which shows it as U+FFFD.
func mayBeUnsafeInHTML(b []byte) bool {
	for i, c := range b {
		switch {
		case (c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] < 0xa0:
			return true
		case c == 0xe2 && i+2 < len(b) && ((b[i+1] == 0x80 && b[i+2] >= 0xaa && b[i+2] <= 0xae) || (b[i+1] == 0x81 && b[i+2] >= 0xa6 && b[i+2] <= 0xa9)):
			return true
		}
	}
	return false
}

// unsafeInHTML reports whether r must not reach an HTML page as is:
// html/template escapes markup but passes control characters (which are
// invalid in HTML) and bidirectional overrides (which reorder the text a
// reader sees). The templates contain neither, so only data is affected.
func unsafeInHTML(r rune) bool {
	switch {
	case r == '\n' || r == '\r' || r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
