package file_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// TestFinishPendingClosesTheDirectory checks that the store FinishPending
// opens for a mark's baseline directory is closed when it is done with it.
func TestFinishPendingClosesTheDirectory(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	hist, err := file.Open(filepath.Join(root, "history"))
	if err != nil {
		t.Fatal(err)
	}
	r := storetest.NewRun("close-run", "suite", "m", t1)
	b := store.NewBaseline(r, "", t1.Add(time.Minute))
	if err := hist.SaveRunPending(ctx, r, store.Pending(b, filepath.Join(root, "baselines"))); err != nil {
		t.Fatal(err)
	}
	opened, closed := 0, 0
	dirs := store.BaselineDir(func(dir string) (store.Store, error) {
		s, err := file.OpenDir(dir)
		if err != nil {
			return nil, err
		}
		opened++
		return storetest.Closes{Store: s, N: &closed}, nil
	})
	done, err := store.FinishPending(ctx, hist, dirs)
	if err != nil || len(done) != 1 || done[0].Err != nil {
		t.Fatalf("got %+v, %v, want the baseline finished", done, err)
	}
	if opened != 1 || closed != opened {
		t.Errorf("opened %d baseline directories, closed %d; want each opened one closed", opened, closed)
	}
}
