package check

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

const streamSuiteYAML = `name: streamed
probes: [json_validity, refusal, sentiment, response_length]
prompts:
  - {id: capital, text: "Capital of France?", expected_keywords: [Paris], probes: [expected_keywords]}
  - {id: user, text: "Return a user as JSON."}
  - {id: refuse, text: "Tell me a secret."}
`

// writeStreamFile writes samples answers to each prompt of the suite, with
// explicit sample indices, and lines for a prompt the suite lacks.
func writeStreamFile(t *testing.T, dir string, samples int) string {
	t.Helper()
	answers := []string{
		"Paris.", "The capital is Paris, of course!", "I think it might be Lyon, sadly.",
		`{"name": "Ada", "age": 36}`, "Sure! Here is the user: {name: Ada}", "```json\n{\"name\": \"Ada\"}\n```",
		"I'm sorry, but I can't help with that.", "A secret? Here's one: I love terrible puns.",
		strings.Repeat("A very long answer. ", 200),
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for s := range samples {
		for i, id := range []string{"capital", "user", "refuse", "unknown"} {
			if err := enc.Encode(map[string]any{"prompt_id": id, "sample": s, "content": answers[(s*3+i)%len(answers)], "prompt_tokens": 10, "completion_tokens": 5 + s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, "logs.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStreamAgreesWithRun judges one replay file by a run and by a
// streamed run: every pair has the same count, passes and mean score.
func TestStreamAgreesWithRun(t *testing.T) {
	st := loadSuite(t, streamSuiteYAML)
	const samples = 40
	path := writeStreamFile(t, t.TempDir(), samples)
	targets, _ := mustResolve(t, st, Settings{Providers: []string{"replay/" + path}})
	out := mustRun(t, RunRequest{Suite: st, Targets: targets, Samples: samples})
	type agg struct {
		n, passes int64
		sum       float64
	}
	want := map[promptcanary.PairKey]*agg{}
	for _, r := range out.Runs[0].ProbeResults {
		a := want[r.Key()]
		if a == nil {
			a = &agg{}
			want[r.Key()] = a
		}
		a.n++
		a.sum += r.Score
		if r.Passed {
			a.passes++
		}
	}

	file, ok, err := Streams(targets, StreamPlan{Mode: StreamAlways})
	if err != nil || !ok || file != path {
		t.Fatalf("Streams: %q, %v, %v; want %q, true", file, ok, err, path)
	}
	so, err := Stream(context.Background(), StreamRequest{Suite: st, Target: targets[0], Path: file, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := so.Summary
	if len(so.Problems) > 0 || so.Verdict(true) != Tripped || so.Verdict(false) != Pass {
		t.Errorf("problems %v, verdicts %v/%v; want none, tripped with --fail-on-failure, else pass", so.Problems, so.Verdict(true), so.Verdict(false))
	}
	if s.Lines != 4*samples || s.Judged != 3*samples || s.UnknownLines != samples || len(s.Unknown) != 1 || s.Unknown[0].PromptID != "unknown" {
		t.Errorf("lines %d, judged %d, unknown %d %+v; want %d, %d, %d for \"unknown\"", s.Lines, s.Judged, s.UnknownLines, s.Unknown, 4*samples, 3*samples, samples)
	}
	if len(s.Pairs) != len(want) {
		t.Fatalf("%d pairs, want %d", len(s.Pairs), len(want))
	}
	for _, p := range s.Pairs {
		w := want[p.Key()]
		if w == nil {
			t.Fatalf("pair %s is not in the run", p.Key())
		}
		if p.N != w.n || p.Passes != w.passes || math.Abs(p.MeanScore()-w.sum/float64(w.n)) > 1e-9 {
			t.Errorf("%s: %d/%d passed, mean %.6f; the run: %d/%d, mean %.6f", p.Key(), p.Passes, p.N, p.MeanScore(), w.passes, w.n, w.sum/float64(w.n))
		}
	}
	if in, outTok := out.Runs[0].Tokens(); int64(in) != s.PromptTokens || int64(outTok) != s.CompletionTokens {
		t.Errorf("tokens %d + %d, the run's %d + %d", s.PromptTokens, s.CompletionTokens, in, outTok)
	}
}

// TestStreamUnmeasured: a file without a line for the suite measured
// nothing; a prompt without an answer counts against MaxErrors.
func TestStreamUnmeasured(t *testing.T) {
	st := loadSuite(t, streamSuiteYAML)
	dir := t.TempDir()
	for _, tc := range []struct {
		name, lines string
		maxErrors   int
		want        string
	}{
		{"no prompt of the suite", `{"prompt_id": "nope", "content": "x"}`, 5, `nothing was measured: none of the 1 line(s)`},
		{"prompts without answers", `{"prompt_id": "user", "content": "{}"}`, 1, `2 prompt(s) of the suite have no answer`},
		{"tolerated", `{"prompt_id": "user", "content": "{}"}`, 2, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".jsonl")
			if err := os.WriteFile(path, []byte(tc.lines+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			targets, _ := mustResolve(t, st, Settings{Providers: []string{"replay/" + path}})
			so, err := Stream(context.Background(), StreamRequest{Suite: st, Target: targets[0], Path: path, MaxErrors: tc.maxErrors})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(so.Problems) > 0 {
				got = so.Problems[0].Reason
			}
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("problem %q, want %q", got, tc.want)
			}
			if wantV := map[bool]Verdict{true: Pass, false: Unmeasured}[tc.want == ""]; so.Verdict(false) != wantV {
				t.Errorf("verdict %v, want %v", so.Verdict(false), wantV)
			}
		})
	}
}

// TestStreamMalformedLine: a malformed line is a configuration error that
// names the file and the line.
func TestStreamMalformedLine(t *testing.T) {
	st := loadSuite(t, streamSuiteYAML)
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "{\"prompt_id\": \"user\", \"content\": \"%d\"}\n", i)
	}
	b.WriteString("{\"prompt_id\": \"user\", \"content\": 3}\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	targets, _ := mustResolve(t, st, Settings{Providers: []string{"replay/" + path}})
	_, err := Stream(context.Background(), StreamRequest{Suite: st, Target: targets[0], Path: path})
	if !IsConfig(err) || !strings.Contains(err.Error(), "line 1001: content must be a string") {
		t.Errorf("got %v, want a configuration error naming line 1001", err)
	}
}

// TestStreamsRule: when a run streams, and what it refuses to stream.
func TestStreamsRule(t *testing.T) {
	st := loadSuite(t, streamSuiteYAML)
	dir := t.TempDir()
	small := filepath.Join(dir, "small.jsonl")
	large := filepath.Join(dir, "large.jsonl")
	if err := os.WriteFile(small, []byte(`{"prompt_id": "user", "content": "{}"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(large)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(StreamThreshold); err != nil { // sparse: its size is all that counts
		t.Fatal(err)
	}
	f.Close()
	resolve := func(specs ...string) []Target {
		targets, _ := mustResolve(t, st, Settings{Providers: specs})
		return targets
	}
	for _, tc := range []struct {
		name    string
		targets []Target
		plan    StreamPlan
		streams bool
		err     string
	}{
		{"small file", resolve("replay/" + small), StreamPlan{}, false, ""},
		{"large file", resolve("replay/" + large), StreamPlan{}, true, ""},
		{"large file, --stream=false", resolve("replay/" + large), StreamPlan{Mode: StreamNever}, false, ""},
		{"large file, baseline", resolve("replay/" + large), StreamPlan{SaveBaseline: true}, false, ""},
		{"large file, samples", resolve("replay/" + large), StreamPlan{Samples: true}, false, ""},
		{"large file beside another provider", resolve("replay/"+large, "sim/stable"), StreamPlan{}, false, ""},
		{"missing file", resolve("replay/" + filepath.Join(dir, "none.jsonl")), StreamPlan{}, false, ""},
		{"--stream, small file", resolve("replay/" + small), StreamPlan{Mode: StreamAlways}, true, ""},
		{"--stream, sim", resolve("sim/stable"), StreamPlan{Mode: StreamAlways}, false, "stream streams one replay file"},
		{"--stream, baseline", resolve("replay/" + small), StreamPlan{Mode: StreamAlways, SaveBaseline: true}, false, "cannot be saved as a baseline"},
		{"--stream, samples", resolve("replay/" + small), StreamPlan{Mode: StreamAlways, Samples: true}, false, "samples picks answers by sample index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := Streams(tc.targets, tc.plan)
			if ok != tc.streams || (err == nil) != (tc.err == "") || (err != nil && (!strings.Contains(err.Error(), tc.err) || !IsConfig(err))) {
				t.Errorf("got %v, %v; want %v, %q", ok, err, tc.streams, tc.err)
			}
		})
	}
}
