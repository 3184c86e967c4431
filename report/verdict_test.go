package report

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

// render renders a run or a drift report in f.
func render(t *testing.T, f Format, run *promptcanary.Run, d *promptcanary.DriftReport, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	var err error
	if run != nil {
		err = Run(&buf, f, run, opts)
	} else {
		err = Drift(&buf, f, d, opts)
	}
	if err != nil {
		t.Fatalf("render %s: %v", f, err)
	}
	return buf.String()
}

// TestNothingMeasured checks that a run whose every call failed shows no
// score in any format, and says so.
func TestNothingMeasured(t *testing.T) {
	start := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	run := &promptcanary.Run{RunID: "r", SuiteName: "s", StartedAt: start,
		Errors: []promptcanary.CallError{{PromptID: "p1", Message: "connection refused"}, {PromptID: "p2", Message: "connection refused"}}}
	tests := []struct {
		f       Format
		want    []string
		notWant []string
	}{
		{Terminal, []string{"⚠ Nothing was measured: every call failed (2 call errors)", "score n/a · pass rate n/a: nothing was measured", "⚠ nothing measured"}, []string{"1.00", "100.0%", "all probes passed"}},
		{Markdown, []string{"## ⚠️ PromptCanary run report", "**Nothing was measured: every call failed", "Score n/a · pass rate n/a: nothing was measured"}, []string{"1.00", "100.0%", "✅"}},
		{HTML, []string{`<p class="summary verdict-none">Nothing was measured`, `<div class="value">n/a</div><div class="muted">nothing was measured</div>`}, []string{"1.00", "100.0%"}},
		{JUnit, []string{`errors="2"`, `<error message="sample 0 failed after — attempts: connection refused" type="call_error">`}, nil},
	}
	for _, tc := range tests {
		t.Run(string(tc.f), func(t *testing.T) {
			checkOutput(t, render(t, tc.f, run, nil, Options{}), tc.want, tc.notWant)
		})
	}
	t.Run("side by side", func(t *testing.T) {
		var buf bytes.Buffer
		ok := &promptcanary.Run{RunID: "ok", SuiteName: "s", Provider: promptcanary.ProviderConfig{ModelID: "a"},
			ProbeResults: []promptcanary.ProbeResult{{ProbeID: "x", PromptID: "p1", Passed: true, Score: 1}}}
		none := &promptcanary.Run{RunID: "none", SuiteName: "s", Provider: promptcanary.ProviderConfig{ModelID: "b"}, Errors: run.Errors}
		if err := Side(&buf, Terminal, []*promptcanary.Run{ok, none}, Options{}); err != nil {
			t.Fatal(err)
		}
		checkOutput(t, buf.String(), []string{"Score                              1.00            n/a", "measured nothing: every call failed"}, nil)
	})
	t.Run("no errors either", func(t *testing.T) {
		empty := &promptcanary.Run{RunID: "r", SuiteName: "s"}
		checkOutput(t, render(t, Terminal, empty, nil, Options{}), []string{"Nothing was measured: the run has no probe results"}, []string{"1.00"})
		checkOutput(t, render(t, JUnit, empty, nil, Options{}), []string{`type="nothing_measured"`, `errors="1"`}, nil)
	})
}

// TestPartlyMeasured checks that a run which measured all but one call
// says what became of that call, in one grammatical sentence, and never
// reads as a run with nothing failed.
func TestPartlyMeasured(t *testing.T) {
	run := &promptcanary.Run{RunID: "r", SuiteName: "s", Samples: 2,
		Errors: []promptcanary.CallError{{PromptID: "p1", Sample: 1, Message: "connection refused"}}}
	for _, id := range []string{"p1", "p2"} {
		for smp := range 2 {
			if id == "p1" && smp == 1 {
				continue
			}
			run.LLMResponses = append(run.LLMResponses, promptcanary.Response{PromptID: id, Sample: smp, Content: "ok"})
			run.ProbeResults = append(run.ProbeResults, promptcanary.ProbeResult{ProbeID: "x", PromptID: id, Sample: smp, Passed: true, Score: 1})
		}
	}
	want := "All 2 probe × prompt pairs passed (3 results); 1 of 4 calls failed after retries, so its answer was not judged."
	for _, f := range []Format{Terminal, Markdown, HTML} {
		t.Run(string(f), func(t *testing.T) {
			checkOutput(t, render(t, f, run, nil, Options{Width: 200}), []string{want}, []string{"failed and were"})
		})
	}
}

// notCompared builds a drift report whose pairs have the given statuses.
func notCompared(statuses ...promptcanary.Status) *promptcanary.DriftReport {
	d := &promptcanary.DriftReport{ReportID: "d", SuiteName: "s", Method: "single_sample", Severity: "none",
		Summary: "No drift detected.", OverallBaselineScore: 1, OverallCurrentScore: 1}
	for i, s := range statuses {
		d.Comparisons = append(d.Comparisons, promptcanary.Comparison{ProbeID: "probe", PromptID: fmt.Sprintf("p%d", i), Status: s,
			BaselinePassed: true, CurrentPassed: true, BaselineScore: 1, CurrentScore: 1})
	}
	return d
}

// TestNothingCompared checks that a report that compared nothing never
// reads "No drift detected", and says why in every format.
func TestNothingCompared(t *testing.T) {
	d := notCompared(promptcanary.StatusStale, promptcanary.StatusStale, promptcanary.StatusNotMeasured, promptcanary.StatusAdded)
	tests := []struct {
		f    Format
		want []string
	}{
		{Terminal, []string{"⚠ Nothing was compared, so there is no verdict on drift: of 4 pairs, 1 not measured, 2 stale baseline and 1 added.",
			"None of the 4 pairs was compared:", "• 2 stale baseline (the prompt, its probes or the parameters sent changed since the baseline): probe/p0, probe/p1",
			"• 1 not measured (the current run's calls failed): probe/p2", "severity      n/a (nothing was compared)", "⚠ nothing compared"}},
		{Markdown, []string{"## ⚠️ PromptCanary drift report", "**Nothing was compared, so there is no verdict on drift", "- 1 added (only in the current run): probe/p3"}},
		{HTML, []string{`<span class="badge warn">nothing compared</span> Nothing was compared`, "<strong>2 stale baseline</strong>"}},
		{JUnit, []string{`skipped="4"`, `<skipped message="not compared: stale baseline (the prompt, its probes or the parameters sent changed since the baseline)">`, `type="nothing_compared"`, `errors="1"`}},
	}
	for _, tc := range tests {
		t.Run(string(tc.f), func(t *testing.T) {
			out := render(t, tc.f, nil, d, Options{Width: 200})
			checkOutput(t, out, tc.want, []string{"No drift detected", "1.00 → 1.00"})
		})
	}
}

// TestPartlyCompared checks that a report says up front how many pairs it
// compared and names the others, capped with a count.
func TestPartlyCompared(t *testing.T) {
	statuses := []promptcanary.Status{promptcanary.StatusStable, promptcanary.StatusStable}
	for range 8 {
		statuses = append(statuses, promptcanary.StatusRemoved)
	}
	d := notCompared(statuses...)
	out := render(t, Terminal, nil, d, Options{Width: 200})
	checkOutput(t, out, []string{"No drift detected in the 2 compared pairs. Only 2 of 10 pairs were compared.",
		"Only 2 of 10 pairs were compared; not compared:", "8 removed (only in the baseline): probe/p2, probe/p3, probe/p4, probe/p5, probe/p6 and 3 more"}, nil)
	if i, j := strings.Index(out, "Only 2 of 10"), strings.Index(out, "severity "); i < 0 || j < i {
		t.Errorf("got the coverage at %d and the severity at %d, want the coverage first", i, j)
	}
	md := render(t, Markdown, nil, d, Options{})
	checkOutput(t, md, []string{"- 8 removed (only in the baseline): probe/p2, probe/p3, probe/p4, probe/p5, probe/p6 and 3 more"}, nil)
}

// severityReport has one pair whose comparison says critical while its
// second test, a Mann–Whitney unit, says medium, and a pair sharing its test.
func severityReport() *promptcanary.DriftReport {
	return &promptcanary.DriftReport{ReportID: "d", SuiteName: "s", Method: "statistical", HasDrift: true, Severity: "critical",
		Comparisons: []promptcanary.Comparison{
			{ProbeID: "a", PromptID: "p", Status: promptcanary.StatusRegression, Regression: true, Severity: "critical",
				Evidence: "30/30 → 0/5; Fisher p=3.1e-06", Baseline: promptcanary.SampleStats{N: 30, Passes: 30}, Current: promptcanary.SampleStats{N: 5},
				BaselineExample: "Paris.", CurrentExample: "Great question! The capital of France is Paris.", BaselineDistinct: 1, CurrentDistinct: 2},
			{ProbeID: "b", PromptID: "p", Status: promptcanary.StatusRegression, Regression: true, Severity: "critical", SharedTestWith: "a/p",
				Evidence: "30/30 → 0/5; Fisher p=3.1e-06", Baseline: promptcanary.SampleStats{N: 30, Passes: 30}, Current: promptcanary.SampleStats{N: 5}},
		},
		Statistics: &promptcanary.DriftStatistics{Alpha: 0.01, Units: []promptcanary.TestedUnit{
			{Kind: promptcanary.UnitPair, Key: "a/p", Test: "fisher", P: 3e-6, Q: 3e-6, Rejected: true, Severity: "critical", Evidence: "30/30 → 0/5; Fisher p=3.1e-06"},
			{Kind: promptcanary.UnitPair, Key: "a/p", Test: "mann_whitney_exact", P: 1e-3, Q: 2e-3, Rejected: true, Severity: "medium", Evidence: "median score 1 → 0.5"},
		}},
	}
}

// TestOneSeverityPerPair checks that a pair shows its comparison's severity
// wherever it appears, and says which test it shares.
func TestOneSeverityPerPair(t *testing.T) {
	d := severityReport()
	tests := []struct {
		f       Format
		want    []string
		notWant []string
	}{
		{Terminal, []string{"CRITICAL  a/p · 100.0% (30/30) → 0.0% (0/5)", "CRITICAL  b/p · 100.0% (30/30) → 0.0% (0/5) (same test as pair a/p)",
			"test      same test as pair a/p"}, []string{"MEDIUM", "Flagged groups"}},
		{Markdown, []string{"| 🚨 critical | b/p | 100\\.0% (30/30) → 0.0% (0/5) | same test as pair a/p |", "Same test as pair a/p"}, []string{"medium", "Flagged groups"}},
		{HTML, []string{"same test as pair <code>a/p</code>", `<span class="badge warn">same test as pair a/p</span>`}, []string{"badge sev-medium", "Flagged groups"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.f), func(t *testing.T) {
			checkOutput(t, render(t, tc.f, nil, d, Options{Verbose: true, Width: 120}), tc.want, tc.notWant)
		})
	}
}

// TestExamplesDiff checks the example answers of a regression and their
// word diff in every format.
func TestExamplesDiff(t *testing.T) {
	d := severityReport()
	d.Comparisons[0].CurrentExample = "Great question! ```` The capital of France is Paris."
	tests := []struct {
		f    Format
		opts Options
		want []string
	}{
		{Terminal, Options{}, []string{"answers   baseline → current (baseline 1 distinct answer in 30 samples, current 2 distinct answers in 5",
			"{+Great question! ```` The capital of France is +}Paris."}},
		{Terminal, Options{Color: true}, []string{ansiGreen + ansiBold + "Great" + ansiReset}},
		{Markdown, Options{}, []string{"**Baseline answer** (1 distinct answer in 30 samples):\n\n```text\nParis.\n```",
			"**Current answer** (2 distinct answers in 5 samples):\n\n`````text\nGreat question! ```` The capital of France is Paris.\n`````"}},
		{HTML, Options{}, []string{`<pre class="answer">Paris.</pre>`, "<pre class=\"answer\"><ins>Great question! ```` The capital of France is </ins>Paris.</pre>"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.f), func(t *testing.T) {
			tc.opts.Width = 200
			checkOutput(t, render(t, tc.f, nil, d, tc.opts), tc.want, nil)
		})
	}
}

// TestGroupedResults checks that the samples of a pair are one row with a
// pass count and its distinct failures counted.
func TestGroupedResults(t *testing.T) {
	run := &promptcanary.Run{RunID: "r", SuiteName: "s", Samples: 5}
	for i := range 5 {
		details := "too long"
		if i == 4 {
			details = "not JSON"
		}
		run.ProbeResults = append(run.ProbeResults, promptcanary.ProbeResult{ProbeID: "len", PromptID: "p", Sample: i, Passed: i < 2, Details: details})
		run.LLMResponses = append(run.LLMResponses, promptcanary.Response{PromptID: "p", Sample: i, Content: fmt.Sprintf("answer %d", i)})
	}
	tests := []struct {
		f    Format
		want []string
	}{
		{Terminal, []string{"2/5 passed", "failed    ×2 too long", "not JSON", "response  answer 2"}},
		{Markdown, []string{"| len |  | p | 2/5 passed | 0.00 | ×2 too long<br>not JSON | answer 2 |"}},
		{HTML, []string{`<span class="badge fail">2/5 passed</span>`, `<pre><span class="count">×2</span> too long</pre><pre>not JSON</pre>`}},
		{JUnit, []string{`<testcase name="p" classname="len" time="0">`, `<failure message="2/5 passed: too long" type="probe_failure">`}},
	}
	for _, tc := range tests {
		t.Run(string(tc.f), func(t *testing.T) {
			out := render(t, tc.f, run, nil, Options{})
			checkOutput(t, out, tc.want, nil)
			if n := strings.Count(out, "too long"); n != 1 && tc.f != JUnit {
				t.Errorf("got %q %d times, want once", "too long", n)
			}
		})
	}
}

// bigSuite builds a 200-prompt run with long answers and many failures, and
// a drift report of it where most pairs regressed.
func bigSuite() (*promptcanary.Run, *promptcanary.DriftReport) {
	long := strings.Repeat("The answer goes on and on with words | and <tags> and `code` ", 60)
	run := &promptcanary.Run{RunID: "big", SuiteName: "big", Samples: 5}
	d := &promptcanary.DriftReport{ReportID: "big", SuiteName: "big", Method: "statistical", HasDrift: true, Severity: "critical"}
	for p := range 200 {
		prompt := fmt.Sprintf("prompt-%03d", p)
		for s := range 5 {
			run.LLMResponses = append(run.LLMResponses, promptcanary.Response{PromptID: prompt, Sample: s, Content: long})
			for k := range 10 {
				run.ProbeResults = append(run.ProbeResults, promptcanary.ProbeResult{ProbeID: fmt.Sprintf("probe-%d", k), PromptID: prompt, Sample: s,
					Passed: (p+k+s)%3 == 0, Details: fmt.Sprintf("failure %d of a long kind: %s", s, long[:300])})
			}
		}
		for k := range 10 {
			c := promptcanary.Comparison{ProbeID: fmt.Sprintf("probe-%d", k), PromptID: prompt, Status: promptcanary.StatusStable,
				Baseline: promptcanary.SampleStats{N: 30, Passes: 30}, Current: promptcanary.SampleStats{N: 5, Passes: 5}, Evidence: "no drop > 20 pts detectable"}
			if (p+k)%2 == 0 {
				c.Status, c.Regression, c.Severity = promptcanary.StatusRegression, true, promptcanary.Severity([]string{"low", "medium", "high", "critical"}[(p+k)%4])
				c.Current.Passes = 0
				c.Evidence = "30/30 → 0/5; Fisher p=3.1e-06, q=2.4e-06 " + long[:200]
				c.BaselineExample, c.CurrentExample = long, "Different: "+long
				c.BaselineDetails, c.CurrentDetails = "ok", long
			}
			d.Comparisons = append(d.Comparisons, c)
		}
	}
	return run, d
}

// TestMarkdownFitsComment checks that a 200-prompt suite's Markdown stays
// under GitHub's comment limit and still starts with the summary and the
// first regressions.
func TestMarkdownFitsComment(t *testing.T) {
	run, d := bigSuite()
	runMD := render(t, Markdown, run, nil, Options{})
	driftMD := render(t, Markdown, nil, d, Options{})
	first := newDriftModel(d).Regressions[0]
	tests := []struct {
		name string
		out  string
		want []string
	}{
		{"run", runMD, []string{"**2,000 of 2,000 probe × prompt pairs failed", "### ❌ Failures (2000)", "| probe-0 |  | prompt-000 |", "This report was cut to fit a GitHub comment"}},
		{"drift", driftMD, []string{"**Drift detected (severity CRITICAL): 1000 of 2000 compared pairs regressed.**", "### What regressed",
			"| " + severityIcon(first.Severity) + " " + first.Severity + " | " + mdText(first.Key, 200) + " |", "### 🔴 Regressions (1000)", "**Baseline answer", "This report was cut to fit a GitHub comment"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Logf("%s Markdown: %d bytes, %d characters", tc.name, len(tc.out), len([]rune(tc.out)))
			if len(tc.out) >= mdMaxBytes {
				t.Errorf("got %d bytes, want fewer than %d", len(tc.out), mdMaxBytes)
			}
			checkOutput(t, tc.out, tc.want, nil)
			if strings.Count(tc.out, "<details>") != strings.Count(tc.out, "</details>") {
				t.Errorf("got %d <details> and %d </details>, want them balanced", strings.Count(tc.out, "<details>"), strings.Count(tc.out, "</details>"))
			}
			stripFences(t, tc.out)
		})
	}
}

// TestJUnitSchema validates the JUnit output of every report kind, hostile
// input included, against the JUnit XML schema in testdata/junit.xsd (the
// Ant/Surefire shape that Jenkins, GitLab and GitHub test reporters read).
func TestJUnitSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not found: run 'bash scripts/test-deps.sh' (installs Debian's libxml2-utils) to validate JUnit output against its schema")
	}
	run, drift := load(t, "run_failures.json")
	_ = drift
	_, flagged := load(t, "drift_stats_flagged.json")
	_, mixed := load(t, "drift_mixed.json")
	big, bigDrift := bigSuite()
	hostileR, hostileD := hostileRun(), hostileDrift()
	hostileR.ProbeResults[0].Details += "\x00\x01\x0b\x0c\ufffe\uffff]]>"
	cases := []struct {
		name   string
		render func(*bytes.Buffer) error
	}{
		{"run", func(b *bytes.Buffer) error { return Run(b, JUnit, run, Options{}) }},
		{"drift statistical", func(b *bytes.Buffer) error { return Drift(b, JUnit, flagged, Options{}) }},
		{"drift mixed", func(b *bytes.Buffer) error { return Drift(b, JUnit, mixed, Options{}) }},
		{"drift nothing compared", func(b *bytes.Buffer) error {
			return Drift(b, JUnit, notCompared(promptcanary.StatusStale, promptcanary.StatusNotMeasured), Options{})
		}},
		{"side by side", func(b *bytes.Buffer) error { return Side(b, JUnit, sideRuns(), Options{}) }},
		{"big run", func(b *bytes.Buffer) error { return Run(b, JUnit, big, Options{}) }},
		{"big drift", func(b *bytes.Buffer) error { return Drift(b, JUnit, bigDrift, Options{}) }},
		{"hostile run", func(b *bytes.Buffer) error { return Run(b, JUnit, hostileR, Options{}) }},
		{"hostile drift", func(b *bytes.Buffer) error { return Drift(b, JUnit, hostileD, Options{}) }},
		{"upgrade gate", func(b *bytes.Buffer) error { return Candidate(b, JUnit, candidateReport(), Options{}) }},
		{"upgrade gate nothing compared", func(b *bytes.Buffer) error {
			return Candidate(b, JUnit, &promptcanary.CandidateReport{Suite: "s", NotCompared: []string{"p/a"}}, Options{})
		}},
		{"hostile upgrade gate", func(b *bytes.Buffer) error { return Candidate(b, JUnit, hostileCandidate(), Options{}) }},
	}
	dir := t.TempDir()
	schema, err := filepath.Abs(filepath.Join("testdata", "junit.xsd"))
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.render(&buf); err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{"\x00", "\x01", "\x0b", "\ufffe", "<script"} {
				if strings.Contains(buf.String(), bad) {
					t.Errorf("got raw %q in JUnit XML, want it replaced or escaped", bad)
				}
			}
			path := filepath.Join(dir, fmt.Sprintf("%d.xml", i))
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(xmllint, "--noout", "--schema", schema, path).CombinedOutput()
			if err != nil {
				t.Errorf("xmllint rejects the JUnit output: %v\n%s", err, out)
			}
		})
	}
}

func TestTrendsHaveNoJUnit(t *testing.T) {
	var buf bytes.Buffer
	err := Trends(&buf, JUnit, &TrendData{Suite: "s"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "no JUnit form") {
		t.Errorf("got error %v, want one saying trends have no JUnit form", err)
	}
	if buf.Len() != 0 {
		t.Errorf("got %d bytes written, want none", buf.Len())
	}
}
