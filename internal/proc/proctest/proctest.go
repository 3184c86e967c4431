// Package proctest lets a package's tests run their own test binary as
// the external command under test, so that no shell scripts are needed:
// started with the package's helper variable set to a mode, the binary
// plays that mode instead of running the tests.
package proctest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PIDFileEnv names the file the "spawn" mode, and Spawn, write the pid of
// the grandchild to.
const PIDFileEnv = "PROCTEST_PIDFILE"

// The variables the "print" and "fail" modes read.
const (
	// OutEnv holds what the "print" mode writes to stdout.
	OutEnv = "PROCTEST_OUT"
	// ErrEnv holds what the "fail" mode writes to stderr, with $VARS
	// expanded.
	ErrEnv = "PROCTEST_ERR"
	// CodeEnv holds the exit code of the "fail" mode.
	CodeEnv = "PROCTEST_CODE"
)

// Main is the TestMain of a package whose tests run their own binary.
// When the variable env holds a mode, the binary plays it and exits with
// its code: one of modes, or one every such package shares:
//
//	sleep  sleep an hour, until the test kills it
//	spawn  start a sleeping grandchild that shares stdout (see Spawn), then sleep
//	huge   write to stdout until it is closed
//	print  read stdin, then write $PROCTEST_OUT (OutEnv) to stdout
//	fail   read stdin, then write $PROCTEST_ERR (ErrEnv, with $VARS
//	       expanded) to stderr and exit $PROCTEST_CODE (CodeEnv)
//
// Otherwise Main runs the tests.
func Main(m *testing.M, env string, modes map[string]func() int) {
	if mode := os.Getenv(env); mode != "" {
		os.Exit(play(env, mode, modes))
	}
	os.Exit(m.Run())
}

// play plays mode and returns the exit code.
func play(env, mode string, modes map[string]func() int) int {
	if f, ok := modes[mode]; ok {
		return f()
	}
	switch mode {
	case "sleep":
		time.Sleep(time.Hour)
	case "spawn":
		if err := Spawn(env); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		time.Sleep(time.Hour)
	case "huge":
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
	case "print":
		io.Copy(io.Discard, os.Stdin)
		os.Stdout.WriteString(os.Getenv(OutEnv))
	case "fail":
		io.Copy(io.Discard, os.Stdin)
		fmt.Fprint(os.Stderr, os.ExpandEnv(os.Getenv(ErrEnv)))
		code, _ := strconv.Atoi(os.Getenv(CodeEnv))
		return code
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 2
	}
	return 0
}

// Spawn starts the test binary in mode "sleep" (set in the variable env)
// with the same stdout, and writes its pid with WritePID.
func Spawn(env string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.Command(self)
	child.Env = append(os.Environ(), env+"=sleep")
	child.Stdout = os.Stdout
	if err := child.Start(); err != nil {
		return err
	}
	return WritePID(child.Process.Pid)
}

// WritePID writes pid to the file named by PIDFileEnv: aside first, then
// renamed, so that a test waiting for the file (WaitPID) never reads half
// of it.
func WritePID(pid int) error {
	pidFile := os.Getenv(PIDFileEnv)
	if err := os.WriteFile(pidFile+".tmp", []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return err
	}
	return os.Rename(pidFile+".tmp", pidFile)
}

// WaitPID polls, for a bounded number of rounds, for the pid a helper
// writes to pidFile (see WritePID), and fails the test when none comes.
func WaitPID(t testing.TB, pidFile string) int {
	t.Helper()
	for range 1500 {
		if data, err := os.ReadFile(pidFile); err == nil && len(data) > 0 {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s: the helper never started", pidFile)
	return 0
}

// Self returns the path of the test binary, failing the test when it
// cannot be found.
func Self(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}
