package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/promptcanary/promptcanary/store/postgres"
	"github.com/promptcanary/promptcanary/store/postgres/pgtest"
	"github.com/promptcanary/promptcanary/store/sqlite"
)

// The two sets of migrations, numbered differently (SQLite's 0001..0005,
// PostgreSQL's 0001..0004, as applied databases have them), must leave the
// same schema: the same tables with the same columns in the same order,
// and the same indexes on the same columns. Types differ by design (times
// are text in SQLite, bigint nanoseconds in PostgreSQL; free text is
// bytea there), and so do these indexes, each serving its database's
// plan for the open incidents:
var (
	// sqliteOnly are indexes only SQLite has: it finds the few open
	// incidents by resolved_at and sorts them.
	sqliteOnly = []string{"incidents_resolved (resolved_at)"}
	// postgresOnly are indexes only PostgreSQL has: a partial index of
	// the open incidents in listing order.
	postgresOnly = []string{"incidents_open (opened_at, id)"}
)

// schema lists a database's tables as "table: column, column, …" and its
// indexes (but those of primary keys and unique constraints) as
// "index (column, column, …)", each sorted.
type schema struct{ tables, indexes []string }

func TestMigrationsAgree(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.FreshDSN(t)
	pg, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	got := readSQLite(t, lite.Path())
	want := readPostgres(t, dsn)
	want.indexes = append(slices.DeleteFunc(want.indexes, func(s string) bool { return slices.Contains(postgresOnly, s) }), sqliteOnly...)
	slices.Sort(want.indexes)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(schema{})); diff != "" {
		t.Errorf("the migrations leave different schemas (-postgres +sqlite):\n%s", diff)
	}
	if len(got.tables) < 12 || len(got.indexes) < 20 {
		t.Errorf("read %d tables and %d indexes, want the whole schema", len(got.tables), len(got.indexes))
	}
}

// collect reads the rows of q, "name", "column" and position, into lines
// "name: column, …" (or "name (column, …)" with paren), sorted.
func collect(t *testing.T, db *sql.DB, q string, paren bool) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	cols := map[string][]string{}
	for rows.Next() {
		var name, col string
		if err := rows.Scan(&name, &col); err != nil {
			t.Fatal(err)
		}
		if _, ok := cols[name]; !ok {
			names = append(names, name)
		}
		cols[name] = append(cols[name], col)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		if paren {
			out = append(out, n+" ("+strings.Join(cols[n], ", ")+")")
		} else {
			out = append(out, n+": "+strings.Join(cols[n], ", "))
		}
	}
	slices.Sort(out)
	return out
}

func readSQLite(t *testing.T, path string) schema {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return schema{
		tables: collect(t, db, `SELECT m.name, c.name FROM sqlite_schema m, pragma_table_info(m.name) c
			WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, c.cid`, false),
		indexes: collect(t, db, `SELECT m.name, c.name FROM sqlite_schema m, pragma_index_info(m.name) c
			WHERE m.type = 'index' AND m.sql IS NOT NULL ORDER BY m.name, c.seqno`, true),
	}
}

func readPostgres(t *testing.T, dsn string) schema {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	return schema{
		tables: collect(t, db, `SELECT c.relname, a.attname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
			WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
			ORDER BY c.relname, a.attnum`, false),
		indexes: collect(t, db, `SELECT i.relname, a.attname
			FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
			CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k (attnum, n)
			JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
			WHERE i.relnamespace = current_schema()::regnamespace
				AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
			ORDER BY i.relname, k.n`, true),
	}
}
