//go:build !unix

package proc

import (
	"bytes"
	"io"
	"os/exec"
)

// Run runs cmd with stdin and its output copied into stdout and stderr.
// Cancellation is left to exec.CommandContext, which kills the command's
// process (not its children); a leftover child holding the output delays
// the call by at most WaitDelay.
func Run(cmd *exec.Cmd, stdin []byte, stdout, stderr io.Writer) error {
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = WaitDelay
	return cmd.Run()
}
