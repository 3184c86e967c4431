package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestAdjustmentsAndUnknownPrice: every format says what the model's
// rules changed, and a run whose price is unknown says so instead of
// showing no cost (or $0).
func TestAdjustmentsAndUnknownPrice(t *testing.T) {
	note := "gpt-5 takes no temperature but the default 1: sends 1 instead of 0"
	run := &promptcanary.Run{RunID: "r1", SuiteName: "s",
		Provider:     promptcanary.ProviderConfig{ModelID: "openai/gpt-5", Temperature: 1, MaxTokens: 1024},
		ProbeResults: []promptcanary.ProbeResult{{ProbeID: "x", PromptID: "p", Passed: true, Score: 1}},
		LLMResponses: []promptcanary.Response{{PromptID: "p", Content: "4", PromptTokens: 10, CompletionTokens: 2}},
		Adjustments:  []string{note}}
	for _, f := range []Format{Terminal, Markdown, HTML, JSON} {
		var buf bytes.Buffer
		if err := Run(&buf, f, run, Options{}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, note) {
			t.Errorf("%s: no adjustment note in\n%s", f, out)
		}
		if f != JSON && !strings.Contains(out, "price unknown") {
			t.Errorf("%s: no 'price unknown' in\n%s", f, out)
		}
	}
	var buf bytes.Buffer
	if err := Side(&buf, Markdown, []*promptcanary.Run{run, run}, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "what the model takes: "+note) || !strings.Contains(buf.String(), "price unknown") {
		t.Errorf("side by side:\n%s", buf.String())
	}
}

// TestWarningsAndHTMLBanner: a rule's warning is a note apart from the
// adjustments, and the HTML report shows both near the top, not only in
// the collapsed run details.
func TestWarningsAndHTMLBanner(t *testing.T) {
	adj, warn := "o3-pro takes no temperature on the Responses API: sends none (asked 0)", "gemini thinks before it answers"
	run := &promptcanary.Run{RunID: "r1", SuiteName: "s",
		Provider:     promptcanary.ProviderConfig{ModelID: "openai/o3-pro", MaxTokens: 1024},
		ProbeResults: []promptcanary.ProbeResult{{ProbeID: "x", PromptID: "p", Passed: true, Score: 1}},
		LLMResponses: []promptcanary.Response{{PromptID: "p", Content: "4"}},
		Adjustments:  []string{adj}, Warnings: []string{warn}}
	want := map[Format][]string{
		Terminal: {"adjusted", "note"},
		Markdown: {"| Adjusted | " + adj, "| Note | " + warn},
		JSON:     {`"warnings"`},
	}
	for f, subs := range want {
		var buf bytes.Buffer
		if err := Run(&buf, f, run, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, s := range subs {
			if !strings.Contains(buf.String(), s) {
				t.Errorf("%s: no %q in\n%s", f, s, buf.String())
			}
		}
	}
	var buf bytes.Buffer
	if err := Run(&buf, HTML, run, Options{}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	top, _, _ := strings.Cut(html, "<details")
	if !strings.Contains(top, "Adjusted to what the model takes: "+adj) || !strings.Contains(top, "Note: "+warn) {
		t.Errorf("HTML: adjustments and notes not above the details:\n%s", top)
	}
}

// TestDriftAdjustments: every drift report format says what the current
// run's model rules changed and warn about; a report without them says
// nothing (and its JSON has no such keys, as before).
func TestDriftAdjustments(t *testing.T) {
	adj, warn := "gpt-5 takes no temperature but the default 1: sends 1 instead of 0", "thinking may spend the output limit"
	d := &promptcanary.DriftReport{SuiteName: "s", Provider: promptcanary.ProviderConfig{ModelID: "openai/gpt-5"},
		Method: "single_sample", Adjustments: []string{adj}, Warnings: []string{warn}}
	for _, f := range []Format{Terminal, Markdown, HTML, JSON} {
		var buf bytes.Buffer
		if err := Drift(&buf, f, d, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), adj) || !strings.Contains(buf.String(), warn) {
			t.Errorf("%s: adjustment or warning missing in\n%s", f, buf.String())
		}
	}
	d.Adjustments, d.Warnings = nil, nil
	var buf bytes.Buffer
	if err := Drift(&buf, JSON, d, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "adjustments") || strings.Contains(buf.String(), "warnings") {
		t.Errorf("JSON without adjustments has the keys:\n%s", buf.String())
	}
}
