//go:build unix

package execcmd

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in its own process group and makes
// cancellation kill the whole group, so that what the command started
// (a shell's children, an interpreter's subprocesses) dies with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}
