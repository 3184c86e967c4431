package postgres

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var (
	_ store.Exporter        = (*Store)(nil)
	_ store.MonitorExporter = (*Store)(nil)
	_ store.Importer        = (*Store)(nil)
	_ store.Identifier      = (*Store)(nil)
)

// Page sizes of the exports: ids of records with a body (each body is then
// read alone, so one run at a time is in memory), and whole rows of the
// monitor's small records.
const (
	idPage  = 256
	rowPage = 500
)

// Identity names the cluster (by its start time and port), the database
// (by name and oid) and the schema the store uses: two DSNs that reach the
// same tables by different host names or users have the same identity.
func (s *Store) Identity(ctx context.Context) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT format('postgres:%s:%s/%s(%s)/%s',
			extract(epoch FROM pg_postmaster_start_time()), COALESCE(inet_server_port(), 0),
			current_database(), (SELECT oid FROM pg_database WHERE datname = current_database()), current_schema())`).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("identify store %q: %w", s.dsn, err)
	}
	return id, nil
}

// pages yields the rows of query, a page of size n at a time: query
// selects rows whose key is greater than $1, in key order, at most $2;
// scan reads one row and returns its key. Each page is read whole before
// its rows are yielded, so no connection is held while the caller works.
func pages[T any](ctx context.Context, s *Store, query string, n int, scan func(pgx.Row) (string, T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		after := ""
		for {
			rows, err := s.pool.Query(ctx, query, after, n)
			if err != nil {
				yield(zero, err)
				return
			}
			var page []T
			for rows.Next() {
				key, v, err := scan(rows)
				if err != nil {
					rows.Close()
					yield(zero, err)
					return
				}
				after = key
				page = append(page, v)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				yield(zero, err)
				return
			}
			for _, v := range page {
				if !yield(v, nil) {
					return
				}
			}
			if len(page) < n {
				return
			}
		}
	}
}

// ids yields the values of the id column col of table in ascending
// (byte) order.
func (s *Store) ids(ctx context.Context, table, col string) iter.Seq2[string, error] {
	return pages(ctx, s, `SELECT `+col+` FROM `+table+` WHERE `+col+` > $1 ORDER BY `+col+` LIMIT $2`, idPage,
		func(row pgx.Row) (string, string, error) {
			var id string
			err := row.Scan(&id)
			return id, id, err
		})
}

// each yields load(id) for every id of ids, skipping the records deleted
// since their id was listed (load returns pgx.ErrNoRows).
func each[T any](ids iter.Seq2[string, error], load func(id string) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for id, err := range ids {
			if err != nil {
				yield(zero, err)
				return
			}
			v, err := load(id)
			if errors.Is(err, pgx.ErrNoRows) {
				continue
			}
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// ExportRuns yields every run with its pending mark, by run id.
func (s *Store) ExportRuns(ctx context.Context) iter.Seq2[store.RunRecord, error] {
	return each(s.ids(ctx, "runs", "run_id"), func(id string) (store.RunRecord, error) {
		var (
			body, note, dir []byte
			snap            *string
			created         *int64
		)
		err := s.pool.QueryRow(ctx, `SELECT r.body, p.snapshot_id, p.created_at, p.note, p.dir
			FROM runs r LEFT JOIN pending_baselines p ON p.run_id = r.run_id WHERE r.run_id = $1`, id).
			Scan(&body, &snap, &created, &note, &dir)
		if err != nil {
			return store.RunRecord{}, err
		}
		r, err := s.decodeRun(ctx, id, body)
		if err != nil {
			return store.RunRecord{}, fmt.Errorf("load run %q: %w", id, err)
		}
		rec := store.RunRecord{Run: r}
		if snap != nil {
			rec.Pending = &store.PendingBaseline{RunID: id, SnapshotID: *snap, CreatedAt: fromNanos(created), Note: string(note), Dir: string(dir)}
		}
		return rec, nil
	})
}

// ExportBaselines yields every baseline, by snapshot id.
func (s *Store) ExportBaselines(ctx context.Context) iter.Seq2[*promptcanary.Baseline, error] {
	return each(s.ids(ctx, "baselines", "snapshot_id"), func(id string) (*promptcanary.Baseline, error) {
		var body []byte
		if err := s.pool.QueryRow(ctx, `SELECT body FROM baselines WHERE snapshot_id = $1`, id).Scan(&body); err != nil {
			return nil, err
		}
		b, err := s.decodeBaseline(ctx, id, body)
		if err != nil {
			return nil, fmt.Errorf("load baseline %q: %w", id, err)
		}
		return b, nil
	})
}

// ExportDrifts yields every drift report, by report id.
func (s *Store) ExportDrifts(ctx context.Context) iter.Seq2[*promptcanary.DriftReport, error] {
	return each(s.ids(ctx, "drift_reports", "report_id"), func(id string) (*promptcanary.DriftReport, error) {
		var body []byte
		if err := s.pool.QueryRow(ctx, `SELECT body FROM drift_reports WHERE report_id = $1`, id).Scan(&body); err != nil {
			return nil, err
		}
		d, err := store.UnmarshalDrift(body)
		if err != nil {
			return nil, fmt.Errorf("load drift report %q: %w", id, err)
		}
		return d, nil
	})
}

// ExportCheckRuns yields every check run, by id.
func (s *Store) ExportCheckRuns(ctx context.Context) iter.Seq2[promptcanary.CheckRun, error] {
	return pages(ctx, s, `SELECT id, check_name, provider, suite, slot, started_at, finished_at, outcome,
			run_id, report_id, confirm_run_id, confirm_report_id, baseline_id, confirmed, pass_rate, score,
			baseline_pass_rate, severity, cost_usd, reason
		FROM check_runs WHERE id > $1 ORDER BY id LIMIT $2`, rowPage, scanCheckRun)
}

// scanCheckRun reads one row of ExportCheckRuns.
func scanCheckRun(row pgx.Row) (string, promptcanary.CheckRun, error) {
	var (
		cr                                 promptcanary.CheckRun
		slot, started, finished            *int64
		outcome, severity                  string
		passRate, score, baseRate, costUSD *float64
		reason                             []byte
	)
	err := row.Scan(&cr.ID, &cr.Check, &cr.Provider, &cr.Suite, &slot, &started, &finished, &outcome,
		&cr.RunID, &cr.ReportID, &cr.ConfirmRunID, &cr.ConfirmReportID, &cr.BaselineID, &cr.Confirmed,
		&passRate, &score, &baseRate, &severity, &costUSD, &reason)
	cr.Slot, cr.StartedAt, cr.FinishedAt = fromNanos(slot), fromNanos(started), fromNanos(finished)
	cr.Outcome, cr.Severity, cr.Reason = promptcanary.CheckOutcome(outcome), promptcanary.Severity(severity), string(reason)
	cr.PassRate, cr.Score, cr.BaselinePassRate, cr.CostUSD = orNaN(passRate), orNaN(score), orNaN(baseRate), orNaN(costUSD)
	return cr.ID, cr, err
}

// ExportIncidents yields every incident, by id, with its events and
// notification attempts.
func (s *Store) ExportIncidents(ctx context.Context) iter.Seq2[store.IncidentRecord, error] {
	incidents := pages(ctx, s, `SELECT `+incidentColumns+` FROM incidents WHERE id > $1 ORDER BY id LIMIT $2`, rowPage,
		func(row pgx.Row) (string, promptcanary.Incident, error) {
			inc, err := scanIncident(row)
			return inc.ID, inc, err
		})
	return func(yield func(store.IncidentRecord, error) bool) {
		for inc, err := range incidents {
			rec := store.IncidentRecord{Incident: inc}
			if err == nil {
				rec.Events, err = s.IncidentEvents(ctx, inc.ID)
			}
			if err == nil {
				rec.Notifications, err = s.Notifications(ctx, inc.ID, 0)
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

// ImportIncident stores rec in one transaction: the incident, replacing
// one with its id, and rec's events and notifications in their order,
// replacing all of that incident's.
func (s *Store) ImportIncident(ctx context.Context, rec store.IncidentRecord) error {
	inc := &rec.Incident
	if err := store.CheckIncident(inc); err != nil {
		return fmt.Errorf("import incident: %w", err)
	}
	w, err := incidentRow(inc)
	if err == nil {
		err = w.err
	}
	if err != nil {
		return fmt.Errorf("import incident %q: %w", inc.ID, err)
	}
	b := &pgx.Batch{}
	// Updated in place, not deleted and inserted: rows of other tables
	// that refer to the incident (a monitor's outbox) stay.
	b.Queue(upsertIncident, w.args...)
	b.Queue(`DELETE FROM incident_events WHERE incident_id = $1`, inc.ID)
	b.Queue(`DELETE FROM notifications WHERE incident_id = $1`, inc.ID)
	for _, e := range rec.Events {
		if e.IncidentID != inc.ID {
			return fmt.Errorf("import incident %q: event of incident %q in its record", inc.ID, e.IncidentID)
		}
		ew := (&row{}).add(e.IncidentID).time("at", e.At).text("type", string(e.Type)).
			text("run id", e.RunID).text("severity", string(e.Severity)).bytes(e.Summary)
		if ew.err != nil {
			return fmt.Errorf("import incident %q: event: %w", inc.ID, ew.err)
		}
		b.Queue(`INSERT INTO incident_events (incident_id, at, type, run_id, severity, summary)
			VALUES ($1, $2, $3, $4, $5, $6)`, ew.args...)
	}
	for i := range rec.Notifications {
		a := &rec.Notifications[i]
		if err := store.CheckNotification(a); err != nil {
			return fmt.Errorf("import incident %q: %w", inc.ID, err)
		}
		if a.IncidentID != inc.ID {
			return fmt.Errorf("import incident %q: notification of incident %q in its record", inc.ID, a.IncidentID)
		}
		aw := (&row{}).add(a.ID, a.IncidentID).text("notifier", a.Notifier).text("status", string(a.Status)).
			text("event", string(a.Event)).add(a.Attempt).time("at", a.At).add(a.OK, a.Code).bytes(a.Error)
		if aw.err != nil {
			return fmt.Errorf("import incident %q: notification: %w", inc.ID, aw.err)
		}
		b.Queue(`INSERT INTO notifications (id, incident_id, notifier, status, event, attempt, at, ok, code, error)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, aw.args...)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
	if isViolation(err, uniqueViolation, "incidents_open_fingerprint") {
		err = s.conflict(ctx, inc)
	}
	if err != nil {
		return fmt.Errorf("import incident %q: %w", inc.ID, err)
	}
	return nil
}
