package postgres

import (
	"context"
	"fmt"

	"github.com/promptcanary/promptcanary/store"
)

var _ store.WriteChecker = (*Store)(nil)

// CheckWrite starts a write that deletes no row and rolls it back, so
// nothing is written: it fails on a read-only server or transaction (a
// replica, default_transaction_read_only), a role without the privilege,
// or a server that does not answer.
func (s *Store) CheckWrite(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store %s cannot be written: %w", s.dsn, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `DELETE FROM schema_migrations WHERE version < 0`); err != nil {
		return fmt.Errorf("store %s cannot be written: %w", s.dsn, err)
	}
	return nil
}
