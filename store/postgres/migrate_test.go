package postgres

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func TestEmbeddedMigrations(t *testing.T) {
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Name != "history" || !strings.Contains(ms[0].SQL, "CREATE TABLE runs") {
		t.Errorf("got first migration %q, want history creating runs", ms[0].Name)
	}
}

// TestRefusesNewerSchema opens a store whose schema a newer promptcanary
// migrated.
func TestRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	dsn := freshDSN(t)
	s := openDSN(t, dsn)
	if _, err := s.pool.Exec(context.Background(), `INSERT INTO schema_migrations (version, name) VALUES (99, 'future')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), dsn)
	if want := fmt.Sprintf("schema version 99 is newer than this program's %d: upgrade promptcanary", len(ms)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want the newer schema refused", err)
	}
}

// TestFailedMigrationLeavesNothing applies a migration that fails halfway:
// PostgreSQL's DDL is transactional, so neither its first statement nor
// its record remain.
func TestFailedMigrationLeavesNothing(t *testing.T) {
	t.Parallel()
	dsn := freshDSN(t)
	s := openDSN(t, dsn)
	ctx := context.Background()
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	broken := store.Migration{Version: len(ms) + 1, Name: "broken", SQL: `CREATE TABLE half (x integer); SELECT no_such_column FROM half;`}
	err = s.migrate(ctx, append(ms, broken))
	if err == nil || !strings.Contains(err.Error(), "_broken: ") || !strings.Contains(err.Error(), "no_such_column") {
		t.Fatalf("got %v, want the broken migration's error", err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != len(ms) {
		t.Errorf("schema version: got %d, %v, want %d", v, err, len(ms))
	}
	var half bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('half') IS NOT NULL`).Scan(&half); err != nil || half {
		t.Errorf("table of the broken migration: got exists %v, %v, want none", half, err)
	}
}

// TestNoSchema opens a store whose search path names no schema.
func TestNoSchema(t *testing.T) {
	t.Parallel()
	dsn := withParam(t, testDSN(t), "search_path", schemaPrefix+"missing")
	_, err := Open(context.Background(), dsn)
	if err == nil || !strings.Contains(err.Error(), `no schema to create the tables in: search_path "`+schemaPrefix+`missing" names no schema that exists`) {
		t.Errorf("got %v, want the missing schema named", err)
	}
}

// TestRefusesEncoding opens a store in a database that is not UTF8.
func TestRefusesEncoding(t *testing.T) {
	t.Parallel()
	name := schemaPrefix + "ascii"
	admin(t, `CREATE DATABASE `+name+` ENCODING 'SQL_ASCII' TEMPLATE template0`)
	t.Cleanup(func() { admin(t, `DROP DATABASE `+name) })
	cfg, err := pgxpool.ParseConfig(testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.Database = name
	_, err = open(context.Background(), cfg, "test")
	if err == nil || !strings.Contains(err.Error(), "the database's encoding is SQL_ASCII, want UTF8") {
		t.Errorf("got %v, want the encoding refused", err)
	}
}

// TestMigrateAttributionKeepsIncidents upgrades a schema whose incidents
// were stored before they had an attribution: the column (and what the
// later migrations added) is taken away and migrations 5 to 8 forgotten,
// as version 4 left them, and the store opened again: they read back with none.
func TestMigrateAttributionKeepsIncidents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := freshDSN(t)
	s := openDSN(t, dsn)
	inc := storetest.NewIncident("old-incident", "fp", t0)
	if err := s.SaveIncident(ctx, inc); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `ALTER TABLE incidents DROP COLUMN attribution; DROP TABLE candidate_gates; ALTER TABLE check_runs DROP COLUMN run_level_rate, DROP COLUMN run_level_var, DROP COLUMN run_level_control_diff, DROP COLUMN run_level_control; DELETE FROM schema_migrations WHERE version >= 5`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openDSN(t, dsn)
	if v, err := s.SchemaVersion(ctx); err != nil || v != 8 { // 8_control_diff, the newest
		t.Fatalf("schema version %d, %v, want 8", v, err)
	}
	got, err := s.Incident(ctx, "old-incident")
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != inc.Summary || got.Attribution != nil {
		t.Errorf("old incident: summary %q, attribution %+v, want %q and none", got.Summary, got.Attribution, inc.Summary)
	}
}

var update = flag.Bool("update", false, "pin new template migrations in "+storetest.RenderedPins)

// TestRenderedMigrationsArePinned keeps the SQL that the migrations made
// from the shared schema run, pinned in testdata (storetest.PinRendered).
func TestRenderedMigrationsArePinned(t *testing.T) {
	storetest.PinRendered(t, dialect.Schema, migrationFiles, *update)
}
