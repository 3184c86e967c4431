package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/promptcanary/promptcanary/store"
)

var _ store.Pruner = (*Store)(nil)

// Prune deletes the history older than cutoff that nothing that stays
// refers to (see store.Pruner), in one immediate transaction: writers of
// other processes wait for it, as for any write. The file keeps its size;
// the space freed, reported as FreeBytes, holds new records (Vacuum gives
// it back to the file system). When the database was created with
// auto_vacuum=INCREMENTAL the free pages are given back at once.
func (s *Store) Prune(ctx context.Context, cutoff time.Time, dryRun bool) (store.PruneStats, error) {
	st, err := s.DB.Prune(ctx, cutoff, dryRun)
	if err != nil {
		return st, err
	}
	if !dryRun {
		if err := s.incrementalVacuum(ctx); err != nil {
			return st, fmt.Errorf("prune store %q: %w", s.path, err)
		}
	}
	if st.FreeBytes, err = s.freeBytes(ctx); err != nil {
		return st, fmt.Errorf("prune store %q: %w", s.path, err)
	}
	return st, nil
}

// incrementalVacuum gives the free pages back to the file system when the
// database's auto_vacuum mode is INCREMENTAL (2); in the default mode (0)
// they stay in the file for new records.
func (s *Store) incrementalVacuum(ctx context.Context) error {
	var mode int
	if err := s.db.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return err
	}
	if mode != 2 {
		return nil
	}
	return s.execRetry(ctx, `PRAGMA incremental_vacuum`)
}

// execRetry runs q, retrying while the database is busy.
func (s *Store) execRetry(ctx context.Context, q string) error {
	return s.retry(ctx, func() error {
		_, err := s.db.ExecContext(ctx, q)
		return err
	})
}

// freeBytes returns the size of the database's free pages.
func (s *Store) freeBytes(ctx context.Context) (int64, error) {
	var free, size int64
	if err := s.db.QueryRowContext(ctx, `SELECT freelist_count, page_size FROM pragma_freelist_count(), pragma_page_size()`).Scan(&free, &size); err != nil {
		return 0, err
	}
	return free * size, nil
}

// Vacuum rewrites the database without its free pages, so that the file
// shrinks by the space deleted records left, and returns the size of the
// file with its write-ahead log before and after. It holds the database's
// write lock while it works (writers of other processes wait, up to
// WriteTimeout) and needs as much free disk as the database's size.
func (s *Store) Vacuum(ctx context.Context) (before, after int64, err error) {
	if before, err = s.fileSize(); err != nil {
		return 0, 0, fmt.Errorf("vacuum store %q: %w", s.path, err)
	}
	if err = s.execRetry(ctx, `VACUUM`); err == nil {
		// VACUUM writes the new pages to the log: a checkpoint moves them
		// into the file and truncates both.
		err = s.execRetry(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
	if err != nil {
		return before, 0, fmt.Errorf("vacuum store %q: %w", s.path, err)
	}
	if after, err = s.fileSize(); err != nil {
		return before, 0, fmt.Errorf("vacuum store %q: %w", s.path, err)
	}
	return before, after, nil
}

// fileSize returns the size of the database file and its write-ahead log.
func (s *Store) fileSize() (int64, error) {
	var n int64
	for _, p := range []string{s.path, s.path + "-wal"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += fi.Size()
	}
	return n, nil
}
