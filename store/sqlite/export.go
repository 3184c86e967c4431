package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"time"

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

// Identity returns the database file's absolute path, symbolic links
// resolved.
func (s *Store) Identity(context.Context) (string, error) {
	p, err := filepath.Abs(s.path)
	if err != nil {
		return "", fmt.Errorf("identify store %q: %w", s.path, err)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return "sqlite:" + p, nil
}

// pages yields the rows of query, a page of size n at a time: query
// selects rows whose key is greater than its first argument, in key order,
// at most its second argument; scan reads one row and returns its key.
// Each page is read whole before its rows are yielded.
func pages[T any](ctx context.Context, db *sql.DB, query string, n int, scan func(*sql.Rows) (string, T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		after := ""
		for {
			rows, err := db.QueryContext(ctx, query, after, n)
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
			err = rows.Err()
			rows.Close()
			if err != nil {
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

// ids yields the values of the id column col of table in ascending order.
func (s *Store) ids(ctx context.Context, table, col string) iter.Seq2[string, error] {
	return pages(ctx, s.db, `SELECT `+col+` FROM `+table+` WHERE `+col+` > ? ORDER BY `+col+` LIMIT ?`, idPage,
		func(rows *sql.Rows) (string, string, error) {
			var id string
			err := rows.Scan(&id)
			return id, id, err
		})
}

// each yields load(id) for every id of ids, skipping the records deleted
// since their id was listed (load returns sql.ErrNoRows).
func each[T any](ids iter.Seq2[string, error], load func(id string) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for id, err := range ids {
			if err != nil {
				yield(zero, err)
				return
			}
			v, err := load(id)
			if errors.Is(err, sql.ErrNoRows) {
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
			body                     []byte
			snap, created, note, dir sql.NullString
		)
		err := s.db.QueryRowContext(ctx, `SELECT r.body, p.snapshot_id, p.created_at, p.note, p.dir
			FROM runs r LEFT JOIN pending_baselines p ON p.run_id = r.run_id WHERE r.run_id = ?`, id).
			Scan(&body, &snap, &created, &note, &dir)
		if err != nil {
			return store.RunRecord{}, err
		}
		r, err := s.decodeRun(ctx, id, body)
		if err != nil {
			return store.RunRecord{}, fmt.Errorf("load run %q: %w", id, err)
		}
		rec := store.RunRecord{Run: r}
		if snap.Valid {
			t, err := parseTime(created.String)
			if err != nil {
				return store.RunRecord{}, fmt.Errorf("load run %q: pending baseline: %w", id, err)
			}
			rec.Pending = &store.PendingBaseline{RunID: id, SnapshotID: snap.String, CreatedAt: t, Note: note.String, Dir: dir.String}
		}
		return rec, nil
	})
}

// ExportBaselines yields every baseline, by snapshot id.
func (s *Store) ExportBaselines(ctx context.Context) iter.Seq2[*promptcanary.Baseline, error] {
	return each(s.ids(ctx, "baselines", "snapshot_id"), func(id string) (*promptcanary.Baseline, error) {
		var body []byte
		if err := s.db.QueryRowContext(ctx, `SELECT body FROM baselines WHERE snapshot_id = ?`, id).Scan(&body); err != nil {
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
		if err := s.db.QueryRowContext(ctx, `SELECT body FROM drift_reports WHERE report_id = ?`, id).Scan(&body); err != nil {
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
	return pages(ctx, s.db, `SELECT id, check_name, provider, suite, slot, started_at, finished_at, outcome,
			run_id, report_id, confirm_run_id, confirm_report_id, baseline_id, confirmed, pass_rate, score,
			baseline_pass_rate, severity, cost_usd, reason
		FROM check_runs WHERE id > ? ORDER BY id LIMIT ?`, rowPage, scanCheckRun)
}

// scanCheckRun reads one row of ExportCheckRuns.
func scanCheckRun(rows *sql.Rows) (string, promptcanary.CheckRun, error) {
	var (
		cr                                 promptcanary.CheckRun
		slot, started, finished            string
		passRate, score, baseRate, costUSD sql.NullFloat64
	)
	if err := rows.Scan(&cr.ID, &cr.Check, &cr.Provider, &cr.Suite, &slot, &started, &finished, &cr.Outcome,
		&cr.RunID, &cr.ReportID, &cr.ConfirmRunID, &cr.ConfirmReportID, &cr.BaselineID, &cr.Confirmed,
		&passRate, &score, &baseRate, &cr.Severity, &costUSD, &cr.Reason); err != nil {
		return "", cr, err
	}
	for _, t := range []struct {
		dst *time.Time
		src string
	}{{&cr.Slot, slot}, {&cr.StartedAt, started}, {&cr.FinishedAt, finished}} {
		var err error
		if *t.dst, err = parseTime(t.src); err != nil {
			return "", cr, fmt.Errorf("check run %q: %w", cr.ID, err)
		}
	}
	cr.PassRate, cr.Score, cr.BaselinePassRate, cr.CostUSD = orNaN(passRate), orNaN(score), orNaN(baseRate), orNaN(costUSD)
	return cr.ID, cr, nil
}

// ExportIncidents yields every incident, by id, with its events and
// notification attempts.
func (s *Store) ExportIncidents(ctx context.Context) iter.Seq2[store.IncidentRecord, error] {
	incidents := pages(ctx, s.db, `SELECT `+incidentColumns+` FROM incidents WHERE id > ? ORDER BY id LIMIT ?`, rowPage,
		func(rows *sql.Rows) (string, promptcanary.Incident, error) {
			inc, err := scanIncident(rows)
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
	for i := range rec.Notifications {
		if err := store.CheckNotification(&rec.Notifications[i]); err != nil {
			return fmt.Errorf("import incident %q: %w", inc.ID, err)
		}
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := upsertIncident(ctx, tx, inc); err != nil {
			return err
		}
		for _, table := range []string{"incident_events", "notifications"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE incident_id = ?`, inc.ID); err != nil {
				return err
			}
		}
		for _, e := range rec.Events {
			if e.IncidentID != inc.ID {
				return fmt.Errorf("event of incident %q in the record of incident %q", e.IncidentID, inc.ID)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO incident_events (incident_id, at, type, run_id, severity, summary)
				VALUES (?, ?, ?, ?, ?, ?)`,
				e.IncidentID, formatTime(e.At), string(e.Type), e.RunID, string(e.Severity), e.Summary); err != nil {
				return err
			}
		}
		for _, a := range rec.Notifications {
			if a.IncidentID != inc.ID {
				return fmt.Errorf("notification of incident %q in the record of incident %q", a.IncidentID, inc.ID)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO notifications
				(id, incident_id, notifier, status, event, attempt, at, ok, code, error)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				a.ID, a.IncidentID, a.Notifier, string(a.Status), string(a.Event), a.Attempt, formatTime(a.At), a.OK, a.Code, a.Error); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("import incident %q: %w", inc.ID, err)
	}
	return nil
}
