package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
)

// The JUnit XML written for CI systems (GitHub, GitLab, Jenkins): the
// Maven Surefire dialect of the Ant format, which all of them read; the
// tests validate it against that format's schema (testdata/junit.xsd).
//
// A run is one <testsuite> with one <testcase> per (probe, prompt) pair:
// classname is the probe instance, name the prompt; a pair with a failing
// sample has a <failure> with its pass count and distinct failure details.
// Calls that failed for good are <error>s of a testcase per prompt, with
// classname "calls". A drift report has one <testcase> per pair: a
// regression is a <failure> with its severity and evidence, a pair that was
// not compared is <skipped> with the reason.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties *junitPropertys `xml:"properties,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitPropertys struct {
	Props []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Time      string         `xml:"time,attr"`
	Failure   *junitProblem  `xml:"failure,omitempty"`
	Errors    []junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem  `xml:"skipped,omitempty"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// junitTextRunes bounds the text of one failure, error or output.
const junitTextRunes = 4000

// xmlSafe replaces what XML 1.0 cannot hold (controls other than tab and
// line breaks, U+FFFE, U+FFFF, invalid UTF-8) with U+FFFD, and cuts s to
// limit runes.
func xmlSafe(s string, limit int) string {
	s = cut(s, limit)
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xfffe, r == 0xffff, r == utf8.RuneError, r >= 0xd800 && r <= 0xdfff:
			return utf8.RuneError
		}
		return r
	}, s)
}

func junitSeconds(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// runSuite is the testsuite of one run; name prefixes its classnames for a
// side-by-side report of several providers.
func runSuite(r *promptcanary.Run, prefix string) junitSuite {
	return modelSuite(newRunModel(r), r.SuiteName, r.StartedAt, r.Duration(), prefix)
}

// modelSuite is the testsuite of a run prepared for display (a run's or a
// streamed run's), of the suite named suite.
func modelSuite(m *runModel, suite string, started time.Time, took time.Duration, prefix string) junitSuite {
	s := junitSuite{Name: xmlSafe(orDefault(strings.TrimSpace(prefix+suite), "promptcanary"), 200), Time: junitSeconds(took)}
	if !started.IsZero() {
		s.Timestamp = started.UTC().Format("2006-01-02T15:04:05")
	}
	s.Properties = &junitPropertys{Props: []junitProperty{
		{"provider", xmlSafe(m.Model, 200)},
		{"run_id", xmlSafe(m.RunID, 200)},
		{"samples", strconv.Itoa(m.Samples)},
		{"score", m.Score},
		{"pass_rate", m.PassRate},
	}}
	if m.Stream != nil {
		s.Properties.Props = append(s.Properties.Props, junitProperty{"source", xmlSafe(m.Stream.Source, 200)}, junitProperty{"answers", m.Stream.Lines})
	}
	groups := append(slices.Clone(m.Failed), m.Passing...)
	slices.SortStableFunc(groups, func(a, b resultGroup) int {
		return strings.Compare(a.ProbeID+"\x00"+a.PromptID, b.ProbeID+"\x00"+b.PromptID)
	})
	for _, g := range groups {
		c := junitCase{Classname: xmlSafe(prefix+g.ProbeID, 200), Name: xmlSafe(g.PromptID, 200), Time: "0"}
		if !g.Passed {
			var b strings.Builder
			fmt.Fprintf(&b, "%s · %s · %s, mean score %s\n", g.Probe, g.PromptID, g.Count(), g.Score)
			for _, d := range g.Failures {
				b.WriteString("- " + orDash(d.Label()) + "\n")
			}
			if g.Example != "" {
				b.WriteString("\nexample response:\n" + g.Example + "\n")
			}
			c.Failure = &junitProblem{Message: xmlSafe(g.Count()+": "+firstFailure(g), 500), Type: "probe_failure", Text: xmlSafe(b.String(), junitTextRunes)}
			s.Failures++
		} else if g.Details != "" {
			c.SystemOut = xmlSafe(g.Count()+": "+g.Details, junitTextRunes)
		}
		s.Cases = append(s.Cases, c)
	}
	s.Cases = append(s.Cases, junitErrorCases(m.Errors, prefix, &s)...)
	if !m.Measured && len(m.Errors) == 0 {
		// A run that measured nothing is never green.
		s.Cases = append(s.Cases, junitCase{Classname: xmlSafe(prefix+"run", 200), Name: "measured", Time: "0",
			Errors: []junitProblem{{Message: "nothing was measured", Type: "nothing_measured", Text: xmlSafe(m.Verdict, 500)}}})
		s.Errors++
	}
	s.Tests = len(s.Cases)
	return s
}

func firstFailure(g resultGroup) string {
	if len(g.Failures) == 0 {
		return "failed"
	}
	return g.Failures[0].Text
}

// junitErrorCases is one testcase per prompt with failed calls, each call
// an <error>.
func junitErrorCases(errs []errorRow, prefix string, s *junitSuite) []junitCase {
	var out []junitCase
	index := make(map[string]int)
	for _, e := range errs {
		i, ok := index[e.PromptID]
		if !ok {
			i = len(out)
			index[e.PromptID] = i
			out = append(out, junitCase{Classname: xmlSafe(prefix+"calls", 200), Name: xmlSafe(e.PromptID, 200), Time: "0"})
			s.Errors++
		}
		msg := fmt.Sprintf("sample %d failed after %s attempts: %s", e.Sample, e.Attempts, e.Message)
		if e.Provider != "" {
			msg = e.Provider + ": " + msg
		}
		out[i].Errors = append(out[i].Errors, junitProblem{Message: xmlSafe(cut(msg, 300), 400), Type: "call_error", Text: xmlSafe(msg, junitTextRunes)})
	}
	return out
}

func renderRunJUnit(buf *bytes.Buffer, runs []*promptcanary.Run, prefixes bool) error {
	var suites []junitSuite
	var total time.Duration
	for i, r := range runs {
		prefix := ""
		if prefixes {
			prefix = sideColumns(runs)[i].Name + "/"
		}
		suites = append(suites, runSuite(r, prefix))
		total += r.Duration()
	}
	return writeXML(buf, suitesOf(suites, total))
}

// suitesOf gathers testsuites that took total in all.
func suitesOf(suites []junitSuite, total time.Duration) junitSuites {
	all := junitSuites{Name: "PromptCanary", Time: junitSeconds(total)}
	for _, s := range suites {
		all.Suites = append(all.Suites, s)
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
	}
	return all
}

func renderDriftJUnit(buf *bytes.Buffer, d *promptcanary.DriftReport) error {
	m := newDriftModel(d)
	s := junitSuite{Name: xmlSafe("drift: "+orDefault(d.SuiteName, "promptcanary"), 200), Time: "0"}
	if !d.GeneratedAt.IsZero() {
		s.Timestamp = d.GeneratedAt.UTC().Format("2006-01-02T15:04:05")
	}
	s.Properties = &junitPropertys{Props: driftProps(d, m)}
	cs := slices.Clone(d.Comparisons)
	slices.SortStableFunc(cs, func(a, b promptcanary.Comparison) int {
		return strings.Compare(a.ProbeID+"\x00"+a.PromptID, b.ProbeID+"\x00"+b.PromptID)
	})
	reasons := make(map[promptcanary.Status]string)
	for _, info := range statusInfo {
		reasons[info.status] = info.reason
	}
	for _, c := range cs {
		jc := junitCase{Classname: xmlSafe(c.ProbeID, 200), Name: xmlSafe(c.PromptID, 200), Time: "0"}
		rows := compRows([]*promptcanary.Comparison{&c}, c.Regression)
		r := rows[0]
		label := strings.ReplaceAll(string(c.Status), "_", " ")
		switch {
		case c.Regression:
			var b strings.Builder
			fmt.Fprintf(&b, "regression, severity %s: pass rate %s, score %s → %s (%s)\n", r.Severity, r.RateLine(), r.Baseline, r.Current, r.Delta)
			if r.SharedWith != "" {
				b.WriteString("same test as pair " + r.SharedWith + "\n")
			}
			if r.Evidence != "" {
				b.WriteString("evidence: " + r.Evidence + "\n")
			}
			if r.BaselineDetails != "" {
				b.WriteString("baseline: " + r.BaselineDetails + "\n")
			}
			if r.CurrentDetails != "" {
				b.WriteString("current: " + r.CurrentDetails + "\n")
			}
			if r.HasExamples() {
				b.WriteString("\nbaseline answer:\n" + cut(r.BaseExample, 1000) + "\n\ncurrent answer:\n" + cut(r.CurExample, 1000) + "\n")
			}
			jc.Failure = &junitProblem{Message: xmlSafe("regression ("+r.Severity+"): "+r.RateLine(), 500), Type: "regression", Text: xmlSafe(b.String(), junitTextRunes)}
			s.Failures++
		case !c.Compared():
			msg := "not compared: " + label
			if reason := reasons[c.Status]; reason != "" {
				msg += " (" + reason + ")"
			}
			jc.Skipped = &junitProblem{Message: xmlSafe(msg, 500)}
			s.Skipped++
		default:
			out := label
			if c.Evidence != "" {
				out += ": " + c.Evidence
			}
			jc.SystemOut = xmlSafe(out, junitTextRunes)
		}
		s.Cases = append(s.Cases, jc)
	}
	s.Cases = append(s.Cases, junitErrorCases(m.Errors, "", &s)...)
	if m.NothingCompared() {
		// A comparison that saw nothing is never green.
		s.Cases = append(s.Cases, junitCase{Classname: "drift", Name: "compared", Time: "0",
			Errors: []junitProblem{{Message: "nothing was compared", Type: "nothing_compared", Text: xmlSafe(m.Verdict, 2000)}}})
		s.Errors++
	}
	s.Tests = len(s.Cases)
	all := junitSuites{Name: "PromptCanary", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Time: "0", Suites: []junitSuite{s}}
	return writeXML(buf, all)
}

// driftProps are the properties of a drift report's test suite: its
// verdict, where it came from, and its signals of their own.
func driftProps(d *promptcanary.DriftReport, m *driftModel) []junitProperty {
	props := []junitProperty{
		{"verdict", xmlSafe(m.Verdict, 500)},
		{"severity", xmlSafe(m.Severity, 50)},
		{"method", xmlSafe(d.Method, 50)},
		{"compared", fmt.Sprintf("%d/%d", m.Compared, m.Total)},
		{"provider", xmlSafe(d.Provider.ModelID, 200)},
		{"baseline", xmlSafe(d.BaselineSnapshotID, 200)},
		{"report_id", xmlSafe(d.ReportID, 200)},
	}
	if id := d.Identity; id != nil {
		props = append(props, junitProperty{"identity", xmlSafe(id.Line(), 500)}, junitProperty{"identity_verdict", id.Verdict})
	}
	if a := d.Attribution; a != nil && a.Cause != "" {
		props = append(props, junitProperty{"attribution", xmlSafe(a.Line(), 2000)}, junitProperty{"attribution_cause", xmlSafe(a.Cause, 50)})
	}
	return append(props, economicsProps(d.Economics)...)
}

// writeXML writes v as an indented XML document.
func writeXML(buf *bytes.Buffer, v any) error {
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(buf)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.WriteByte('\n')
	return nil
}
