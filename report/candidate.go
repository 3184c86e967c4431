package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

// Candidate writes the outcome of an upgrade gate (compare --candidate) in
// format f to w: the verdict sentence, then the pairs where the candidate
// is worse beyond the margin, better, and inconclusive, each with its
// evidence (the no-worse pairs too when opts.Verbose). Nothing is written
// when rendering fails. HTML is one self-contained page with every
// pair's table (the no-worse pairs folded); JUnit has one test case per
// pair, failed when it is worse beyond the margin and skipped when it is
// inconclusive.
func Candidate(w io.Writer, f Format, r *promptcanary.CandidateReport, opts Options) error {
	if r == nil {
		return errors.New("render candidate comparison: nil report")
	}
	return (&renderer{
		name:     "candidate comparison",
		terminal: func(b *bytes.Buffer) { renderCandidateTerminal(b, r, opts) },
		markdown: func(b *bytes.Buffer) { renderCandidateMarkdown(b, r) },
		html:     func(b *bytes.Buffer) error { return renderHTML(b, "candidate.html.tmpl", newCandidatePage(r)) },
		json:     func(b *bytes.Buffer) error { return writeJSON(b, r) },
		junit:    func(b *bytes.Buffer) error { return renderCandidateJUnit(b, r) },
	}).write(w, f)
}

// CandidateVerdict is the one-sentence verdict of an upgrade gate, such as
// "candidate sim/drifted is no worse than sim/stable on 54 of 56 pairs
// (margin 5 pts); worse on 1: p/a; inconclusive on 1". Model names and
// pair ids are as given: a renderer escapes the sentence.
func CandidateVerdict(r *promptcanary.CandidateReport) string {
	s := r.Summary
	if s.Pairs == 0 {
		return fmt.Sprintf("nothing was compared: no pair was measured on both %s and %s, so there is no verdict", r.Current, r.Candidate)
	}
	v := fmt.Sprintf("candidate %s is no worse than %s on %d of %d pairs (margin %s pts)",
		r.Candidate, r.Current, s.NoWorse, s.Pairs, points(r.Margin))
	if s.Better > 0 {
		v += fmt.Sprintf(", better on %d", s.Better)
	}
	if s.Worse > 0 {
		v += fmt.Sprintf("; worse on %d: %s", s.Worse, pairList(r.With(promptcanary.CandidateWorse), 5))
	}
	if s.Inconclusive > 0 {
		v += fmt.Sprintf("; inconclusive on %d", s.Inconclusive)
	}
	return v
}

// pairList names up to limit pairs, "p/a, p/b and 3 more".
func pairList(ps []promptcanary.CandidatePair, limit int) string {
	var names []string
	for i, p := range ps {
		if i == limit {
			return strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(ps)-limit)
		}
		names = append(names, p.ProbeID+"/"+p.PromptID)
	}
	return strings.Join(names, ", ")
}

// points formats a share as points: 0.05 → "5", 0.025 → "2.5".
func points(share float64) string {
	return strconv.FormatFloat(share*100, 'f', -1, 64)
}

// candidateRate formats a pass count: "29/30 (96.7%)".
func candidateRate(c promptcanary.PassCount) string {
	if c.N == 0 {
		return "0/0"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", c.Passed, c.N, 100*float64(c.Passed)/float64(c.N))
}

// candidateEvidence is the evidence of one pair: "30/30 (100.0%) →
// 0/30 (0.0%); Δ −100.0 pts [−100.0, −88.6]; worse p=1.2e-09, q=2.4e-09".
func candidateEvidence(p promptcanary.CandidatePair) string {
	return fmt.Sprintf("%s → %s; Δ %s pts %s; %s", candidateRate(p.Current), candidateRate(p.Candidate),
		signedFixed(100*p.Delta, 1), candidateInterval(p), candidateTests(p))
}

// candidateInterval is the 95% interval of a pair's Δ in points:
// "[−100.0, −83.9]".
func candidateInterval(p promptcanary.CandidatePair) string {
	return fmt.Sprintf("[%s, %s]", signedFixed(100*p.Interval[0], 1), signedFixed(100*p.Interval[1], 1))
}

// candidateTests are the p- and q-values of the test that decided a pair:
// "worse p=1.2e-09, q=2.4e-09"; both margin tests when none rejected.
func candidateTests(p promptcanary.CandidatePair) string {
	switch p.Verdict {
	case promptcanary.CandidateWorse:
		return fmt.Sprintf("worse p=%s, q=%s", pValue(p.PWorse), pValue(p.QWorse))
	case promptcanary.CandidateBetter:
		return fmt.Sprintf("better p=%s, q=%s", pValue(p.PBetter), pValue(p.QBetter))
	}
	return fmt.Sprintf("no worse p=%s, q=%s; worse p=%s, q=%s",
		pValue(p.PNoWorse), pValue(p.QNoWorse), pValue(p.PWorse), pValue(p.QWorse))
}

// samplesNote says how many samples the inconclusive pairs would need at
// best; empty when nothing is inconclusive.
func samplesNote(r *promptcanary.CandidateReport) string {
	switch {
	case r.Summary.Inconclusive == 0:
		return ""
	case r.SamplesToShowNoWorse == 0:
		return fmt.Sprintf("at a margin of %s points, even a pair that passes every sample on both models needs more than 200 samples per prompt to be shown no worse; a wider --margin needs fewer", points(r.Margin))
	}
	return fmt.Sprintf("a pair that passes every sample on both models is shown no worse at a margin of %s points with %d samples per prompt (--samples %d); a pair whose candidate fails some needs more",
		points(r.Margin), r.SamplesToShowNoWorse, r.SamplesToShowNoWorse)
}

// candidateSections are the groups of pairs a report lists, in order.
// style is the terminal's colour of a group, badge its HTML badge class.
var candidateSections = []struct {
	verdict promptcanary.CandidateVerdict
	title   string
	style   string
	badge   string
	verbose bool
}{
	{promptcanary.CandidateWorse, "Worse beyond the margin", ansiRed, "fail", false},
	{promptcanary.CandidateBetter, "Better", ansiGreen, "pass", false},
	{promptcanary.CandidateInconclusive, "Inconclusive: more samples needed", ansiYellow, "warn", false},
	{promptcanary.CandidateNoWorse, "No worse", "", "pass", true},
}

// candidateMethod says how the verdicts were reached.
func candidateMethod(r *promptcanary.CandidateReport) string {
	return fmt.Sprintf("per pair, Chan's exact test of the Farrington–Manning statistic for a margin of %s points and Fisher's exact test for better; "+
		"Benjamini–Hochberg over %d pairs at q ≤ %s; %d samples per prompt on each model, same prompts and seed; scores count as passed or failed",
		points(r.Margin), r.Summary.Pairs, strconv.FormatFloat(r.Alpha, 'f', -1, 64), r.Samples)
}

func renderCandidateTerminal(b *bytes.Buffer, r *promptcanary.CandidateReport, opts Options) {
	t := &term{b: b, color: opts.Color, width: opts.width()}
	t.line(t.paint(ansiBold, "PromptCanary upgrade gate"), " · ", t.paint(ansiBold, termtext.Truncate(termtext.Safe(r.Suite), t.width-30)))
	t.line()
	style, mark := ansiGreen, "✓ "
	switch {
	case r.Summary.Worse > 0:
		style, mark = ansiRed, "✗ "
	case r.Summary.Pairs == 0 || r.Summary.Inconclusive > 0:
		style, mark = ansiYellow, "⚠ "
	}
	for i, l := range wrap(termtext.Safe(mark+CandidateVerdict(r)), t.width-2) {
		if i > 0 {
			l = "  " + l
		}
		t.line(t.paint(ansiBold+style, l))
	}
	t.field("method", candidateMethod(r))
	for _, s := range candidateSections {
		ps := r.With(s.verdict)
		if len(ps) == 0 || (s.verbose && !opts.Verbose) {
			continue
		}
		t.heading(s.style, fmt.Sprintf("%s (%d)", s.title, len(ps)))
		if s.verdict == promptcanary.CandidateInconclusive {
			t.para("  ", "", samplesNote(r))
		}
		for _, p := range ps {
			t.para("  ", termtext.Safe(p.ProbeID+"/"+p.PromptID)+": ", candidateEvidence(p))
		}
	}
	if len(r.NotCompared) > 0 {
		t.heading(ansiYellow, fmt.Sprintf("Not compared: measured on one model only (%d)", len(r.NotCompared)))
		t.para("  ", "", strings.Join(r.NotCompared, ", "))
	}
}

func renderCandidateMarkdown(b *bytes.Buffer, r *promptcanary.CandidateReport) {
	w := newMD(b)
	icon := "✅"
	switch {
	case r.Summary.Worse > 0:
		icon = "❌"
	case r.Summary.Pairs == 0 || r.Summary.Inconclusive > 0:
		icon = "⚠️"
	}
	w.line("## ", icon, " PromptCanary upgrade gate: ", mdText(r.Suite, 200))
	w.line()
	w.line("**", mdText(CandidateVerdict(r), 2000), "**")
	w.line()
	w.line(mdText(candidateMethod(r), 1000))
	w.cut()
	for _, s := range candidateSections {
		ps := r.With(s.verdict)
		if len(ps) == 0 || s.verbose {
			continue
		}
		w.heading(fmt.Sprintf("### %s (%d)", s.title, len(ps)))
		if s.verdict == promptcanary.CandidateInconclusive {
			w.line(mdText(samplesNote(r), 1000))
			w.line()
		}
		rows := make([][]string, len(ps))
		for i, p := range ps {
			rows[i] = []string{mdText(p.ProbeID+"/"+p.PromptID, 200), mdText(candidateEvidence(p), 400)}
		}
		w.table([]string{"pair", "evidence"}, "ll", rows)
	}
	if len(r.NotCompared) > 0 {
		w.heading(fmt.Sprintf("### Not compared: measured on one model only (%d)", len(r.NotCompared)))
		w.line(mdText(strings.Join(r.NotCompared, ", "), 4000))
		w.cut()
	}
	w.finish()
}
