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
	_ store.Exporter   = (*Store)(nil)
	_ store.Identifier = (*Store)(nil)
)

// idPage is the page size of the exports' ids: each body is then read
// alone, so one run at a time is in memory.
const idPage = 256

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
