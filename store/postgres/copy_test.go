package postgres

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// verified copies from into to and fails unless Verify then finds every
// kind of record the same on both sides.
func verified(t *testing.T, from, to store.Store) {
	t.Helper()
	ctx := context.Background()
	rep, err := store.Copy(ctx, from, to, store.CopyOptions{})
	if err != nil {
		t.Fatalf("copy %T to %T: %v", from, to, err)
	}
	if rep.MonitorSkipped != "" {
		t.Errorf("copy %T to %T: monitor state skipped: %s", from, to, rep.MonitorSkipped)
	}
	checks, err := store.Verify(ctx, from, to)
	if err != nil {
		t.Fatalf("verify %T against %T: %v", from, to, err)
	}
	if len(checks) != 8 {
		t.Errorf("verify: got %d kinds, want 8", len(checks))
	}
	for _, k := range checks {
		if !k.OK() || k.Extra != 0 || k.SourceSum != k.TargetSum || k.Source == 0 {
			t.Errorf("verify %T against %T, %s: got %+v, want the same records on both sides", from, to, k.Kind, k)
		}
	}
}

// TestCopyRoundTrip copies a history from SQLite to PostgreSQL and back
// to another SQLite file: each copy holds every record of the original,
// read back equal, and copying again changes nothing.
func TestCopyRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lite, err := sqlite.Open(filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	back, err := sqlite.Open(filepath.Join(dir, "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { back.Close() })
	pg := openFresh(t)
	storetest.SaveHistory(t, lite)

	verified(t, lite, pg)
	storetest.AssertSameHistory(t, lite, pg)
	verified(t, pg, back)
	storetest.AssertSameHistory(t, lite, back)

	// Idempotent: a second copy into PostgreSQL leaves the same records
	// (events and notifications replaced, not appended).
	verified(t, lite, pg)
	storetest.AssertSameHistory(t, lite, pg)
}

func TestCopyRefusesTheSameDatabase(t *testing.T) {
	t.Parallel()
	dsn := freshDSN(t)
	a, b := openDSN(t, dsn), openDSN(t, strings.Replace(dsn, "127.0.0.1", "localhost", 1))
	if _, err := store.Copy(context.Background(), a, b, store.CopyOptions{}); !errors.Is(err, store.ErrSameStore) {
		t.Errorf("copy onto the same schema: got %v, want ErrSameStore", err)
	}
	// Another schema of the same database is another store.
	other := openFresh(t)
	if _, err := store.Copy(context.Background(), a, other, store.CopyOptions{}); err != nil {
		t.Errorf("copy to another schema: %v", err)
	}
}
