//go:build unix

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestStreamInterruptWritesNoFile cancels a streamed run (as Ctrl-C does in
// main) while its file is still being written, through a named pipe: the
// aggregates judged so far are printed, marked interrupted, the exit code
// is 130, and no report file is written, since part of a file's counts
// would read as the whole file's.
func TestStreamInterruptWritesNoFile(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	config := filepath.Join(dir, "canary.yaml")
	if err := os.WriteFile(config, []byte("name: interrupt\nprobes: [json_validity]\nprompts:\n  - {id: p1, text: \"Return JSON.\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "logs.jsonl")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			cancel()
			return
		}
		defer f.Close()
		for i := range 3000 {
			if i == 1000 {
				cancel() // the reader cannot reach the end before this
			}
			if _, err := fmt.Fprintf(f, "{\"prompt_id\": \"p1\", \"content\": \"{\\\"n\\\": %d}\"}\n", i); err != nil {
				return // the run stopped reading
			}
		}
	}()
	out := filepath.Join(dir, "summary.json")
	var stdout, stderr bytes.Buffer
	code := Main(ctx, []string{"run", "-c", config, "-p", "replay/" + pipe, "--stream", "--no-progress", "--store", filepath.Join(dir, "h.db"), "-o", out, "--output-md", filepath.Join(dir, "run.md")},
		Stdio{In: strings.NewReader(""), Out: &stdout, Err: &stderr})
	if code != int(ExitInterrupted) {
		t.Fatalf("got exit %d, want %d\nstdout: %s\nstderr: %s", code, ExitInterrupted, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "The run was interrupted: results are incomplete.") {
		t.Errorf("stdout %q does not say the run was interrupted", stdout.String())
	}
	if !strings.Contains(stderr.String(), "no report file was written") {
		t.Errorf("stderr %q does not say that no file was written", stderr.String())
	}
	for _, f := range []string{out, filepath.Join(dir, "run.md"), filepath.Join(dir, "h.db")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s was written", filepath.Base(f))
		}
	}
}
