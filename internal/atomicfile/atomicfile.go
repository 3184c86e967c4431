// Package atomicfile writes files so that readers see either the old
// content or the new, never a half-written file: the data goes to a
// temporary file in the same directory, is synced, then renamed over the
// target.
package atomicfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write atomically replaces path with data. Missing parent directories are
// created.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFrom(path, bytes.NewReader(data), perm)
}

// WriteFrom atomically replaces path with everything read from r.
func WriteFrom(path string, r io.Reader, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = io.Copy(f, r); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	return nil
}
