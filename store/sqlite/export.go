package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"path/filepath"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var (
	_ store.Exporter   = (*Store)(nil)
	_ store.Identifier = (*Store)(nil)
)

// idPage is the page size of the exports' ids: each body is then read
// alone, so one run at a time is in memory.
const idPage = 256

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
