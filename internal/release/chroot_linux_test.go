package release

import "syscall"

// chrootAs runs a command inside root as uid (and gid uid), as a
// container runtime runs an image's entrypoint.
func chrootAs(root string, uid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Chroot:     root,
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid), NoSetGroups: true},
	}
}
