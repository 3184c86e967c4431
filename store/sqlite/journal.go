package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var (
	_ store.Journal      = (*Store)(nil)
	_ store.LatestFinder = (*Store)(nil)
)

// SaveRunPending stores r and the pending mark p in one transaction.
func (s *Store) SaveRunPending(ctx context.Context, r *promptcanary.Run, p store.PendingBaseline) error {
	if err := store.CheckID("run", r.RunID); err != nil {
		return fmt.Errorf("save run: %w", err)
	}
	if err := p.Check(); err != nil {
		return fmt.Errorf("save run %q: %w", r.RunID, err)
	}
	if p.RunID != r.RunID {
		return fmt.Errorf("save run %q: the pending baseline is of run %q", r.RunID, p.RunID)
	}
	return s.saveRun(ctx, r, &p)
}

// PendingBaselines lists the pending marks, oldest first.
func (s *Store) PendingBaselines(ctx context.Context) ([]store.PendingBaseline, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, snapshot_id, created_at, note, dir FROM pending_baselines ORDER BY created_at, run_id`)
	if err != nil {
		return nil, fmt.Errorf("list pending baselines: %w", err)
	}
	defer rows.Close()
	var out []store.PendingBaseline
	for rows.Next() {
		var (
			p       store.PendingBaseline
			created string
		)
		if err := rows.Scan(&p.RunID, &p.SnapshotID, &created, &p.Note, &p.Dir); err != nil {
			return nil, fmt.Errorf("list pending baselines: %w", err)
		}
		if p.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("list pending baselines: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list pending baselines: %w", err)
	}
	return out, nil
}

// ClearPending removes the pending mark of runID.
func (s *Store) ClearPending(ctx context.Context, runID string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM pending_baselines WHERE run_id = ?`, runID)
		return err
	})
	if err != nil {
		return fmt.Errorf("clear pending baseline of run %q: %w", runID, err)
	}
	return nil
}
