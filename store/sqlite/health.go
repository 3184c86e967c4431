package sqlite

import (
	"context"
	"fmt"

	"github.com/promptcanary/promptcanary/store"
)

var _ store.WriteChecker = (*Store)(nil)

// CheckWrite starts a write that deletes no row and rolls it back, so
// nothing is written: it fails on a read-only file, directory or open
// (SQLITE_READONLY) and on a database locked for longer than the busy
// timeout. (BEGIN IMMEDIATE alone passes on a read-only file in WAL mode.)
func (s *Store) CheckWrite(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store %q cannot be written: %w", s.path, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version < 0`); err != nil {
		return fmt.Errorf("store %q cannot be written: %w", s.path, err)
	}
	return nil
}
