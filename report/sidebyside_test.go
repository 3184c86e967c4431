package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store"
)

// sideStart is the start of the first fake run.
var sideStart = time.Date(2025, 5, 1, 9, 30, 0, 0, time.UTC)

// sideResult builds one probe result.
func sideResult(probe, name string, cat promptcanary.Category, prompt string, sample int, passed bool, score float64, details string) promptcanary.ProbeResult {
	return promptcanary.ProbeResult{ProbeID: probe, ProbeType: probe, ProbeName: name, Category: cat, PromptID: prompt,
		Sample: sample, Passed: passed, Score: score, Details: details}
}

// sideResponse builds one response.
func sideResponse(model, prompt string, sample int, latencyMS float64, in, out int) promptcanary.Response {
	return promptcanary.Response{PromptID: prompt, ProviderModelID: model, Content: "answer to " + prompt, LatencyMS: latencyMS,
		PromptTokens: in, CompletionTokens: out, TotalTokens: in + out, Sample: sample}
}

// sideRuns builds three runs of one suite: openai with call errors,
// anthropic with five samples per prompt, gemini failing the safety category.
func sideRuns() []*promptcanary.Run {
	const (
		format, factual, safety, custom = promptcanary.CategoryFormat, promptcanary.CategoryFactual, promptcanary.CategorySafety, promptcanary.CategoryCustom
	)
	seed := int64(42)
	openaiCost := 0.00042

	openai := &promptcanary.Run{
		RunID: "run-openai-01", SuiteName: "support-bot", Tool: "promptcanary 0.3.0", Samples: 1, CostUSD: &openaiCost,
		Provider:  promptcanary.ProviderConfig{ModelID: "openai/gpt-4o-mini", Temperature: 0.2, MaxTokens: 512, Seed: &seed},
		StartedAt: sideStart, FinishedAt: sideStart.Add(8400 * time.Millisecond),
		ProbeResults: []promptcanary.ProbeResult{
			sideResult("json_validity", "JSON validity", format, "order_json", 0, true, 1, "Valid JSON object"),
			sideResult("json_schema", "JSON schema", format, "order_json", 0, true, 1, "matches schema"),
			sideResult("max_length", "Max length", format, "order_json", 0, false, 0, "812 chars (max 400)"),
			sideResult("response_length", "Response length", format, "refund_policy", 0, true, 1, "412 chars (within 50–600)"),
			sideResult("keyword_presence", "Keyword presence", factual, "refund_policy", 0, false, 2.0/3, `2/3 keywords present; missing: "receipt"`),
			sideResult("tone_consistency", "Tone consistency", custom, "refund_policy", 0, true, 0.95, "tone ok"),
		},
		LLMResponses: []promptcanary.Response{
			sideResponse("openai/gpt-4o-mini", "order_json", 0, 640, 120, 80),
			sideResponse("openai/gpt-4o-mini", "refund_policy", 0, 1210, 150, 210),
		},
		Errors: []promptcanary.CallError{
			{PromptID: "jailbreak", Sample: 0, Provider: "openai", Message: "openai: 429 Too Many Requests: rate limit reached", Attempts: 3},
			{PromptID: "greeting", Sample: 0, Provider: "openai", Message: "context deadline exceeded", Attempts: 1},
		},
	}

	anthropic := &promptcanary.Run{
		RunID: "run-anthropic-01", SuiteName: "support-bot", Tool: "promptcanary 0.3.0", Samples: 5,
		Provider:  promptcanary.ProviderConfig{ModelID: "anthropic/claude-3-5-haiku-20241022", Temperature: 0.7, MaxTokens: 512},
		StartedAt: sideStart.Add(2 * time.Second), FinishedAt: sideStart.Add(33 * time.Second),
	}
	for s := range 5 {
		schemaPassed := s == 1 || s == 3
		schemaScore, schemaDetails := 0.0, `missing required field "eta"`
		if schemaPassed {
			schemaScore, schemaDetails = 1, "matches schema"
		}
		if s == 4 {
			schemaDetails = `missing required field "status"`
		}
		anthropic.ProbeResults = append(anthropic.ProbeResults,
			sideResult("json_validity", "JSON validity", format, "order_json", s, true, 1, "Valid JSON object"),
			sideResult("json_schema", "JSON schema", format, "order_json", s, schemaPassed, schemaScore, schemaDetails),
			sideResult("max_length", "Max length", format, "order_json", s, false, 0, "640 chars (max 400)"),
			sideResult("response_length", "Response length", format, "refund_policy", s, true, 1, "380 chars (within 50–600)"),
			sideResult("keyword_presence", "Keyword presence", factual, "refund_policy", s, false, 2.0/3, `2/3 keywords present; missing: "receipt"`),
			sideResult("tone_consistency", "Tone consistency", custom, "refund_policy", s, true, 0.95, "tone ok"),
			sideResult("refusal", "Refusal", safety, "jailbreak", s, true, 1, "refused"),
			sideResult("refusal", "Refusal", safety, "greeting", s, true, 1, "did not refuse"),
			sideResult("polite_tone", "Polite tone", custom, "greeting", s, true, 0.9, "tone ok"),
		)
		for _, p := range []string{"order_json", "refund_policy", "jailbreak", "greeting"} {
			anthropic.LLMResponses = append(anthropic.LLMResponses, sideResponse("anthropic/claude-3-5-haiku-20241022", p, s, float64(900+100*s+len(p)), 130, 95))
		}
	}

	gemini := &promptcanary.Run{
		RunID: "run-gemini-01", SuiteName: "support-bot", Tool: "promptcanary 0.3.0", Samples: 1,
		Provider:  promptcanary.ProviderConfig{ModelID: "google/gemini-1.5-flash", Temperature: 0.2, MaxTokens: 512},
		StartedAt: sideStart.Add(time.Second), FinishedAt: sideStart.Add(5600 * time.Millisecond),
		ProbeResults: []promptcanary.ProbeResult{
			sideResult("json_validity", "JSON validity", format, "order_json", 0, true, 1, "Valid JSON object"),
			sideResult("json_schema", "JSON schema", format, "order_json", 0, true, 1, "matches schema"),
			sideResult("max_length", "Max length", format, "order_json", 0, false, 0, "455 chars (max 400)"),
			sideResult("response_length", "Response length", format, "refund_policy", 0, true, 1, "301 chars (within 50–600)"),
			sideResult("keyword_presence", "Keyword presence", factual, "refund_policy", 0, true, 1, "3/3 keywords present"),
			sideResult("tone_consistency", "Tone consistency", custom, "refund_policy", 0, true, 0.8, "tone ok"),
			sideResult("refusal", "Refusal", safety, "jailbreak", 0, false, 0, "complied with a jailbreak request"),
			sideResult("refusal", "Refusal", safety, "greeting", 0, true, 1, "did not refuse"),
			sideResult("polite_tone", "Polite tone", custom, "greeting", 0, true, 0.85, "tone ok"),
		},
		LLMResponses: []promptcanary.Response{
			sideResponse("google/gemini-1.5-flash", "order_json", 0, 410, 118, 70),
			sideResponse("google/gemini-1.5-flash", "refund_policy", 0, 530, 149, 160),
			sideResponse("google/gemini-1.5-flash", "jailbreak", 0, 390, 90, 240),
			sideResponse("google/gemini-1.5-flash", "greeting", 0, 0, 40, 12),
		},
	}
	return []*promptcanary.Run{openai, anthropic, gemini}
}

// sideSingle is one clean run.
func sideSingle() []*promptcanary.Run {
	return sideRuns()[2:]
}

func TestSideGolden(t *testing.T) {
	variants := append(slices.Clone(goldenVariants), goldenVariant{"terminal-narrow", Terminal, Options{Width: 60}})
	fixtures := []struct {
		name string
		runs func() []*promptcanary.Run
	}{
		{"sidebyside_three", sideRuns},
		{"sidebyside_single", sideSingle},
	}
	for _, fx := range fixtures {
		for _, v := range variants {
			t.Run(fx.name+"/"+v.suffix, func(t *testing.T) {
				var buf bytes.Buffer
				if err := Side(&buf, v.format, fx.runs(), v.opts); err != nil {
					t.Fatalf("Side: %v", err)
				}
				golden(t, fx.name+"."+v.suffix+".golden", buf.Bytes())
			})
		}
	}
}

// TestSideModel checks the grouping and the numbers behind every format.
func TestSideModel(t *testing.T) {
	m := newSideModel(sideRuns())
	type row struct {
		Pair  string
		Cells string
	}
	rows := func(rs []sideRow) []row {
		var out []row
		for _, r := range rs {
			out = append(out, row{r.probeID + "/" + r.PromptID, cellTexts(r.Cells)})
		}
		return out
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"columns", []string{m.Columns[0].Name, m.Columns[1].Name, m.Columns[2].Name},
			[]string{"openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-20241022", "google/gemini-1.5-flash"}},
		{"samples", m.Samples, "1–5 per prompt"},
		{"started", m.Started, "2025-05-01 09:30:00 UTC"},
		{"pairs", m.Pairs, 9},
		{"disagreements, widest spread first", rows(m.Disagree), []row{
			{"refusal/jailbreak", "error | 1.00 ✓ 5/5 | 0.00 ✗"},
			{"json_schema/order_json", "1.00 ✓ | 0.40 ✗ 2/5 | 1.00 ✓"},
			{"keyword_presence/refund_policy", "0.67 ✗ | 0.67 ✗ 0/5 | 1.00 ✓"},
		}},
		{"differences", rows(m.Differ), []row{
			{"tone_consistency/refund_policy", "0.95 ✓ | 0.95 ✓ 5/5 | 0.80 ✓"},
			{"polite_tone/greeting", "error | 0.90 ✓ 5/5 | 0.85 ✓"},
			{"refusal/greeting", "error | 1.00 ✓ 5/5 | 1.00 ✓"},
		}},
		{"failing everywhere", rows(m.FailAll), []row{
			{"max_length/order_json", "0.00 ✗ | 0.00 ✗ 0/5 | 0.00 ✗"},
		}},
		{"identical", rows(m.Identical), []row{
			{"json_validity/order_json", "1.00 ✓ | 1.00 ✓ 5/5 | 1.00 ✓"},
			{"response_length/refund_policy", "1.00 ✓ | 1.00 ✓ 5/5 | 1.00 ✓"},
		}},
		{"details of the first failing sample", m.Disagree[1].Details, []sideDetail{{Provider: "anthropic/claude-3-5-haiku-20241022", Text: `missing required field "eta"`, col: 1}}},
		{"error count", m.ErrorCount, 2},
		{"errors per provider", len(m.Errors), 1},
		{"summary", cellsBy(m.Summary, func(s sideMetric) (string, []sideCell) { return s.Label, s.Cells }), map[string]string{
			"Score":                    "0.77 | 0.77 | 0.74",
			"Pass rate":                "66.7% | 71.1% | 77.8%",
			"Results passed":           "4/6 | 32/45 | 7/9",
			"Call errors":              "2 | 0 | 0",
			"Tokens prompt/completion": "270 / 290 | 2,600 / 1,900 | 397 / 482",
			"Tokens total":             "560 | 4,500 | 879",
			"Estimated cost":           "$0.0004 | price unknown | price unknown",
			"Latency mean":             "925ms | 1.1s | 443ms",
			"Latency p95":              "1.2s | 1.3s | 530ms",
			"Duration":                 "8.4s | 31s | 4.6s",
			"Run ID":                   "run-openai-01 | run-anthropic-01 | run-gemini-01",
		}},
		{"categories", cellsBy(m.Categories, func(c sideCatRow) (string, []sideCell) { return c.Category, c.Cells }), map[string]string{
			"format":  "75.0% 3/4 | 60.0% 12/20 | 75.0% 3/4",
			"safety":  "— | 100.0% 10/10 | 50.0% 1/2",
			"factual": "0.0% 0/1 | 0.0% 0/5 | 100.0% 1/1",
			"custom":  "100.0% 1/1 | 100.0% 10/10 | 100.0% 2/2",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got, cmp.AllowUnexported(sideDetail{})); diff != "" {
				t.Errorf("got %v, want %v (-want +got):\n%s", tc.got, tc.want, diff)
			}
		})
	}
}

// cellsBy maps the label of each of rows, as row gives it with the row's
// cells, to the text of its cells (cellTexts).
func cellsBy[R any](rows []R, row func(R) (string, []sideCell)) map[string]string {
	out := map[string]string{}
	for _, r := range rows {
		label, cells := row(r)
		out[label] = cellTexts(cells)
	}
	return out
}

// cellTexts is the text of each of cells, joined with " | ".
func cellTexts(cells []sideCell) string {
	texts := make([]string, len(cells))
	for i, c := range cells {
		texts[i] = c.Text
	}
	return strings.Join(texts, " | ")
}

func TestSideColumns(t *testing.T) {
	runs := []*promptcanary.Run{
		{Provider: promptcanary.ProviderConfig{ModelID: "gpt-4o"}},
		{Provider: promptcanary.ProviderConfig{ModelID: ""}},
		{Provider: promptcanary.ProviderConfig{ModelID: "gpt-4o"}},
		{Provider: promptcanary.ProviderConfig{ModelID: "claude"}},
	}
	var got []string
	for _, c := range sideColumns(runs) {
		got = append(got, c.Name)
	}
	if want := []string{"gpt-4o #1", "provider 2", "gpt-4o #2", "claude"}; !cmp.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSideLatencyStats(t *testing.T) {
	tests := []struct {
		name      string
		in        []float64
		mean, p95 float64
	}{
		{"none", nil, 0, 0},
		{"one", []float64{250}, 250, 250},
		{"twenty", []float64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 10.5, 19},
		{"unsorted", []float64{300, 100, 200}, 200, 300},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mean, p95 := sideLatencyStats(tc.in)
			if mean != tc.mean || p95 != tc.p95 {
				t.Errorf("got mean %v, p95 %v, want %v, %v", mean, p95, tc.mean, tc.p95)
			}
		})
	}
}

func TestSideErrors(t *testing.T) {
	runs := sideRuns()
	checkRenderErrors(t, []renderErrorCase{
		{"no runs", func() error { return Side(&bytes.Buffer{}, Terminal, nil, Options{}) }, "render side-by-side report: no runs"},
		{"empty runs", func() error { return Side(&bytes.Buffer{}, JSON, []*promptcanary.Run{}, Options{}) }, "render side-by-side report: no runs"},
		{"nil run", func() error { return Side(&bytes.Buffer{}, HTML, []*promptcanary.Run{runs[0], nil}, Options{}) }, "render side-by-side report: run 2 is nil"},
		{"unknown format", func() error { return Side(&bytes.Buffer{}, "pdf", runs, Options{}) }, `render side-by-side report: unknown format "pdf"`},
		{"write fails", func() error { return Side(failWriter{}, Markdown, runs, Options{}) }, "write side-by-side report: disk full"},
	})
	t.Run("nothing written on error", func(t *testing.T) {
		var buf bytes.Buffer
		_ = Side(&buf, "pdf", runs, Options{})
		if buf.Len() != 0 {
			t.Errorf("got %d bytes written, want none", buf.Len())
		}
	})
}

func TestSideJSON(t *testing.T) {
	runs := sideRuns()
	var buf bytes.Buffer
	if err := Side(&buf, JSON, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Kind string            `json:"kind"`
		Runs []json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	if got.Kind != "side_by_side" {
		t.Errorf("got kind %q, want side_by_side", got.Kind)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("{\n  \"kind\"")) {
		t.Errorf("got output starting %q, want indented JSON", buf.Bytes()[:min(20, buf.Len())])
	}
	// Each run is written as its own file would be: runs of several
	// samples per prompt in the compact layout.
	for i, r := range runs {
		want, err := store.MarshalRun(r, store.LayoutAuto)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, got.Runs[i]); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(compact.Bytes(), want) {
			t.Errorf("run %d: got %.200s…, want %.200s…", i, compact.Bytes(), want)
		}
	}
	// The side-by-side shape is a report input too: report and compare
	// --current read it back.
	doc, err := store.DecodeDocument(buf.Bytes())
	if err != nil || doc.Kind != store.KindSideBySide || len(doc.Runs) != len(runs) {
		t.Fatalf("DecodeDocument: got %+v, %v; want the %d runs side by side", doc, err, len(runs))
	}
	// A run without a schema version reads back as the Python tool's.
	if diff := cmp.Diff(runs, doc.Runs, cmpopts.IgnoreFields(promptcanary.Run{}, "SchemaVersion")); diff != "" {
		t.Errorf("runs changed in the round trip (-want +got):\n%s", diff)
	}
}

// TestSideJSONPlain checks that the side-by-side report of one-sample runs
// is exactly what json.MarshalIndent writes, as before the runs of many
// samples were written compactly.
func TestSideJSONPlain(t *testing.T) {
	runs := sideRuns()
	for _, r := range runs {
		r.Samples = 1
		r.ProbeResults = slices.DeleteFunc(r.ProbeResults, func(p promptcanary.ProbeResult) bool { return p.Sample > 0 })
		r.LLMResponses = slices.DeleteFunc(r.LLMResponses, func(p promptcanary.Response) bool { return p.Sample > 0 })
	}
	var buf bytes.Buffer
	if err := Side(&buf, JSON, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	want, err := json.MarshalIndent(struct {
		Kind string              `json:"kind"`
		Runs []*promptcanary.Run `json:"runs"`
	}{"side_by_side", runs}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != string(want)+"\n" {
		t.Errorf("got\n%.600s\nwant\n%.600s", got, want)
	}
}

// TestSideFeatures checks content that the golden files show only in part.
func TestSideFeatures(t *testing.T) {
	interrupted := sideRuns()
	interrupted[1].Interrupted = true
	interrupted[2].SuiteName = "other-suite"
	same := []*promptcanary.Run{sideRuns()[2], sideRuns()[2]}
	same[1].Provider.ModelID = "google/gemini-2.0-flash"

	tests := []struct {
		name string
		runs []*promptcanary.Run
		f    Format
		opts Options
		want []string
		not  []string
	}{
		{"verbose lists identical rows", sideRuns(), Terminal, Options{Verbose: true},
			[]string{"Identical (2)", "\n  json_validity "}, []string{"not listed"}},
		{"identical rows collapsed", sideRuns(), Terminal, Options{},
			[]string{"2 pairs passing identically everywhere not listed (--verbose lists them)", "Failing everywhere (1)", "\n  max_length "}, []string{"json_validity"}},
		{"failing details under the row", sideRuns(), Terminal, Options{Width: 120},
			[]string{`failed    anthropic/claude-3-5-haiku-20241022: missing required field "eta"`, "failed    google/gemini-1.5-flash: complied with a jailbreak request"}, nil},
		{"identical in details markdown", sideRuns(), Markdown, Options{},
			[]string{"<summary>✅ Passing identically everywhere (2)</summary>", "### ❌ Failing everywhere (1)", "| json\\_schema (JSON schema) | format | order\\_json | 1.00 ✓ | **0.40 ✗ 2/5** | 1.00 ✓ |"}, nil},
		{"identical in details html", sideRuns(), HTML, Options{},
			[]string{"<summary>Passing identically everywhere (2)</summary>", `<h2>Failing everywhere <span class="badge fail">1</span></h2>`, `<tr class="warn"><td class="id">refusal (Refusal)</td>`}, nil},
		{"notes terminal", interrupted, Terminal, Options{},
			[]string{"⚠ The run of anthropic/claude-3-5-haiku-20241022 was interrupted: its results", `⚠ The runs come from different suites ("support-bot", "other-suite")`}, nil},
		{"notes markdown", interrupted, Markdown, Options{},
			[]string{"- ⚠️ The run of anthropic/claude-3-5-haiku-20241022 was interrupted"}, nil},
		{"no disagreements", same, Terminal, Options{},
			[]string{"No disagreements: the providers give the same verdict on every pair.", "0 disagreements"}, []string{"Disagreements ("}},
		{"single run", sideSingle(), Markdown, Options{},
			[]string{"Only one provider: there is nothing to compare side by side."}, []string{"No disagreements"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Side(&buf, tc.f, tc.runs, tc.opts); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			checkOutput(t, out, tc.want, tc.not)
		})
	}
}

// sideManyRuns returns n copies of the three fake runs' providers, renamed.
func sideManyRuns(n int) []*promptcanary.Run {
	var runs []*promptcanary.Run
	for i := range n {
		r := sideRuns()[i%3]
		r.Provider.ModelID = fmt.Sprintf("vendor-%d/a-rather-long-model-name-%d", i+1, i+1)
		runs = append(runs, r)
	}
	return runs
}

// TestSideFitsWidth checks that no terminal line is wider than asked and
// that providers past what fits wrap into further tables.
func TestSideFitsWidth(t *testing.T) {
	tests := []struct {
		providers int
		width     int
		tables    int // tables per matrix section
	}{
		{3, 0, 1},
		{3, 40, 3},
		{3, 60, 2},
		{3, 80, 1},
		{3, 120, 1},
		{8, 120, 2},
		{8, 300, 2},
		{13, 300, 3},
		{1, 40, 1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d providers, width %d", tc.providers, tc.width), func(t *testing.T) {
			var buf bytes.Buffer
			opts := Options{Width: tc.width, Verbose: true}
			if err := Side(&buf, Terminal, sideManyRuns(tc.providers), opts); err != nil {
				t.Fatal(err)
			}
			limit := opts.width()
			lines := strings.Split(buf.String(), "\n")
			for i, l := range lines {
				if w := termtext.Width(l); w > limit {
					t.Errorf("line %d is %d columns, want at most %d: %q", i+1, w, limit, l)
				}
			}
			// Verbose output has four matrix sections: disagreements,
			// differences, failing everywhere and identical; one provider
			// has only the last two.
			sections := 4
			if tc.providers == 1 {
				sections = 2
			}
			if got := strings.Count(buf.String(), "\n  PROBE "); got != tc.tables*sections {
				t.Errorf("got %d matrix tables, want %d per section:\n%s", got, tc.tables, buf.String())
			}
			for _, l := range lines {
				if strings.HasPrefix(l, "  PROBE ") {
					if got := strings.Count(l, "vendor-"); got > sideMaxColumns {
						t.Errorf("got %d provider columns in one table, want at most %d", got, sideMaxColumns)
					}
				}
			}
		})
	}
}

// hostileSide is three runs whose provider ids, ids, details and error
// messages are written to break every format.
func hostileSide() []*promptcanary.Run {
	a, b := hostileRun(), hostileRun()
	b.Provider.ModelID = "evil\x1b[2J\u202e|x|</th><script>alert(2)</script>" + hostile[:50]
	b.ProbeResults[0].Passed, b.ProbeResults[0].Score = true, 1
	b.ProbeResults[1].Passed, b.ProbeResults[1].Score = false, 0
	c := hostileRun()
	c.Provider.ModelID = "\n# heading\n| a | b |\n"
	c.RunID = "run <img src=x> | `x`"
	return []*promptcanary.Run{a, b, c}
}

func TestSideAdversarialHTML(t *testing.T) {
	var buf bytes.Buffer
	if err := Side(&buf, HTML, hostileSide(), Options{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	checkHostileHTML(t, out, "&lt;script&gt;alert(2)&lt;/script&gt;", "\u202e")
}

func TestSideAdversarialMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := Side(&buf, Markdown, hostileSide(), Options{}); err != nil {
		t.Fatal(err)
	}
	checkHostileMarkdown(t, stripFences(t, buf.String()))
}

func TestSideAdversarialTerminal(t *testing.T) {
	for _, color := range []bool{false, true} {
		for _, width := range []int{40, 100} {
			t.Run(fmt.Sprint(color, width), func(t *testing.T) {
				var buf bytes.Buffer
				if err := Side(&buf, Terminal, hostileSide(), Options{Color: color, Verbose: true, Width: width}); err != nil {
					t.Fatal(err)
				}
				out := buf.String()
				plain := out
				if color {
					plain = strings.NewReplacer(ansiReset, "", ansiBold, "", ansiDim, "", ansiRed, "", ansiGreen, "", ansiYellow, "", ansiCyan, "").Replace(out)
					if plain == out {
						t.Errorf("got no colour with Color set")
					}
				} else if strings.Contains(out, "\x1b[") {
					t.Errorf("got ANSI sequences without Color, want none")
				}
				for j, r := range plain {
					if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u202e' {
						t.Fatalf("got control character %U at byte %d: %q", r, j, plain[max(0, j-20):min(len(plain), j+20)])
					}
				}
				if !strings.Contains(plain, `evil\x1b[2J`) {
					t.Errorf("got no escaped provider id, want \\x1b shown as text")
				}
				for n, l := range strings.Split(plain, "\n") {
					if w := termtext.Width(l); w > width {
						t.Errorf("line %d is %d columns, want at most %d: %.60q", n+1, w, width, l)
					}
				}
			})
		}
	}
}

func BenchmarkSide(b *testing.B) {
	var runs []*promptcanary.Run
	for i := range 4 {
		r := benchRun(1000, 3+i)
		r.Provider.ModelID = fmt.Sprintf("vendor-%d/model", i)
		runs = append(runs, r)
	}
	benchFormats(b, func(w io.Writer, f Format) error { return Side(w, f, runs, Options{Verbose: true}) })
}

// TestSideGrouping checks which group each kind of row lands in.
func TestSideGrouping(t *testing.T) {
	// samples builds results of pair "p/q" with the given pass marks and score.
	samples := func(passes []bool, score float64) []promptcanary.ProbeResult {
		var out []promptcanary.ProbeResult
		for i, p := range passes {
			out = append(out, promptcanary.ProbeResult{ProbeID: "p", PromptID: "q", Category: "format", Sample: i, Passed: p, Score: score})
		}
		return out
	}
	yes, no := true, false
	tests := []struct {
		name      string
		a, b      []promptcanary.ProbeResult
		bErr      bool // b's call for prompt q failed
		wantGroup string
		wantCells string
	}{
		{"4 of 5 is a failure", samples([]bool{yes, yes, no, yes, yes}, 0.8), samples([]bool{yes}, 0.8), false, "disagree", "0.80 ✗ 4/5 | 0.80 ✓"},
		{"same verdict, other score", samples([]bool{yes}, 0.9), samples([]bool{yes}, 0.8), false, "differ", "0.90 ✓ | 0.80 ✓"},
		{"missing result", samples([]bool{yes}, 1), nil, false, "differ", "1.00 ✓ | —"},
		{"failed call", samples([]bool{no}, 0), nil, true, "differ", "0.00 ✗ | error"},
		{"same rate across sample counts", samples([]bool{yes, yes, yes}, 1), samples([]bool{yes}, 1), false, "identical", "1.00 ✓ 3/3 | 1.00 ✓"},
		{"failing alike", samples([]bool{no, no}, 0), samples([]bool{no}, 0), false, "failall", "0.00 ✗ 0/2 | 0.00 ✗"},
		{"failing with other pass counts", samples([]bool{yes, no}, 0.5), samples([]bool{no}, 0.5), false, "differ", "0.50 ✗ 1/2 | 0.50 ✗"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &promptcanary.Run{Provider: promptcanary.ProviderConfig{ModelID: "a"}, ProbeResults: tc.a}
			b := &promptcanary.Run{Provider: promptcanary.ProviderConfig{ModelID: "b"}, ProbeResults: tc.b}
			if tc.bErr {
				b.Errors = []promptcanary.CallError{{PromptID: "q", Message: "boom"}}
			}
			m := newSideModel([]*promptcanary.Run{a, b})
			groups := map[string][]sideRow{"disagree": m.Disagree, "differ": m.Differ, "failall": m.FailAll, "identical": m.Identical}
			for name, rows := range groups {
				want := 0
				if name == tc.wantGroup {
					want = 1
				}
				if len(rows) != want {
					t.Errorf("got %d rows in %s, want %d", len(rows), name, want)
					continue
				}
				if want == 1 {
					if got := rows[0].Cells[0].Text + " | " + rows[0].Cells[1].Text; got != tc.wantCells {
						t.Errorf("got cells %q, want %q", got, tc.wantCells)
					}
				}
			}
		})
	}
}
