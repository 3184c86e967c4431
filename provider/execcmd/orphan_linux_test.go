package execcmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestParentKilledKillsCommand is the regression test for exec commands
// that outlived a monitor killed with kill -9: a helper process (the test
// binary, playing the monitor) runs a command through the provider that
// sleeps an hour; once the command has started, the test kills the
// helper with SIGKILL, which gives it no chance to clean up, and the
// command must be gone.
func TestParentKilledKillsCommand(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	parent := exec.Command(self(t))
	parent.Env = append(os.Environ(), helperEnv+"=parent", "EXECCMD_PIDFILE="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Process.Kill()
	pid := waitPid(t, pidFile)
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	for range 500 {
		if !alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("command %d still running after its parent was killed", pid)
}

// waitPid polls (a bounded number of rounds) for the pid the command
// writes to pidFile.
func waitPid(t *testing.T, pidFile string) int {
	t.Helper()
	for range 1500 {
		if data, err := os.ReadFile(pidFile); err == nil && len(data) > 0 {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the command never started")
	return 0
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}
