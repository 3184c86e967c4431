package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/promptcanary/promptcanary/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate brings the schema up to the newest of ms in one transaction,
// holding a transaction-level advisory lock on the schema: stores opened
// at once, by several monitors, wait for each other and apply each
// migration once (PostgreSQL's DDL is transactional, so a failed migration
// leaves nothing). It refuses a schema newer than this program.
func migrate(ctx context.Context, pool *pgxpool.Pool, ms []store.Migration) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var schema *string
		if err := tx.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			return err
		}
		if schema == nil {
			var searchPath string
			if err := tx.QueryRow(ctx, `SHOW search_path`).Scan(&searchPath); err != nil {
				return err
			}
			return fmt.Errorf("no schema to create the tables in: search_path %q names no schema that exists (CREATE SCHEMA it first)", searchPath)
		}
		// The lock is per schema, so that stores in different schemas of
		// one database do not wait for each other.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('promptcanary migrate ' || $1, 0))`, *schema); err != nil {
			return fmt.Errorf("lock the schema %q for migrations: %w", *schema, err)
		}
		// Looked up before it is created: a role without CREATE on the
		// schema can open a store that is up to date.
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass(quote_ident($1) || '.schema_migrations') IS NOT NULL`, *schema).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if _, err := tx.Exec(ctx, `CREATE TABLE schema_migrations (
				version    integer PRIMARY KEY,
				name       text NOT NULL,
				applied_at timestamptz NOT NULL DEFAULT now()
			)`); err != nil {
				return err
			}
		}
		var current int
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
			return err
		}
		latest := ms[len(ms)-1].Version
		if current > latest {
			return fmt.Errorf("schema version %d is newer than this program's %d: upgrade promptcanary", current, latest)
		}
		for _, m := range ms[current:] {
			// Exec without arguments uses the simple protocol, which runs
			// the several statements of a file.
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
				return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
			}
		}
		return nil
	})
}
