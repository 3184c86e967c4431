package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// renderCandidateJUnit writes an upgrade gate as one <testsuite> with one
// <testcase> per pair (classname the probe instance, name the prompt, as
// in a drift report): a pair worse beyond the margin is a <failure>, an
// inconclusive pair and a pair measured on one model only are <skipped>
// (CI systems count and show skipped tests apart from passed ones, and an
// inconclusive pair has no verdict), and a better or no-worse pair passes
// with its evidence as <system-out>. A gate that compared nothing has an
// <error>, so that it is never green.
func renderCandidateJUnit(buf *bytes.Buffer, r *promptcanary.CandidateReport) error {
	s := junitSuite{Name: xmlSafe("upgrade gate: "+orDefault(r.Suite, "promptcanary"), 200), Time: "0"}
	s.Properties = &junitPropertys{Props: []junitProperty{
		{"verdict", xmlSafe(CandidateVerdict(r), 500)},
		{"current", xmlSafe(r.Current, 200)},
		{"candidate", xmlSafe(r.Candidate, 200)},
		{"margin_points", points(r.Margin)},
		{"alpha", strconv.FormatFloat(r.Alpha, 'f', -1, 64)},
		{"samples", strconv.Itoa(r.Samples)},
	}}
	for _, p := range r.Pairs {
		c := junitCase{Classname: xmlSafe(p.ProbeID, 200), Name: xmlSafe(p.PromptID, 200), Time: "0"}
		evidence := candidateEvidence(p)
		switch p.Verdict {
		case promptcanary.CandidateWorse:
			msg := fmt.Sprintf("worse beyond the margin of %s pts: %s → %s", points(r.Margin), candidateRate(p.Current), candidateRate(p.Candidate))
			c.Failure = &junitProblem{Message: xmlSafe(msg, 500), Type: "worse_beyond_margin",
				Text: xmlSafe(fmt.Sprintf("%s/%s, %s (current) → %s (candidate): %s\n", p.ProbeID, p.PromptID, r.Current, r.Candidate, evidence), junitTextRunes)}
			s.Failures++
		case promptcanary.CandidateInconclusive:
			msg := "inconclusive, more samples needed: " + evidence
			if note := samplesNote(r); note != "" {
				msg += "; " + note
			}
			c.Skipped = &junitProblem{Message: xmlSafe(msg, junitTextRunes)}
			s.Skipped++
		default:
			c.SystemOut = xmlSafe(strings.ReplaceAll(string(p.Verdict), "_", " ")+": "+evidence, junitTextRunes)
		}
		s.Cases = append(s.Cases, c)
	}
	for _, pair := range r.NotCompared {
		// Prompt ids are slugs: a probe instance may hold the slash.
		i := strings.LastIndex(pair, "/")
		probe, prompt := pair[:max(i, 0)], pair[i+1:]
		s.Cases = append(s.Cases, junitCase{Classname: xmlSafe(probe, 200), Name: xmlSafe(prompt, 200), Time: "0",
			Skipped: &junitProblem{Message: "not compared: measured on one model only"}})
		s.Skipped++
	}
	if r.Summary.Pairs == 0 {
		s.Cases = append(s.Cases, junitCase{Classname: "upgrade_gate", Name: "compared", Time: "0",
			Errors: []junitProblem{{Message: "nothing was compared", Type: "nothing_compared", Text: xmlSafe(CandidateVerdict(r), 2000)}}})
		s.Errors++
	}
	s.Tests = len(s.Cases)
	return writeXML(buf, junitSuites{Name: "PromptCanary", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Time: "0", Suites: []junitSuite{s}})
}
