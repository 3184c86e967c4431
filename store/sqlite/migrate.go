package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"time"

	"github.com/promptcanary/promptcanary/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate brings the schema of db up to the newest of ms in one immediate
// transaction, so concurrent opens apply each migration once. It refuses a
// database whose schema is newer than this program.
func migrate(ctx context.Context, db *sql.DB, ms []store.Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL
	)`); err != nil {
		return err
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return err
	}
	latest := ms[len(ms)-1].Version
	if current > latest {
		return fmt.Errorf("schema version %d is newer than this program's %d: upgrade promptcanary", current, latest)
	}
	for _, m := range ms[current:] {
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, time.Now().UTC().Format(time.RFC3339)); err != nil {
			return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
		}
	}
	return tx.Commit()
}

// current checks, writing nothing, that db's schema is the newest of ms,
// for a read-only open.
func current(ctx context.Context, db *sql.DB, ms []store.Migration) error {
	var v int
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return fmt.Errorf("read-only: no schema to read (open it once read-write to create it): %w", err)
	}
	if latest := ms[len(ms)-1].Version; v != latest {
		return fmt.Errorf("read-only: schema version %d, this program's is %d: open it once read-write to upgrade it", v, latest)
	}
	return nil
}
