package suite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "proj")
	tests := []struct {
		path, store    string
		dir            string
		rel, wantStore string
	}{
		{"canary.yaml", "", ".", "replay.jsonl", ".promptcanary/history.db"},
		{"ci/suites/canary.yaml", "runs.db", "ci/suites", "ci/suites/replay.jsonl", "ci/suites/runs.db"},
		{"ci/canary.yaml", "../shared/runs.db", "ci", "ci/replay.jsonl", "shared/runs.db"},
		{filepath.Join(abs, "canary.yaml"), "/var/lib/runs.db", abs, filepath.Join(abs, "replay.jsonl"), "/var/lib/runs.db"},
		{"", "", ".", "replay.jsonl", ".promptcanary/history.db"},
		// A database URL is used as written, never joined to the suite's directory.
		{"ci/canary.yaml", "postgres://canary@db:5432/canary", "ci", "ci/replay.jsonl", "postgres://canary@db:5432/canary"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			s := &Suite{Path: tc.path, Defaults: Defaults{Store: tc.store}}
			if got := s.Dir(); got != tc.dir {
				t.Errorf("Dir: got %q, want %q", got, tc.dir)
			}
			if got := s.Resolve("replay.jsonl"); got != filepath.FromSlash(tc.rel) {
				t.Errorf("Resolve: got %q, want %q", got, tc.rel)
			}
			if got := s.StorePath(); got != filepath.FromSlash(tc.wantStore) {
				t.Errorf("StorePath: got %q, want %q", got, tc.wantStore)
			}
			if got := s.Resolve("/etc/../etc/x"); got != "/etc/x" {
				t.Errorf("Resolve absolute: got %q, want /etc/x", got)
			}
			if got := s.Resolve(""); got != "" {
				t.Errorf(`Resolve(""): got %q, want ""`, got)
			}
		})
	}
}

// TestLoadResolvesFromAnyDirectory loads a suite from another working
// directory: what it names resolves beside it.
func TestLoadResolvesFromAnyDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "project")
	write(t, filepath.Join(dir, FileName), "store: data/runs.db\nprobes: [test_plain]\nprompts: [hi]\n")
	t.Chdir(filepath.Join(root))
	s, err := Load(filepath.Join("project", FileName))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.StorePath(), filepath.Join("project", "data", "runs.db"); got != want {
		t.Errorf("StorePath: got %q, want %q", got, want)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "repo", FileName), "prompts: [hi]\n")
	deep := filepath.Join(root, "repo", "a", "b")
	// A directory named canary.yaml is not a suite.
	if err := os.MkdirAll(filepath.Join(deep, FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, "repo", FileName)
	for _, start := range []string{filepath.Join(root, "repo"), deep} {
		if got, err := Find(start); err != nil || got != want {
			t.Errorf("Find(%s): got %q, %v; want %q", start, got, err, want)
		}
	}

	// A relative start gives a relative result.
	t.Chdir(deep)
	got, err := Find(".")
	if err != nil || got != filepath.Join("..", "..", FileName) {
		t.Errorf(`Find("."): got %q, %v; want ../../canary.yaml`, got, err)
	}
	t.Chdir(filepath.Join(root, "repo"))
	if got, err := Find("."); err != nil || got != FileName {
		t.Errorf(`Find("."): got %q, %v; want canary.yaml`, got, err)
	}

	// None found: the error names where the search began.
	empty := filepath.Join(root, "elsewhere", "x")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err = Find(empty)
	if got != "" && !strings.HasPrefix(got, root) {
		t.Skipf("a %s above the test directory (%s) hides the not-found case", FileName, got)
	}
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find(%s): got %q, %v; want a *NotFoundError", empty, got, err)
	}
	if want := "no canary.yaml in " + empty + " or any parent directory"; err.Error() != want {
		t.Errorf("error: got %q, want %q", err, want)
	}
	if len(nf.Hints()) == 0 || !strings.Contains(nf.Hints()[0], "promptcanary init") {
		t.Errorf("hints: got %q, want one naming promptcanary init", nf.Hints())
	}
}
