// Package atomicfile writes files so that readers see either the old
// content or the new, never a half-written file: the data goes to a
// temporary file in the same directory, is synced, then renamed over the
// target.
//
// A process killed while writing leaves its temporary file behind
// (".NAME.tmp-DIGITS"); RemoveStale removes such files once they are
// provably abandoned. While a write is in progress its temporary file is
// locked (where the system has advisory locks), so RemoveStale never
// removes a file that is being written.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"
	"unicode/utf8"
)

// maxName is the longest file name most file systems accept, in bytes.
const maxName = 255

// tempSuffix is added to ".NAME" to make a temporary name; os.CreateTemp
// replaces the * with up to 10 random digits.
const tempSuffix = ".tmp-*"

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
	f, err := os.CreateTemp(dir, tempPrefix(filepath.Base(path))+tempSuffix)
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
	// The lock marks the file as in use until it is closed; failing to
	// take it only makes RemoveStale wait for the file to grow old.
	_ = lock(f)
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

// tempPrefix returns ".NAME", cut on a UTF-8 boundary so that the
// temporary name fits in maxName bytes even when NAME itself is close to
// the limit.
func tempPrefix(name string) string {
	room := maxName - len(".") - len(tempSuffix) + 1 - 10
	if len(name) > room {
		cut := room
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	return "." + name
}

// tempName matches the names of the temporary files WriteFrom creates.
var tempName = regexp.MustCompile(`^\..+\.tmp-[0-9]{1,20}$`)

// IsTemp reports whether name (a base name) is one of the temporary file
// names WriteFrom creates.
func IsTemp(name string) bool { return tempName.MatchString(name) && utf8.ValidString(name) }

const (
	// AbandonedAge is how long an unlocked temporary file must have been
	// left unmodified before RemoveStale removes it: no write pauses that
	// long between creating its file and locking it, or between closing it
	// and renaming it.
	AbandonedAge = time.Minute
	// StaleAge is how long any temporary file must have been left
	// unmodified before RemoveStale removes it where files cannot be
	// locked.
	StaleAge = time.Hour
)

// RemoveStale removes the temporary files that WriteFrom left in dir when
// its process died: those not locked by a write in progress and
// unmodified for AbandonedAge (or, where files cannot be locked, for
// StaleAge) as of now. It touches no other file. It returns the paths
// removed; an error names the file that could not be removed, after the
// others were tried.
func RemoveStale(dir string, now time.Time) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remove stale temporary files in %q: %w", dir, err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.Type().IsRegular() || !IsTemp(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil {
			continue // gone meanwhile
		}
		age := now.Sub(info.ModTime())
		if age < AbandonedAge {
			continue
		}
		abandoned, err := unlocked(path)
		if err != nil && !errors.Is(err, errNoLocks) {
			continue // gone meanwhile, or not ours to open
		}
		if errors.Is(err, errNoLocks) {
			abandoned = age >= StaleAge
		}
		if !abandoned {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove stale temporary file %q: %w", path, err))
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}

// errNoLocks reports that the system offers no advisory file locks.
var errNoLocks = errors.New("no advisory file locks")
