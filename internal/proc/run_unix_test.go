//go:build linux

package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/internal/proc/proctest"
)

// TestCancelKillsProcessGroup checks that a cancelled call also kills
// what the command started: a grandchild sharing its stdout.
func TestCancelKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the grandchild has started.
		for ctx.Err() == nil {
			if _, err := os.Stat(pidFile); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	cmd := helperCmd(t, ctx, "spawn", proctest.PIDFileEnv+"="+pidFile)
	var stdout, stderr TailBuffer
	stdout.Max, stderr.Max = 1024, 1024
	err := Run(cmd, nil, &stdout, &stderr)
	if err == nil || !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("got %v (context %v), want a killed command", err, ctx.Err())
	}
	wantGone(t, pidFile)
}

// TestCallEndKillsProcessGroup is the regression test for a command that
// leaves a background child holding stdout: the call waited for it (two
// seconds) and left it running, one orphan per call. Whatever way the
// call ends, the child must be gone; the call must also not wait for it,
// which the test checks without a clock: the child sleeps an hour, so
// the call returning at all with its answer means it did not wait for
// the pipe to close by itself.
func TestCallEndKillsProcessGroup(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		stdout := &LimitedBuffer{Max: 1024}
		err := Run(helperCmd(t, context.Background(), "background", proctest.PIDFileEnv+"="+pidFile), []byte("hi"), stdout, &TailBuffer{Max: 1024})
		if err != nil || string(stdout.Bytes()) != "answered\n" {
			t.Fatalf("got %q, %v, want the answer", stdout.Bytes(), err)
		}
		wantGone(t, pidFile)
	})
	t.Run("failure", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		err := Run(helperCmd(t, context.Background(), "background", proctest.PIDFileEnv+"="+pidFile, "PROC_CODE=3"), []byte("hi"), &LimitedBuffer{Max: 1024}, &TailBuffer{Max: 1024})
		if err == nil || !strings.Contains(err.Error(), "exit status 3") {
			t.Fatalf("got %v, want exit status 3", err)
		}
		wantGone(t, pidFile)
	})
	t.Run("shell job", func(t *testing.T) {
		sh, err := exec.LookPath("sh")
		if err != nil {
			t.Skip("no sh")
		}
		pidFile := filepath.Join(t.TempDir(), "pid")
		argv, err := SplitCommand(quote(sh) + " -c " + quote("sleep 30 & echo $! > "+quote(pidFile)+"; echo hi"))
		if err != nil {
			t.Fatal(err)
		}
		stdout := &LimitedBuffer{Max: 1024}
		if err := Run(exec.CommandContext(context.Background(), argv[0], argv[1:]...), nil, stdout, &TailBuffer{Max: 1024}); err != nil || string(stdout.Bytes()) != "hi\n" {
			t.Fatalf("got %q, %v, want hi", stdout.Bytes(), err)
		}
		wantGone(t, pidFile)
	})
}

// wantGone fails the test unless the process whose pid is in pidFile is
// gone.
func wantGone(t *testing.T, pidFile string) {
	t.Helper()
	if pid := proctest.WaitPID(t, pidFile); !proctest.Gone(pid) {
		t.Errorf("child %d still running after the call ended", pid)
	}
}
