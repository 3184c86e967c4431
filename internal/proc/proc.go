// Package proc runs the external commands of the exec provider and the
// exec probe: a command line split with shell-like quoting but never run
// through a shell (SplitCommand), its executable found beside canary.yaml
// or in PATH (Resolve), and one run in its own process group that is
// killed with everything it started when the call ends (Run), with a
// bounded stdout (LimitedBuffer) and the end of stderr (TailBuffer,
// LastLines).
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Command is the command that runs the executable at path (see Resolve)
// with the arguments of argv, argv[0] kept as written rather than the
// resolved path, in dir with exactly env; ctx ending kills it (see Run).
func Command(ctx context.Context, path string, argv []string, dir string, env []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = dir
	cmd.Env = env
	return cmd
}

// WaitDelay bounds how long Run waits for the command's output pipes to
// close after it exits or is killed (a leftover child outside its process
// group may hold them).
const WaitDelay = 2 * time.Second

// Resolve finds the executable for name: a bare name is looked up in
// PATH, a path with a slash (or a backslash on Windows) is relative to
// baseDir (the working directory when baseDir is ""). Its errors name the
// command as written and say how to fix it.
func Resolve(name, baseDir string) (string, error) {
	hasSep := strings.ContainsRune(name, '/') || (runtime.GOOS == "windows" && strings.ContainsRune(name, '\\'))
	if !hasSep {
		p, err := exec.LookPath(name)
		if err != nil {
			if errors.Is(err, exec.ErrDot) {
				return "", fmt.Errorf("command %q is found only through a relative PATH entry; write ./%s", name, name)
			}
			return "", fmt.Errorf("command %q not found in PATH", name)
		}
		return p, nil
	}
	p := name
	if !filepath.IsAbs(p) && baseDir != "" {
		p = filepath.Join(baseDir, p)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "", fmt.Errorf("command %q: no such file (looked for %s)", name, p)
	case fi.IsDir():
		return "", fmt.Errorf("command %q is a directory", name)
	case runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
		return "", fmt.Errorf("command %q is not executable (chmod +x %s)", name, p)
	}
	if _, err := exec.LookPath(p); err != nil {
		return "", fmt.Errorf("command %q: %w", name, err)
	}
	return p, nil
}

// ErrTooLarge is returned by a LimitedBuffer once it is full.
var ErrTooLarge = errors.New("output limit reached")

// LimitedBuffer keeps up to Max bytes. A write that would go past Max
// fails with ErrTooLarge, as does every later one, and calls Full (when
// set) once: a caller cancels the command there.
type LimitedBuffer struct {
	Max  int
	Full func()

	buf      bytes.Buffer
	overflow bool
}

// Write appends p, or fails with ErrTooLarge when p does not fit.
func (b *LimitedBuffer) Write(p []byte) (int, error) {
	if b.overflow {
		return 0, ErrTooLarge
	}
	if b.buf.Len()+len(p) > b.Max {
		b.overflow = true
		if b.Full != nil {
			b.Full()
		}
		return 0, ErrTooLarge
	}
	return b.buf.Write(p)
}

// Bytes returns what was kept.
func (b *LimitedBuffer) Bytes() []byte { return b.buf.Bytes() }

// Overflowed reports whether more than Max bytes were written.
func (b *LimitedBuffer) Overflowed() bool { return b.overflow }

// LimitedWriter passes up to Max bytes in all to W. A write that would go
// past Max fails with ErrTooLarge, as does every later one, and calls Full
// (when set) once: a caller cancels the command there. It bounds what a
// command may write when W keeps only part of it.
type LimitedWriter struct {
	W    io.Writer
	Max  int64
	Full func()

	n        int64
	overflow bool
}

// Write passes p to W, or fails with ErrTooLarge when p goes past Max.
func (l *LimitedWriter) Write(p []byte) (int, error) {
	if !l.overflow && l.n+int64(len(p)) > l.Max {
		l.overflow = true
		if l.Full != nil {
			l.Full()
		}
	}
	if l.overflow {
		return 0, ErrTooLarge
	}
	l.n += int64(len(p))
	return l.W.Write(p)
}

// Overflowed reports whether more than Max bytes were written.
func (l *LimitedWriter) Overflowed() bool { return l.overflow }

// TailBuffer keeps the last Max bytes written to it; writes never fail.
type TailBuffer struct {
	Max int

	buf []byte
}

// Write appends p, dropping what falls out of the last Max bytes.
func (t *TailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.Max {
		t.buf = append(t.buf[:0], p[len(p)-t.Max:]...)
		return n, nil
	}
	if drop := len(t.buf) + len(p) - t.Max; drop > 0 {
		t.buf = append(t.buf[:0], t.buf[drop:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the bytes kept.
func (t *TailBuffer) String() string { return string(t.buf) }

// LastLines returns up to n last non-blank lines of s, trimmed and joined
// by "; ", with invalid UTF-8 (a tail cut inside a character) replaced.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append(keep, l)
		}
	}
	slices.Reverse(keep)
	return strings.ToValidUTF8(strings.Join(keep, "; "), "\uFFFD")
}
