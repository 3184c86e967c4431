//go:build unix

package custom_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	"github.com/promptcanary/promptcanary/suite"
)

// TestExecTimeoutKillsProcessGroup checks that a command that times out
// takes what it started with it: the grandchild holding stdout is gone.
func TestExecTimeoutKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := execProbe(t, "spawn", map[string]any{"HELPER_PIDFILE": pidFile}, map[string]any{"timeout": "3s"})
	res := probe.Evaluate(p, execPrompt, execResp)
	probetest.CheckVerdict(t, res, false, 0)
	if got := res.Metadata["error"]; got != "timed out after 3s" {
		t.Fatalf("error: got %v, want a timeout", got)
	}
	wantGone(t, pidFile)
}

// wantGone fails unless the process whose pid is in pidFile ends soon.
func wantGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	for range 500 {
		if !alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("grandchild %d still running after the call ended", pid)
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc (macOS): kill(pid, 0) found it
	}
	// The state follows the parenthesised command name.
	if i := strings.LastIndexByte(string(data), ')'); i >= 0 && i+2 < len(data) {
		return data[i+2] != 'Z'
	}
	return true
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
	res := probe.Evaluate(in.Probe, &s.Prompts[0], &promptcanary.Response{Content: "Paris"})
	probetest.CheckVerdict(t, res, true, 0.75)
	if got, want := res.Metadata["dir"], filepath.Join(root, "work"); got != want {
		t.Errorf("working directory: got %v, want %v", got, want)
	}
	if got := res.Metadata["args"]; fmt.Sprint(got) != "[--strict]" {
		t.Errorf("args: got %v, want [--strict]", got)
	}
}
