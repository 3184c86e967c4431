package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
)

// summaryOf aggregates a run's results as a streamed run would.
func summaryOf(r *promptcanary.Run) *promptcanary.RunSummary {
	s := &promptcanary.RunSummary{Kind: promptcanary.KindRunSummary, RunID: r.RunID, SuiteName: r.SuiteName, Provider: r.Provider,
		Source: "logs.jsonl", StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Errors: r.Errors}
	at := map[promptcanary.PairKey]int{}
	content := map[string]string{}
	for _, resp := range r.LLMResponses {
		s.Lines++
		s.Judged++
		if _, ok := content[resp.PromptID]; !ok {
			content[resp.PromptID] = resp.Content
		}
	}
	for _, pr := range r.ProbeResults {
		i, ok := at[pr.Key()]
		if !ok {
			i = len(s.Pairs)
			at[pr.Key()] = i
			s.Pairs = append(s.Pairs, promptcanary.PairSummary{ProbeID: pr.ProbeID, ProbeName: pr.ProbeName, Category: pr.Category,
				PromptID: pr.PromptID, Details: pr.Details})
		}
		p := &s.Pairs[i]
		p.N++
		p.ScoreSum += pr.Score
		if pr.Passed {
			p.Passes++
			continue
		}
		if p.Example == "" {
			p.Example = content[pr.PromptID]
		}
		found := false
		for j := range p.Failures {
			if p.Failures[j].Details == pr.Details {
				p.Failures[j].N++
				found = true
			}
		}
		if !found {
			p.Failures = append(p.Failures, promptcanary.DetailCount{Details: pr.Details, N: 1})
		}
	}
	return s
}

func result(probe, prompt string, sample int, passed bool, score float64, details string) promptcanary.ProbeResult {
	return promptcanary.ProbeResult{ProbeID: probe, ProbeName: probe, Category: promptcanary.CategoryFormat, PromptID: prompt,
		Sample: sample, Passed: passed, Score: score, Details: details}
}

func summaryRun() *promptcanary.Run {
	r := &promptcanary.Run{RunID: "run-1", SuiteName: "suite", Provider: promptcanary.ProviderConfig{ModelID: "replay/logs.jsonl"},
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), FinishedAt: time.Date(2025, 1, 2, 3, 4, 7, 0, time.UTC)}
	for s := range 5 {
		r.LLMResponses = append(r.LLMResponses, promptcanary.Response{PromptID: "a", Sample: s, Content: "answer <script>alert(1)</script>"})
		r.LLMResponses = append(r.LLMResponses, promptcanary.Response{PromptID: "b", Sample: s, Content: "fine"})
		r.ProbeResults = append(r.ProbeResults,
			result("json_validity", "a", s, s == 0, float64(s%2), fmt.Sprintf("not JSON (%d)", s%2)),
			result("refusal", "a", s, true, 1, "no refusal"),
			result("json_validity", "b", s, true, 1, "valid"))
	}
	return r
}

// TestSummaryModelAgreesWithRunModel: a run's report and the report of its
// results aggregated as a stream list the same pairs with the same counts,
// scores, failure details and examples.
func TestSummaryModelAgreesWithRunModel(t *testing.T) {
	r := summaryRun()
	want, got := newRunModel(r), newSummaryModel(summaryOf(r))
	type row struct {
		Key, Count, Score, Details, Example string
		Failures                            []detailCount
	}
	rows := func(gs []resultGroup) []row {
		var out []row
		for _, g := range gs {
			out = append(out, row{g.ProbeID + "/" + g.PromptID, g.Count(), g.Score, g.Details, g.Example, g.Failures})
		}
		return out
	}
	if diff := cmp.Diff(rows(want.Failed), rows(got.Failed)); diff != "" {
		t.Errorf("failing pairs (-run +summary):\n%s", diff)
	}
	if diff := cmp.Diff(rows(want.Passing), rows(got.Passing)); diff != "" {
		t.Errorf("passing pairs (-run +summary):\n%s", diff)
	}
	if diff := cmp.Diff(want.Categories, got.Categories); diff != "" {
		t.Errorf("categories (-run +summary):\n%s", diff)
	}
	if want.Verdict != got.Verdict || want.Score != got.Score || want.PassRate != got.PassRate || want.Samples != got.Samples {
		t.Errorf("verdict %q, score %s, pass rate %s, samples %d; the run's %q, %s, %s, %d", got.Verdict, got.Score, got.PassRate, got.Samples,
			want.Verdict, want.Score, want.PassRate, want.Samples)
	}
}

// TestSummaryFormats renders a streamed run in every format: each says it
// was streamed and how many lines were read, lists the failing pair with
// its counted details and the lines for unknown prompts, and escapes the
// untrusted answer and prompt ids.
func TestSummaryFormats(t *testing.T) {
	s := summaryOf(summaryRun())
	s.Lines += 7
	s.UnknownLines = 7
	s.Unknown = []promptcanary.UnknownPrompt{{PromptID: "<b>evil</b>", Lines: 4}, {PromptID: "other", Lines: 3}}
	s.Pairs[0].OtherFailures = 2
	s.Pairs[0].N += 2
	for _, tc := range []struct {
		f    Format
		want []string
		not  []string
	}{
		{Terminal, []string{"1 of 3 probe × prompt pairs failed", "17 lines read, 10 judged", "×2 not JSON (1)", "×2 with other details (more than 32 distinct)",
			"7 lines for 2 prompt(s) not in the suite", "Streamed run: every line was judged"}, nil},
		{Markdown, []string{"1 of 3 probe × prompt pairs failed", "17 lines read, 10 judged", "×2 not JSON (1)", "Streamed run", "&lt;b&gt;evil"}, []string{"<script>", "<b>evil"}},
		{HTML, []string{"1 of 3 probe × prompt pairs failed", "17 lines read, 10 judged", "Streamed run", "&lt;script&gt;"}, []string{"<script>alert", "<b>evil"}},
		{JUnit, []string{`name="a"`, "not JSON (1)", `name="answers" value="17 lines read, 10 judged`}, []string{"<script>alert"}},
		{JSON, []string{`"kind": "run_summary"`, `"unknown_lines": 7`}, nil},
	} {
		t.Run(string(tc.f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := Summary(&buf, tc.f, s, Options{}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			checkOutput(t, out, tc.want, tc.not)
			if tc.f != JSON {
				return
			}
			if !promptcanary.IsRunSummary(buf.Bytes()) {
				t.Error("IsRunSummary: false")
			}
			back, err := DecodeSummary(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(s, back); diff != "" {
				t.Errorf("read back (-written +read):\n%s", diff)
			}
		})
	}
}

func TestDecodeSummaryRejects(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"a run", `{"run_id": "x", "probe_results": []}`, `kind "", want "run_summary"`},
		{"not JSON", `{`, "decode streamed run: unexpected end of JSON input"},
		{"more passes than answers", `{"kind": "run_summary", "pairs": [{"probe_id": "p", "prompt_id": "q", "n": 1, "passes": 2}]}`, "pair p/q: 2 passes of 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeSummary([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	if promptcanary.IsRunSummary([]byte(`{"run_id": "x"}`)) {
		t.Error("IsRunSummary took a run")
	}
}
