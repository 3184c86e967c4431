package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/promptcanary/promptcanary/internal/proc/proctest"
)

// helperEnv selects a behaviour of the test binary when it runs as the
// command under test (see helperModes).
const helperEnv = "PROC_TEST_HELPER"

func TestMain(m *testing.M) { proctest.Main(m, helperEnv, helperModes) }

// helperModes are the behaviours of the command the tests run, besides
// the ones every package shares (see proctest.Main).
var helperModes = map[string]func() int{
	// Stdin back on stdout, "done" on stderr.
	"echo": func() int {
		io.Copy(os.Stdout, os.Stdin)
		os.Stderr.WriteString("working\ndone\n")
		return 0
	},
	// Start a sleeping grandchild that shares stdout (see proctest.Spawn),
	// answer and exit with PROC_CODE.
	"background": func() int {
		io.Copy(io.Discard, os.Stdin)
		if err := proctest.Spawn(helperEnv); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Stdout.WriteString("answered\n")
		code, _ := strconv.Atoi(os.Getenv("PROC_CODE"))
		return code
	},
}

// helperCmd returns a command running the test binary in mode, with the
// extra NAME=value pairs in its environment.
func helperCmd(t *testing.T, ctx context.Context, mode string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, proctest.Self(t))
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), env...)
	return cmd
}
