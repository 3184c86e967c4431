package fuzzseed

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"seed-b", "seed-a", "other"} {
		if err := os.WriteFile(filepath.Join("testdata", name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seeds, err := Read("seed-*")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(seeds))
	for i, s := range seeds {
		got[i] = string(s)
	}
	if want := []string{"seed-a", "seed-b"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := Read("none-*"); err == nil || !strings.Contains(err.Error(), "no seeds in testdata") {
		t.Errorf("got %v, want an error saying there are no seeds", err)
	}
}
