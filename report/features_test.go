package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

// TestFeatures checks content that the golden fixtures do not exercise, in
// every human-readable format.
func TestFeatures(t *testing.T) {
	start := time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	interrupted := &promptcanary.Run{RunID: "r1", SuiteName: "s", StartedAt: start, Interrupted: true,
		ProbeResults: []promptcanary.ProbeResult{{ProbeID: "a", PromptID: "p", Passed: true, Score: 1}}}
	clean := &promptcanary.Run{RunID: "r2", SuiteName: "s", StartedAt: start, FinishedAt: start.Add(2 * time.Second),
		ProbeResults: []promptcanary.ProbeResult{{ProbeID: "a", PromptID: "p", Passed: true, Score: 1}}}
	oddStatus := &promptcanary.DriftReport{ReportID: "d1", Severity: "", Summary: "",
		Comparisons: []promptcanary.Comparison{{ProbeID: "a", PromptID: "p", Status: "brand_new_status"}}}

	tests := []struct {
		name  string
		run   *promptcanary.Run
		drift *promptcanary.DriftReport
		f     Format
		want  []string
	}{
		{"interrupted terminal", interrupted, nil, Terminal, []string{"The run was interrupted", "seed none", "duration      —"}},
		{"interrupted markdown", interrupted, nil, Markdown, []string{"## ❌", "The run was interrupted"}},
		{"interrupted html", interrupted, nil, HTML, []string{"The run was interrupted"}},
		{"clean terminal", clean, nil, Terminal, []string{"✓ all probes passed", "duration      2s", "1 passing pair not listed"}},
		{"clean markdown", clean, nil, Markdown, []string{"## ✅", "The only probe × prompt pair passed", "<summary>✅ Passing pairs (1)</summary>"}},
		{"unknown status terminal", nil, oddStatus, Terminal, []string{"brand new status (1)", "1 brand new status", "nothing compared", "1 brand new status: a/p"}},
		{"unknown status markdown", nil, oddStatus, Markdown, []string{"### ❓ brand new status (1)", "- 1 brand new status: a/p"}},
		{"unknown status html", nil, oddStatus, HTML, []string{"<h2>brand new status <span class=\"badge st-brand_new_status\">1</span></h2>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			var err error
			if tc.run != nil {
				err = Run(&buf, tc.f, tc.run, Options{})
			} else {
				err = Drift(&buf, tc.f, tc.drift, Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("got output without %q, want it:\n%s", w, buf.String())
				}
			}
		})
	}
}

// TestNoColorByDefault checks that colour appears only when asked for.
func TestNoColorByDefault(t *testing.T) {
	run, _ := load(t, "run_failures.json")
	_, drift := load(t, "drift_mixed.json")
	for _, color := range []bool{false, true} {
		var buf bytes.Buffer
		if err := Run(&buf, Terminal, run, Options{Color: color}); err != nil {
			t.Fatal(err)
		}
		if err := Drift(&buf, Terminal, drift, Options{Color: color}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), "\x1b["); got != color {
			t.Errorf("Color %v: got ANSI sequences %v, want %v", color, got, color)
		}
	}
	var buf bytes.Buffer
	if err := Run(&buf, Markdown, run, Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "\x1b") {
		t.Errorf("got ANSI in Markdown with Color set, want colour only in terminal output")
	}
}

// evidenceBlocks returns the evidence of a terminal drift report as the
// renderer wrapped it: the "evidence" lines under regression rows and the
// indented lines under each flagged unit, each block with its lines.
func evidenceBlocks(out string) [][]string {
	var blocks [][]string
	lines := strings.Split(out, "\n")
	inFlagged := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "Flagged groups ("):
			inFlagged = true
			continue
		case l == "":
			inFlagged = false
			continue
		}
		var block []string
		switch {
		case strings.HasPrefix(l, "      evidence  "):
			block = append(block, l)
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], strings.Repeat(" ", 16)) {
				i++
				block = append(block, lines[i])
			}
		case inFlagged && isEvidenceLine(l):
			block = append(block, l)
			for i+1 < len(lines) && isEvidenceLine(lines[i+1]) {
				i++
				block = append(block, lines[i])
			}
		default:
			continue
		}
		blocks = append(blocks, block)
	}
	return blocks
}

// isEvidenceLine reports whether l is a line of a flagged unit's evidence:
// indented by six spaces, where a wrapped unit name is indented further.
func isEvidenceLine(l string) bool {
	return strings.HasPrefix(l, "      ") && len(l) > 6 && l[6] != ' '
}

// noSpace removes every space, so that text wrapped anywhere, even inside a
// word, compares equal to the original.
func noSpace(s string) string { return strings.Join(strings.Fields(s), "") }

// TestTerminalEvidenceWhole checks that every flagged unit's evidence line is
// in the terminal output whole, wrapped within the width at any width.
func TestTerminalEvidenceWhole(t *testing.T) {
	_, flagged := load(t, "drift_stats_flagged.json")
	longKey := strings.Repeat("very_long_probe_name_", 8)
	long := &promptcanary.DriftReport{ReportID: "d", SuiteName: "s", Method: "statistical", HasDrift: true, Severity: "high",
		Statistics: &promptcanary.DriftStatistics{Alpha: 0.01, Units: []promptcanary.TestedUnit{{
			Kind: promptcanary.UnitProbe, Key: longKey, Test: "stratified_exact", P: 1e-6, Q: 1e-5, Rejected: true, Severity: "high",
			Evidence: "probe " + longKey + " over 3 prompts: 90/90 (100.0% [95.9–100.0]) → 10/30 (33.3% [19.2–51.2]); mean Δ −66.7 pts [−81.0, −48.1]; stratified exact p=1.0e-06, q=1.0e-05",
		}}}}
	tests := []struct {
		name string
		d    *promptcanary.DriftReport
	}{
		{"fixture", flagged},
		{"unbreakable key", long},
	}
	for _, tc := range tests {
		// The regressions come first, most severe first, then the flagged
		// groups.
		var want []string
		for _, r := range newDriftModel(tc.d).Regressions {
			want = append(want, noSpace("evidence"+r.Evidence))
		}
		for _, u := range newStatsModel(tc.d.Statistics, tc.d.Comparisons).Flagged {
			want = append(want, noSpace(u.Evidence))
		}
		if len(want) == 0 {
			t.Fatalf("%s: got no flagged evidence, want some to check", tc.name)
		}
		for _, width := range []int{40, 60, 80, 100, 120} {
			t.Run(fmt.Sprint(tc.name, width), func(t *testing.T) {
				var buf bytes.Buffer
				if err := Drift(&buf, Terminal, tc.d, Options{Width: width}); err != nil {
					t.Fatal(err)
				}
				blocks := evidenceBlocks(buf.String())
				var got []string
				for _, b := range blocks {
					got = append(got, noSpace(strings.Join(b, " ")))
					for _, l := range b {
						if w := termtext.Width(l); w > width {
							t.Errorf("evidence line is %d columns, want at most %d: %q", w, width, l)
						}
						if strings.Contains(l, "…") {
							t.Errorf("evidence line cut: %q", l)
						}
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("evidence in the output differs from the report's (-want +got):\n%s\noutput:\n%s", diff, buf.String())
				}
			})
		}
	}
}

// TestStatisticsSections checks the statistical sections in every
// human-readable format, and that a single-sample report has none.
func TestStatisticsSections(t *testing.T) {
	_, flagged := load(t, "drift_stats_flagged.json")
	_, clean := load(t, "drift_stats_clean.json")
	_, single := load(t, "drift_mixed.json")
	fs, cs := flagged.Statistics, clean.Statistics
	var mw, sameAs promptcanary.TestedUnit
	for _, u := range fs.Units {
		if u.Rejected && u.Test == "mann_whitney_exact" {
			mw = u
		}
		if u.SameTestAs != "" && !u.Screened {
			sameAs = u
		}
	}
	if mw.Key == "" || sameAs.Key == "" {
		t.Fatalf("got no flagged Mann–Whitney unit or unit repeating a test in the fixture, want both")
	}
	// A unit repeating another's test shows that test's p-value; a unit
	// is counted flagged only when its own outcome is (the Fisher unit of
	// a pair that regressed by its Mann–Whitney test is not).
	screened, rejected := 0, 0
	var repeatedP float64
	for _, u := range fs.Units {
		if u.Screened {
			screened++
		}
		if u.Rejected {
			rejected++
		}
		if u.Kind+" "+u.Key == sameAs.SameTestAs && u.Test == "fisher" {
			repeatedP = u.P
		}
	}
	noMDD := *clean
	st := *clean.Statistics
	st.MinDetectableDrop = 0
	st.PairDetectableDrop = promptcanary.Interval{}
	noMDD.Statistics = &st
	pairOnly := *clean
	st2 := *clean.Statistics
	st2.MinDetectableDrop = 0
	st2.PairDetectableDrop = promptcanary.Interval{Lower: 0.344, Upper: 0.68}
	pairOnly.Statistics = &st2
	tests := []struct {
		name    string
		d       *promptcanary.DriftReport
		f       Format
		want    []string
		notWant []string
	}{
		{"flagged terminal", flagged, Terminal, []string{
			"refund_policy 6/30 → 4/10 ·\n                math_word_problem 3/30 → 2/10\n",
			"Flagged groups (3)", "CRITICAL  probe     json_validity", "HIGH      suite     support-bot",
			"tests         Fisher exact ×16 · Mann–Whitney (normal approximation) ×3",
			fmt.Sprintf("discrete Benjamini–Hochberg at q = 0.01 over the %d of %d hypotheses that could", fs.Testable, fs.Hypotheses),
			"seed          20250502 · 2000 permutations", "samples       30 baseline / 10 current per pair (largest)",
			fmt.Sprintf("detectable    a drop of %.1f points in every pair's pass rate is caught with power 0.8", 100*fs.MinDetectableDrop),
			fmt.Sprintf("Informational (%d)", len(fs.Warnings)+len(flagged.Notes)), "1 system fingerprint",
			"summarise_doc 15/30 → 7/10 · order_json 11/30 → 5/10",
		}, []string{"would have gone unnoticed", "could only see"}},
		{"clean terminal", clean, Terminal, []string{
			fmt.Sprintf("✓ this run could only see a drop of %.1f points or more across every pair (power 0.8); use\n", 100*cs.MinDetectableDrop),
			"--samples N with --no-adaptive to see smaller ones",
			"4 of 4 prompts gave more than one distinct output",
		}, []string{"Flagged groups", "detectable    "}},
		{"clean without a detectable drop", &noMDD, Terminal, []string{"detectable    the smallest detectable drop could not be computed"},
			[]string{"would have gone unnoticed", "could only see"}},
		{"clean sized by its pairs", &pairOnly, Terminal, []string{"✓ this run could only see drops of 68 points or more per pair (power 0.8; 35 on the most",
			"--samples N with --no-adaptive to see smaller ones"},
			[]string{"detectable    "}},
		{"flagged markdown", flagged, Markdown, []string{
			"### 🚩 Flagged groups (3)", "| 🚨 critical | probe | json\\_validity | probe json\\_validity over 4 prompts:",
			fmt.Sprintf("<summary>All tested units (26: %d flagged, %d screened out)</summary>", rejected, screened),
			fmt.Sprintf("| pair | tone/summarise\\_doc | Mann–Whitney (exact) | %s | %s | HL −0.12 \\[−0.14, −0.10\\] | 🟠 pair regression (medium) |", pValue(mw.P), qValue(mw.Q)),
			fmt.Sprintf("| %s | %s | stratified exact | %s | %s |", sameAs.Kind, mdText(sameAs.Key, 100), pValue(repeatedP), qValue(sameAs.Q)),
			"| q < p | 2 flagged units have q below p, as expected: discrete Benjamini–Hochberg (Döhler, Durand &amp; Roquain 2018) scales a p-value by how many of the 12 testable units could reach one that small",
			"| pair | tone/summarise\\_doc | Fisher exact | 1.000 | — | \\+0.0 pts \\[−27.8, +11.4\\] | not flagged by this test; the pair regressed by its Mann–Whitney (exact) test |",
			"not flagged, same test as " + mdText(sameAs.SameTestAs, 100) + " |",
			fmt.Sprintf("### ℹ️ Informational (%d)", len(fs.Warnings)+len(flagged.Notes)), "<summary>system fingerprint (1)</summary>", "<summary>Change signals (21)</summary>",
			"| system fingerprint | — | 1 | 1 | — | — | ⚠️ yes |", "| energy distance | summarise\\_doc | — | 1.5 | 0.001 | 0.004 | ⚠️ yes |",
			"| summarise\\_doc | 15/30 | 7/10 |",
		}, nil},
		{"clean markdown", clean, Markdown, []string{
			fmt.Sprintf("✅ **this run could only see a drop of %.1f points or more across every pair (power 0.8); use --samples N with --no-adaptive to see smaller ones**", 100*cs.MinDetectableDrop),
		}, []string{"Flagged groups", "q below p"}},
		{"flagged html", flagged, HTML, []string{
			`<h2>Flagged groups <span class="badge st-regression">3</span></h2>`,
			`<td class="num">HL −0.12 [−0.14, −0.10]</td><td><span class="badge sev-medium">medium</span> <span class="muted">pair regression</span></td>`,
			fmt.Sprintf("<summary>All tested units (26: %d flagged, %d screened out)</summary>", rejected, screened), "<summary>Distinct answers per prompt</summary>",
			`<li>system fingerprint changed: baseline &#34;fp_44709d6fcb&#34;, now also &#34;fp_b28b39ffa8&#34;</li>`,
		}, nil},
		{"clean html", clean, HTML, []string{fmt.Sprintf("this run could only see a drop of %.1f points or more across every pair (power 0.8); use --samples N with --no-adaptive to see smaller ones", 100*cs.MinDetectableDrop)},
			[]string{"Flagged groups"}},
		{"single-sample terminal", single, Terminal, nil, []string{"Statistics", "Flagged groups", "Distinct answers per prompt"}},
		{"single-sample markdown", single, Markdown, nil, []string{"Statistics", "Flagged groups", "Distinct answers per prompt"}},
		{"single-sample html", single, HTML, nil, []string{"Statistics", "Flagged groups", "Distinct answers per prompt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Drift(&buf, tc.f, tc.d, Options{}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			checkOutput(t, out, tc.want, tc.notWant)
		})
	}
}

// TestStatsModel checks which units are listed apart, the order of units
// and prompts, and the formatting of the statistics.
func TestStatsModel(t *testing.T) {
	pairEv := "29/30 → 3/10; Fisher p=4.7e-05, q=9.5e-05"
	scoreEv := "median score 0.86 → 0.73; Mann–Whitney p=1.2e-09, q=3.9e-09"
	st := &promptcanary.DriftStatistics{Alpha: 0.01, Seed: 7, Permutations: 100, MinDetectableDrop: 0.0566,
		Units: []promptcanary.TestedUnit{
			{Kind: "pair", Key: "a/p", Test: "fisher", P: 0.5, Q: 1, Screened: true, Effect: 0.1, Interval: promptcanary.Interval{Lower: -0.05, Upper: 0.2}},
			{Kind: "pair", Key: "b/p", Test: "fisher", P: 4.7e-5, Q: 9.5e-5, Rejected: true, Severity: "high", Evidence: pairEv},
			{Kind: "pair", Key: "b/p", Test: "mann_whitney_exact", P: 1.2e-9, Q: 3.9e-9, Rejected: true, Severity: "medium", Effect: -0.12,
				Interval: promptcanary.Interval{Lower: -0.14, Upper: -0.1}, Evidence: scoreEv},
			{Kind: "probe", Key: "b", Test: "stratified_exact", P: 0.0004, Q: 0.003, Rejected: true, Severity: "medium"},
			{Kind: "suite", Key: "s", Test: "stratified_permutation_permutation", P: 0.0001, Q: 0.002, Rejected: true, Severity: "critical"},
			{Kind: "category", Key: "format", Test: "brand_new_test", P: 0.02, Q: 0.04},
		},
		Signals: []promptcanary.ChangeSignal{
			{Kind: "response_length", PromptID: "p", Baseline: 55.25, Current: 1234.4, P: 2.4e-9, Q: 1.2e-8, Flagged: true},
			{Kind: "system_fingerprint", Baseline: 1, Current: 2, Flagged: true},
		},
	}
	for i := range 12 {
		st.Nondeterminism = append(st.Nondeterminism, promptcanary.PromptNondeterminism{PromptID: fmt.Sprintf("p%02d", i),
			BaselineSamples: 30, BaselineDistinct: 1 + i%4, CurrentSamples: 10, CurrentDistinct: 1 + i%3})
	}
	cs := []promptcanary.Comparison{{ProbeID: "b", PromptID: "p", Status: promptcanary.StatusRegression, Regression: true, Severity: "high", Evidence: pairEv}}
	m := newStatsModel(st, cs)

	var flagged, units, nondet []string
	for _, u := range m.Flagged {
		flagged = append(flagged, u.Kind+" "+u.Key+" "+u.Test)
	}
	var pairSeverity []string
	for _, u := range m.Units {
		units = append(units, u.Kind+" "+u.Key+" "+u.Outcome+" "+u.Q)
		if u.Key == "b/p" {
			pairSeverity = append(pairSeverity, u.Severity)
		}
	}
	for _, r := range m.Nondet {
		nondet = append(nondet, r.PromptID+" "+r.Baseline+" "+r.Current)
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"flagged apart: the groups of pairs, not the pairs", flagged, []string{
			"suite s stratified permutation (Monte Carlo)", "probe b stratified exact"}},
		{"one severity per pair, its comparison's", pairSeverity, []string{"high", "high"}},
		{"units: flagged by severity, then the rest", units, []string{
			"suite s flagged 0.002", "pair b/p pair regression 9.5e-05", "probe b flagged 0.003", "pair b/p pair regression 3.9e-09",
			"category format not flagged 0.04", "pair a/p screened out —"}},
		{"counts", [2]int{m.Rejected, m.Screened}, [2]int{4, 1}},
		{"clean", m.Clean, false},
		{"tests in order of appearance", m.Tests,
			"Fisher exact ×2 · Mann–Whitney (exact) ×1 · stratified exact ×1 · stratified permutation (Monte Carlo) ×1 · brand new test ×1"},
		{"detectable", m.DetectableLine(), "a drop of 5.7 points in every pair's pass rate is caught with power 0.8"},
		{"pair effect", m.Units[len(m.Units)-1].Effect, "+10.0 pts [−5.0, +20.0]"},
		{"score effect", m.Units[3].Effect, "HL −0.12 [−0.14, −0.10]"},
		{"signal values", [4]string{m.Signals[0].Baseline, m.Signals[0].Current, m.Signals[0].P, m.Signals[0].Q}, [4]string{"55.2", "1234", "2.4e-09", "1.2e-08"}},
		{"fingerprint is a fact", [3]string{m.Signals[1].Kind, m.Signals[1].PromptID, m.Signals[1].P + m.Signals[1].Q}, [3]string{"system fingerprint", "—", "——"}},
		{"nondeterminism worst first, top ten", nondet, []string{
			"p11 4/30 3/10", "p02 3/30 3/10", "p05 2/30 3/10", "p08 1/30 3/10", "p07 4/30 2/10",
			"p10 3/30 2/10", "p01 2/30 2/10", "p04 1/30 2/10", "p03 4/30 1/10", "p06 3/30 1/10"}},
		{"nondeterminism counts", [3]int{m.NondetMore, m.NondetVaried, m.NondetTotal}, [3]int{2, 11, 12}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("got %v, want %v (-want +got):\n%s", tc.got, tc.want, diff)
			}
		})
	}
}

func TestStatisticsNumbers(t *testing.T) {
	checkFormatted(t, []formatted{
		{"p large", pValue(0.0258), "0.026"},
		{"p small", pValue(4.7e-5), "4.7e-05"},
		{"p one", pValue(1), "1.000"},
		{"q large", qValue(0.0369), "0.04"},
		{"q between", qValue(0.0034), "0.003"},
		{"q small", qValue(9.5e-5), "9.5e-05"},
		{"signed negative", signedFixed(-36.66, 1), "−36.7"},
		{"signed negative zero", signedFixed(-0.004, 2), "+0.00"},
		{"signed positive", signedFixed(3.33, 1), "+3.3"},
		{"measure", measure(0.91234), "0.912"},
		{"measure large", measure(425.6), "426"},
		{"test label", testLabel("mann_whitney_normal"), "Mann–Whitney (normal approximation)"},
		{"test label unknown how", testLabel("fisher_mid_p"), "Fisher exact (mid p)"},
		{"test label unknown", testLabel("chi_square"), "chi square"},
		{"test label empty", testLabel(""), "—"},
	})
}

func TestWrapWhole(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		width int
		want  []string
	}{
		{"short", "a b c", 20, []string{"a b c"}},
		{"wraps at spaces", "aaaa bbbb cccc dddd eeee", 20, []string{"aaaa bbbb cccc dddd", "eeee"}},
		{"breaks a long word", strings.Repeat("x", 45) + " end", 20, []string{strings.Repeat("x", 20), strings.Repeat("x", 20), "xxxxx end"}},
		{"wide runes", strings.Repeat("你", 15), 20, []string{strings.Repeat("你", 10), strings.Repeat("你", 5)}},
		{"empty", "", 20, []string{""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapWhole(tc.in, tc.width)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("wrapWhole(%q, %d) got %q, want %q", tc.in, tc.width, got, tc.want)
			}
		})
	}
}
