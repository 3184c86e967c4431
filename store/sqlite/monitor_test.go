package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// openVersion creates a database at path with only the first version
// migrations applied, as an older promptcanary left it.
func openVersion(t *testing.T, path string, version int) *Store {
	t.Helper()
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(db, path, WriteTimeout)
	if err := s.migrate(context.Background(), ms[:version]); err != nil {
		t.Fatal(err)
	}
	return s
}

// upgrade closes old, a database that openVersion left at path, and opens
// it again with Open, which migrates it to the latest version; the store
// closes as t ends.
func upgrade(t *testing.T, old *Store, path string) *Store {
	t.Helper()
	v, _ := old.SchemaVersion(context.Background())
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatalf("open version %d: %v", v, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMigrateVersion2To3KeepsHistory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	old := openVersion(t, path, 2)
	if v, err := old.SchemaVersion(ctx); err != nil || v != 2 {
		t.Fatalf("got schema version %d, %v, want 2", v, err)
	}
	for i := range 3 {
		if err := old.SaveRun(ctx, storetest.NewRun(fmt.Sprintf("old-run-%d", i), "s", "m", t0.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	b, err := old.Promote(ctx, "old-run-0", "kept")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := old.Run(ctx, "old-run-2")
	if err != nil {
		t.Fatal(err)
	}
	if err := old.SaveDrift(ctx, storetest.NewDrift("old-report", r2, b.SnapshotID, t0, promptcanary.SeverityHigh, 1)); err != nil {
		t.Fatal(err)
	}
	var tables int
	if err := old.db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'incidents'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("version 2 has an incidents table (%d, %v): the test starts from the wrong schema", tables, err)
	}
	s := upgrade(t, old, path)
	all, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	latest := all[len(all)-1].Version
	if v, err := s.SchemaVersion(ctx); err != nil || v != latest {
		t.Errorf("got schema version %d, %v, want %d", v, err, latest)
	}
	if got := migrationRows(t, s); len(got) != latest || got[2] != 3 {
		t.Errorf("got migrations %v, want 1 to %d", got, latest)
	}
	sums, err := s.Runs(ctx, store.RunFilter{})
	if err != nil || len(sums) != 3 || sums[0].RunID != "old-run-2" || sums[0].Verdict != "high" || !sums[2].IsBaseline {
		t.Errorf("runs: got %+v, %v, want the 3 runs with their baseline and verdict", sums, err)
	}
	got, err := s.Run(ctx, "old-run-1")
	if err != nil || got.RunID != "old-run-1" || len(got.ProbeResults) != 12 {
		t.Errorf("run: got %v, want old-run-1 with its 12 results", err)
	}
	if l, err := s.LatestBaseline(ctx, "s", "m"); err != nil || l.SnapshotID != b.SnapshotID || l.Note != "kept" {
		t.Errorf("latest baseline: got %v, want %s", err, b.SnapshotID)
	}
	if ps, err := s.ProbeScores(ctx, "s", "m", 0); err != nil || len(ps) != 6 {
		t.Errorf("probe scores: got %d, %v, want 6", len(ps), err)
	}
	// The monitor's tables work in the migrated database.
	if err := s.SaveIncident(ctx, storetest.NewIncident("inc-1", "fp", t0)); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveIncident(ctx, storetest.NewIncident("inc-2", "fp", t0)); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second open incident: got %v, want ErrConflict", err)
	}
	if err := s.SaveCheckRun(ctx, storetest.NewCheckRun("cr-1", "c", "p", t0)); err != nil {
		t.Fatal(err)
	}
	if crs, err := s.CheckRuns(ctx, "c", "p", 0); err != nil || len(crs) != 1 {
		t.Errorf("check runs: got %d, %v, want 1", len(crs), err)
	}
}

// TestOneOpenIncidentInSchema checks that the schema itself, not only
// SaveIncident, keeps one open incident per fingerprint.
func TestOneOpenIncidentInSchema(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	insert := `INSERT INTO incidents (id, fingerprint, check_name, suite, provider, kind, severity, summary, opened_at, updated_at, resolved_at)
		VALUES (?, 'fp', 'c', 's', 'p', 'drift', 'high', '', '', '', ?)`
	if _, err := s.db.Exec(insert, "open-1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(insert, "resolved-1", formatTime(t0)); err != nil {
		t.Fatalf("a resolved incident beside the open one: %v", err)
	}
	_, err := s.db.Exec(insert, "open-2", nil)
	if err == nil || !strings.Contains(err.Error(), "UNIQUE constraint failed: incidents.fingerprint") {
		t.Errorf("a second open incident: got %v, want the unique constraint to fail", err)
	}
}

// TestOpenIncidentRaceAcrossStores has two stores on one database, as two
// monitor processes would be, race to open the same incident.
func TestOpenIncidentRaceAcrossStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	const stores, each = 2, 8
	var ss []*Store
	for range stores {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ss = append(ss, s)
	}
	for round := range 5 {
		fp := fmt.Sprintf("check-%d/p/drift", round)
		errs := make(chan error, stores*each)
		var wg sync.WaitGroup
		for i, s := range ss {
			for j := range each {
				wg.Go(func() {
					errs <- s.SaveIncident(context.Background(), storetest.NewIncident(fmt.Sprintf("inc-%d-%d-%d", round, i, j), fp, t0))
				})
			}
		}
		wg.Wait()
		close(errs)
		won := 0
		for err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, store.ErrConflict):
				t.Errorf("round %d: got %v, want nil or ErrConflict", round, err)
			}
		}
		if won != 1 {
			t.Errorf("round %d: got %d incidents opened, want 1", round, won)
		}
	}
	if got, err := ss[1].Incidents(context.Background(), store.IncidentFilter{OpenOnly: true}); err != nil || len(got) != 5 {
		t.Errorf("got %d open incidents, %v, want 5", len(got), err)
	}
}

func TestMonitorWriteWaitsForLockedDatabase(t *testing.T) {
	s, path := openLocked(t, 10*time.Millisecond, time.Minute)
	ctx := context.Background()
	if err := s.SaveIncident(ctx, storetest.NewIncident("inc-1", "fp", t0)); err != nil {
		t.Fatal(err)
	}
	release := holdWriteLock(t, path)
	writes := []struct {
		name string
		fn   func() error
	}{
		{"check run", func() error { return s.SaveCheckRun(ctx, storetest.NewCheckRun("cr-locked", "c", "p", t0)) }},
		{"incident", func() error { return s.SaveIncident(ctx, storetest.NewIncident("inc-locked", "fp-2", t0)) }},
		{"event", func() error {
			return s.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: "inc-1", At: t0, Type: promptcanary.EventOpened})
		}},
		{"notification", func() error {
			return s.SaveNotification(ctx, promptcanary.NotificationAttempt{ID: "n-1", IncidentID: "inc-1", Attempt: 1, At: t0, OK: true})
		}},
	}
	errs := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, w := range writes {
		wg.Go(func() { errs[i] = w.fn() })
	}
	// Let the writes hit the lock (several busy attempts), then release it.
	time.Sleep(300 * time.Millisecond)
	release()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", writes[i].name, err)
		}
	}
	for table, want := range map[string]int{"check_runs": 1, "incidents": 2, "incident_events": 1, "notifications": 1} {
		if got := countRows(t, s, table); got != want {
			t.Errorf("%s: got %d rows, want %d", table, got, want)
		}
	}
}

func TestMonitorWriteGivesUpOnLockedDatabase(t *testing.T) {
	s, path := openLocked(t, 5*time.Millisecond, 100*time.Millisecond)
	holdWriteLock(t, path)
	err := s.SaveIncident(context.Background(), storetest.NewIncident("inc-never", "fp", t0))
	want := `save incident "inc-never": database "` + path + `" stayed locked by another process for 100ms: database is locked`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// TestMigrateAttributionKeepsIncidents upgrades a database whose
// incidents were stored before they had an attribution (version 5): they
// read back with none, and a new one keeps its own.
func TestMigrateAttributionKeepsIncidents(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.db")
	old := openVersion(t, path, 5)
	if _, err := old.db.Exec(`INSERT INTO incidents (id, fingerprint, check_name, suite, provider, kind, severity, summary, opened_at, updated_at)
		VALUES ('old-incident', 'fp', 'c', 's', 'p', 'drift', 'high', 'fell', ?, ?)`, formatTime(t0), formatTime(t0)); err != nil {
		t.Fatal(err)
	}
	s := upgrade(t, old, path)
	inc, err := s.Incident(ctx, "old-incident")
	if err != nil {
		t.Fatal(err)
	}
	if inc.Summary != "fell" || inc.Attribution != nil {
		t.Errorf("old incident: summary %q, attribution %+v, want fell and none", inc.Summary, inc.Attribution)
	}
	inc.Attribution = &promptcanary.Attribution{Cause: promptcanary.CauseSuite, Evidence: []string{"prompt p2 changed"}}
	if err := s.SaveIncident(ctx, inc); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Incident(ctx, "old-incident"); err != nil || got.Attribution == nil || got.Attribution.Cause != promptcanary.CauseSuite {
		t.Errorf("resaved: got %+v, %v, want the suite attribution", got, err)
	}
}
