package execcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/promptcanary/promptcanary/internal/proc/proctest"
)

// TestParentKilledKillsCommand is the regression test for exec commands
// that outlived a monitor killed with kill -9: a helper process (the test
// binary, playing the monitor) runs a command through the provider that
// sleeps an hour; once the command has started, the test kills the
// helper with SIGKILL, which gives it no chance to clean up, and the
// command must be gone.
func TestParentKilledKillsCommand(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	parent := exec.Command(proctest.Self(t))
	parent.Env = append(os.Environ(), helperEnv+"=parent", proctest.PIDFileEnv+"="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Process.Kill()
	pid := proctest.WaitPID(t, pidFile)
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	if !proctest.Gone(pid) {
		t.Errorf("command %d still running after its parent was killed", pid)
	}
}
