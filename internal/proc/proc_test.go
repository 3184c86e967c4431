package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestRunOutput(t *testing.T) {
	stdout := &LimitedBuffer{Max: 1024}
	stderr := &TailBuffer{Max: 1024}
	if err := Run(helperCmd(t, context.Background(), "echo"), []byte("request"), stdout, stderr); err != nil {
		t.Fatal(err)
	}
	if got := string(stdout.Bytes()); got != "request" {
		t.Errorf("stdout: got %q, want %q", got, "request")
	}
	if got := LastLines(stderr.String(), 1); got != "done" {
		t.Errorf("stderr: got %q, want %q", got, "done")
	}
}

// TestRunOutputLimit checks that a full stdout stops a command that
// writes forever, through Full.
func TestRunOutputLimit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	stdout := &LimitedBuffer{Max: 1 << 20, Full: func() { calls++; cancel() }}
	err := Run(helperCmd(t, ctx, "huge"), nil, stdout, &TailBuffer{Max: 1024})
	if err == nil || !stdout.Overflowed() || calls != 1 {
		t.Fatalf("got %v, overflowed %v, Full called %d times; want an error, true, 1", err, stdout.Overflowed(), calls)
	}
	if len(stdout.Bytes()) > 1<<20 {
		t.Errorf("kept %d bytes, want at most %d", len(stdout.Bytes()), 1<<20)
	}
}

func TestLimitedBuffer(t *testing.T) {
	calls := 0
	b := &LimitedBuffer{Max: 5, Full: func() { calls++ }}
	if n, err := b.Write([]byte("abc")); n != 3 || err != nil {
		t.Fatalf("got %d, %v, want 3, nil", n, err)
	}
	if n, err := b.Write([]byte("def")); n != 0 || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %d, %v, want 0, ErrTooLarge", n, err)
	}
	if n, err := b.Write([]byte("g")); n != 0 || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("after overflow: got %d, %v, want 0, ErrTooLarge", n, err)
	}
	if got := string(b.Bytes()); got != "abc" || !b.Overflowed() || calls != 1 {
		t.Errorf("got %q, overflowed %v, Full called %d times; want abc, true, 1", got, b.Overflowed(), calls)
	}
}

func TestTailBuffer(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "fits", writes: []string{"ab", "cd"}, want: "abcd"},
		{name: "drops the start", writes: []string{"abc", "def"}, want: "cdef"},
		{name: "one large write", writes: []string{"a", "0123456789"}, want: "6789"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &TailBuffer{Max: 4}
			for _, w := range tc.writes {
				if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("write %q: got %d, %v", w, n, err)
				}
			}
			if got := b.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLastLines(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{in: "", n: 3, want: ""},
		{in: "one\ntwo\n\n  three  \r\n\n", n: 2, want: "two; three"},
		{in: "one\ntwo", n: 5, want: "one; two"},
		{in: "cut \xe2\x82", n: 1, want: "cut \uFFFD"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := LastLines(tc.in, tc.n); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("executable bits and scripts are Unix")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "tool")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Resolve("./tool", dir); err != nil || got != exe {
		t.Errorf("got %q, %v, want %q", got, err, exe)
	}
	for _, tc := range []struct{ name, want string }{
		{"./missing", `command "./missing": no such file (looked for ` + filepath.Join(dir, "missing") + ")"},
		{"./", `command "./" is a directory`},
		{"no-such-command-anywhere", `command "no-such-command-anywhere" not found in PATH`},
		{"./plain", `command "./plain" is not executable (chmod +x ` + filepath.Join(dir, "plain") + ")"},
	} {
		if _, err := Resolve(tc.name, dir); err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestCommandKeepsArgvZero: the command runs the resolved path but keeps
// argv[0] as written, with exactly the given directory and environment.
func TestCommandKeepsArgvZero(t *testing.T) {
	cmd := Command(context.Background(), "/usr/bin/agent", []string{"agent", "--fast", "x y"}, "/work", []string{"A=1"})
	if cmd.Path != "/usr/bin/agent" || !slices.Equal(cmd.Args, []string{"agent", "--fast", "x y"}) || cmd.Dir != "/work" || !slices.Equal(cmd.Env, []string{"A=1"}) {
		t.Errorf("got path %q, args %q, dir %q, env %q; want /usr/bin/agent, [agent --fast \"x y\"], /work, [A=1]", cmd.Path, cmd.Args, cmd.Dir, cmd.Env)
	}
}
