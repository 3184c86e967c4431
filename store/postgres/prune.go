package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary/store"
)

var _ store.Pruner = (*Store)(nil)

// pruneTables are the temporary tables of Prune, dropped when its
// transaction ends: the ids it deletes and the ids of runs and reports
// that something that stays refers to.
var pruneTables = []string{"prune_incidents", "prune_check_runs", "prune_drifts", "prune_runs", "keep_runs", "keep_reports"}

// old is the condition "column is before the cutoff ($1)": a NULL (zero)
// time is the oldest, as listings have it.
func old(col string) string { return "(" + col + " IS NULL OR " + col + " < $1)" }

// pruneSteps fill the temporary tables, in an order where each step reads
// only what the ones before decided. $1 is the cutoff in nanoseconds.
var pruneSteps = []string{
	// Incidents resolved before the cutoff go; open ones (resolved_at
	// NULL) never do.
	`INSERT INTO prune_incidents SELECT id FROM incidents WHERE resolved_at < $1`,
	// The incidents that stay keep their runs and reports, and those of
	// their events.
	`INSERT INTO keep_runs SELECT run_id FROM incidents i
		WHERE run_id <> '' AND NOT EXISTS (SELECT 1 FROM prune_incidents p WHERE p.id = i.id)
		ON CONFLICT DO NOTHING`,
	`INSERT INTO keep_runs SELECT run_id FROM incident_events e
		WHERE run_id <> '' AND NOT EXISTS (SELECT 1 FROM prune_incidents p WHERE p.id = e.incident_id)
		ON CONFLICT DO NOTHING`,
	`INSERT INTO keep_reports SELECT report_id FROM incidents i
		WHERE report_id <> '' AND NOT EXISTS (SELECT 1 FROM prune_incidents p WHERE p.id = i.id)
		ON CONFLICT DO NOTHING`,
	// Old check runs go unless they share a run or a report with an
	// incident that stays.
	`INSERT INTO prune_check_runs SELECT id FROM check_runs c
		WHERE ` + old("slot") + `
		AND NOT EXISTS (SELECT 1 FROM keep_runs k WHERE k.id IN (c.run_id, c.confirm_run_id))
		AND NOT EXISTS (SELECT 1 FROM keep_reports k WHERE k.id IN (c.report_id, c.confirm_report_id))`,
	// The check runs that stay keep their runs and reports.
	`INSERT INTO keep_runs SELECT x.id FROM check_runs c, LATERAL (VALUES (c.run_id), (c.confirm_run_id)) AS x (id)
		WHERE x.id <> '' AND NOT EXISTS (SELECT 1 FROM prune_check_runs p WHERE p.id = c.id)
		ON CONFLICT DO NOTHING`,
	`INSERT INTO keep_reports SELECT x.id FROM check_runs c, LATERAL (VALUES (c.report_id), (c.confirm_report_id)) AS x (id)
		WHERE x.id <> '' AND NOT EXISTS (SELECT 1 FROM prune_check_runs p WHERE p.id = c.id)
		ON CONFLICT DO NOTHING`,
	// Old drift reports go unless kept.
	`INSERT INTO prune_drifts SELECT report_id FROM drift_reports d
		WHERE ` + old("generated_at") + ` AND NOT EXISTS (SELECT 1 FROM keep_reports k WHERE k.id = d.report_id)`,
	// The reports that stay keep the runs they compared; baselines and
	// pending baselines keep theirs.
	`INSERT INTO keep_runs SELECT current_run_id FROM drift_reports d
		WHERE NOT EXISTS (SELECT 1 FROM prune_drifts p WHERE p.id = d.report_id)
		ON CONFLICT DO NOTHING`,
	`INSERT INTO keep_runs SELECT run_id FROM baselines ON CONFLICT DO NOTHING`,
	`INSERT INTO keep_runs SELECT run_id FROM pending_baselines ON CONFLICT DO NOTHING`,
	// Old runs go unless kept.
	`INSERT INTO prune_runs SELECT run_id FROM runs r
		WHERE ` + old("started_at") + ` AND NOT EXISTS (SELECT 1 FROM keep_runs k WHERE k.id = r.run_id)`,
}

// pruneCounts count what Prune deletes and keeps, in the order of the
// fields they fill.
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
		AND NOT EXISTS (SELECT 1 FROM prune_incidents p WHERE p.id = i.id))`

// pruneDeletes delete what the steps chose. The events and notifications
// of incidents, and the per-probe rows of runs, go with them (ON DELETE
// CASCADE).
var pruneDeletes = []string{
	`DELETE FROM incidents i USING prune_incidents p WHERE i.id = p.id`,
	`DELETE FROM check_runs c USING prune_check_runs p WHERE c.id = p.id`,
	`DELETE FROM drift_reports d USING prune_drifts p WHERE d.report_id = p.id`,
	`DELETE FROM runs r USING prune_runs p WHERE r.run_id = p.id`,
	`DELETE FROM answers a USING prune_runs p WHERE a.owner = 'run:' || p.id`,
}

// Prune deletes the history older than cutoff that nothing that stays
// refers to (see store.Pruner), in one transaction. While it runs, it
// holds the baselines and pending baselines in SHARE mode, so that no
// baseline is taken of a run it deletes (a promotion waits for it, then
// fails as the run is gone); other writers, such as monitors, go on.
// The space of the deleted rows is reused by new ones once autovacuum
// has seen them; FreeBytes is 0.
func (s *Store) Prune(ctx context.Context, cutoff time.Time, dryRun bool) (store.PruneStats, error) {
	var st store.PruneStats
	cut := clampNanos(cutoff)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		st = store.PruneStats{}
		if !dryRun {
			if _, err := tx.Exec(ctx, `LOCK TABLE baselines, pending_baselines IN SHARE MODE`); err != nil {
				return err
			}
		}
		for _, t := range pruneTables {
			if _, err := tx.Exec(ctx, `CREATE TEMP TABLE `+t+` (id text COLLATE "C" PRIMARY KEY) ON COMMIT DROP`); err != nil {
				return err
			}
		}
		for _, q := range pruneSteps {
			var args []any
			if strings.Contains(q, "$1") {
				args = []any{cut}
			}
			if _, err := tx.Exec(ctx, q, args...); err != nil {
				return fmt.Errorf("%w (in %s)", err, strings.Join(strings.Fields(q)[:4], " "))
			}
		}
		var n [10]int64
		if err := tx.QueryRow(ctx, pruneCounts, cut).Scan(&n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8], &n[9]); err != nil {
			return err
		}
		fields := []*int{&st.Runs, &st.Drifts, &st.CheckRuns, &st.Incidents, &st.IncidentEvents, &st.Notifications,
			&st.KeptRuns, &st.KeptDrifts, &st.KeptCheckRuns, &st.KeptIncidents}
		for i, f := range fields {
			*f = int(n[i])
		}
		if dryRun {
			return nil
		}
		for _, q := range pruneDeletes {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return store.PruneStats{}, fmt.Errorf("prune store %q: %w", s.dsn, err)
	}
	return st, nil
}
