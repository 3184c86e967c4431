package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func candidateReport() *promptcanary.CandidateReport {
	pair := func(probe string, cur, cand int, v promptcanary.CandidateVerdict) promptcanary.CandidatePair {
		return promptcanary.CandidatePair{ProbeID: probe, PromptID: "a",
			Current: promptcanary.PassCount{Passed: cur, N: 30}, Candidate: promptcanary.PassCount{Passed: cand, N: 30},
			Delta: float64(cand-cur) / 30, Interval: [2]float64{-1, -0.839}, PWorse: 1.6e-17, QWorse: 0.0151, Verdict: v}
	}
	return &promptcanary.CandidateReport{
		Suite: "s", Current: "sim/stable", Candidate: "sim/drifted", Margin: 0.05, Alpha: 0.01, Samples: 30,
		Pairs: []promptcanary.CandidatePair{
			pair("broken|\x1b[31mred", 30, 0, promptcanary.CandidateWorse),
			pair("fine", 30, 30, promptcanary.CandidateNoWorse),
			pair("unsure", 30, 28, promptcanary.CandidateInconclusive),
		},
		Summary:              promptcanary.CandidateSummary{Pairs: 3, NoWorse: 1, Worse: 1, Inconclusive: 1},
		SamplesToShowNoWorse: 108,
	}
}

func TestCandidateVerdict(t *testing.T) {
	r := candidateReport()
	want := "candidate sim/drifted is no worse than sim/stable on 1 of 3 pairs (margin 5 pts); worse on 1: broken|\x1b[31mred/a; inconclusive on 1"
	if got := CandidateVerdict(r); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	r.Summary = promptcanary.CandidateSummary{}
	if got := CandidateVerdict(r); !strings.HasPrefix(got, "nothing was compared") {
		t.Errorf("no pairs: got %q", got)
	}
	var ps []promptcanary.CandidatePair
	for range 7 {
		ps = append(ps, promptcanary.CandidatePair{ProbeID: "p", PromptID: "x"})
	}
	if got, want := pairList(ps, 5), "p/x, p/x, p/x, p/x, p/x and 2 more"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCandidateRenders(t *testing.T) {
	r := candidateReport()
	render := func(f Format, opts Options) string {
		var b bytes.Buffer
		if err := Candidate(&b, f, r, opts); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return b.String()
	}
	term := render(Terminal, Options{Width: 300})
	for _, want := range []string{
		"✗ candidate sim/drifted is no worse than sim/stable on 1 of 3 pairs",
		"Worse beyond the margin (1)",
		"30/30 (100.0%) → 0/30 (0.0%); Δ −100.0 pts [−100.0, −83.9]; worse p=1.6e-17, q=0.015",
		"Inconclusive: more samples needed (1)",
		"with 108 samples per prompt (--samples 108)",
	} {
		if !strings.Contains(term, want) {
			t.Errorf("terminal: missing %q in\n%s", want, term)
		}
	}
	if strings.Contains(term, "\x1b[31m") || strings.Contains(term, "fine/a") {
		t.Errorf("terminal: an escape code, or a no-worse pair without -v:\n%s", term)
	}
	if !strings.Contains(render(Terminal, Options{Width: 300, Verbose: true}), "No worse (1)") {
		t.Error("terminal -v: no-worse pairs not listed")
	}
	md := render(Markdown, Options{})
	if !strings.Contains(md, "## ❌ PromptCanary upgrade gate") || !strings.Contains(md, "| broken&#124;") || strings.Contains(md, "\x1b") {
		t.Errorf("markdown: want the failing icon and the pair escaped, got\n%s", md)
	}
	var back promptcanary.CandidateReport
	if err := json.Unmarshal([]byte(render(JSON, Options{})), &back); err != nil || back.Pairs[0].Verdict != promptcanary.CandidateWorse || back.SamplesToShowNoWorse != 108 {
		t.Errorf("json: got %+v, %v", back, err)
	}
	for _, f := range []Format{HTML, JUnit} {
		if err := Candidate(&bytes.Buffer{}, f, r, Options{}); err == nil {
			t.Errorf("%s: got no error, want one (no such form)", f)
		}
	}
}
