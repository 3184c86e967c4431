package sqlstore_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/postgres"
	"github.com/promptcanary/promptcanary/store/postgres/pgtest"
	"github.com/promptcanary/promptcanary/store/sqlite"
)

// The two sets of migrations, numbered differently (SQLite's 0001..0006,
// PostgreSQL's 0001..0005, as applied databases have them), must leave the
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

// A database is a backend's empty database: raw SQL on it, and open opens
// the store on it (applying the pending migrations) and closes it again.
type database struct {
	db   *sql.DB
	open func() error
}

// backend is how TestUpgradeThroughSharedSchema handles a SQL backend.
type backend struct {
	name string
	// before is the last version before the shared fleet.sql; history is
	// schema_migrations as the backend creates it.
	before  int
	history string
	empty   func(t *testing.T) database
	// columns lists the columns of every table, a row each: the table and
	// "column type …", and the definition of every index; pinned are some
	// columns, "table: column type …", in the backend's types.
	columns string
	pinned  []string
}

var backends = []backend{{
	name: "sqlite", before: 3,
	history: `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
	empty: func(t *testing.T) database {
		path := filepath.Join(t.TempDir(), "history.db")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		return database{db, func() error {
			s, err := sqlite.Open(path)
			if err == nil {
				err = s.Close()
			}
			return err
		}}
	},
	columns: `SELECT name, sql FROM (SELECT m.name, c.name || ' ' || c.type || ' ' || c."notnull" || ' ' ||
			COALESCE(c.dflt_value, '') || ' ' || c.pk AS sql, c.cid AS n
		FROM sqlite_schema m, pragma_table_xinfo(m.name) c WHERE m.type = 'table' AND m.name <> 'schema_migrations'
		UNION ALL SELECT name, sql, 0 FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL) ORDER BY name, n`,
	pinned: []string{"outbox: seq INTEGER 0  1", "outbox: created_at TEXT 1  0", "outbox: done_at TEXT 0  0",
		"outbox: last_error TEXT 1 '' 0", "slot_leases: check_run_id TEXT 1 '' 0", "slot_leases: slot TEXT 1  3"},
}, {
	name: "postgres", before: 2,
	history: `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`,
	empty: func(t *testing.T) database {
		dsn := pgtest.FreshDSN(t)
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		return database{stdlib.OpenDB(*cfg), func() error {
			s, err := postgres.Open(context.Background(), dsn)
			if err == nil {
				err = s.Close()
			}
			return err
		}}
	},
	columns: `SELECT name, sql FROM (SELECT table_name::text AS name, column_name || ' ' || data_type || ' ' ||
			is_nullable || ' ' || COALESCE(column_default, '') || ' ' || COALESCE(collation_name, '') AS sql, ordinal_position AS n
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'
		UNION ALL SELECT indexname, replace(indexdef, current_schema() || '.', ''), 0
		FROM pg_indexes WHERE schemaname = current_schema()) x ORDER BY name, n`,
	pinned: []string{"outbox: created_at bigint YES  ", `outbox: last_error bytea NO '\x'::bytea `, "outbox: seq bigint NO  ",
		"slot_leases: check_run_id text NO ''::text C", "slot_leases: slot bigint NO  "},
}}

// TestUpgradeThroughSharedSchema upgrades a database an older promptcanary
// left before the tables of several monitors, which the next migration now
// renders from the schema the backends share (schema/fleet.sql), where
// each once kept a copy: the database ends with the schema of a new one,
// in the backend's types, its versions meaning what they meant.
func TestUpgradeThroughSharedSchema(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ms, err := store.LoadMigrations(os.DirFS("../" + b.name))
			if err != nil {
				t.Fatal(err)
			}
			old := b.empty(t)
			defer old.db.Close()
			if _, err := old.db.Exec(b.history); err != nil {
				t.Fatal(err)
			}
			for _, m := range ms[:b.before] { // as an older promptcanary applied them
				if _, err := old.db.Exec(m.SQL); err != nil {
					t.Fatalf("migration %d: %v", m.Version, err)
				}
				if _, err := old.db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (`+
					placeholders(b.name)+`)`, m.Version, m.Name, "2026-01-01T00:00:00Z"); err != nil {
					t.Fatal(err)
				}
			}
			if err := old.open(); err != nil {
				t.Fatal(err)
			}
			var v int
			if err := old.db.QueryRow(`SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil || v != len(ms) {
				t.Fatalf("schema version: got %d, %v, want %d", v, err, len(ms))
			}
			fresh := b.empty(t)
			defer fresh.db.Close()
			if err := fresh.open(); err != nil {
				t.Fatal(err)
			}
			got, want := collect(t, old.db, b.columns, false), collect(t, fresh.db, b.columns, false)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("upgraded schema differs from a new one (-new +upgraded):\n%s", diff)
			}
			for _, c := range b.pinned {
				table, col, _ := strings.Cut(c, ": ")
				if !slices.ContainsFunc(got, func(l string) bool {
					return strings.HasPrefix(l, table+": ") && slices.Contains(strings.Split(l[len(table)+2:], ", "), col)
				}) {
					t.Errorf("no column %q in the upgraded schema", c)
				}
			}
		})
	}
}

// placeholders returns the three placeholders of backend's dialect.
func placeholders(backend string) string {
	if backend == "postgres" {
		return "$1, $2, $3"
	}
	return "?, ?, ?"
}
