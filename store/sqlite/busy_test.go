package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// holdWriteLock makes another connection take the database's write lock
// and returns a function that releases it.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	other, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			other.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// openLocked opens a store in a new file with the busy timeout busy and
// the write timeout write, for a test that locks the file (holdWriteLock),
// and returns it with the file's path.
func openLocked(t *testing.T, busy, write time.Duration) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := OpenWith(path, Options{BusyTimeout: busy, WriteTimeout: write})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestSaveRunWaitsForLockedDatabase(t *testing.T) {
	// A busy timeout far shorter than the lock: only retrying saves the run.
	s, path := openLocked(t, 10*time.Millisecond, time.Minute)
	release := holdWriteLock(t, path)
	saved := make(chan error, 1)
	go func() { saved <- s.SaveRun(context.Background(), storetest.NewRun("locked-run", "s", "m", t0)) }()
	// Let the save hit the lock (several busy attempts), then release it.
	time.Sleep(300 * time.Millisecond)
	release()
	if err := <-saved; err != nil {
		t.Fatalf("save run: %v", err)
	}
	if _, err := s.Run(context.Background(), "locked-run"); err != nil {
		t.Errorf("the run was not saved: %v", err)
	}
}

func TestSaveRunGivesUpOnLockedDatabase(t *testing.T) {
	s, path := openLocked(t, 5*time.Millisecond, 100*time.Millisecond)
	holdWriteLock(t, path)
	err := s.SaveRun(context.Background(), storetest.NewRun("never-saved", "s", "m", t0))
	want := `save run "never-saved": database "` + path + `" stayed locked by another process for 100ms: database is locked`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	// Cancelling stops the wait at once, with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.writeTimeout = time.Hour
	if err := s.SaveRun(ctx, storetest.NewRun("never-saved", "s", "m", t0)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
}

func TestFindLatestBaselineSkipsCorruptBody(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	ctx := context.Background()
	for i, id := range []string{"snap-old", "snap-new"} {
		r := storetest.NewRun("run-"+id, "s", "m", t0)
		if _, err := s.SaveBaseline(ctx, storetest.NewBaseline(id, r, t0.Add(time.Duration(i)*time.Hour), "")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.Exec(`UPDATE baselines SET body = '{"snapshot_id": "snap-new", "run_result": {' WHERE snapshot_id = 'snap-new'`); err != nil {
		t.Fatal(err)
	}
	l, err := s.FindLatestBaseline(ctx, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	if l.Baseline.SnapshotID != "snap-old" || len(l.Skipped) != 1 || l.Skipped[0].SnapshotID != "snap-new" {
		t.Fatalf("got %+v, want snap-old with snap-new skipped", l)
	}
	want := "stored baseline snap-new is unreadable (decode stored baseline: unexpected end of JSON input); using baseline snap-old (created 2025-03-01 12:00:00 UTC) instead"
	if w := l.Warnings(); len(w) != 1 || w[0] != want {
		t.Errorf("got %q, want %q", w, want)
	}
	if _, err := s.db.Exec(`DELETE FROM baselines WHERE snapshot_id = 'snap-old'`); err != nil {
		t.Fatal(err)
	}
	if l, err := s.FindLatestBaseline(ctx, "s", "m"); !errors.Is(err, store.ErrNotFound) || l == nil || len(l.Skipped) != 1 {
		t.Errorf("only a corrupt one: got %+v, %v, want ErrNotFound and it skipped", l, err)
	}
}
