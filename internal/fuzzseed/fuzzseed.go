// Package fuzzseed starts a fuzz target from the inputs a package keeps in
// its testdata folder, so that fuzzing begins at real bodies and outputs.
package fuzzseed

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Files adds each file of testdata matching pattern as a seed of f, and
// fails when none matches: a target whose seeds went missing would fuzz
// from nothing without saying so.
func Files(f *testing.F, pattern string) {
	f.Helper()
	seeds, err := Read(pattern)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add(s)
	}
}

// Read returns the contents of the files of testdata matching pattern, in
// the order of their names; no such file is an error.
func Read(pattern string) ([][]byte, error) {
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no seeds in testdata: %v", err)
	}
	seeds := make([][]byte, len(files))
	for i, name := range files {
		if seeds[i], err = os.ReadFile(name); err != nil {
			return nil, err
		}
	}
	return seeds, nil
}
