package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"time"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate brings the schema of s up to the newest of ms in one immediate
// transaction, so concurrent opens apply each migration once. It refuses a
// database whose schema is newer than this program.
func (s *Store) migrate(ctx context.Context, ms []store.Migration) error {
	return sqlstore.InTx(ctx, s.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TEXT NOT NULL
		)`); err != nil {
			return err
		}
		return s.Migrate(ctx, tx, ms, ", applied_at", time.Now().UTC().Format(time.RFC3339))
	})
}
