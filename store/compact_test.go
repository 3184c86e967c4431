package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
)

// plainRoundTrip is what the plain layout keeps of r: the reference the
// compact layout must match, raw responses aside.
func plainRoundTrip(t *testing.T, r *promptcanary.Run) *promptcanary.Run {
	t.Helper()
	data, err := MarshalRun(r, LayoutPlain)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalRun(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.LLMResponses {
		got.LLMResponses[i].RawResponse = nil
	}
	return got
}

// compactCase is a run the compact layout must encode and decode.
type compactCase struct {
	name string
	run  promptcanary.Run
}

// compactCases are the edge cases of the compact layout.
func compactCases() []compactCase {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)
	res := func(probe, prompt string, sample int, passed bool, score float64, meta map[string]any) promptcanary.ProbeResult {
		return promptcanary.ProbeResult{ProbeID: probe, ProbeType: "t_" + probe, ProbeName: "N " + probe, Category: promptcanary.CategoryFormat,
			PromptID: prompt, Sample: sample, Passed: passed, Score: score, Details: "d " + probe, Metadata: meta}
	}
	resp := func(prompt string, sample int, content string, ts time.Time) promptcanary.Response {
		return promptcanary.Response{PromptID: prompt, ProviderModelID: "m", Content: content, FinishReason: "stop", LatencyMS: 812.4,
			PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, Timestamp: ts, Sample: sample, Attempts: 1}
	}
	return []compactCase{
		{"nil lists", promptcanary.Run{RunID: "r"}},
		{"empty lists", promptcanary.Run{RunID: "r", ProbeResults: []promptcanary.ProbeResult{}, LLMResponses: []promptcanary.Response{}}},
		{"non-finite scores", promptcanary.Run{RunID: "r", ProbeResults: []promptcanary.ProbeResult{
			res("a", "p1", 0, true, math.NaN(), nil), res("a", "p1", 1, true, math.Inf(1), nil), res("a", "p1", 2, true, math.Copysign(0, -1), nil),
			res("a", "p1", 3, true, 0.1+0.2, nil)}}},
		{"metadata nil, empty, nested and non-finite", promptcanary.Run{RunID: "r", ProbeResults: []promptcanary.ProbeResult{
			res("a", "p1", 0, true, 1, nil), res("b", "p1", 0, true, 1, map[string]any{}),
			res("c", "p1", 0, false, 0, map[string]any{"k": []any{1.0, "x", map[string]any{"n": nil}}, "nan": math.NaN()}),
			res("c", "p1", 1, false, 0, map[string]any{"k": []any{1.0, "x", map[string]any{"n": nil}}, "nan": math.NaN()})}}},
		{"order kept when prompts interleave", promptcanary.Run{RunID: "r", ProbeResults: []promptcanary.ProbeResult{
			res("b", "p2", 1, true, 1, nil), res("a", "p1", 0, true, 1, nil), res("b", "p1", 0, false, 0.5, nil),
			res("a", "p2", 1, true, 1, nil), res("a", "p1", 0, true, 1, nil)}}},
		{"responses", promptcanary.Run{RunID: "r", StartedAt: t0, LLMResponses: []promptcanary.Response{
			resp("p1", 0, "same", t0.Add(time.Second+7)), resp("p1", 1, "same", t0.Add(-time.Hour)), resp("p2", 0, "other", time.Time{}),
			{PromptID: "p3", Content: "tool", TotalTokens: 99, LatencyMS: math.NaN(), RawResponse: json.RawMessage(`{"id":"x"}`),
				ToolCalls:   []promptcanary.ToolCall{{ID: "c1", Name: "f", Arguments: json.RawMessage(`{"a": 1}`)}},
				ServedModel: "m-1", SystemFingerprint: "fp", ResponseID: "resp-1", Attempts: 3, Timestamp: t0.In(time.FixedZone("CET", 3600))},
			{PromptID: "p3", Sample: 1, Content: "no tools", ToolCalls: []promptcanary.ToolCall{}},
		}}},
		{"truncated answers", promptcanary.Run{RunID: "r", StartedAt: t0, LLMResponses: []promptcanary.Response{
			{PromptID: "p1", Content: "kept part", Truncated: true, OriginalBytes: 1 << 20, Timestamp: t0}, {PromptID: "p1", Sample: 1, Content: "whole", Timestamp: t0},
			{PromptID: "p1", Sample: 2, Content: "first part", Truncated: true, OriginalBytes: 5 << 20, Timestamp: t0}}}},
		{"tool calls cut and reasoning tokens", promptcanary.Run{RunID: "r", StartedAt: t0, LLMResponses: []promptcanary.Response{
			{PromptID: "p1", ToolCalls: []promptcanary.ToolCall{{Name: "f"}}, Truncated: true, OriginalToolCalls: 20000, CompletionTokens: 90, ReasoningTokens: 64, Timestamp: t0},
			{PromptID: "p1", Sample: 1, Content: "whole", CompletionTokens: 9, ReasoningTokens: 8, Timestamp: t0},
			{PromptID: "p1", Sample: 2, Content: "first part", Truncated: true, OriginalBytes: 5 << 20, OriginalToolCalls: 129, Timestamp: t0}}}},
		{"timestamps centuries apart", promptcanary.Run{RunID: "r", StartedAt: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), LLMResponses: []promptcanary.Response{
			resp("p1", 0, "a", time.Date(9999, 1, 1, 0, 0, 0, 5, time.UTC)), resp("p1", 1, "b", time.Date(1, 1, 1, 0, 0, 0, 7, time.UTC))}}},
		{"responses without a start time", promptcanary.Run{RunID: "r", LLMResponses: []promptcanary.Response{
			resp("p1", 0, "a", time.Time{}), resp("p1", 1, "b", t0), resp("p1", 2, "c", t0.Add(-time.Minute))}}},
		{"hostile strings", promptcanary.Run{RunID: "r", ProbeResults: []promptcanary.ProbeResult{
			res("\"],[0", "p\n1\u2028", 0, true, 1, map[string]any{"</script>": "\x1b[31m"})},
			LLMResponses: []promptcanary.Response{resp("p\n1\u2028", 0, "\"]}\\", time.Time{})}}},
	}
}

func TestCompactRoundTrip(t *testing.T) {
	tests := compactCases()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run.SchemaVersion = "1"
			data, err := MarshalRun(&tc.run, LayoutCompact)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if !json.Valid(data) {
				t.Fatalf("invalid JSON: %s", data)
			}
			got, err := UnmarshalRun(data)
			if err != nil {
				t.Fatalf("unmarshal %s: %v", data, err)
			}
			want := plainRoundTrip(t, &tc.run)
			if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("compact round trip differs from plain (-plain +compact):\n%s\n%s", diff, data)
			}
			// cmp counts -0 and 0 equal; the sign of a score must survive too.
			for i := range min(len(want.ProbeResults), len(got.ProbeResults)) {
				if math.Signbit(want.ProbeResults[i].Score) != math.Signbit(got.ProbeResults[i].Score) {
					t.Errorf("result %d: score %v, plain has %v", i, got.ProbeResults[i].Score, want.ProbeResults[i].Score)
				}
			}
			// Results with equal metadata share one map (read-only), those
			// with different metadata do not.
			first := map[string]int{}
			for i, pr := range got.ProbeResults {
				key, err := Marshal(pr.Metadata)
				if err != nil {
					t.Fatal(err)
				}
				j, seen := first[string(key)]
				if !seen {
					first[string(key)] = i
					continue
				}
				if pr.Metadata != nil && reflect.ValueOf(pr.Metadata).UnsafePointer() != reflect.ValueOf(got.ProbeResults[j].Metadata).UnsafePointer() {
					t.Errorf("results %d and %d have equal metadata %s in two maps, want one", j, i, key)
				}
			}
			// What was decoded encodes, decodes and encodes to the same bytes.
			again, err := MarshalRun(got, LayoutCompact)
			if err != nil {
				t.Fatal(err)
			}
			got2, err := UnmarshalRun(again)
			if err != nil {
				t.Fatal(err)
			}
			again2, err := MarshalRun(got2, LayoutCompact)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, again2) {
				t.Errorf("not stable:\n%s\n%s", again, again2)
			}
		})
	}
}

func TestLayoutAuto(t *testing.T) {
	one := &promptcanary.Baseline{SnapshotID: "s", RunResult: promptcanary.Run{RunID: "r", Samples: 1,
		ProbeResults: []promptcanary.ProbeResult{{ProbeID: "p", PromptID: "a"}}}}
	got, err := MarshalBaseline(one, LayoutAuto)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := MarshalIndent(one)
	if !bytes.Equal(got, want) {
		t.Errorf("one sample: got\n%s\nwant the plain indented form\n%s", got, want)
	}
	for _, r := range []promptcanary.Run{
		{RunID: "r", Samples: 5, ProbeResults: []promptcanary.ProbeResult{{ProbeID: "p", PromptID: "a"}}},
		{RunID: "r", ProbeResults: []promptcanary.ProbeResult{{ProbeID: "p", PromptID: "a", Sample: 1}}},
	} {
		got, err := MarshalBaseline(&promptcanary.Baseline{SnapshotID: "s", RunResult: r}, LayoutAuto)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(got, []byte(`"encoding": "compact"`)) {
			t.Errorf("several samples: got\n%s\nwant the compact layout", got)
		}
	}
}

func TestCompactRejects(t *testing.T) {
	tests := []struct {
		name, results, want string
	}{
		{"newer version", `{"encoding":"compact","version":2}`, "probe_results: compact encoding version 2 is newer than this program's 1: upgrade promptcanary"},
		{"unknown encoding", `{"encoding":"zstd","version":1}`, `probe_results: unknown encoding "zstd", want "compact"`},
		{"outcome out of range", `{"encoding":"compact","version":1,"strings":["a"],"metadata":[null],"probes":[[0,0,0,0]],"outcomes":[[0,1,1,0,0]],"rows":[[0,0,1]]}`,
			"probe_results: row 0: outcome 1 out of range"},
		{"string out of range", `{"encoding":"compact","version":1,"strings":["a"],"metadata":[null],"probes":[[0,0,0,9]],"outcomes":[[0,1,1,0,0]],"rows":[[0,0,0]]}`,
			"probe_results: outcome 0: string 9 out of range"},
		{"fractional index", `{"encoding":"compact","version":1,"outcomes":[[0.5,1,1,0,0]]}`, "outcome [0.5,1,1,0,0]: 0.5 is not an index"},
		{"short row", `{"encoding":"compact","version":1,"rows":[[0]]}`, "probe_results: row 0: want [prompt, sample, outcome...], got 1 numbers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := UnmarshalRun([]byte(`{"run_id":"r","probe_results":` + tc.results + `}`))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	_, err := UnmarshalRun([]byte(`{"run_id":"r","llm_responses":{"encoding":"compact","version":1,"strings":[],"profiles":[[0,0,0,-1,0,0,0]],"rows":[[0,0,0,0,1,1,0,null,0]]}}`))
	if want := "llm_responses: response 0: string 0 out of range"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("responses: got %v, want %q", err, want)
	}
}

func TestIndentTo(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `{"a":[],"b":{},"c":[1,{"d":"x,y:{z}[]\"\\"}],"e":null}`,
		`{"run":{"rows":[[1,2],[3,4]],"strings":["a","b\"]"]}}`,
	}
	for _, d := range docs {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(d), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentTo([]byte(d), 100); string(got) != want.String() {
			t.Errorf("depth 100: got\n%s\nwant json.Indent's\n%s", got, want.String())
		}
		for depth := range 3 {
			got := indentTo([]byte(d), depth)
			var compact bytes.Buffer
			if err := json.Compact(&compact, got); err != nil || compact.String() != d {
				t.Errorf("depth %d: got %s, not the same JSON (%v)", depth, got, err)
			}
		}
	}
	if got, want := string(indentTo([]byte(`{"a":{"rows":[[1,2],[3]]}}`), 1)), "{\n  \"a\": {\n    \"rows\": [[1,2],[3]]\n  }\n}"; got != want {
		t.Errorf("depth 1: got\n%s\nwant\n%s", got, want)
	}
}

// equateJSON compares raw JSON values by their compact form: indenting a
// baseline re-indents its raw responses.
var equateJSON = cmp.Comparer(func(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
})

// TestPythonFixturesRoundTrip decodes the original tool's baselines (null
// score, naive timestamps, null numbers), encodes them again in every
// layout and decodes the result to the same value: a decoded run is
// always encodable.
func TestPythonFixturesRoundTrip(t *testing.T) {
	for _, name := range []string{"testdata/python-baseline.json", "testdata/python-null-score.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			b, err := UnmarshalBaseline(data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := json.Marshal(b.Provider); err != nil {
				t.Fatal(err)
			}
			for _, l := range []Layout{LayoutAuto, LayoutPlain, LayoutCompact} {
				out, err := MarshalBaseline(b, l)
				if err != nil {
					t.Fatalf("layout %d: encode a decoded baseline: %v", l, err)
				}
				b2, err := UnmarshalBaseline(out)
				if err != nil {
					t.Fatalf("layout %d: decode again: %v", l, err)
				}
				want := *b
				if l == LayoutCompact {
					want.RunResult.LLMResponses = plainRoundTrip(t, &b.RunResult).LLMResponses
				}
				if diff := cmp.Diff(&want, b2, cmpopts.EquateNaNs(), equateJSON); diff != "" {
					t.Errorf("layout %d: (-first +second):\n%s", l, diff)
				}
			}
		})
	}
	data, err := os.ReadFile("testdata/python-null-score.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := UnmarshalBaseline(data)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(b.RunResult.ProbeResults[1].Score) {
		t.Errorf("null score: got %v, want NaN", b.RunResult.ProbeResults[1].Score)
	}
	wantTimes := map[string][2]time.Time{
		"created_at":  {b.CreatedAt, time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)},
		"started_at":  {b.RunResult.StartedAt, time.Date(2025, 3, 1, 11, 59, 58, 1000, time.UTC)},
		"finished_at": {b.RunResult.FinishedAt, time.Date(2025, 3, 1, 11, 59, 59, 999999000, time.UTC)},
		"timestamp":   {b.RunResult.LLMResponses[0].Timestamp, time.Date(2025, 3, 1, 11, 59, 58, 500000000, time.UTC)},
	}
	for field, tt := range wantTimes {
		if !tt[0].Equal(tt[1]) {
			t.Errorf("%s: got %v, want %v", field, tt[0], tt[1])
		}
	}
}

// manySamples is a run of many samples per prompt with repeating and
// hostile answers, details and metadata.
func manySamples() promptcanary.Run {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)
	answers := []string{"Paris.", "1 < 2", "a && b", "Sure! <b>Paris</b> & \"Lyon\"", "Étape 1 : thé — 完成\u2028", "", "line\nbreak\ttab\x00nul", "\xff invalid utf-8"}
	r := promptcanary.Run{RunID: "many", StartedAt: t0, Samples: 30, Provider: promptcanary.ProviderConfig{ModelID: "sim/noisy"}}
	for p := range 7 {
		prompt := fmt.Sprintf("p%d", p)
		for s := range 30 {
			a := answers[(p*s+s/7)%len(answers)]
			resp := promptcanary.Response{PromptID: prompt, Sample: s, Content: a, ProviderModelID: "sim/noisy", FinishReason: "stop",
				LatencyMS: float64(s*37%100) + 0.25, PromptTokens: 12, CompletionTokens: len(a) / 3, TotalTokens: 12 + len(a)/3 + s%2,
				Timestamp: t0.Add(time.Duration(p*30+s) * time.Second), Attempts: 1 + s%3, ResponseID: fmt.Sprintf("r-%d-%d", p, s)}
			if p == 3 {
				resp.ToolCalls = []promptcanary.ToolCall{{ID: "c", Name: "get", Arguments: json.RawMessage(`{"id": 1}`)}}
			}
			r.LLMResponses = append(r.LLMResponses, resp)
			for k, probe := range []string{"length", "no_preamble", "<json>"} {
				score := float64(len(a)%5) / 4
				if k == 2 && s%11 == 0 {
					score = math.NaN()
				}
				r.ProbeResults = append(r.ProbeResults, promptcanary.ProbeResult{ProbeID: probe, ProbeType: probe, ProbeName: "N " + probe,
					Category: promptcanary.CategoryFormat, PromptID: prompt, Sample: s, Passed: score > 0.5, Score: score,
					Details: fmt.Sprintf("%d chars in %q", len(a), a), Metadata: map[string]any{"chars": float64(len(a)), "answer": a, "k": []any{k, nil}}})
			}
		}
	}
	return r
}

// TestCompactEncoder checks that the compact layout, written directly,
// is byte for byte what encoding/json writes of its tables.
func TestCompactEncoder(t *testing.T) {
	cases := append(compactCases(), compactCase{"many samples", manySamples()})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := newCompactRun(&tc.run)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Marshal(w) // through encoding/json
			if err != nil {
				t.Fatal(err)
			}
			got, err := MarshalRun(&tc.run, LayoutCompact)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Errorf("run differs at byte %d:\ngot  …%.120s\nwant …%.120s", i, got[max(0, i-40):], want[max(0, i-40):])
			}
			b := &promptcanary.Baseline{SnapshotID: "snap", CreatedAt: tc.run.StartedAt, SuiteName: "s", Note: "a <note>", RunResult: tc.run}
			wantB, err := Marshal(&compactBaselineJSON{Baseline: b, RunResult: w})
			if err != nil {
				t.Fatal(err)
			}
			gotB, err := MarshalBaseline(b, LayoutCompact)
			if err != nil {
				t.Fatal(err)
			}
			if want := indentTo(wantB, 3); !bytes.Equal(gotB, want) {
				t.Errorf("baseline differs:\ngot  %.300s\nwant %.300s", gotB, want)
			}
		})
	}
}

func BenchmarkMarshalCompactRun(b *testing.B) {
	r := manySamples()
	for _, n := range []int{1, 30} { // more prompts
		big := r
		for range n - 1 {
			big.ProbeResults = append(big.ProbeResults, r.ProbeResults...)
			big.LLMResponses = append(big.LLMResponses, r.LLMResponses...)
		}
		b.Run(fmt.Sprintf("x%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := MarshalRun(&big, LayoutCompact); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// rowCases are response rows: what this package writes, and what other
// writers of valid or invalid JSON may.
var rowCases = []string{
	`[0,1,2,3,812.4,5,0,1000000007,4]`, `[0,0,0,0,null,0,-3,null,0]`, `[1,2,3,4,1e-05,5,6,-7,8]`, `[1,2,3,4,-0,5,6,0,8]`,
	`[1,2,3,4,12,5,6,"2025-03-01T12:00:00Z",8]`, `[ 1, 2, 3, 4, 5, 6, 7, 8, 9 ]`, `[1,2,3,4,5,6,7,8,9,10]`, `[1,2,3,4,5,6,7,8]`,
	`[01,2,3,4,5,6,7,8,9]`, `[1.0,2,3,4,5,6,7,8,9]`, `[1,2,3,4,5.,6,7,8,9]`, `[1,2,3,4,.5,6,7,8,9]`, `[1,2,3,4,5,6,7,1e3,9]`,
	`[1,2,3,4,5,6,7,99999999999999999999,9]`, `[1,2,3,4,5,6,7,8,99999999999999999999]`, `[1,2,3,4,+5,6,7,8,9]`,
	`[1,2,3,4,5,6,7,8,9`, `1,2,3,4,5,6,7,8,9]`, `[]`, `[,,,,,,,,]`, `[1,2,3,4,NaN,6,7,8,9]`, `[-,2,3,4,5,6,7,8,9]`,
}

func TestResponseRowParse(t *testing.T) {
	// The rows this package writes take the fast way (FuzzResponseRow
	// checks every case against encoding/json).
	for _, data := range rowCases[:4] {
		var r responseRow
		if !r.parse([]byte(data)) {
			t.Errorf("%s: not parsed", data)
		}
	}
}

func FuzzResponseRow(f *testing.F) {
	fuzzStrings(f, rowCases, func(t *testing.T, data string) { checkRowParse(t, data, sameResponseRow) })
}

func sameResponseRow(a, b *responseRow) bool { return reflect.DeepEqual(a, b) }

// checkRowParse fails t when the fast parse of a row takes data but the
// slow way rejects it or reads another row (same tells).
func checkRowParse[R any, P interface {
	*R
	parse(data []byte) bool
	unmarshalSlow(data []byte) error
}](t *testing.T, data string, same func(a, b *R) bool) {
	t.Helper()
	var fast, slow R
	if !P(&fast).parse([]byte(data)) {
		return
	}
	if err := P(&slow).unmarshalSlow([]byte(data)); err != nil {
		t.Errorf("%q: parsed, but the slow way rejects it: %v", data, err)
		return
	}
	if !same(&fast, &slow) {
		t.Errorf("%q: got %+v, want %+v", data, fast, slow)
	}
}

var intRowsCases = []string{
	`null`, ` null `, `[]`, `[[]]`, `[[0,1,2],[3],[]]`, "[\n  [0, 1,\t2],\r\n  [-3, 40]\n]", `[[1,2],[3,4]]  `,
	`[[01]]`, `[[1.0]]`, `[[1e2]]`, `[[-]]`, `[[1,]]`, `[[1],]`, `[[1]`, `[[1]]]`, `[null]`, `[[null]]`, `[["1"]]`,
	`[[99999999999999999999]]`, `[[1]] x`, `nul`, `nullx`, `{}`, ``, `[[+1]]`, `[[-0]]`,
}

func TestParseIntRows(t *testing.T) {
	// FuzzParseIntRows checks every case against encoding/json.
	for _, data := range intRowsCases[:7] {
		if _, ok := parseIntRows([]byte(data)); !ok {
			t.Errorf("%q: not parsed", data)
		}
	}
}

func FuzzParseIntRows(f *testing.F) {
	fuzzStrings(f, intRowsCases, checkIntRows)
}

// checkIntRows fails t when parseIntRows takes data but encoding/json
// rejects it or reads other rows.
func checkIntRows(t *testing.T, data string) {
	t.Helper()
	fast, ok := parseIntRows([]byte(data))
	if !ok {
		return
	}
	var slow [][]int
	if err := json.Unmarshal([]byte(data), &slow); err != nil {
		t.Errorf("%q: parsed, but encoding/json rejects it: %v", data, err)
		return
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%q: got %#v, want %#v", data, fast, slow)
	}
}

var outcomeCases = []string{
	`[0,1,1,2,3]`, `[0,0,null,0,0]`, `[4,1,0.5,7,1]`, `[4,1,-1e-300,7,1]`, `[1,1,1,1,2147483647]`,
	`[1,1,1,1,2147483648]`, `[1.0,1,1,1,1]`, `[-1,1,1,1,1]`, `[null,1,1,1,1]`, `[1,1,1,1]`, `[1,1,1,1,1,1]`, `[ 1,1,1,1,1]`,
	`[1,1,NaN,1,1]`, `[01,1,1,1,1]`, `[1,1,.5,1,1]`, `[1,1,1,1,1`, `[1,1,"1",1,1]`,
}

func TestOutcomeParse(t *testing.T) {
	// FuzzOutcomeRow checks every case against encoding/json.
	for _, data := range outcomeCases[:5] {
		var o outcomeRow
		if !o.parse([]byte(data)) {
			t.Errorf("%s: not parsed", data)
		}
	}
}

func FuzzOutcomeRow(f *testing.F) {
	fuzzStrings(f, outcomeCases, func(t *testing.T, data string) { checkRowParse(t, data, sameOutcomeRow) })
}

// sameOutcomeRow compares two outcome rows, a NaN score equal to a NaN.
func sameOutcomeRow(a, b *outcomeRow) bool {
	return a.probe == b.probe && a.passed == b.passed && a.details == b.details && a.metadata == b.metadata &&
		(math.Float64bits(a.score) == math.Float64bits(b.score) || math.IsNaN(a.score) && math.IsNaN(b.score))
}

// listCases are arrays of rows: every row case and outcome case alone and
// together, with JSON whitespace, strings holding brackets and values
// that are not rows.
func listCases() []string {
	cases := []string{`null`, ` null`, `[]`, ` [ ] `, `[null]`, `[[1,2,3,4,5],null]`, `[ [0,1,1,2,3] ,[0,0,null,0,0] ]`,
		"[\n\t[0,1,2,3,812.4,5,0,1000000007,4],\r\n\t[1,2,3,4,12,5,6,\"2025-03-01T12:00:00Z\",8]\n]",
		`[[1,2,3,4,12,5,6,"]\"],[",8]]`, `[[[1]],{"a":[1]}]`, `["x"]`, `[1,2]`, `[true]`, `[{}]`}
	for _, c := range append(slices.Clone(rowCases), outcomeCases...) {
		cases = append(cases, "["+c+"]", "[ "+c+" , "+c+" ]")
	}
	return cases
}

// decodeBoth decodes data into a listOf and into the plain slice that
// encoding/json fills by reflection, and fails t when they differ.
func decodeBoth[T any, P interface {
	*T
	json.Unmarshaler
}](t *testing.T, data string) {
	t.Helper()
	var fast listOf[T, P]
	var slow []T
	errFast := json.Unmarshal([]byte(data), &fast)
	errSlow := json.Unmarshal([]byte(data), &slow)
	if fmt.Sprint(errFast) != fmt.Sprint(errSlow) {
		t.Fatalf("%q: error %v, encoding/json's %v", data, errFast, errSlow)
	}
	if errSlow == nil && !cmp.Equal([]T(fast), slow, cmp.AllowUnexported(*new(T)), cmpopts.EquateNaNs()) {
		t.Fatalf("%q: got %+v, encoding/json's %+v", data, fast, slow)
	}
}

func FuzzListOf(f *testing.F) {
	fuzzStrings(f, listCases(), func(t *testing.T, data string) {
		decodeBoth[responseRow](t, data)
		decodeBoth[outcomeRow](t, data)
	})
}

// compactObjectCases are compact lists as this package writes them and as other
// writers might: other key orders, cases, duplicates, escapes, types.
var compactObjectCases = []string{
	`{"encoding":"compact","version":1,"strings":["a","b"],"metadata":[{"k":1},null],"probes":[[0,0,0,1]],"outcomes":[[0,1,0.5,1,0]],"rows":[[0,0,0,0],[0,1,0]]}`,
	`{"rows":[[0,0,0]],"outcomes":[[0,0,null,0,0]],"version":1,"encoding":"compact","strings":["x"],"probes":[[0,0,0,0]],"metadata":[{}]}`,
	`{"encoding":"compact","version":1,"base":"2025-03-01T12:00:00Z","strings":["p","m","hi"],"tool_calls":[[{"name":"f"}]],"profiles":[[1,0,3,-1,0,0,1]],"rows":[[0,0,2,0,1.5,2,0,5,0]]}`,
	`{"encoding":"compact","version":1,"base":null,"strings":null,"tool_calls":null,"profiles":null,"rows":null}`,
	`{"Encoding":"compact","version":1}`, `{"encoding":"compact","encoding":"x"}`, `{"enc\u006fding":"compact"}`, `{"other":1,"version":1}`,
	`{"version":"1"}`, `{"strings":[1]}`, `{"rows":[["x"]]}`, `{"outcomes":[[0,1]]}`, `{"base":"yesterday"}`, `{}`,
	` { "version" : 1 , "rows" : [ [ 0 , 0 , 0 ] ] } `,
}

// checkCompactDecode fails t when decode reads data otherwise than
// json.Unmarshal into T.
func checkCompactDecode[T any](t *testing.T, data string, decode func(*T, []byte) bool) {
	t.Helper()
	if !json.Valid([]byte(data)) || firstByte([]byte(data)) != '{' {
		return // encoding/json never hands it over
	}
	var fast, slow T
	if !decode(&fast, []byte(data)) {
		return
	}
	if err := json.Unmarshal([]byte(data), &slow); err != nil {
		t.Fatalf("%q: decoded, but encoding/json rejects it: %v", data, err)
	}
	if !cmp.Equal(fast, slow, cmp.AllowUnexported(fast, outcomeRow{}, responseRow{}), cmpopts.EquateNaNs()) {
		t.Fatalf("%q: got %+v, want %+v", data, fast, slow)
	}
}

func TestCompactDecode(t *testing.T) {
	decoded := 0
	// FuzzCompactDecode checks every case against encoding/json.
	for _, data := range compactObjectCases {
		var r compactResults
		var p compactResponses
		if r.decode([]byte(data)) || p.decode([]byte(data)) {
			decoded++
		}
	}
	if decoded < 4 {
		t.Errorf("only %d cases took the fast way", decoded)
	}
}

func FuzzCompactDecode(f *testing.F) {
	fuzzStrings(f, compactObjectCases, func(t *testing.T, data string) {
		checkCompactDecode(t, data, (*compactResults).decode)
		checkCompactDecode(t, data, (*compactResponses).decode)
	})
}
