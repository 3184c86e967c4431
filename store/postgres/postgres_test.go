package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// envDSN names the variable holding the test database's DSN.
const envDSN = "PROMPTCANARY_TEST_POSTGRES"

// t0 is the start time of the fixtures.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)

// schemaPrefix starts the name of every schema the tests of this process
// make, so TestMain can check that none is left.
var schemaPrefix = fmt.Sprintf("pctest_%d_", os.Getpid())

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

// testDSN returns the DSN of the test database, and skips the test when
// there is none.
func testDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(envDSN)
	if dsn == "" {
		tb.Skip(`PostgreSQL not available: run eval "$(scripts/postgres.sh start)" to set ` + envDSN)
	}
	return dsn
}

// admin runs sql on the test database, outside any test schema.
func admin(tb testing.TB, sql string, args ...any) {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testDSN(tb))
	if err != nil {
		tb.Fatalf("connect to the test database: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}

// freshDSN makes an empty schema, dropped when the test ends, and returns
// the DSN of the test database with that schema as its search path: each
// test has a store of its own, so tests run in parallel and leave nothing.
func freshDSN(tb testing.TB) string {
	tb.Helper()
	dsn := testDSN(tb)
	b := make([]byte, 6)
	rand.Read(b)
	name := schemaPrefix + hex.EncodeToString(b)
	ident := pgx.Identifier{name}.Sanitize()
	admin(tb, `CREATE SCHEMA `+ident)
	tb.Cleanup(func() { admin(tb, `DROP SCHEMA `+ident+` CASCADE`) })
	return withParam(tb, dsn, "search_path", name)
}

// withParam returns dsn with the parameter key set to value.
func withParam(tb testing.TB, dsn, key, value string) string {
	tb.Helper()
	if !IsDSN(dsn) {
		return dsn + " " + key + "=" + value
	}
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("parse %s: %v", envDSN, err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
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
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := Open(context.Background(), freshDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
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
	ms, err := loadMigrations(migrationFiles)
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
