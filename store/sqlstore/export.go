package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var (
	_ store.Exporter        = (*DB)(nil)
	_ store.MonitorExporter = (*DB)(nil)
	_ store.Importer        = (*DB)(nil)
)

// Page sizes of the exports: ids of records with a body (each body is then
// read alone, so one run at a time is in memory), and whole rows of the
// monitor's small records.
const (
	idPage  = 256
	rowPage = 500
)

// pages yields the rows (columns cols) of table in the order of its key
// column, a page of size n at a time: scan reads one row and keyOf returns
// its key. Each page is read whole before its rows are yielded, so no
// connection is held while the caller works.
func pages[T any](ctx context.Context, s *DB, cols, table, key string, n int, scan func(scanner) (T, error), keyOf func(T) string) iter.Seq2[T, error] {
	query := `SELECT ` + cols + ` FROM ` + table + ` WHERE ` + key + ` > ? ORDER BY ` + key + ` LIMIT ?`
	return func(yield func(T, error) bool) {
		var zero T
		after := ""
		for {
			page, err := collect(ctx, s, s.db, query, []any{after, n}, scan)
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
			after = keyOf(page[len(page)-1])
		}
	}
}

// ids yields the values of the id column col of table in ascending
// (byte) order.
func (s *DB) ids(ctx context.Context, table, col string) iter.Seq2[string, error] {
	return pages(ctx, s, col, table, col, idPage, scanString, func(id string) string { return id })
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
func (s *DB) ExportRuns(ctx context.Context) iter.Seq2[store.RunRecord, error] {
	return each(s.ids(ctx, "runs", "run_id"), func(id string) (store.RunRecord, error) {
		r, err := load(ctx, s, "run", "runs", "run_id", id, true, s.decodeRun)
		if err != nil {
			return store.RunRecord{}, err
		}
		rec, p := store.RunRecord{Run: r}, store.PendingBaseline{RunID: id}
		err = s.row(ctx, s.db, `SELECT snapshot_id, created_at, note, dir FROM pending_baselines WHERE run_id = ?`, id).
			Scan(&p.SnapshotID, At(&p.CreatedAt), &p.Note, &p.Dir)
		if err == nil {
			rec.Pending = &p
		} else if !errors.Is(err, sql.ErrNoRows) {
			return store.RunRecord{}, fmt.Errorf("load run %q: %w", id, err)
		}
		return rec, nil
	})
}

// ExportBaselines yields every baseline, by snapshot id.
func (s *DB) ExportBaselines(ctx context.Context) iter.Seq2[*promptcanary.Baseline, error] {
	return each(s.ids(ctx, "baselines", "snapshot_id"), func(id string) (*promptcanary.Baseline, error) {
		return load(ctx, s, "baseline", "baselines", "snapshot_id", id, true, s.decodeBaseline)
	})
}

// ExportDrifts yields every drift report, by report id.
func (s *DB) ExportDrifts(ctx context.Context) iter.Seq2[*promptcanary.DriftReport, error] {
	return each(s.ids(ctx, "drift_reports", "report_id"), func(id string) (*promptcanary.DriftReport, error) {
		return load(ctx, s, "drift report", "drift_reports", "report_id", id, true, decodeDrift)
	})
}

// ExportCheckRuns yields every check run, by id.
func (s *DB) ExportCheckRuns(ctx context.Context) iter.Seq2[promptcanary.CheckRun, error] {
	return pages(ctx, s, checkRunColumns, "check_runs", "id", rowPage, scanCheckRun,
		func(cr promptcanary.CheckRun) string { return cr.ID })
}

// ExportIncidents yields every incident, by id, with its events and
// notification attempts.
func (s *DB) ExportIncidents(ctx context.Context) iter.Seq2[store.IncidentRecord, error] {
	incidents := pages(ctx, s, incidentColumns, "incidents", "id", rowPage, scanIncident,
		func(inc promptcanary.Incident) string { return inc.ID })
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

// importArgs returns the arguments of the incident of rec and of its
// events and notifications, checked.
func (s *DB) importArgs(rec *store.IncidentRecord) (inc *args, events, notes []*args, err error) {
	if inc, err = s.incidentArgs(&rec.Incident); err != nil {
		return nil, nil, nil, err
	}
	errs := []error{inc.err}
	id := rec.Incident.ID
	for _, e := range rec.Events {
		if e.IncidentID != id {
			return nil, nil, nil, fmt.Errorf("event of incident %q in its record", e.IncidentID)
		}
		a := s.eventArgs(e)
		events, errs = append(events, a), append(errs, a.err)
	}
	for i := range rec.Notifications {
		n := &rec.Notifications[i]
		if err := store.CheckNotification(n); err != nil {
			return nil, nil, nil, err
		}
		if n.IncidentID != id {
			return nil, nil, nil, fmt.Errorf("notification of incident %q in its record", n.IncidentID)
		}
		a := s.notificationArgs(n)
		notes, errs = append(notes, a), append(errs, a.err)
	}
	return inc, events, notes, errors.Join(errs...)
}

// ImportIncident stores rec in one transaction: the incident, replacing
// one with its id, and rec's events and notifications in their order,
// replacing all of that incident's.
func (s *DB) ImportIncident(ctx context.Context, rec store.IncidentRecord) error {
	inc := &rec.Incident
	if err := store.CheckIncident(inc); err != nil {
		return fmt.Errorf("import incident: %w", err)
	}
	incArgs, events, notes, err := s.importArgs(&rec)
	err = s.txAfter(ctx, err, func(tx *sql.Tx) error {
		if err := s.upsertIncident(ctx, tx, inc, incArgs); err != nil {
			return err
		}
		for _, table := range []string{"incident_events", "notifications"} {
			if _, err := s.exec(ctx, tx, `DELETE FROM `+table+` WHERE incident_id = ?`, inc.ID); err != nil {
				return err
			}
		}
		return s.insertAll(ctx, tx, inserts{insertEvent, events}, inserts{insertNotification, notes})
	})
	return wrap(s.conflictOf(ctx, inc, err), "import incident %q", inc.ID)
}
