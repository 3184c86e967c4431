package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary/store"
)

var (
	_ store.Pruner       = (*DB)(nil)
	_ store.WriteChecker = (*DB)(nil)
)

// pruneTables are the temporary tables of Prune: the ids it deletes and
// the ids of runs and reports that something that stays refers to.
var pruneTables = []string{"prune_incidents", "prune_check_runs", "prune_drifts", "prune_runs", "keep_runs", "keep_reports"}

// old is the condition "column is before the cutoff (?)": a NULL (zero)
// time is the oldest, as listings have it.
func old(col string) string { return "(" + col + " IS NULL OR " + col + " < ?)" }

// keep adds the ids of column col of the rows of table (alias a) that
// stay, those not in gone (matched on a.id), to the table to.
func keep(to, col, table, gone, id string) string {
	return `INSERT INTO ` + to + ` SELECT ` + col + ` FROM ` + table + ` a
		WHERE ` + col + ` <> '' AND NOT EXISTS (SELECT 1 FROM ` + gone + ` p WHERE p.id = a.` + id + `)
		ON CONFLICT DO NOTHING`
}

// pruneSteps fill the temporary tables, in an order where each step reads
// only what the ones before decided. Every ? is the cutoff.
var pruneSteps = []string{
	// Incidents resolved before the cutoff go; open ones (resolved_at
	// NULL) never do.
	`INSERT INTO prune_incidents SELECT id FROM incidents WHERE resolved_at < ?`,
	// The incidents that stay keep their runs and reports, and those of
	// their events.
	keep("keep_runs", "run_id", "incidents", "prune_incidents", "id"),
	keep("keep_runs", "run_id", "incident_events", "prune_incidents", "incident_id"),
	keep("keep_reports", "report_id", "incidents", "prune_incidents", "id"),
	// Old check runs go unless they share a run or a report with an
	// incident that stays.
	`INSERT INTO prune_check_runs SELECT id FROM check_runs c
		WHERE ` + old("slot") + `
		AND NOT EXISTS (SELECT 1 FROM keep_runs k WHERE k.id IN (c.run_id, c.confirm_run_id))
		AND NOT EXISTS (SELECT 1 FROM keep_reports k WHERE k.id IN (c.report_id, c.confirm_report_id))`,
	// The check runs that stay keep their runs and reports.
	keep("keep_runs", "run_id", "check_runs", "prune_check_runs", "id"),
	keep("keep_runs", "confirm_run_id", "check_runs", "prune_check_runs", "id"),
	keep("keep_reports", "report_id", "check_runs", "prune_check_runs", "id"),
	keep("keep_reports", "confirm_report_id", "check_runs", "prune_check_runs", "id"),
	// Old drift reports go unless kept.
	`INSERT INTO prune_drifts SELECT report_id FROM drift_reports d
		WHERE ` + old("generated_at") + ` AND NOT EXISTS (SELECT 1 FROM keep_reports k WHERE k.id = d.report_id)`,
	// The reports that stay keep the runs they compared; baselines and
	// pending baselines keep theirs.
	keep("keep_runs", "current_run_id", "drift_reports", "prune_drifts", "report_id"),
	keep("keep_runs", "run_id", "baselines", "prune_runs", "run_id"),
	keep("keep_runs", "run_id", "pending_baselines", "prune_runs", "run_id"),
	// Old runs go unless kept.
	`INSERT INTO prune_runs SELECT run_id FROM runs r
		WHERE ` + old("started_at") + ` AND NOT EXISTS (SELECT 1 FROM keep_runs k WHERE k.id = r.run_id)`,
}

// pruneCounts counts what Prune deletes and keeps, in the order of the
// fields of store.PruneStats it fills.
var pruneCounts = `SELECT
	(SELECT COUNT(*) FROM prune_runs),
	(SELECT COUNT(*) FROM prune_drifts),
	(SELECT COUNT(*) FROM prune_check_runs),
	(SELECT COUNT(*) FROM prune_incidents),
	(SELECT COUNT(*) FROM incident_events e WHERE EXISTS (SELECT 1 FROM prune_incidents p WHERE p.id = e.incident_id)),
	(SELECT COUNT(*) FROM notifications n WHERE EXISTS (SELECT 1 FROM prune_incidents p WHERE p.id = n.incident_id)),
	(SELECT COUNT(*) FROM runs r WHERE ` + old("started_at") + `
		AND NOT EXISTS (SELECT 1 FROM prune_runs p WHERE p.id = r.run_id)),
	(SELECT COUNT(*) FROM drift_reports d WHERE ` + old("generated_at") + `
		AND NOT EXISTS (SELECT 1 FROM prune_drifts p WHERE p.id = d.report_id)),
	(SELECT COUNT(*) FROM check_runs c WHERE ` + old("slot") + `
		AND NOT EXISTS (SELECT 1 FROM prune_check_runs p WHERE p.id = c.id)),
	(SELECT COUNT(*) FROM incidents i WHERE ` + old("opened_at") + `
		AND NOT EXISTS (SELECT 1 FROM prune_incidents p WHERE p.id = i.id)),
	(SELECT COUNT(*) FROM candidate_gates WHERE slot < ?)`

// pruneGates deletes the upgrade gates of a slot before the cutoff (?):
// nothing refers to a gate.
const pruneGates = `DELETE FROM candidate_gates WHERE slot < ?`

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
// refers to (see store.Pruner), in one transaction that first runs the
// dialect's PruneLock.
func (s *DB) Prune(ctx context.Context, cutoff time.Time, dryRun bool) (store.PruneStats, error) {
	var st store.PruneStats
	cut := s.d.Bound(cutoff)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		st = store.PruneStats{}
		if s.d.PruneLock != "" && !dryRun {
			if _, err := tx.ExecContext(ctx, s.d.PruneLock); err != nil {
				return err
			}
		}
		for _, t := range pruneTables {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf(s.d.TempIDs, t)); err != nil {
				return err
			}
		}
		for _, q := range pruneSteps {
			if _, err := s.exec(ctx, tx, q, cutoffs(q, cut)...); err != nil {
				return fmt.Errorf("%w (in %s)", err, strings.Join(strings.Fields(q)[:4], " "))
			}
		}
		if err := s.row(ctx, tx, pruneCounts, cutoffs(pruneCounts, cut)...).Scan(&st.Runs, &st.Drifts, &st.CheckRuns,
			&st.Incidents, &st.IncidentEvents, &st.Notifications, &st.KeptRuns, &st.KeptDrifts, &st.KeptCheckRuns,
			&st.KeptIncidents, &st.Gates); err != nil {
			return err
		}
		if !dryRun {
			if _, err := s.exec(ctx, tx, pruneGates, cut); err != nil {
				return fmt.Errorf("%w (in DELETE FROM candidate_gates)", err)
			}
		}
		return s.prune(ctx, tx, dryRun)
	})
	if err != nil {
		return store.PruneStats{}, fmt.Errorf("prune store %q: %w", s.hooks.Name, err)
	}
	return st, nil
}

// prune deletes what the steps chose, unless dryRun, and drops the
// temporary tables.
func (s *DB) prune(ctx context.Context, tx *sql.Tx, dryRun bool) error {
	var qs []string
	if !dryRun {
		qs = pruneDeletes
	}
	for _, t := range pruneTables {
		qs = append(qs, `DROP TABLE `+t)
	}
	for _, q := range qs {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// cutoffs returns the arguments of q: the cutoff for each of its ?.
func cutoffs(q string, cut any) []any { return slices.Repeat([]any{cut}, strings.Count(q, "?")) }

// CheckWrite starts a write that deletes no row and rolls it back, so
// nothing is written: it fails where the database, the file or the
// connection is read-only, for a role without the privilege, and when the
// database does not answer or stays locked.
func (s *DB) CheckWrite(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err == nil {
		defer tx.Rollback()
		_, err = tx.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version < 0`)
	}
	return wrap(err, "store %q cannot be written", s.hooks.Name)
}
