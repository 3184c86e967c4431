package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
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
		{"clean terminal", clean, nil, Terminal, []string{"✓ all probes passed", "duration      2s", "1 passing result not listed"}},
		{"clean markdown", clean, nil, Markdown, []string{"## ✅", "all probes passed", "<summary>✅ Passing results (1)</summary>"}},
		{"unknown status terminal", nil, oddStatus, Terminal, []string{"brand new status (1)", "1 brand new status", "severity NONE", "No summary."}},
		{"unknown status markdown", nil, oddStatus, Markdown, []string{"### ❓ brand new status (1)", "| brand new status |"}},
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
