package check

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
)

// TestBaselineFilesGoThroughTheGivenOpener checks that Run and Baselines
// open baseline directories with the store.BaselineDir they are given,
// not a format of their own: the run saves through it, and a lookup
// reports its failure.
func TestBaselineFilesGoThroughTheGivenOpener(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	hist := openStore(t)
	targets, samples, _ := Resolve(st, Settings{})
	dir := t.TempDir()
	var opened []string
	files := func(dir string) (store.Store, error) {
		opened = append(opened, dir)
		return file.OpenDir(dir)
	}
	out, err := Run(context.Background(), RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist,
		SaveBaseline: true, BaselineDir: dir, BaselineFiles: files})
	if err != nil || len(out.Failures) > 0 || len(out.Baselines) != 1 {
		t.Fatalf("run: %v, failures %v, baselines %d; want one baseline saved", err, out.Failures, len(out.Baselines))
	}
	if !slices.Equal(opened, []string{dir}) || filepath.Dir(out.Baselines[0].Path) != dir {
		t.Fatalf("opened %q, saved %s; want %s opened once and the baseline in it", opened, out.Baselines[0].Path, dir)
	}
	broken := errors.New("no such format")
	_, err = Baselines{History: hist, Dir: dir, Files: func(string) (store.Store, error) { return nil, broken }}.Latest(context.Background(), "t", "sim/stable")
	if !errors.Is(err, broken) {
		t.Fatalf("got %v, want the opener's error", err)
	}
}
