package sqlite

import (
	"context"
	"flag"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// migrationRows returns the recorded migrations of the database at path.
func migrationRows(t *testing.T, s *Store) []int {
	t.Helper()
	rows, err := s.db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestMigrationVersionRecordedOnce(t *testing.T) {
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.db")
	for i := range 3 { // reopening applies nothing twice
		s, err := Open(path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		v, err := s.SchemaVersion(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if v != len(ms) {
			t.Errorf("open %d: got schema version %d, want %d", i, v, len(ms))
		}
		if got := migrationRows(t, s); len(got) != len(ms) {
			t.Errorf("open %d: got migrations %v, want %d rows", i, got, len(ms))
		}
		s.Close()
	}
}

func TestConcurrentOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "history.db")
	const n = 8
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = Open(path) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	ms, _ := store.LoadMigrations(migrationFiles)
	if got := migrationRows(t, stores[0]); len(got) != len(ms) {
		t.Errorf("got migrations %v, want each of %d once", got, len(ms))
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', '')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(path)
	if err == nil {
		t.Fatal("got nil error, want the schema refused")
	}
	if want := "schema version 99 is newer than this program's"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
		t.Errorf("got %q, want it to contain %q and the path", err, want)
	}
}

var update = flag.Bool("update", false, "pin new template migrations in "+storetest.RenderedPins)

// TestRenderedMigrationsArePinned keeps the SQL that the migrations made
// from the shared schema run, pinned in testdata (storetest.PinRendered).
func TestRenderedMigrationsArePinned(t *testing.T) {
	storetest.PinRendered(t, dialect.Schema, migrationFiles, *update)
}
