//go:build unix

package custom_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
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
