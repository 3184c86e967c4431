package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary/store/file"
)

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		split []int
		want  string
	}{
		{[]int{5, 5, 5}, "5 sample(s) per prompt each"},
		{[]int{3, 2, 2}, "run 1 takes 3 samples per prompt, runs 2–3 take 2"},
		{[]int{8, 8, 7, 7}, "runs 1–2 take 8 samples per prompt, runs 3–4 take 7"},
		{[]int{2, 2, 1}, "runs 1–2 take 2 samples per prompt, run 3 takes 1"},
	} {
		if got := splitWords(tc.split); got != tc.want {
			t.Errorf("splitWords(%v) = %q, want %q", tc.split, got, tc.want)
		}
	}
}

// cancelOn is a writer that cancels a context once what was written to it
// holds a string: an interruption at a known point of a command.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	when   string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.when) {
		w.cancel()
	}
	return len(p), nil
}

// TestBuildInterrupted interrupts a build while it waits for its second
// run and, in another, during its first: exit 130, no baseline saved, and
// the run that finished stays in the history.
func TestBuildInterrupted(t *testing.T) {
	for _, tc := range []struct {
		when, want string
		recorded   int
	}{
		{"starts at", "interrupted while waiting for run 2 of 2: no baseline saved; the 1 run(s) that finished are in the history", 1},
		{"building a baseline", "interrupted during run 1 of 2: no baseline saved", 0},
	} {
		dir := t.TempDir()
		config := filepath.Join(dir, "canary.yaml")
		if err := os.WriteFile(config, []byte("name: b\nprobes: [direct_answer]\nprompts:\n  - {id: a, text: hi}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		stderr := &cancelOn{when: tc.when, cancel: cancel}
		store := filepath.Join(dir, "history.db")
		code := Main(ctx, []string{"baseline", "build", "-c", config, "-p", "sim/stable", "--runs", "2", "--every", "1h", "--samples", "2",
			"--no-progress", "--store", store}, Stdio{In: strings.NewReader(""), Out: io.Discard, Err: stderr})
		cancel()
		if code != int(ExitInterrupted) || !strings.Contains(stderr.buf.String(), tc.want) {
			t.Errorf("cancelled at %q: got exit %d, stderr %q; want %d and %q", tc.when, code, stderr.buf.String(), ExitInterrupted, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "baselines")); !os.IsNotExist(err) {
			t.Errorf("cancelled at %q: a baseline directory was written (err %v)", tc.when, err)
		}
		var hist bytes.Buffer
		Main(context.Background(), []string{"history", "--store", store}, Stdio{Out: &hist, Err: &hist})
		if got := strings.Count(hist.String(), "sim/stable"); got != tc.recorded {
			t.Errorf("cancelled at %q: %d run(s) in the history, want %d:\n%s", tc.when, got, tc.recorded, hist.String())
		}
	}
}

// TestBuildRunsAskForNewSamples builds a baseline of sim/noisy, which
// answers by seed and sample, from three runs: each run asks for the
// samples after the earlier runs', so the pooled answers are as varied as
// one run of as many samples, not the first run's answers three times.
func TestBuildRunsAskForNewSamples(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "noisy")
	var stderr bytes.Buffer
	io3 := Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &stderr}
	if code := Main(context.Background(), []string{"init", dir}, io3); code != 0 {
		t.Fatalf("init: exit %d", code)
	}
	config := filepath.Join(dir, "canary.yaml")
	distinct := func(args ...string) map[string]bool {
		t.Helper()
		out := filepath.Join(t.TempDir(), "b")
		args = append(args, "-c", config, "-p", "sim/noisy", "--no-progress", "--store", filepath.Join(t.TempDir(), "h.db"), "--baseline-dir", out)
		if code := Main(context.Background(), args, io3); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		files, _ := filepath.Glob(filepath.Join(out, "*.json"))
		if len(files) != 1 {
			t.Fatalf("%v: got baseline files %v, want one", args, files)
		}
		b, err := file.LoadBaseline(files[0])
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, r := range b.RunResult.LLMResponses {
			if r.PromptID == "user-json" {
				seen[r.Content] = true
			}
		}
		return seen
	}
	pooled := distinct("baseline", "build", "--runs", "3", "--every", "0s", "--samples", "6")
	one := distinct("run", "--samples", "6", "--save-baseline", "--baseline-samples", "6")
	if len(pooled) != len(one) || len(one) < 3 {
		t.Errorf("user-json: %d distinct answers pooled from three runs, %d in one run of as many samples; want the same, at least 3", len(pooled), len(one))
	}
}

// TestBuildResume interrupts a build of sim/noisy, which answers by seed
// and sample, while it waits for its second run, and resumes it: the run
// recorded before is reused, only the two missing runs are made, and they
// ask for the samples after the first run's, so that the pooled answers
// are as varied as one run of as many samples.
func TestBuildResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "noisy")
	quiet := Stdio{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}
	if code := Main(context.Background(), []string{"init", dir}, quiet); code != 0 {
		t.Fatalf("init: exit %d", code)
	}
	config, hist := filepath.Join(dir, "canary.yaml"), filepath.Join(dir, "h.db")
	common := []string{"-c", config, "-p", "sim/noisy", "--no-progress", "--store", hist}
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &cancelOn{when: "starts at", cancel: cancel}
	code := Main(ctx, append([]string{"baseline", "build", "--runs", "3", "--every", "1h", "--samples", "6"}, common...), Stdio{In: strings.NewReader(""), Out: io.Discard, Err: stderr})
	cancel()
	id := regexp.MustCompile(`build ([0-9a-f]{8}): should it stop`).FindStringSubmatch(stderr.buf.String())
	if code != int(ExitInterrupted) || id == nil || !strings.Contains(stderr.buf.String(), "hint: go on with 'promptcanary baseline build -c "+config+" -p sim/noisy --resume "+id[1]+"'") {
		t.Fatalf("interrupted build: exit %d, stderr %q; want %d, a build id and the resume hint", code, stderr.buf.String(), ExitInterrupted)
	}
	var errOut bytes.Buffer
	out := filepath.Join(t.TempDir(), "b")
	args := append([]string{"baseline", "build", "--resume", id[1], "--every", "0s", "--baseline-dir", out}, common...)
	if code := Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: io.Discard, Err: &errOut}); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "resuming build "+id[1]+" of 3 run(s) 0s apart: 1 recorded (sim/noisy run ") {
		t.Errorf("resume: stderr %q, want the resuming line", errOut.String())
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 1 {
		t.Fatalf("got baseline files %v, want one", files)
	}
	b, err := file.LoadBaseline(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Runs) != 3 || b.RunResult.Samples != 6 || b.Runs[2].FirstSample != 4 {
		t.Fatalf("baseline: %d runs, %d samples, runs %+v; want 3 runs of 2 samples", len(b.Runs), b.RunResult.Samples, b.Runs)
	}
	var listing bytes.Buffer
	Main(context.Background(), []string{"history", "--store", hist}, Stdio{Out: &listing, Err: &listing})
	if got := strings.Count(listing.String(), "sim/noisy"); got != 3 {
		t.Errorf("%d runs in the history, want 3 (1 before the interruption, 2 after):\n%s", got, listing.String())
	}
	seen := map[string]bool{}
	for _, r := range b.RunResult.LLMResponses {
		if r.PromptID == "user-json" {
			seen[r.Content] = true
		}
	}
	if len(seen) < 3 {
		t.Errorf("user-json: %d distinct answers pooled from the resumed build, want at least 3 (the resumed runs ask for new samples)", len(seen))
	}
}
