//go:build unix && !linux

package proc

import "syscall"

// processAttr puts the command in its own process group, so that Run can
// kill everything it started. These systems have no parent-death signal:
// a command outlives a parent killed with kill -9.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
