package proc

import "syscall"

// processAttr puts the command in its own process group (so that Run can
// kill everything it started) and asks the kernel to send it SIGKILL when
// the parent dies: a monitor or run killed with kill -9 cannot kill the
// group itself, and the command would otherwise live on, reparented to
// init. The signal reaches the command, not what it started in the
// background, which Run kills with the group in every other case.
//
// The kernel's "parent" is the thread that forked the command. Go ends a
// thread only when a goroutine locked to it (runtime.LockOSThread) exits
// without unlocking, which promptcanary never does.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
