package benchmark_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	_ "github.com/promptcanary/promptcanary/provider/replay"
	"github.com/promptcanary/promptcanary/suite"
)

// streamConfigs are the 10 probes the streaming test judges every replayed
// answer with: a realistic suite over logged production answers.
var streamConfigs = []config{
	benchConfigs[0],  // json_validity
	benchConfigs[1],  // json_schema
	benchConfigs[3],  // response_length
	benchConfigs[5],  // keyword_presence
	benchConfigs[8],  // verbosity
	benchConfigs[11], // sentiment
	benchConfigs[12], // refusal
	benchConfigs[13], // safety_language
	benchConfigs[15], // tool_call_presence
	newConfigs[0],    // regex
}

// writeReplay writes a replay file of n lines, the corpus answers in turn
// with usage, spread over 100 prompts.
func writeReplay(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	resps := responses(tb)
	enc := json.NewEncoder(w)
	for i := range n {
		r := &resps[i%len(resps)]
		line := map[string]any{"prompt_id": "p" + strconv.Itoa(i%100), "content": r.Content,
			"finish_reason": r.FinishReason, "prompt_tokens": r.PromptTokens, "completion_tokens": r.CompletionTokens,
			"latency_ms": r.LatencyMS, "model": "gpt-4o-mini"}
		if err := enc.Encode(line); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// writeStreamSuite writes a suite (JSON, which canary.yaml reads as YAML)
// of the 100 prompts writeReplay answers, each judged by the probes of
// streamConfigs: what `promptcanary run -p replay/FILE` is measured with.
func writeStreamSuite(tb testing.TB, path string) {
	tb.Helper()
	probes := make([]map[string]any, len(streamConfigs))
	for i, c := range streamConfigs {
		probes[i] = map[string]any{"type": c.id}
		maps.Copy(probes[i], c.raw)
	}
	prompts := make([]map[string]any, 100)
	for i := range prompts {
		prompts[i] = map[string]any{"id": "p" + strconv.Itoa(i), "text": prompt.Text}
	}
	data, err := json.MarshalIndent(map[string]any{"name": "stream-bench", "probes": probes, "prompts": prompts}, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// streamFile runs a streamed run of the replay file at path with the
// suite at suitePath, as `promptcanary run -p replay/PATH --stream` does.
func streamFile(tb testing.TB, suitePath, path string) *promptcanary.RunSummary {
	tb.Helper()
	st, err := suite.Load(suitePath)
	if err != nil {
		tb.Fatal(err)
	}
	targets, _, err := check.Resolve(st, check.Settings{Providers: []string{"replay/" + path}})
	if err != nil {
		tb.Fatal(err)
	}
	file, ok, err := check.Streams(targets, check.StreamPlan{Mode: check.StreamAlways})
	if err != nil || !ok {
		tb.Fatalf("Streams: %v, %v", ok, err)
	}
	out, err := check.Stream(context.Background(), check.StreamRequest{Suite: st, Target: targets[0], Path: file})
	if err != nil {
		tb.Fatal(err)
	}
	if len(out.Problems) > 0 {
		tb.Fatalf("problems: %+v", out.Problems)
	}
	return out.Summary
}

// TestStreamSuiteJudgesAsProbes: the suite writeStreamSuite writes judges
// a streamed file as streamConfigs' probes judge its answers one by one,
// so the CLI's figures are those of the same work.
func TestStreamSuiteJudgesAsProbes(t *testing.T) {
	dir := t.TempDir()
	path, suitePath := filepath.Join(dir, "replay.jsonl"), filepath.Join(dir, "canary.yaml")
	const lines = 500
	writeReplay(t, path, lines)
	writeStreamSuite(t, suitePath)
	s := streamFile(t, suitePath, path)
	if s.Lines != lines || s.Judged != lines || s.UnknownLines != 0 || len(s.Errors) != 0 {
		t.Fatalf("lines %d, judged %d, unknown %d, errors %d; want %d, %d, 0, 0", s.Lines, s.Judged, s.UnknownLines, len(s.Errors), lines, lines)
	}
	probes := build(t, streamConfigs)
	resps := responses(t)
	want := make([]int64, len(probes))
	for i := range lines {
		r := resps[i%len(resps)]
		r.ToolCalls = nil // writeReplay writes none
		if r.FinishReason == "" {
			r.FinishReason = "stop"
		}
		for k, p := range probes {
			if probetest.Eval(p, prompt, &r).Passed {
				want[k]++
			}
		}
	}
	got := make([]int64, len(probes))
	for _, p := range s.Pairs {
		k := slices.IndexFunc(streamConfigs, func(c config) bool { return c.id == p.ProbeType })
		got[k] += p.Passes
	}
	for k, c := range streamConfigs {
		if got[k] != want[k] {
			t.Errorf("%s: %d of %d answers passed in the stream, %d one by one", c.name, got[k], lines, want[k])
		}
	}
}

// TestStreamReplay streams a replay file through 10 probes on all cores,
// as `promptcanary run -p replay/FILE --stream` does (check.Stream: one
// goroutine splits lines, every core decodes and judges them, aggregates
// per pair), checks that every line is judged by every probe once, and
// prints the throughput, the aggregate and the Go heap. It streams 2,000
// lines unless PROMPTCANARY_STREAM_LINES says otherwise (1000000 for the
// figures in docs/performance.md); PROMPTCANARY_STREAM_FILE names the file to write, or to
// reuse when it exists, and a canary.yaml for it is written beside it.
// Measure the CLI itself with /usr/bin/time -v promptcanary run -c
// DIR/canary.yaml -p replay/FILE.
func TestStreamReplay(t *testing.T) {
	lines, _ := strconv.Atoi(os.Getenv("PROMPTCANARY_STREAM_LINES"))
	if lines <= 0 {
		lines = 2000 // a check that every line is judged, in a fraction of a second
	}
	path := os.Getenv("PROMPTCANARY_STREAM_FILE")
	if path == "" {
		path = filepath.Join(t.TempDir(), "replay.jsonl")
	}
	if _, err := os.Stat(path); err != nil {
		start := time.Now()
		writeReplay(t, path, lines)
		t.Logf("wrote %d lines to %s in %v", lines, path, time.Since(start).Round(time.Millisecond))
	}
	suitePath := filepath.Join(filepath.Dir(path), "canary.yaml")
	writeStreamSuite(t, suitePath)

	start := time.Now()
	s := streamFile(t, suitePath, path)
	elapsed := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	total, _ := s.Results()
	t.Logf("%d answers × %d probes on %d cores in %v: %.0f answers/s, %.0f evaluations/s; Go heap: %d MiB in use at the end, %d MiB obtained from the OS",
		s.Judged, len(streamConfigs), runtime.GOMAXPROCS(0), elapsed.Round(time.Millisecond), float64(s.Judged)/elapsed.Seconds(),
		float64(total)/elapsed.Seconds(), ms.HeapInuse>>20, ms.HeapSys>>20)
	if s.Judged != int64(lines) {
		t.Errorf("the stream judged %d answers of the %d lines", s.Judged, lines)
	}
	n, passed, sum := map[string]int64{}, map[string]int64{}, map[string]float64{}
	for _, p := range s.Pairs {
		n[p.ProbeID] += p.N
		passed[p.ProbeID] += p.Passes
		sum[p.ProbeID] += p.ScoreSum
	}
	for _, c := range streamConfigs {
		// Every answer is judged by every probe, once: a figure from fewer
		// evaluations would overstate the throughput.
		if n[c.id] != int64(lines) {
			t.Errorf("%s judged %d answers of %d", c.name, n[c.id], lines)
			continue
		}
		t.Logf("%-20s pass rate %5.1f%%, mean score %.3f", c.name, 100*float64(passed[c.id])/float64(n[c.id]), sum[c.id]/float64(n[c.id]))
	}
	fmt.Fprintln(os.Stderr) // keep the log apart from /usr/bin/time's report
}
