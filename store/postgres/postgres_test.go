package postgres

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/postgres/pgtest"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// envDSN names the variable holding the test database's DSN.
const envDSN = pgtest.EnvDSN

// t0 is the start time of the fixtures.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)

// schemaPrefix starts the name of every schema the tests of this process
// make, so TestMain can check that none is left.
var schemaPrefix = pgtest.SchemaPrefix

func TestMain(m *testing.M) {
	code := m.Run()
	if dsn := os.Getenv(envDSN); dsn != "" && code == 0 {
		left, err := leftSchemas(dsn)
		if err != nil {
			fmt.Fprintf(os.Stderr, "list schemas left behind: %v\n", err)
			code = 1
		} else if len(left) > 0 {
			fmt.Fprintf(os.Stderr, "tests left schemas or databases behind: %v\n", left)
			code = 1
		}
	}
	os.Exit(code)
}

// leftSchemas lists the schemas (and databases) of this process's tests
// still there.
func leftSchemas(dsn string) ([]string, error) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)
		UNION ALL SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, schemaPrefix)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// testDSN, admin, freshDSN and withParam are pgtest's, which other
// packages' tests share.
func testDSN(tb testing.TB) string { return pgtest.DSN(tb) }

func admin(tb testing.TB, sql string, args ...any) { pgtest.Exec(tb, sql, args...) }

func freshDSN(tb testing.TB) string { return pgtest.FreshDSN(tb) }

func withParam(tb testing.TB, dsn, key, value string) string {
	return pgtest.WithParam(tb, dsn, key, value)
}

// openDSN opens the store at dsn, closed when the test ends.
func openDSN(tb testing.TB, dsn string) *Store {
	tb.Helper()
	s, err := Open(context.Background(), dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// openFresh opens a store in a schema of its own.
func openFresh(tb testing.TB) *Store {
	tb.Helper()
	return openDSN(tb, freshDSN(tb))
}

func TestConformance(t *testing.T) {
	testDSN(t)
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store { return openFresh(t) })
}

func TestDriftBodies(t *testing.T) {
	testDSN(t)
	t.Parallel()
	ctx := context.Background()
	storetest.RunDriftBodies(t, storetest.DriftBodies{
		Open: func(t *testing.T) store.Store {
			s, err := Open(ctx, freshDSN(t))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Body: func(t *testing.T, s store.Store, id string) []byte {
			var body []byte
			if err := s.(*Store).pool.QueryRow(ctx, `SELECT body FROM drift_reports WHERE report_id = $1`, id).Scan(&body); err != nil {
				t.Fatal(err)
			}
			return body
		},
		SetBody: func(t *testing.T, s store.Store, id string, body []byte) {
			if _, err := s.(*Store).pool.Exec(ctx, `UPDATE drift_reports SET body = $1 WHERE report_id = $2`, body, id); err != nil {
				t.Fatal(err)
			}
		},
	})
}

func TestReopen(t *testing.T) {
	t.Parallel()
	dsn := freshDSN(t)
	ctx := context.Background()
	s := openDSN(t, dsn)
	r := storetest.NewRun("kept-run", "s", "m", t0)
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openDSN(t, dsn)
	got, err := s.Run(ctx, "kept-run")
	if err != nil {
		t.Fatalf("after reopening: %v", err)
	}
	if got.RunID != r.RunID || len(got.ProbeResults) != len(r.ProbeResults) {
		t.Errorf("after reopening: got run %s with %d results, want %s with %d", got.RunID, len(got.ProbeResults), r.RunID, len(r.ProbeResults))
	}
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != len(ms) {
		t.Errorf("schema version: got %d, %v, want %d", v, err, len(ms))
	}
	if !strings.Contains(s.DSN(), "search_path=") {
		t.Errorf("DSN: got %q, want the one opened", s.DSN())
	}
}
