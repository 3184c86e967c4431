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
	page := render(HTML, Options{})
	checkOutput(t, page, []string{
		`<p class="summary verdict-fail"><span class="badge fail">worse</span> candidate sim/drifted is no worse than sim/stable on 1 of 3 pairs`,
		"<h2>Worse beyond the margin <span class=\"badge fail\">1</span></h2>",
		"<h2>Inconclusive: more samples needed <span class=\"badge warn\">1</span></h2>",
		"<summary>No worse (1)</summary>",
		"<p>Method: per pair, Chan&#39;s exact test",
	}, []string{"\x1b"})
	junit := render(JUnit, Options{})
	checkOutput(t, junit, []string{
		`<testsuite name="upgrade gate: s" tests="3" failures="1" errors="0" skipped="1"`,
		`<failure message="worse beyond the margin of 5 pts: 30/30 (100.0%) → 0/30 (0.0%)" type="worse_beyond_margin">`,
		`<testcase name="a" classname="unsure" time="0">` + "\n" + `      <skipped message="inconclusive, more samples needed: 30/30 (100.0%) → 28/30 (93.3%)`,
		`<testcase name="a" classname="fine" time="0">` + "\n" + `      <system-out>no worse: 30/30 (100.0%) → 30/30 (100.0%)`,
	}, []string{"\x1b"})
}

func TestCandidateGolden(t *testing.T) {
	var r promptcanary.CandidateReport
	loadJSON(t, "candidate_mixed.json", &r)
	for _, v := range append(goldenVariants, goldenVariant{"junit", JUnit, Options{}}) {
		t.Run(v.suffix, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Candidate(&buf, v.format, &r, v.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, "candidate_mixed."+v.suffix+".golden", buf.Bytes())
		})
	}
}

// hostileCandidate is an upgrade gate whose suite, models and pair ids
// (from canary.yaml and the command line) hold markup, terminal escapes
// and bidirectional overrides.
func hostileCandidate() *promptcanary.CandidateReport {
	r := candidateReport()
	r.Suite = "suite <b>" + hostile[:40]
	r.Current, r.Candidate = "fake/<img src=x onerror=alert(1)>", hostile[:30]
	for i := range r.Pairs {
		r.Pairs[i].ProbeID, r.Pairs[i].PromptID = hostileKey, hostile[:60]
	}
	r.NotCompared = []string{hostileKey + "/" + hostile[:17]}
	r.Summary.NotCompared = 1
	return r
}

func TestCandidateEscaped(t *testing.T) {
	render := func(f Format) string {
		var b bytes.Buffer
		if err := Candidate(&b, f, hostileCandidate(), Options{Verbose: true}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return b.String()
	}
	page := render(HTML)
	checkHostileHTML(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;", "\u202e")
	checkOutput(t, page, []string{
		"<td class=\"id\">probe&lt;script&gt;x&lt;/script&gt;|k|\\x1b\ufffd[31mRED\ufffd`code`@all</td>",
		"<code>fake/&lt;img src=x onerror=alert(1)&gt;</code>",
		"<code>probe&lt;script&gt;x&lt;/script&gt;",
	}, nil)
	junit := render(JUnit)
	checkOutput(t, junit, []string{"classname=\"probe&lt;script&gt;x&lt;/script&gt;|k|\\x1b\ufffd[31mRED",
		"<testcase name=\"&lt;script&gt;alert(1)&lt;\" classname=\"probe&lt;script&gt;x&lt;/script&gt;|k|\\x1b\ufffd[31mRED"},
		[]string{"<script", "<img", "<b>", "\x1b", "\x07"})
}
