package proc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// helperEnv selects a behaviour of the test binary when it runs as the
// command under test (see helper).
const helperEnv = "PROC_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helper is the command the tests run: the test binary itself, told what
// to do by PROC_TEST_HELPER, so no shell scripts are needed.
func helper(mode string) int {
	switch mode {
	case "echo":
		// Stdin back on stdout, "done" on stderr.
		io.Copy(os.Stdout, os.Stdin)
		os.Stderr.WriteString("working\ndone\n")
	case "sleep":
		time.Sleep(time.Hour)
	case "spawn":
		// Start a sleeping grandchild that shares stdout, record its pid
		// in PROC_PIDFILE, then sleep.
		if err := spawn(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		time.Sleep(time.Hour)
	case "background":
		// Start a sleeping grandchild that shares stdout, record its pid
		// in PROC_PIDFILE, answer and exit with PROC_CODE.
		io.Copy(io.Discard, os.Stdin)
		if err := spawn(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Stdout.WriteString("answered\n")
		code, _ := strconv.Atoi(os.Getenv("PROC_CODE"))
		return code
	case "huge":
		// Write until stdout is closed.
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 2
	}
	return 0
}

// spawn starts the test binary sleeping with the same stdout and writes
// its pid to PROC_PIDFILE.
func spawn() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.Command(self)
	child.Env = append(os.Environ(), helperEnv+"=sleep")
	child.Stdout = os.Stdout
	if err := child.Start(); err != nil {
		return err
	}
	return os.WriteFile(os.Getenv("PROC_PIDFILE"), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
}

// helperCmd returns a command running the test binary in mode, with the
// extra NAME=value pairs in its environment.
func helperCmd(t *testing.T, ctx context.Context, mode string, env ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode), env...)
	return cmd
}
