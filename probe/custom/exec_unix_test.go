//go:build unix

package custom_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/proc/proctest"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	"github.com/promptcanary/promptcanary/suite"
)

// TestExecTimeoutWithGrandchild checks that a command that times out while
// a grandchild holds its stdout fails as a timeout. That the grandchild is
// killed too is proc.Run's, tested in internal/proc.
func TestExecTimeoutWithGrandchild(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := execProbe(t, "spawn", map[string]any{proctest.PIDFileEnv: pidFile}, map[string]any{"timeout": "3s"})
	res := probetest.Eval(p, execPrompt, execResp)
	probetest.CheckVerdict(t, res, false, 0)
	if got := res.Metadata["error"]; got != "timed out after 3s" {
		t.Fatalf("error: got %v, want a timeout", got)
	}
}

// TestExecPathsBesideSuite loads a suite from another working directory:
// the command path and dir are relative to canary.yaml.
func TestExecPathsBesideSuite(t *testing.T) {
	root := t.TempDir()
	if d, err := filepath.EvalSymlinks(root); err == nil {
		root = d
	}
	for _, d := range []string{"checks", "work", "elsewhere"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(helperPath(t), filepath.Join(root, "checks", "judge")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "elsewhere"))
	doc := `name: paths
prompts: [hi]
probes:
  - type: exec
    command: [./checks/judge, --strict]
    dir: work
    env: {CUSTOM_EXEC_HELPER: judge, HELPER_WANT: Paris}
`
	s, err := suite.Parse(filepath.Join(root, "canary.yaml"), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	in := s.ProbesFor(s.Prompts[0].ID)[0]
	res := probetest.Eval(in.Probe, &s.Prompts[0], &promptcanary.Response{Content: "Paris"})
	probetest.CheckVerdict(t, res, true, 0.75)
	if got, want := res.Metadata["dir"], filepath.Join(root, "work"); got != want {
		t.Errorf("working directory: got %v, want %v", got, want)
	}
	if got := res.Metadata["args"]; fmt.Sprint(got) != "[--strict]" {
		t.Errorf("args: got %v, want [--strict]", got)
	}
}

// TestExecStopsWhenTheRunIsInterrupted: cancelling the run's context kills
// the command at once instead of at its (long) timeout.
func TestExecStopsWhenTheRunIsInterrupted(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := execProbe(t, "spawn", map[string]any{proctest.PIDFileEnv: pidFile}, map[string]any{"timeout": "5m"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan probe.Result, 1)
	go func() { done <- probetest.EvalIn(ctx, p, probe.Input{Prompt: execPrompt, Response: execResp}) }()
	// Cancel once the command is running (it wrote its grandchild's pid).
	proctest.WaitPID(t, pidFile)
	cancel()
	res := <-done
	probetest.CheckVerdict(t, res, false, 0)
	if got := res.Metadata["error"]; got != "stopped: the run was interrupted" {
		t.Fatalf("error: got %v, want the interruption", got)
	}
}
