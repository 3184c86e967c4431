package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var (
	_ store.Journal      = (*Store)(nil)
	_ store.LatestFinder = (*Store)(nil)
)

// runRow is a run ready to be written: the arguments of its row, with its
// JSON, its answers kept apart and its per-probe aggregates.
type runRow struct {
	id       string
	args     []any
	answers  []store.Answer
	probeIDs []string
	means    []*float64
	rates    []float64
	ns       []int64
}

// newRunRow checks that r can be stored and encodes it.
func newRunRow(r *promptcanary.Run) (*runRow, error) {
	sum := store.Summarize(r)
	w := (&row{}).add(sum.RunID).text("suite", sum.Suite).text("model", sum.Model).
		time("started_at", sum.StartedAt).time("finished_at", sum.FinishedAt)
	if w.err != nil {
		return nil, w.err
	}
	rr := &runRow{id: r.RunID}
	for _, p := range store.ProbeScoresOf(r) {
		if err := checkText("probe id", p.ProbeID); err != nil {
			return nil, err
		}
		rr.probeIDs = append(rr.probeIDs, p.ProbeID)
		rr.means = append(rr.means, finite(p.Mean))
		rr.rates = append(rr.rates, p.PassRate)
		rr.ns = append(rr.ns, int64(p.N))
	}
	body, as, err := store.MarshalRunApart(r, store.LayoutAuto)
	if err != nil {
		return nil, err
	}
	rr.answers = as
	rr.args = w.add(sum.Samples, sum.Results, sum.Passed, sum.Errors, finite(sum.Score), sum.StoredPassRate(), sum.Interrupted, body).args
	return rr, nil
}

const insertRun = `INSERT INTO runs
	(run_id, suite, model, started_at, finished_at, samples, results, passed, errors, score, pass_rate, interrupted, body)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

const upsertRun = insertRun + `
	ON CONFLICT (run_id) DO UPDATE SET
		suite = excluded.suite, model = excluded.model, started_at = excluded.started_at,
		finished_at = excluded.finished_at, samples = excluded.samples, results = excluded.results,
		passed = excluded.passed, errors = excluded.errors, score = excluded.score,
		pass_rate = excluded.pass_rate, interrupted = excluded.interrupted, body = excluded.body`

// insertProbes writes every aggregate of a run in one statement.
const insertProbes = `INSERT INTO run_probes (run_id, probe_id, mean, pass_rate, n)
	SELECT $1, p.probe_id, p.mean, p.pass_rate, p.n
	FROM unnest($2::text[], $3::float8[], $4::float8[], $5::bigint[]) AS p (probe_id, mean, pass_rate, n)`

// queue adds the statements that store rr, replacing a stored run with its
// id, to b; its answers kept apart are written by saveAnswers.
func (rr *runRow) queue(b *pgx.Batch) {
	b.Queue(upsertRun, rr.args...)
	b.Queue(`DELETE FROM run_probes WHERE run_id = $1`, rr.id)
	if len(rr.probeIDs) > 0 {
		b.Queue(insertProbes, rr.id, rr.probeIDs, rr.means, rr.rates, rr.ns)
	}
}

// insertNew stores rr in tx unless a run with its id is stored.
func (rr *runRow) insertNew(ctx context.Context, tx pgx.Tx) error {
	tag, err := tx.Exec(ctx, insertRun+` ON CONFLICT (run_id) DO NOTHING`, rr.args...)
	if err != nil || tag.RowsAffected() == 0 {
		return err
	}
	if err := saveAnswers(ctx, tx, store.RunOwner(rr.id), rr.answers); err != nil {
		return err
	}
	if len(rr.probeIDs) == 0 {
		return nil
	}
	_, err = tx.Exec(ctx, insertProbes, rr.id, rr.probeIDs, rr.means, rr.rates, rr.ns)
	return err
}

// SaveRun stores r in one transaction, replacing a run with the same id.
func (s *Store) SaveRun(ctx context.Context, r *promptcanary.Run) error {
	if err := store.CheckID("run", r.RunID); err != nil {
		return fmt.Errorf("save run: %w", err)
	}
	return s.saveRun(ctx, r, nil)
}

// saveRun stores r, and the pending mark p when not nil, in one
// transaction.
func (s *Store) saveRun(ctx context.Context, r *promptcanary.Run, p *store.PendingBaseline) error {
	rr, err := newRunRow(r)
	if err != nil {
		return fmt.Errorf("save run %q: %w", r.RunID, err)
	}
	b := &pgx.Batch{}
	rr.queue(b)
	if p != nil {
		w := (&row{}).add(p.RunID, p.SnapshotID).time("created_at", p.CreatedAt).bytes(p.Note).bytes(p.Dir)
		if w.err != nil {
			return fmt.Errorf("save run %q: pending baseline: %w", r.RunID, w.err)
		}
		b.Queue(`INSERT INTO pending_baselines (run_id, snapshot_id, created_at, note, dir)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (run_id) DO UPDATE SET snapshot_id = excluded.snapshot_id, created_at = excluded.created_at,
				note = excluded.note, dir = excluded.dir`, w.args...)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
		return saveAnswers(ctx, tx, store.RunOwner(rr.id), rr.answers)
	})
	if err != nil {
		return fmt.Errorf("save run %q: %w", r.RunID, err)
	}
	return nil
}

// loadBody returns the body of the record of table whose id (column col)
// id names, and that full id.
func (s *Store) loadBody(ctx context.Context, kind, table, col, id string) (string, []byte, error) {
	var body []byte
	q := `SELECT body FROM ` + table + ` WHERE ` + col + ` = $1`
	if store.CheckID(kind, id) == nil {
		// Most lookups are by the full id: one query.
		err := s.pool.QueryRow(ctx, q, id).Scan(&body)
		if err == nil {
			return id, body, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return "", nil, fmt.Errorf("load %s %q: %w", kind, id, err)
		}
	}
	full, err := s.resolve(ctx, kind, table, col, id)
	if err != nil {
		return "", nil, err
	}
	if err := s.pool.QueryRow(ctx, q, full).Scan(&body); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			err = store.ErrNotFound // removed meanwhile
		}
		return "", nil, fmt.Errorf("load %s %q: %w", kind, full, err)
	}
	return full, body, nil
}

// Run loads the run id names.
func (s *Store) Run(ctx context.Context, id string) (*promptcanary.Run, error) {
	full, body, err := s.loadBody(ctx, "run", "runs", "run_id", id)
	if err != nil {
		return nil, err
	}
	r, err := s.decodeRun(ctx, full, body)
	if err != nil {
		return nil, fmt.Errorf("load run %q: %w", full, err)
	}
	return r, nil
}

// clampNanos returns t as nanoseconds, clamped to what a bigint holds: a
// bound of a filter.
func clampNanos(t time.Time) int64 {
	switch {
	case t.Before(minTime):
		return math.MinInt64
	case t.After(maxTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// runsQuery returns the query of Runs and its arguments.
func runsQuery(f store.RunFilter) (string, []any) {
	var w where
	if f.Suite != "" {
		w.add("r.suite = ?", f.Suite)
	}
	if f.Model != "" {
		w.add("r.model = ?", f.Model)
	}
	if !f.Since.IsZero() {
		w.add("r.started_at >= ?", clampNanos(f.Since))
	}
	if f.BaselinesOnly {
		w.conds = append(w.conds, "EXISTS (SELECT 1 FROM baselines b WHERE b.run_id = r.run_id)")
	}
	q := `SELECT r.run_id, r.suite, r.model, r.started_at, r.finished_at, r.samples, r.results, r.passed,
			r.errors, r.score, r.pass_rate, r.interrupted,
			EXISTS (SELECT 1 FROM baselines b WHERE b.run_id = r.run_id),
			EXISTS (SELECT 1 FROM pending_baselines p WHERE p.run_id = r.run_id),
			COALESCE((SELECT d.severity FROM drift_reports d WHERE d.current_run_id = r.run_id
				ORDER BY d.generated_at DESC NULLS LAST, d.report_id DESC LIMIT 1), '')
		FROM runs r` + w.String() + ` ORDER BY r.started_at DESC NULLS LAST, r.run_id DESC`
	q += ` LIMIT ` + w.limit(f.Limit)
	return q, w.args
}

// Runs lists the runs f selects, newest first.
func (s *Store) Runs(ctx context.Context, f store.RunFilter) ([]store.RunSummary, error) {
	if !storable(f.Suite, f.Model) {
		return nil, nil
	}
	q, args := runsQuery(f)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.RunSummary, error) {
		var (
			sum               store.RunSummary
			started, finished *int64
			score             *float64
		)
		err := row.Scan(&sum.RunID, &sum.Suite, &sum.Model, &started, &finished, &sum.Samples, &sum.Results,
			&sum.Passed, &sum.Errors, &score, &sum.PassRate, &sum.Interrupted, &sum.IsBaseline, &sum.BaselinePending, &sum.Verdict)
		sum.StartedAt, sum.FinishedAt, sum.Score = fromNanos(started), fromNanos(finished), orNaN(score)
		sum.Settle()
		return sum, err
	})
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// SaveBaseline stores b, and b's run unless one with its id is stored, in
// one transaction.
func (s *Store) SaveBaseline(ctx context.Context, b *promptcanary.Baseline) (store.BaselineInfo, error) {
	if err := store.CheckBaseline(b); err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline: %w", err)
	}
	w := (&row{}).add(b.SnapshotID, b.RunResult.RunID).text("suite", b.SuiteName).text("model", b.Provider.ModelID).
		time("created_at", b.CreatedAt).bytes(b.Note)
	if w.err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline %q: %w", b.SnapshotID, w.err)
	}
	body, as, err := store.MarshalBaselineApart(b, store.LayoutAuto)
	if err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline %q: %w", b.SnapshotID, err)
	}
	w.add(body)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var stored bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM runs WHERE run_id = $1)`, b.RunResult.RunID).Scan(&stored); err != nil {
			return err
		}
		if !stored {
			rr, err := newRunRow(&b.RunResult)
			if err != nil {
				return fmt.Errorf("run %q: %w", b.RunResult.RunID, err)
			}
			if err := rr.insertNew(ctx, tx); err != nil {
				return err
			}
		}
		batch := &pgx.Batch{}
		batch.Queue(`INSERT INTO baselines (snapshot_id, run_id, suite, model, created_at, note, body)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (snapshot_id) DO UPDATE SET
				run_id = excluded.run_id, suite = excluded.suite, model = excluded.model,
				created_at = excluded.created_at, note = excluded.note, body = excluded.body`, w.args...)
		batch.Queue(`DELETE FROM pending_baselines WHERE run_id = $1 AND snapshot_id = $2`, b.RunResult.RunID, b.SnapshotID)
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
		return saveAnswers(ctx, tx, store.BaselineOwner(b.SnapshotID), as)
	})
	if err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline %q: %w", b.SnapshotID, err)
	}
	return store.Info(b), nil
}

// Promote saves a baseline taken from the stored run runID names.
// The run is read with its long answers spilled, so that the baseline
// keeps them apart too; the baseline returned holds them whole unless ctx
// carries store.WithSpilledAnswers.
func (s *Store) Promote(ctx context.Context, runID, note string) (*promptcanary.Baseline, error) {
	r, err := s.Run(store.WithSpilledAnswers(ctx), runID)
	if err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	b := store.NewBaseline(r, note, s.now())
	if _, err := s.SaveBaseline(ctx, b); err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	if err := store.WholeAnswers(ctx, &b.RunResult); err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	return b, nil
}

// Baseline loads the baseline whose snapshot id id names.
func (s *Store) Baseline(ctx context.Context, id string) (*promptcanary.Baseline, error) {
	full, body, err := s.loadBody(ctx, "baseline", "baselines", "snapshot_id", id)
	if err != nil {
		return nil, err
	}
	b, err := s.decodeBaseline(ctx, full, body)
	if err != nil {
		return nil, fmt.Errorf("load baseline %q: %w", full, err)
	}
	return b, nil
}

// LatestBaseline loads the newest readable baseline of suite and model,
// dropping the warnings of FindLatestBaseline.
func (s *Store) LatestBaseline(ctx context.Context, suite, model string) (*promptcanary.Baseline, error) {
	l, err := s.FindLatestBaseline(ctx, suite, model)
	if err != nil {
		return nil, err
	}
	return l.Baseline, nil
}

// FindLatestBaseline loads the newest baseline of suite and model whose
// stored body decodes, naming the newer ones that did not. Bodies are read
// one at a time, so that the usual lookup reads one.
func (s *Store) FindLatestBaseline(ctx context.Context, suite, model string) (*store.BaselineLookup, error) {
	notFound := fmt.Errorf("latest baseline for suite %q and model %q: %w", suite, model, store.ErrNotFound)
	if !storable(suite, model) {
		return nil, notFound
	}
	var w where
	if suite != "" {
		w.add("suite = ?", suite)
	}
	if model != "" {
		w.add("model = ?", model)
	}
	w.args = append(w.args, 0)
	q := `SELECT snapshot_id, created_at, body FROM baselines` + w.String() +
		` ORDER BY created_at DESC NULLS LAST, snapshot_id DESC LIMIT 1 OFFSET ` + w.next()
	l := &store.BaselineLookup{}
	for skip := 0; ; skip++ {
		w.args[len(w.args)-1] = skip
		var (
			id      string
			created *int64
			body    []byte
		)
		err := s.pool.QueryRow(ctx, q, w.args...).Scan(&id, &created, &body)
		if errors.Is(err, pgx.ErrNoRows) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("latest baseline for suite %q and model %q: %w", suite, model, err)
		}
		b, err := s.decodeBaseline(ctx, id, body)
		if err != nil {
			l.Skipped = append(l.Skipped, store.SkippedBaseline{SnapshotID: id, CreatedAt: fromNanos(created),
				Err: fmt.Errorf("decode stored baseline: %w", err)})
			continue
		}
		l.Baseline = b
		return l, nil
	}
	if len(l.Skipped) > 0 {
		return l, fmt.Errorf("%w: %d unreadable stored baseline(s)", notFound, len(l.Skipped))
	}
	return nil, notFound
}

// Baselines lists the baselines of suite ("" for all), newest first.
func (s *Store) Baselines(ctx context.Context, suite string) ([]store.BaselineInfo, error) {
	if !storable(suite) {
		return nil, nil
	}
	var w where
	if suite != "" {
		w.add("suite = ?", suite)
	}
	rows, err := s.pool.Query(ctx, `SELECT snapshot_id, run_id, suite, model, created_at, note FROM baselines`+
		w.String()+` ORDER BY created_at DESC NULLS LAST, snapshot_id DESC`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("list baselines: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.BaselineInfo, error) {
		var (
			in      store.BaselineInfo
			created *int64
			note    []byte
		)
		err := row.Scan(&in.SnapshotID, &in.RunID, &in.Suite, &in.Model, &created, &note)
		in.CreatedAt, in.Note = fromNanos(created), string(note)
		return in, err
	})
	if err != nil {
		return nil, fmt.Errorf("list baselines: %w", err)
	}
	return out, nil
}

// SaveDrift stores d, replacing a report with the same id.
func (s *Store) SaveDrift(ctx context.Context, d *promptcanary.DriftReport) error {
	if err := store.CheckID("report", d.ReportID); err != nil {
		return fmt.Errorf("save drift report: %w", err)
	}
	sum := store.SummarizeDrift(d)
	w := (&row{}).add(sum.ReportID).text("suite", sum.Suite).text("model", sum.Model).
		text("baseline id", sum.BaselineID).text("current run id", sum.CurrentRunID).time("generated_at", sum.GeneratedAt).
		text("severity", string(sum.Severity)).add(sum.HasDrift, sum.Regressions).bytes(sum.Summary)
	if w.err != nil {
		return fmt.Errorf("save drift report %q: %w", d.ReportID, w.err)
	}
	body, err := store.MarshalDriftBody(d)
	if err != nil {
		return fmt.Errorf("save drift report %q: %w", d.ReportID, err)
	}
	w.add(body)
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO drift_reports
			(report_id, suite, model, baseline_id, current_run_id, generated_at, severity, has_drift, regressions, summary, body)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (report_id) DO UPDATE SET
				suite = excluded.suite, model = excluded.model, baseline_id = excluded.baseline_id,
				current_run_id = excluded.current_run_id, generated_at = excluded.generated_at,
				severity = excluded.severity, has_drift = excluded.has_drift,
				regressions = excluded.regressions, summary = excluded.summary, body = excluded.body`, w.args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("save drift report %q: %w", d.ReportID, err)
	}
	return nil
}

// Drift loads the drift report id names.
func (s *Store) Drift(ctx context.Context, id string) (*promptcanary.DriftReport, error) {
	full, body, err := s.loadBody(ctx, "drift report", "drift_reports", "report_id", id)
	if err != nil {
		return nil, err
	}
	d, err := store.UnmarshalDrift(body)
	if err != nil {
		return nil, fmt.Errorf("load drift report %q: %w", full, err)
	}
	return d, nil
}

// Drifts lists the drift reports of suite and model, newest first.
func (s *Store) Drifts(ctx context.Context, suite, model string, n int) ([]store.DriftSummary, error) {
	if !storable(suite, model) {
		return nil, nil
	}
	var w where
	if suite != "" {
		w.add("suite = ?", suite)
	}
	if model != "" {
		w.add("model = ?", model)
	}
	q := `SELECT report_id, suite, model, baseline_id, current_run_id, generated_at,
			severity, has_drift, regressions, summary
		FROM drift_reports` + w.String() + ` ORDER BY generated_at DESC NULLS LAST, report_id DESC`
	q += ` LIMIT ` + w.limit(n)
	rows, err := s.pool.Query(ctx, q, w.args...)
	if err != nil {
		return nil, fmt.Errorf("list drift reports: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.DriftSummary, error) {
		var (
			d         store.DriftSummary
			generated *int64
			severity  string
			summary   []byte
		)
		err := row.Scan(&d.ReportID, &d.Suite, &d.Model, &d.BaselineID, &d.CurrentRunID, &generated,
			&severity, &d.HasDrift, &d.Regressions, &summary)
		d.GeneratedAt, d.Severity, d.Summary = fromNanos(generated), promptcanary.Severity(severity), string(summary)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("list drift reports: %w", err)
	}
	return out, nil
}

// probeScoresQuery returns the query of ProbeScores and its arguments.
func probeScoresQuery(suite, model string, n int) (string, []any) {
	var w where
	if suite != "" {
		w.add("suite = ?", suite)
	}
	if model != "" {
		w.add("model = ?", model)
	}
	q := `WITH sel AS (
			SELECT run_id, started_at FROM runs` + w.String() + ` ORDER BY started_at DESC NULLS LAST, run_id DESC`
	q += ` LIMIT ` + w.limit(n) + `
		)
		SELECT sel.run_id, sel.started_at, p.probe_id, p.mean, p.pass_rate, p.n
		FROM sel JOIN run_probes p ON p.run_id = sel.run_id
		ORDER BY sel.started_at DESC NULLS LAST, sel.run_id DESC, p.probe_id`
	return q, w.args
}

// ProbeScores returns the per-probe aggregates of the newest n runs of
// suite and model.
func (s *Store) ProbeScores(ctx context.Context, suite, model string, n int) ([]store.ProbeScore, error) {
	if !storable(suite, model) {
		return nil, nil
	}
	q, args := probeScoresQuery(suite, model, n)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("probe scores: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.ProbeScore, error) {
		var (
			p       store.ProbeScore
			started *int64
			mean    *float64
		)
		err := row.Scan(&p.RunID, &started, &p.ProbeID, &mean, &p.PassRate, &p.N)
		p.StartedAt, p.Mean = fromNanos(started), orNaN(mean)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("probe scores: %w", err)
	}
	return out, nil
}

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
	rows, err := s.pool.Query(ctx, `SELECT run_id, snapshot_id, created_at, note, dir FROM pending_baselines
		ORDER BY created_at NULLS FIRST, run_id`)
	if err != nil {
		return nil, fmt.Errorf("list pending baselines: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.PendingBaseline, error) {
		var (
			p         store.PendingBaseline
			created   *int64
			note, dir []byte
		)
		err := row.Scan(&p.RunID, &p.SnapshotID, &created, &note, &dir)
		p.CreatedAt, p.Note, p.Dir = fromNanos(created), string(note), string(dir)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("list pending baselines: %w", err)
	}
	return out, nil
}

// ClearPending removes the pending mark of runID.
func (s *Store) ClearPending(ctx context.Context, runID string) error {
	if !storable(runID) {
		return nil // no run has that id
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM pending_baselines WHERE run_id = $1`, runID)
		return err
	})
	if err != nil {
		return fmt.Errorf("clear pending baseline of run %q: %w", runID, err)
	}
	return nil
}
