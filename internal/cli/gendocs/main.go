// Command gendocs writes the command-line reference, one Markdown page per
// command, into a directory (docs/cli by default), removing pages of
// commands that no longer exist. Run it from the repository root, or
// through `go generate ./internal/cli`.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/promptcanary/promptcanary/internal/cli"
)

func main() {
	dir := flag.String("dir", filepath.Join("docs", "cli"), "directory of the reference pages")
	flag.Parse()
	if err := write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// write writes every page into dir and removes the generated pages that
// are not in the reference any more.
func write(dir string) error {
	pages := cli.Reference()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	for _, path := range old {
		if _, keep := pages[filepath.Base(path)]; keep {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasPrefix(string(data), cli.ReferenceHeader) {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	for name, text := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
