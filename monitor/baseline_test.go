package monitor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/store/storetest"
	"github.com/promptcanary/promptcanary/suite"
)

// TestPinnedRunIsNotItsPool pins a check to the newest run of a pooled
// baseline, which carries that run's id: the run id, whole or as a
// prefix, pins the run as it was measured, and only the snapshot id pins
// the pool.
func TestPinnedRunIsNotItsPool(t *testing.T) {
	ctx := context.Background()
	hist, err := sqlite.Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer hist.Close()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	first := storetest.NewRun("0a0a0a0a-first", "s", "sim/stable", t0)
	last := storetest.NewRun("0b0b0b0b-last", "s", "sim/stable", t0.Add(time.Hour))
	for _, r := range []*promptcanary.Run{first, last} {
		if err := hist.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	pool, err := check.PoolBaseline([]*promptcanary.Run{first, last}, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hist.SaveBaseline(ctx, pool); err != nil {
		t.Fatal(err)
	}
	m := &Monitor{hist: hist}
	e := &entry{c: config.Check{Suite: &suite.Suite{Name: "s"}}, baselineDir: filepath.Join(t.TempDir(), "none")}
	pinned := func(id string) *promptcanary.Baseline {
		t.Helper()
		b, err := m.pinnedBaseline(ctx, e, id)
		if err != nil {
			t.Fatalf("pin %s: %v", id, err)
		}
		return b
	}
	for _, id := range []string{last.RunID, "0b0b0b0b"} {
		if b := pinned(id); len(b.Runs) != 0 || b.RunResult.RunID != last.RunID || b.RunResult.Samples != last.Samples {
			t.Errorf("pin %s: got a baseline of %d runs, %d samples; want run %s as measured", id, len(b.Runs), b.RunResult.Samples, last.RunID)
		}
	}
	if b := pinned(pool.SnapshotID); len(b.Runs) != 2 {
		t.Errorf("pin the pool's snapshot: got %d runs, want 2", len(b.Runs))
	}
	// Promoted alone, the run pins its own baseline, by either id.
	alone, err := hist.Promote(ctx, last.RunID, "alone")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{last.RunID, "0b0b0b0b"} {
		if b := pinned(id); b.SnapshotID != alone.SnapshotID {
			t.Errorf("pin %s: got snapshot %s, want the run's own baseline %s", id, b.SnapshotID, alone.SnapshotID)
		}
	}
}
