package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rootPackage is how docs/architecture.md names the module's root package.
const rootPackage = "promptcanary"

// TestArchitectureNamesEveryPackage holds docs/architecture.md to the
// tree: its package table names every package of the module, and none
// that does not exist, so the map cannot drift from the code.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	missing, extra := architectureMismatch(string(data), modulePackages(t))
	for _, p := range missing {
		t.Errorf("docs/architecture.md does not name package %s: add a row to its package table", p)
	}
	for _, p := range extra {
		t.Errorf("docs/architecture.md names package %s, which does not exist", p)
	}
}

// TestArchitectureCheckCanFail feeds the comparison a table with one
// package missing and one too many.
func TestArchitectureCheckCanFail(t *testing.T) {
	doc := "# x\n\n## Packages\n\n| package | owns |\n|---|---|\n| `promptcanary` | words |\n| `drift` | verdicts |\n| `gone` | nothing |\n\n## After\n\n| `runner` | not in the table section |\n"
	missing, extra := architectureMismatch(doc, []string{rootPackage, "drift", "runner"})
	if !slices.Equal(missing, []string{"runner"}) || !slices.Equal(extra, []string{"gone"}) {
		t.Errorf("missing %v, extra %v; want [runner] and [gone]", missing, extra)
	}
}

// tableRow matches a row of the package table: its first cell is a
// package path in backquotes.
var tableRow = regexp.MustCompile("^\\|\\s*`([a-z0-9_/]+)`\\s*\\|")

// architectureMismatch compares the packages the "## Packages" section
// of doc names in its table with pkgs, and returns the ones it lacks and
// the ones it names in vain, sorted.
func architectureMismatch(doc string, pkgs []string) (missing, extra []string) {
	named := map[string]bool{}
	in := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.TrimSpace(line) == "## Packages"
			continue
		}
		if m := tableRow.FindStringSubmatch(line); in && m != nil {
			named[m[1]] = true
		}
	}
	for _, p := range pkgs {
		if !named[p] {
			missing = append(missing, p)
		}
		delete(named, p)
	}
	for p := range named {
		extra = append(extra, p)
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}

// modulePackages lists the module's packages as paths relative to the
// repository root (the root itself as rootPackage): every directory with
// a Go file that is not a test, outside testdata and hidden directories.
func modulePackages(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != repoRoot && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(repoRoot, filepath.Dir(path))
		if err != nil {
			return err
		}
		if rel == "." {
			rel = rootPackage
		}
		seen[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for p := range seen {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	return pkgs
}
