package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/report"
)

//go:embed templates/*.html.tmpl
var templateFS embed.FS

// pageSet holds one template per page, each the layout with the page's
// "content".
type pageSet struct {
	pages map[string]*template.Template
}

// The pages; each has templates/<name>.html.tmpl.
var pageNames = []string{"overview", "check", "run", "incidents", "incident", "login", "error"}

func parsePages(s *server) *pageSet {
	funcs := template.FuncMap{
		"checkURL":    CheckPath,
		"runURL":      RunPath,
		"runReport":   runReportPath,
		"incidentURL": IncidentPath,
		"ago":         s.ago,
		"stamp":       stamp,
		"clock":       func(t time.Time) string { return t.UTC().Format("01-02 15:04:05") },
		"iso":         func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"pct":         pct,
		"pct0":        pct0,
		"short":       shortID,
		"sevClass":    sevClass,
		"dur":         duration,
		"usd":         usd,
		"until":       s.until,
		"q":           qValue,
		"delta":       delta,
		"deltaClass":  deltaClass,
		"count":       plural,
	}
	base := template.Must(template.New("layout").Funcs(funcs).ParseFS(templateFS, "templates/layout.html.tmpl"))
	ps := &pageSet{pages: make(map[string]*template.Template, len(pageNames))}
	for _, name := range pageNames {
		t := template.Must(base.Clone())
		ps.pages[name] = template.Must(t.ParseFS(templateFS, "templates/"+name+".html.tmpl"))
	}
	return ps
}

// layout is the data of every page: the page's own data is Body.
type layout struct {
	Title string
	// Section is the navigation entry to highlight.
	Section string
	CSS, JS string
	// Actions is set when actions are on; Session when the visitor is
	// signed in (forms are shown only then).
	Actions bool
	Session *session
	// Here is the page's path, where a login returns.
	Here string
	// OpenIncidents counts the open incidents, for the navigation.
	OpenIncidents int
	// Refresh asks the script to reload the page now and then.
	Refresh bool
	Now     time.Time
	Body    any
}

// render writes page name with its data, or a 500 page when it fails.
func (s *server) render(w http.ResponseWriter, r *http.Request, status int, name, title, section string, body any) {
	l := layout{
		Title: title, Section: section, CSS: s.assets.cssPath, JS: s.assets.jsPath,
		Actions: s.actions, Session: s.session(r), Here: r.URL.RequestURI(),
		Refresh: name == "overview" || name == "check", Now: s.now(), Body: body,
	}
	for _, st := range s.src.Statuses() {
		l.OpenIncidents += len(st.Open)
	}
	var buf bytes.Buffer
	if err := s.pages.pages[name].ExecuteTemplate(&buf, "layout", l); err != nil {
		s.log.Error("dashboard: render page", "page", name, logErr, err)
		http.Error(w, "internal error: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(report.CleanHTML(buf.Bytes()))
}

// errorView is the data of the error page.
type errorView struct {
	Status        int
	Heading, Text string
}

// errorPage answers with an HTML page explaining the status.
func (s *server) errorPage(w http.ResponseWriter, r *http.Request, status int, heading, text string) {
	s.render(w, r, status, "error", heading, "", errorView{Status: status, Heading: heading, Text: text})
}

func (s *server) notFoundPage(w http.ResponseWriter, r *http.Request) {
	s.errorPage(w, r, http.StatusNotFound, "Page not found", "There is no page at this address.")
}

// ago says how long before now t was: "just now", "4m ago", "3h ago",
// "2d ago"; "—" for the zero time.
func (s *server) ago(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	d := s.now().Sub(t)
	if d < 0 {
		return "in " + span(-d)
	}
	if d < 30*time.Second {
		return "just now"
	}
	return span(d) + " ago"
}

// until says how long after now t is: "in 4m", "due" once it is due, ""
// for the zero time.
func (s *server) until(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := t.Sub(s.now())
	if d <= 0 {
		return "due"
	}
	if d < 30*time.Second {
		return "in a few seconds"
	}
	return "in " + span(d)
}

// plural is n with its noun, singular for one: "1 event", "3 events".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// span is a coarse duration: 45s, 12m, 5h, 3d.
func span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}

// stamp is an absolute UTC time to the second, "—" for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// pct formats a fraction as a percentage with one decimal, "—" when it is
// not a number.
func pct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
}

// pct0 formats a fraction as a whole percentage without the sign.
func pct0(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return strconv.Itoa(int(math.Round(f * 100)))
}

// qValue formats a q-value, "—" when there is none.
func qValue(q float64) string {
	if q <= 0 || math.IsNaN(q) {
		return "—"
	}
	if q < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(q, 'f', 3, 64)
}

// usd formats dollars, "—" for zero.
func usd(f float64) string {
	if f <= 0 || math.IsNaN(f) {
		return "—"
	}
	if f < 0.01 {
		return fmt.Sprintf("$%.4f", f)
	}
	return fmt.Sprintf("$%.2f", f)
}

// duration formats how long something took, "—" when unknown.
func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "—"
	case d < time.Second:
		return strconv.Itoa(int(d/time.Millisecond)) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// shortID is the first 8 characters of an id.
func shortID(id string) string {
	if r := []rune(id); len(r) > 8 {
		return string(r[:8])
	}
	return id
}

// sevClass is the CSS class of a severity's badge.
func sevClass(s promptcanary.Severity) string {
	switch s {
	case promptcanary.SeverityLow, promptcanary.SeverityMedium, promptcanary.SeverityHigh, promptcanary.SeverityCritical:
		return "sev-" + string(s)
	}
	return "sev-none"
}

// delta is the change from base to cur in percentage points.
func delta(cur, base float64) string {
	if !finite(cur) || !finite(base) {
		return "—"
	}
	d := (cur - base) * 100
	if math.Abs(d) < 0.05 {
		return "±0.0"
	}
	if d < 0 {
		return "−" + strconv.FormatFloat(-d, 'f', 1, 64)
	}
	return "+" + strconv.FormatFloat(d, 'f', 1, 64)
}

// deltaClass colours a change: "down" when the pass rate fell by more than
// five points.
func deltaClass(cur, base float64) string {
	if finite(cur) && finite(base) && cur-base < -0.05 {
		return "down"
	}
	return ""
}
