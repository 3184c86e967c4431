//go:build !linux

package release

import "syscall"

// chrootAs is Linux only; TestReleaseLinuxAMD64 skips elsewhere first.
func chrootAs(string, int) *syscall.SysProcAttr { return nil }
