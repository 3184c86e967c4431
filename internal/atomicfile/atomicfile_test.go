package atomicfile

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestWriteReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "run.json")
	for _, content := range []string{"first", "second"} {
		if err := Write(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Errorf("got %q, want %q", got, content)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(entries) != 1 {
		t.Errorf("got %d entries, want only the target", len(entries))
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func TestFailedWriteKeepsOldContent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "baseline.json")
	if err := Write(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFrom(path, failingReader{}, 0o644); err == nil {
		t.Fatal("got nil error, want the reader's error")
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old" {
		t.Errorf("got %q, want old content kept", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("got %d entries, want no temporary file left", len(entries))
	}
}

func TestWriteLongName(t *testing.T) {
	// A name of 250 bytes is valid; its temporary name must be too.
	name := strings.Repeat("🐤", 61) + "x.json" // 244 + 6 bytes
	path := filepath.Join(t.TempDir(), name)
	if err := Write(path, []byte("data"), 0o644); err != nil {
		t.Fatalf("write a %d-byte name: %v", len(name), err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "data" {
		t.Errorf("got %q, %v, want data", got, err)
	}
	if p := tempPrefix(name); len(p)+len(".tmp-")+10 > maxName || !utf8.ValidString(p) || !IsTemp(p+".tmp-4294967295") {
		t.Errorf("temporary prefix %q (%d bytes): want at most %d bytes with the suffix, valid UTF-8, matched by IsTemp", p, len(p), maxName)
	}
}

func TestIsTemp(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{".suite__model__20250301T120000_3f2b9c1e.json.tmp-123456789", true},
		{".run.json.tmp-1", true},
		{"run.json.tmp-1", false},       // not hidden
		{".run.json.tmp-", false},       // no digits
		{".run.json.tmp-12a", false},    // not only digits
		{".tmp-12", false},              // no name
		{".run.json.tmp-1.json", false}, // a real file
		{"notes.txt", false},
	}
	for _, tc := range tests {
		if got := IsTemp(tc.name); got != tc.want {
			t.Errorf("IsTemp(%q): got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// touch creates path with an age as of now.
func touch(t *testing.T, path string, now time.Time, age time.Duration) {
	t.Helper()
	if err := os.WriteFile(path, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, now.Add(-age), now.Add(-age)); err != nil {
		t.Fatal(err)
	}
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	files := []struct {
		name    string
		age     time.Duration
		removed bool
	}{
		{".b.json.tmp-1234", 2 * time.Hour, true},
		{".b.json.tmp-99", 2 * AbandonedAge, runtime.GOOS != "windows" && runtime.GOOS != "plan9"},
		{".b.json.tmp-5678", AbandonedAge / 2, false}, // maybe being created
		{"b.json", 3 * time.Hour, false},
		{".b.json.tmp-x", 3 * time.Hour, false},
		{"b.json.tmp-1", 3 * time.Hour, false},
	}
	for _, f := range files {
		touch(t, filepath.Join(dir, f.name), now, f.age)
	}
	removed, err := RemoveStale(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if gone := errors.Is(err, os.ErrNotExist); gone != f.removed {
			t.Errorf("%s: removed %v, want %v", f.name, gone, f.removed)
		}
		if f.removed {
			want = append(want, filepath.Join(dir, f.name))
		}
	}
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("got removed %v, want %v", removed, want)
	}
	if got, err := RemoveStale(filepath.Join(dir, "missing"), now); err != nil || got != nil {
		t.Errorf("missing directory: got %v, %v, want nothing", got, err)
	}
}

// TestHelperWriter is run as a child process by TestRemoveStaleKeepsLiveWrite:
// it starts writing a file from a reader that never ends.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv("ATOMICFILE_HELPER_PATH")
	if path == "" {
		t.Skip("helper process only")
	}
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("first half of a large baseline"))
		// Never closed: the write hangs until the process is killed (a
		// sleeping goroutine keeps the runtime from calling it a deadlock).
		time.Sleep(time.Hour)
	}()
	WriteFrom(path, pr, 0o644)
}

func TestRemoveStaleKeepsLiveWrite(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no advisory locks")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_HELPER_PATH="+filepath.Join(dir, "big.json"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var tmp string
	for range 500 { // the child creates its temporary file
		entries, _ := os.ReadDir(dir)
		if len(entries) == 1 {
			tmp = filepath.Join(dir, entries[0].Name())
			if info, err := os.Stat(tmp); err == nil && info.Size() > 0 {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if tmp == "" {
		t.Fatal("the writer created no temporary file")
	}
	// Old enough, but locked by a live writer: kept.
	info, err := os.Stat(tmp)
	if err != nil {
		t.Fatal(err)
	}
	later := info.ModTime().Add(StaleAge + time.Minute)
	if removed, err := RemoveStale(dir, later); err != nil || len(removed) != 0 {
		t.Fatalf("live write: got removed %v, %v, want nothing", removed, err)
	}
	// kill -9: the lock goes with the process, the file stays.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the killed writer's temporary file: %v", err)
	}
	if removed, err := RemoveStale(dir, info.ModTime().Add(AbandonedAge/2)); err != nil || len(removed) != 0 {
		t.Errorf("just abandoned: got removed %v, %v, want nothing yet", removed, err)
	}
	removed, err := RemoveStale(dir, info.ModTime().Add(AbandonedAge))
	if err != nil || len(removed) != 1 || removed[0] != tmp {
		t.Errorf("abandoned: got removed %v, %v, want %s", removed, err, tmp)
	}
}
