package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary/store"
)

var _ store.Pruner = (*Store)(nil)

// pruneTables are the temporary tables of Prune: the ids it deletes and
// the ids of runs and reports that something that stays refers to.
var pruneTables = []string{"prune_incidents", "prune_check_runs", "prune_drifts", "prune_runs", "keep_runs", "keep_reports"}

// pruneSteps fill the temporary tables, in an order where each step reads
// only what the ones before decided. ? is the cutoff. Times are fixed-width
// UTC text, so they compare as text.
var pruneSteps = []string{
	// Incidents resolved before the cutoff go; open ones never do.
	`INSERT INTO prune_incidents SELECT id FROM incidents WHERE resolved_at IS NOT NULL AND resolved_at < ?1`,
	// The incidents that stay keep their runs and reports, and those of
	// their events.
	`INSERT OR IGNORE INTO keep_runs SELECT run_id FROM incidents
		WHERE run_id <> '' AND id NOT IN (SELECT id FROM prune_incidents)`,
	`INSERT OR IGNORE INTO keep_runs SELECT run_id FROM incident_events
		WHERE run_id <> '' AND incident_id NOT IN (SELECT id FROM prune_incidents)`,
	`INSERT OR IGNORE INTO keep_reports SELECT report_id FROM incidents
		WHERE report_id <> '' AND id NOT IN (SELECT id FROM prune_incidents)`,
	// Old check runs go unless they share a run or a report with an
	// incident that stays.
	`INSERT INTO prune_check_runs SELECT id FROM check_runs
		WHERE slot < ?1
		AND run_id NOT IN (SELECT id FROM keep_runs) AND confirm_run_id NOT IN (SELECT id FROM keep_runs)
		AND report_id NOT IN (SELECT id FROM keep_reports) AND confirm_report_id NOT IN (SELECT id FROM keep_reports)`,
	// The check runs that stay keep their runs and reports.
	`INSERT OR IGNORE INTO keep_runs SELECT run_id FROM check_runs
		WHERE run_id <> '' AND id NOT IN (SELECT id FROM prune_check_runs)`,
	`INSERT OR IGNORE INTO keep_runs SELECT confirm_run_id FROM check_runs
		WHERE confirm_run_id <> '' AND id NOT IN (SELECT id FROM prune_check_runs)`,
	`INSERT OR IGNORE INTO keep_reports SELECT report_id FROM check_runs
		WHERE report_id <> '' AND id NOT IN (SELECT id FROM prune_check_runs)`,
	`INSERT OR IGNORE INTO keep_reports SELECT confirm_report_id FROM check_runs
		WHERE confirm_report_id <> '' AND id NOT IN (SELECT id FROM prune_check_runs)`,
	// Old drift reports go unless kept.
	`INSERT INTO prune_drifts SELECT report_id FROM drift_reports
		WHERE generated_at < ?1 AND report_id NOT IN (SELECT id FROM keep_reports)`,
	// The reports that stay keep the runs they compared; baselines and
	// pending baselines keep theirs.
	`INSERT OR IGNORE INTO keep_runs SELECT current_run_id FROM drift_reports
		WHERE report_id NOT IN (SELECT id FROM prune_drifts)`,
	`INSERT OR IGNORE INTO keep_runs SELECT run_id FROM baselines`,
	`INSERT OR IGNORE INTO keep_runs SELECT run_id FROM pending_baselines`,
	// Old runs go unless kept.
	`INSERT INTO prune_runs SELECT run_id FROM runs WHERE started_at < ?1 AND run_id NOT IN (SELECT id FROM keep_runs)`,
}

// pruneCounts count what Prune deletes and keeps, in the order of the
// fields they fill.
var pruneCounts = []string{
	`SELECT COUNT(*) FROM prune_runs`,
	`SELECT COUNT(*) FROM prune_drifts`,
	`SELECT COUNT(*) FROM prune_check_runs`,
	`SELECT COUNT(*) FROM prune_incidents`,
	`SELECT COUNT(*) FROM incident_events WHERE incident_id IN (SELECT id FROM prune_incidents)`,
	`SELECT COUNT(*) FROM notifications WHERE incident_id IN (SELECT id FROM prune_incidents)`,
	`SELECT COUNT(*) FROM runs WHERE started_at < ?1 AND run_id NOT IN (SELECT id FROM prune_runs)`,
	`SELECT COUNT(*) FROM drift_reports WHERE generated_at < ?1 AND report_id NOT IN (SELECT id FROM prune_drifts)`,
	`SELECT COUNT(*) FROM check_runs WHERE slot < ?1 AND id NOT IN (SELECT id FROM prune_check_runs)`,
	`SELECT COUNT(*) FROM incidents WHERE opened_at < ?1 AND id NOT IN (SELECT id FROM prune_incidents)`,
}

// pruneDeletes delete what the steps chose. The events and notifications
// of incidents, and the per-probe rows of runs, go with them (ON DELETE
// CASCADE).
var pruneDeletes = []string{
	`DELETE FROM incidents WHERE id IN (SELECT id FROM prune_incidents)`,
	`DELETE FROM check_runs WHERE id IN (SELECT id FROM prune_check_runs)`,
	`DELETE FROM drift_reports WHERE report_id IN (SELECT id FROM prune_drifts)`,
	`DELETE FROM runs WHERE run_id IN (SELECT id FROM prune_runs)`,
	`DELETE FROM answers WHERE owner IN (SELECT 'run:' || id FROM prune_runs)`,
}

// Prune deletes the history older than cutoff that nothing that stays
// refers to (see store.Pruner), in one immediate transaction: writers of
// other processes wait for it, as for any write. The file keeps its size;
// the space freed, reported as FreeBytes, holds new records (Vacuum gives
// it back to the file system). When the database was created with
// auto_vacuum=INCREMENTAL the free pages are given back at once.
func (s *Store) Prune(ctx context.Context, cutoff time.Time, dryRun bool) (store.PruneStats, error) {
	var st store.PruneStats
	cut := formatTime(cutoff)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		st = store.PruneStats{}
		for _, t := range pruneTables {
			if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS `+t+` (id TEXT PRIMARY KEY) WITHOUT ROWID`); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM temp.`+t); err != nil {
				return err
			}
		}
		for _, q := range pruneSteps {
			if _, err := tx.ExecContext(ctx, q, cutArg(q, cut)...); err != nil {
				return err
			}
		}
		fields := []*int{&st.Runs, &st.Drifts, &st.CheckRuns, &st.Incidents, &st.IncidentEvents, &st.Notifications,
			&st.KeptRuns, &st.KeptDrifts, &st.KeptCheckRuns, &st.KeptIncidents}
		for i, q := range pruneCounts {
			if err := tx.QueryRowContext(ctx, q, cutArg(q, cut)...).Scan(fields[i]); err != nil {
				return err
			}
		}
		if !dryRun {
			for _, q := range pruneDeletes {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return err
				}
			}
		}
		for _, t := range pruneTables {
			if _, err := tx.ExecContext(ctx, `DROP TABLE temp.`+t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return store.PruneStats{}, fmt.Errorf("prune store %q: %w", s.path, err)
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

// cutArg returns the arguments of q: the cutoff when q reads it.
func cutArg(q, cut string) []any {
	if strings.Contains(q, "?1") {
		return []any{cut}
	}
	return nil
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
	return s.retry(ctx, func() error {
		_, err := s.db.ExecContext(ctx, `PRAGMA incremental_vacuum`)
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
	err = s.retry(ctx, func() error {
		_, err := s.db.ExecContext(ctx, `VACUUM`)
		return err
	})
	if err == nil {
		// VACUUM writes the new pages to the log: a checkpoint moves them
		// into the file and truncates both.
		var busy, logged, moved int
		err = s.retry(ctx, func() error {
			return s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &moved)
		})
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
