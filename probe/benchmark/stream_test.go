package benchmark_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider/replay"
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

// tally aggregates results: per probe, the answers judged, those that
// passed and the sum of scores.
type tally struct {
	n, passed []int
	score     []float64
}

func newTally(probes int) *tally {
	return &tally{n: make([]int, probes), passed: make([]int, probes), score: make([]float64, probes)}
}

func (t *tally) add(u *tally) {
	for i := range t.n {
		t.n[i] += u.n[i]
		t.passed[i] += u.passed[i]
		t.score[i] += u.score[i]
	}
}

// TestStreamReplay streams a replay file through 10 probes on all cores,
// keeping no answer and no result, and prints the throughput, the
// aggregate and the Go heap's peak. It runs only when
// PROMPTCANARY_STREAM_LINES is set (to 1000000 for the README figures);
// PROMPTCANARY_STREAM_FILE names the file to write, or to reuse when it
// exists. Measure the process with /usr/bin/time -v on the test binary.
func TestStreamReplay(t *testing.T) {
	lines, _ := strconv.Atoi(os.Getenv("PROMPTCANARY_STREAM_LINES"))
	if lines <= 0 {
		t.Skip("set PROMPTCANARY_STREAM_LINES to run")
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
	probes := build(t, streamConfigs)

	const batch = 256
	workers := runtime.GOMAXPROCS(0)
	full := make(chan []*promptcanary.Response, 2*workers)
	free := make(chan []*promptcanary.Response, 2*workers+1)
	for range cap(free) {
		free <- make([]*promptcanary.Response, 0, batch)
	}
	total := newTally(len(probes))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			local := newTally(len(probes))
			for b := range full {
				for _, r := range b {
					for k, p := range probes {
						res := probe.Evaluate(p, prompt, r)
						local.n[k]++
						local.score[k] += res.Score
						if res.Passed {
							local.passed[k]++
						}
					}
				}
				clear(b)
				free <- b[:0]
			}
			mu.Lock()
			total.add(local)
			mu.Unlock()
		})
	}

	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cur := <-free
	read := 0
	err = replay.Stream(bufio.NewReaderSize(f, 1<<20), filepath.Base(path), func(r *promptcanary.Response) error {
		read++
		if cur = append(cur, r); len(cur) == batch {
			full <- cur
			cur = <-free
		}
		return nil
	})
	if len(cur) > 0 {
		full <- cur
	}
	close(full)
	wg.Wait()
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if total.n[0] != read {
		t.Fatalf("judged %d answers, read %d", total.n[0], read)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d answers × %d probes on %d cores in %v: %.0f answers/s, %.0f evaluations/s; Go heap: %d MiB in use at the end, %d MiB obtained from the OS",
		read, len(probes), workers, elapsed.Round(time.Millisecond), float64(read)/elapsed.Seconds(),
		float64(read*len(probes))/elapsed.Seconds(), ms.HeapInuse>>20, ms.HeapSys>>20)
	for k, c := range streamConfigs {
		t.Logf("%-20s pass rate %5.1f%%, mean score %.3f", c.name, 100*float64(total.passed[k])/float64(total.n[k]),
			total.score[k]/float64(total.n[k]))
	}
	fmt.Fprintln(os.Stderr) // keep the log apart from /usr/bin/time's report
}
