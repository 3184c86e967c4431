package postgres

import (
	"context"
	"database/sql"
	"embed"
	"fmt"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate brings the schema up to the newest of ms in one transaction,
// holding a transaction-level advisory lock on the schema: stores opened
// at once, by several monitors, wait for each other and apply each
// migration once (PostgreSQL's DDL is transactional, so a failed migration
// leaves nothing). It refuses a schema newer than this program.
func (s *Store) migrate(ctx context.Context, ms []store.Migration) error {
	return sqlstore.InTx(ctx, s.sql, func(tx *sql.Tx) error {
		var schema *string
		if err := tx.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			return err
		}
		if schema == nil {
			var searchPath string
			if err := tx.QueryRowContext(ctx, `SHOW search_path`).Scan(&searchPath); err != nil {
				return err
			}
			return fmt.Errorf("no schema to create the tables in: search_path %q names no schema that exists (CREATE SCHEMA it first)", searchPath)
		}
		// The lock is per schema, so that stores in different schemas of
		// one database do not wait for each other.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('promptcanary migrate ' || $1, 0))`, *schema); err != nil {
			return fmt.Errorf("lock the schema %q for migrations: %w", *schema, err)
		}
		// Looked up before it is created: a role without CREATE on the
		// schema can open a store that is up to date.
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT to_regclass(quote_ident($1) || '.schema_migrations') IS NOT NULL`, *schema).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_migrations (
				version    integer PRIMARY KEY,
				name       text NOT NULL,
				applied_at timestamptz NOT NULL DEFAULT now()
			)`); err != nil {
				return err
			}
		}
		// Exec without arguments uses the simple protocol, which runs the
		// several statements of a file.
		return s.Migrate(ctx, tx, ms, "")
	})
}
