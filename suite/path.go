package suite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the name Find looks for.
const FileName = "canary.yaml"

// DefaultStore is the run history used when the file sets no store:,
// relative to the suite's directory.
const DefaultStore = ".promptcanary/history.db"

// Dir returns the directory of the suite file, against which every path the
// file names is resolved: store:, and the files that providers: entries
// name (replay files, exec/ working directories), which the caller passes
// on as provider.Options.BaseDir. It is "." for a suite parsed without a
// path.
func (s *Suite) Dir() string {
	if s.Path == "" {
		return "."
	}
	return filepath.Dir(s.Path)
}

// Resolve returns path resolved against Dir, whatever the working
// directory: an absolute path unchanged (cleaned), a relative one joined to
// Dir, and "" unchanged.
func (s *Suite) Resolve(path string) string {
	if path == "" {
		return ""
	}
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(s.Dir(), path)
}

// StorePath returns the run history database: store: resolved against Dir,
// else DefaultStore beside the file.
func (s *Suite) StorePath() string {
	if strings.Contains(s.Defaults.Store, "://") {
		return s.Defaults.Store // a database URL (postgres://…), not a path
	}
	if s.Defaults.Store != "" {
		return s.Resolve(s.Defaults.Store)
	}
	return s.Resolve(DefaultStore)
}

// ErrNotFound is wrapped by Find's error when no suite file exists in the
// directory or any parent.
var ErrNotFound = errors.New("no " + FileName + " found")

// NotFoundError is the error of Find and FindFile when the file exists in
// neither Start nor any of its parents.
type NotFoundError struct {
	// Start is the absolute directory the search began in.
	Start string
	// Name is the file looked for; "" is FileName.
	Name string
}

func (e *NotFoundError) name() string {
	if e.Name == "" {
		return FileName
	}
	return e.Name
}

// Error names where the search looked.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no %s in %s or any parent directory", e.name(), e.Start)
}

// Unwrap returns ErrNotFound for a suite file, else fs.ErrNotExist.
func (e *NotFoundError) Unwrap() error {
	if e.name() == FileName {
		return ErrNotFound
	}
	return fs.ErrNotExist
}

// Hints says how to get a suite file; the caller of FindFile for another
// file says how to get that one.
func (e *NotFoundError) Hints() []string {
	if e.name() != FileName {
		return nil
	}
	return []string{"create one with 'promptcanary init', or point to it with --config"}
}

// Find looks for FileName in start and then in each parent directory up to
// the root, as git looks for .git, and returns the first found (see
// FindFile). With none found the error is a *NotFoundError wrapping
// ErrNotFound.
func Find(start string) (string, error) { return FindFile(start, FileName) }

// FindFile looks for name in start and then in each parent directory up to
// the root and returns the first found. The result is relative to start
// when start is relative ("../canary.yaml"), so that file:line messages
// stay short. With none found the error is a *NotFoundError; a directory
// that cannot be read is an error too, rather than a reason to look
// further up.
func FindFile(start, name string) (string, error) {
	abs, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", name, err)
	}
	for dir := abs; ; {
		path := filepath.Join(dir, name)
		fi, err := os.Stat(path)
		switch {
		case err == nil && !fi.IsDir():
			if filepath.IsAbs(start) {
				return path, nil
			}
			rel, err := filepath.Rel(abs, path)
			if err != nil {
				return path, nil
			}
			return filepath.Join(start, rel), nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("find %s: %w", name, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", &NotFoundError{Start: abs, Name: name}
		}
		dir = parent
	}
}
