package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema change.
type migration struct {
	version int
	name    string
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

// loadMigrations reads the migrations of fsys (files migrations/NNNN_name.sql),
// which must be numbered 1, 2, 3 … without gaps.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, name := range names { // fs.Glob sorts
		base := path.Base(name)
		m := migrationName.FindStringSubmatch(base)
		if m == nil {
			return nil, fmt.Errorf("migration %q: name must be NNNN_name.sql", base)
		}
		v, _ := strconv.Atoi(m[1])
		if v != len(out)+1 {
			return nil, fmt.Errorf("migration %q: got version %d, want %d", base, v, len(out)+1)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: m[2], sql: string(body)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no migrations")
	}
	return out, nil
}

// migrate brings the schema of db up to the newest of ms in one immediate
// transaction, so concurrent opens apply each migration once. It refuses a
// database whose schema is newer than this program.
func migrate(ctx context.Context, db *sql.DB, ms []migration) error {
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
	latest := ms[len(ms)-1].version
	if current > latest {
		return fmt.Errorf("schema version %d is newer than this program's %d: upgrade promptcanary", current, latest)
	}
	for _, m := range ms[current:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %04d_%s: %w", m.version, m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, time.Now().UTC().Format(time.RFC3339)); err != nil {
			return fmt.Errorf("migration %04d_%s: %w", m.version, m.name, err)
		}
	}
	return tx.Commit()
}
