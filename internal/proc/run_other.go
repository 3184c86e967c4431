//go:build !unix

package execcmd

import (
	"bytes"
	"io"
	"os/exec"
)

// run runs cmd with stdin and its output copied into stdout and stderr.
// Cancellation is left to exec.CommandContext, which kills the command's
// process; a leftover child holding the output delays the call by at most
// waitDelay.
func run(cmd *exec.Cmd, stdin []byte, stdout, stderr io.Writer) error {
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay
	return cmd.Run()
}
