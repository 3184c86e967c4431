package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestInterruptWritesWhatFinished cancels a run (as Ctrl-C does in main)
// while calls hang: the calls in flight are cancelled, the run JSON still
// holds the answers that came back, the exit code is 130, and neither a
// baseline nor a partial run is recorded.
func TestInterruptWritesWhatFinished(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var served, hung atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "slow") {
			if hung.Add(1) == 2 {
				cancel() // both slow calls are in flight, so both fast ones have finished (concurrency 2): interrupt
			}
			<-r.Context().Done()
			return
		}
		served.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"ok\": true}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}`)
	}))
	defer srv.Close()

	dir := t.TempDir()
	config := filepath.Join(dir, "canary.yaml")
	os.WriteFile(config, []byte(`name: interrupt
probes: [json_validity]
prompts:
  - {id: fast1, text: "fast one"}
  - {id: fast2, text: "fast two"}
  - {id: slow1, text: "slow one"}
  - {id: slow2, text: "slow two"}
`), 0o644)
	out := filepath.Join(dir, "run.json")
	store := filepath.Join(dir, "history.db")
	var stdout, stderr bytes.Buffer
	code := Main(ctx, []string{"run", "-c", config, "-p", "openai/m", "--base-url", srv.URL + "/v1",
		"--concurrency", "2", "--no-progress", "--save-baseline", "--baseline-dir", filepath.Join(dir, "baselines"),
		"--store", store, "-o", out}, Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
	if code != int(ExitInterrupted) {
		t.Fatalf("got exit %d, want %d\nstderr: %s", code, ExitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted: 2 of 4 calls finished") {
		t.Errorf("got stderr %q, want the interruption reported", stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the run JSON was not written: %v", err)
	}
	var run promptcanary.Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	if !run.Interrupted || len(run.LLMResponses) != 2 || len(run.ProbeResults) != 2 || len(run.Errors) != 0 {
		t.Errorf("got interrupted=%v, %d responses, %d results, %d errors; want the 2 finished calls and no errors",
			run.Interrupted, len(run.LLMResponses), len(run.ProbeResults), len(run.Errors))
	}
	if served.Load() != 2 {
		t.Errorf("server answered %d calls, want 2", served.Load())
	}
	if _, err := os.Stat(filepath.Join(dir, "baselines")); !os.IsNotExist(err) {
		t.Errorf("a baseline directory was written for an interrupted run (err %v)", err)
	}
	var hist bytes.Buffer
	if code := Main(context.Background(), []string{"history", "--store", store}, Stdio{Out: &hist, Err: &hist}); code != int(ExitOK) || !strings.Contains(hist.String(), "no runs recorded") {
		t.Errorf("history after an interrupted run: exit %d, %q; want no runs recorded", code, hist.String())
	}
}
