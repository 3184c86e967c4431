//go:build !unix

package execcmd

import "os/exec"

// setProcessGroup leaves cancellation to exec.CommandContext, which kills
// the command's process.
func setProcessGroup(cmd *exec.Cmd) {}
