package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"
)

var testFiles = []File{
	{Name: "promptcanary", Mode: 0o755, Data: []byte("binary")},
	{Name: "README.md", Mode: 0o644, Data: []byte("readme")},
	{Name: "tmp/", Mode: 0o777 | fs.ModeSticky},
}

func reversed(files []File) []File {
	out := make([]File, len(files))
	for i, f := range files {
		out[len(files)-1-i] = f
	}
	return out
}

// sameInAnyOrder writes files with write, then again reversed and with
// the time in UTC, and fails unless both give the same bytes, which it
// returns.
func sameInAnyOrder(t *testing.T, write func(io.Writer, []File, time.Time) error, files []File, mtime time.Time) []byte {
	t.Helper()
	var a, b bytes.Buffer
	if err := write(&a, files, mtime); err != nil {
		t.Fatal(err)
	}
	if err := write(&b, reversed(files), mtime.UTC()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same files in another order or zone gave other bytes")
	}
	return a.Bytes()
}

// The same files give the same bytes whatever their order, and every
// header carries the fixed time, root ownership and no user names.
func TestTarGzDeterministic(t *testing.T) {
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))
	zr, err := gzip.NewReader(bytes.NewReader(sameInAnyOrder(t, WriteTarGz, testFiles, mtime)))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header: name %q, time %v; want neither", zr.Name, zr.ModTime)
	}
	var names []string
	eachTarEntry(t, zr, func(h *tar.Header, _ *tar.Reader) {
		names = append(names, h.Name)
		if !h.ModTime.Equal(mtime.Truncate(time.Second)) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: time %v uid %d gid %d user %q group %q", h.Name, h.ModTime, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		if h.Name == "tmp/" && (h.Typeflag != tar.TypeDir || h.Mode != 0o1777) {
			t.Errorf("tmp/: type %c mode %o, want a directory with mode 1777", h.Typeflag, h.Mode)
		}
		if h.Name == "promptcanary" && h.Mode != 0o755 {
			t.Errorf("promptcanary: mode %o, want 755", h.Mode)
		}
	})
	if want := "README.md promptcanary tmp/"; strings.Join(names, " ") != want {
		t.Errorf("entries %q, want %q (sorted)", strings.Join(names, " "), want)
	}
}

func TestZipDeterministic(t *testing.T) {
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", -7200))
	data := sameInAnyOrder(t, WriteZip, testFiles[:2], mtime)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if !f.Modified.Equal(mtime) {
			t.Errorf("%s: modified %v, want %v", f.Name, f.Modified, mtime)
		}
	}
	if want := "README.md promptcanary"; strings.Join(names, " ") != want {
		t.Errorf("entries %q, want %q", strings.Join(names, " "), want)
	}
	if m := zr.File[1].Mode(); m.Perm() != 0o755 {
		t.Errorf("promptcanary: mode %v, want 0755", m)
	}
}
