package drift

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestNothingCompared checks that a report in which no pair could be
// compared is no verdict: no drift, severity none, scores 0, and a summary
// that says nothing was compared and why, never "No drift detected".
func TestNothingCompared(t *testing.T) {
	base := append(binarySamples("p", "a", 30, 30), binarySamples("p", "b", 30, 30)...)
	for _, tc := range []struct {
		name   string
		cur    []res
		errors []promptcanary.CallError
		stale  map[string]bool
		method string
		want   string
	}{
		{name: "all stale", cur: append(binarySamples("p", "a", 0, 5), binarySamples("p", "b", 0, 5)...),
			stale: map[string]bool{"a": true, "b": true},
			want:  "Nothing was compared in 's': none of 2 pair(s) could be compared (2 with a stale baseline), so there is no verdict."},
		{name: "all stale, statistical", cur: append(binarySamples("p", "a", 0, 5), binarySamples("p", "b", 0, 5)...),
			stale: map[string]bool{"a": true, "b": true}, method: MethodStatistical,
			want: "Nothing was compared in 's': none of 2 pair(s) could be compared (2 with a stale baseline), so there is no verdict."},
		{name: "added and removed", cur: append(binarySamples("q", "a", 0, 5), binarySamples("q", "b", 0, 5)...),
			want: "Nothing was compared in 's': none of 4 pair(s) could be compared (2 added since the baseline, 2 removed since the baseline), so there is no verdict."},
		{name: "mixed reasons", cur: binarySamples("p", "a", 0, 5), stale: map[string]bool{"a": true},
			errors: []promptcanary.CallError{{PromptID: "b", Sample: 0, Message: "timeout"}},
			want:   "Nothing was compared in 's': none of 2 pair(s) could be compared (1 with a stale baseline, 1 not measured (most calls failed)), so there is no verdict."},
		{name: "every call failed", errors: []promptcanary.CallError{{PromptID: "a", Message: "401"}, {PromptID: "b", Message: "401"}},
			want: "Nothing was measured in 's': every call of the current run failed (2 failed call(s)), so no pair was compared and there is no verdict."},
		{name: "every call failed, statistical", method: MethodStatistical, errors: []promptcanary.CallError{{PromptID: "a", Message: "401"}, {PromptID: "b", Message: "401"}},
			want: "Nothing was measured in 's': every call of the current run failed (2 failed call(s)), so no pair was compared and there is no verdict."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := makeRun("s", tc.cur)
			run.Errors = tc.errors
			opts := fixedOpts()
			opts.StalePrompts, opts.Method = tc.stale, tc.method
			rep, err := Compare(makeBaseline("s", base), &run, opts)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Compared() != 0 {
				t.Fatalf("got %d compared, want 0", rep.Compared())
			}
			if rep.HasDrift || rep.Severity != promptcanary.SeverityNone {
				t.Errorf("got has_drift %v severity %s, want false none", rep.HasDrift, rep.Severity)
			}
			if rep.Summary != tc.want {
				t.Errorf("got summary %q, want %q", rep.Summary, tc.want)
			}
			if !math.IsNaN(rep.OverallBaselineScore) || !math.IsNaN(rep.OverallCurrentScore) {
				t.Errorf("got overall scores %v → %v, want NaN → NaN (no score was compared)", rep.OverallBaselineScore, rep.OverallCurrentScore)
			}
			for _, n := range rep.Notes {
				if strings.Contains(strings.ToLower(n), "no drift") || strings.Contains(n, "one sample per pair") {
					t.Errorf("got note %q, want no verdict and no method caveat when nothing was compared", n)
				}
			}
			data, err := json.Marshal(rep)
			if err != nil {
				t.Errorf("marshal: %v", err)
			}
			for _, key := range []string{`"overall_baseline_score":null`, `"overall_current_score":null`} {
				if !strings.Contains(string(data), key) {
					t.Errorf("JSON lacks %s", key)
				}
			}
		})
	}
}

// TestSomeCompared checks that a report says how many of how many pairs it
// compared, in both methods.
func TestSomeCompared(t *testing.T) {
	for _, n := range []int{1, 10} {
		base := append(binarySamples("p", "a", 30, 30), binarySamples("p", "b", 30, 30)...)
		base = append(base, binarySamples("p", "c", 30, 30)...)
		cur := append(binarySamples("p", "a", n, n), binarySamples("p", "b", n, n)...)
		cur = append(cur, binarySamples("p", "c", n, n)...)
		run := makeRun("s", cur)
		opts := fixedOpts()
		opts.StalePrompts = map[string]bool{"c": true}
		rep, err := Compare(makeBaseline("s", base), &run, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := " Compared 2 of 3 pairs; not compared: 1 with a stale baseline."
		if !strings.HasSuffix(rep.Summary, want) || !strings.HasPrefix(rep.Summary, "No drift detected") {
			t.Errorf("n=%d: got summary %q, want no drift and %q", n, rep.Summary, want)
		}
		if rep.OverallBaselineScore != 1 || rep.OverallCurrentScore != 1 {
			t.Errorf("n=%d: got overall scores %v → %v, want 1 → 1 over the compared pairs", n, rep.OverallBaselineScore, rep.OverallCurrentScore)
		}
	}
}

// TestExamples checks the typical answer and the distinct answers of each
// side: the most frequent answer, ties to the first sample; tool calls
// count; a baseline without responses leaves its side empty.
func TestExamples(t *testing.T) {
	resp := func(prompt string, sample int, content string, tools ...string) promptcanary.Response {
		r := promptcanary.Response{PromptID: prompt, Sample: sample, Content: content}
		for _, tool := range tools {
			r.ToolCalls = append(r.ToolCalls, promptcanary.ToolCall{Name: tool, Arguments: json.RawMessage(`{"city":"Oslo"}`)})
		}
		return r
	}
	base := makeBaseline("s", append(binarySamples("p", "a", 4, 4), binarySamples("p", "b", 4, 4)...))
	base.RunResult.LLMResponses = []promptcanary.Response{
		// Listed out of sample order: "Paris." and "paris" tie at two each;
		// "paris" came first by sample.
		resp("a", 3, "Paris."), resp("a", 0, "paris"), resp("a", 1, "Paris."), resp("a", 2, "paris"),
		resp("b", 0, "", "get_weather"), resp("b", 1, "", "get_weather"), resp("b", 2, "", "fetch_weather"), resp("b", 3, "", "get_weather"),
	}
	run := makeRun("s", append(binarySamples("p", "a", 0, 4), binarySamples("p", "b", 0, 4)...))
	run.LLMResponses = []promptcanary.Response{
		resp("a", 0, "Lyon"), resp("a", 1, "Lyon"), resp("a", 2, "Lyon"), resp("a", 3, "Marseille"),
		resp("b", 0, "It is sunny."), resp("b", 1, "It is sunny."), resp("b", 2, "It is sunny."), resp("b", 3, "It is sunny."),
	}
	rep, err := Compare(base, &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prompt                    string
		baseEx, curEx             string
		baseDistinct, curDistinct int
	}{
		{"a", "paris", "Lyon", 2, 2},
		{"b", `→ get_weather({"city":"Oslo"})`, "It is sunny.", 2, 1},
	} {
		c := findComparison(rep, "p", tc.prompt)
		if c.BaselineExample != tc.baseEx || c.CurrentExample != tc.curEx || c.BaselineDistinct != tc.baseDistinct || c.CurrentDistinct != tc.curDistinct {
			t.Errorf("prompt %s: got %q (%d) → %q (%d), want %q (%d) → %q (%d)", tc.prompt, c.BaselineExample, c.BaselineDistinct, c.CurrentExample, c.CurrentDistinct,
				tc.baseEx, tc.baseDistinct, tc.curEx, tc.curDistinct)
		}
	}

	// A baseline of the Python tool has no responses.
	base.RunResult.LLMResponses = nil
	rep, err = Compare(base, &run, fixedOpts())
	if err != nil {
		t.Fatal(err)
	}
	if c := findComparison(rep, "p", "a"); c.BaselineExample != "" || c.BaselineDistinct != 0 || c.CurrentExample != "Lyon" || c.CurrentDistinct != 2 {
		t.Errorf("got %q (%d) → %q (%d), want an empty baseline side and the current one", c.BaselineExample, c.BaselineDistinct, c.CurrentExample, c.CurrentDistinct)
	}
}

// TestKinds checks that every change signal has its group and every note
// of a statistical report its kind, with the same texts as the report's
// notes.
func TestKinds(t *testing.T) {
	for kind, want := range map[string]string{"response_length": "length", "completion_tokens": "tokens", "finish_reason": "finish_reason",
		"token_f1": "lexical", "chrf": "lexical", "energy_distance": "lexical", "model": "model", "system_fingerprint": "model", "latency": "other"} {
		if got := promptcanary.SignalGroup(kind); got != want {
			t.Errorf("SignalGroup(%q) = %q, want %q", kind, got, want)
		}
	}
	var base, cur []res
	base = append(binarySamples("p", "a", 30, 30), binarySamples("p", "b", 30, 30)...)
	cur = append(binarySamples("p", "a", 10, 10), binarySamples("p", "b", 10, 10)...)
	b := makeBaseline("s", base)
	run := makeRun("s", cur)
	for i := range 30 {
		b.RunResult.LLMResponses = append(b.RunResult.LLMResponses, promptcanary.Response{PromptID: "a", Sample: i, Content: "short answer", CompletionTokens: 3})
	}
	for i := range 10 {
		run.LLMResponses = append(run.LLMResponses, promptcanary.Response{PromptID: "a", Sample: i, Content: strings.Repeat("a much longer answer ", 20), CompletionTokens: 80})
	}
	opts := fixedOpts()
	opts.StalePrompts = map[string]bool{"b": true}
	rep, err := Compare(b, &run, opts)
	if err != nil {
		t.Fatal(err)
	}
	st := rep.Statistics
	if len(st.Signals) == 0 {
		t.Fatal("got no signals, want some")
	}
	for _, s := range st.Signals {
		if s.Group == "" || s.Group != promptcanary.SignalGroup(s.Kind) {
			t.Errorf("signal %s: got group %q, want %q", s.Kind, s.Group, promptcanary.SignalGroup(s.Kind))
		}
	}
	if len(st.Notes) != len(rep.Notes) {
		t.Fatalf("got %d kinded notes, want one per note (%d)", len(st.Notes), len(rep.Notes))
	}
	kinds := map[string]bool{}
	for i, n := range st.Notes {
		if n.Text != rep.Notes[i] || n.Kind == "" {
			t.Errorf("note %d: got %q %q, want kind and text %q", i, n.Kind, n.Text, rep.Notes[i])
		}
		kinds[n.Kind] = true
	}
	for _, k := range []string{promptcanary.NoteCoverage, promptcanary.NoteSignals} {
		if !kinds[k] {
			t.Errorf("got note kinds %v, want %s among them", kinds, k)
		}
	}
}
