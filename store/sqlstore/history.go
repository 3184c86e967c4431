package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var (
	_ store.Journal      = (*DB)(nil)
	_ store.LatestFinder = (*DB)(nil)
)

// runColumns are the columns of a run's row, in the order of runArgs.
const runColumns = `run_id, suite, model, started_at, finished_at, samples, results, passed, errors, score, pass_rate, interrupted, body`

// upsertRun writes a run's row, replacing a stored one.
var upsertRun = upsert("runs", runColumns)

// probesPerInsert bounds the rows of one insert of per-probe aggregates,
// under every database's limit of arguments.
const probesPerInsert = 500

// runRow is a run ready to be written: the arguments of its row, its
// answers kept apart and its per-probe aggregates.
type runRow struct {
	id      string
	row     *args
	answers []store.Answer
	probes  []any
}

// newRunRow checks that r can be stored and encodes it.
func (s *DB) newRunRow(r *promptcanary.Run) (*runRow, error) {
	sum := store.Summarize(r)
	a := s.args(sum.RunID).text("suite", sum.Suite).text("model", sum.Model).
		time("started_at", sum.StartedAt).time("finished_at", sum.FinishedAt)
	if a.err != nil {
		return nil, a.err
	}
	rr := &runRow{id: r.RunID, row: a}
	for _, p := range store.ProbeScoresOf(r) {
		if s.d.CheckText != nil {
			if err := s.d.CheckText("probe id", p.ProbeID); err != nil {
				return nil, err
			}
		}
		rr.probes = append(rr.probes, r.RunID, p.ProbeID, finite(p.Mean), p.PassRate, p.N)
	}
	body, as, err := store.MarshalRunApart(r, store.LayoutAuto)
	if err != nil {
		return nil, err
	}
	rr.answers = as
	a.add(sum.Samples, sum.Results, sum.Passed, sum.Errors, finite(sum.Score), sum.StoredPassRate(), sum.Interrupted, body)
	return rr, nil
}

// write stores rr in tx, replacing a stored run with its id; with only
// new, it stores nothing when a run with its id is stored.
func (s *DB) write(ctx context.Context, tx *sql.Tx, rr *runRow, onlyNew bool) error {
	q := upsertRun
	if onlyNew {
		q = insert("runs", runColumns) + ` ON CONFLICT (run_id) DO NOTHING`
	}
	n, err := s.exec(ctx, tx, q, rr.row.list...)
	if err != nil || n == 0 {
		return err
	}
	if !onlyNew {
		if _, err := s.exec(ctx, tx, `DELETE FROM run_probes WHERE run_id = ?`, rr.id); err != nil {
			return err
		}
	}
	const cols = 5
	for rest := rr.probes; len(rest) > 0; {
		k := min(len(rest)/cols, probesPerInsert)
		values := strings.Repeat(placeholders(cols)+", ", k-1) + placeholders(cols)
		if _, err := s.exec(ctx, tx, `INSERT INTO run_probes (run_id, probe_id, mean, pass_rate, n) VALUES `+values,
			rest[:k*cols]...); err != nil {
			return err
		}
		rest = rest[k*cols:]
	}
	return s.saveAnswers(ctx, tx, store.RunOwner(rr.id), rr.answers)
}

// SaveRun stores r in one transaction, replacing a run with the same id.
func (s *DB) SaveRun(ctx context.Context, r *promptcanary.Run) error { return s.saveRun(ctx, r, nil) }

// SaveRunPending stores r and the pending mark p in one transaction.
func (s *DB) SaveRunPending(ctx context.Context, r *promptcanary.Run, p store.PendingBaseline) error {
	return s.saveRun(ctx, r, &p)
}

// saveRun stores r, and the pending mark p when not nil, in one
// transaction.
func (s *DB) saveRun(ctx context.Context, r *promptcanary.Run, p *store.PendingBaseline) error {
	if err := store.CheckID("run", r.RunID); err != nil {
		return fmt.Errorf("save run: %w", err)
	}
	if p != nil {
		if err := p.Check(); err != nil {
			return fmt.Errorf("save run %q: %w", r.RunID, err)
		}
		if p.RunID != r.RunID {
			return fmt.Errorf("save run %q: the pending baseline is of run %q", r.RunID, p.RunID)
		}
	}
	rr, err := s.newRunRow(r)
	if err != nil {
		return fmt.Errorf("save run %q: %w", r.RunID, err)
	}
	var pending *args
	if p != nil {
		pending = s.args(p.RunID, p.SnapshotID).time("created_at", p.CreatedAt).bytes(p.Note).bytes(p.Dir)
		if pending.err != nil {
			return fmt.Errorf("save run %q: pending baseline: %w", r.RunID, pending.err)
		}
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.write(ctx, tx, rr, false); err != nil {
			return err
		}
		if pending != nil {
			if _, err := s.exec(ctx, tx, upsert("pending_baselines", "run_id, snapshot_id, created_at, note, dir"), pending.list...); err != nil {
				return err
			}
		}
		if s.hooks.BeforeCommit != nil {
			s.hooks.BeforeCommit(ctx)
		}
		return nil
	})
	return wrap(err, "save run %q", r.RunID)
}

// lookup reads, with read, the record of table whose id (column col) id
// names, and returns that full id. read fails with sql.ErrNoRows when no
// record has the id it is given.
func (s *DB) lookup(ctx context.Context, kind, table, col, id string, read func(id string) error) (string, error) {
	if store.CheckID(kind, id) == nil {
		// Most lookups are by the full id: one query.
		err := read(id)
		if !errors.Is(err, sql.ErrNoRows) {
			return id, wrap(err, "load %s %q", kind, id)
		}
	}
	full, err := s.resolve(ctx, kind, table, col, id)
	if err != nil {
		return "", err
	}
	if err := read(full); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			err = store.ErrNotFound // removed meanwhile
		}
		return "", fmt.Errorf("load %s %q: %w", kind, full, err)
	}
	return full, nil
}

// load reads the body of the record of table whose id (column col) id
// names, only the one with that id when exact (an export's, failing with
// sql.ErrNoRows when it is gone), and decodes it.
func load[T any](ctx context.Context, s *DB, kind, table, col, id string, exact bool, decode func(ctx context.Context, id string, body []byte) (*T, error)) (*T, error) {
	var body []byte
	read := func(id string) error {
		return s.row(ctx, s.db, `SELECT body FROM `+table+` WHERE `+col+` = ?`, id).Scan(&body)
	}
	full, err := id, error(nil)
	if exact {
		if err = read(id); err != nil && !errors.Is(err, sql.ErrNoRows) {
			err = fmt.Errorf("load %s %q: %w", kind, id, err)
		}
	} else {
		full, err = s.lookup(ctx, kind, table, col, id, read)
	}
	if err != nil {
		return nil, err
	}
	v, err := decode(ctx, full, body)
	if err != nil {
		return nil, fmt.Errorf("load %s %q: %w", kind, full, err)
	}
	return v, nil
}

// Run loads the run id names.
func (s *DB) Run(ctx context.Context, id string) (*promptcanary.Run, error) {
	return load(ctx, s, "run", "runs", "run_id", id, false, s.decodeRun)
}

// decodeDrift decodes a stored drift report.
func decodeDrift(_ context.Context, _ string, body []byte) (*promptcanary.DriftReport, error) {
	return store.UnmarshalDrift(body)
}

// runsQuery returns the query of Runs, as the database takes it, and its
// arguments.
func (s *DB) runsQuery(f store.RunFilter) (string, []any) {
	w := matching("r.suite", f.Suite, "r.model", f.Model)
	if !f.Since.IsZero() {
		w.add("r.started_at >= ?", s.d.Bound(f.Since))
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
		FROM runs r` + w.String() + ` ORDER BY r.started_at DESC NULLS LAST, r.run_id DESC LIMIT ?`
	return s.bind(q), append(w.args, s.limit(f.Limit))
}

// Runs lists the runs f selects, newest first.
func (s *DB) Runs(ctx context.Context, f store.RunFilter) ([]store.RunSummary, error) {
	q, qargs := s.runsQuery(f)
	return list(ctx, s, "runs", q, qargs, func(sc scanner) (store.RunSummary, error) {
		var sum store.RunSummary
		err := sc.Scan(&sum.RunID, &sum.Suite, &sum.Model, At(&sum.StartedAt), At(&sum.FinishedAt), &sum.Samples, &sum.Results,
			&sum.Passed, &sum.Errors, num(&sum.Score), &sum.PassRate, &sum.Interrupted, &sum.IsBaseline, &sum.BaselinePending, &sum.Verdict)
		sum.Settle()
		return sum, err
	}, f.Suite, f.Model)
}

// SaveBaseline stores b, and b's run unless one with its id is stored, in
// one transaction.
func (s *DB) SaveBaseline(ctx context.Context, b *promptcanary.Baseline) (store.BaselineInfo, error) {
	if err := store.CheckBaseline(b); err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline: %w", err)
	}
	a := s.args(b.SnapshotID, b.RunResult.RunID).text("suite", b.SuiteName).text("model", b.Provider.ModelID).
		time("created_at", b.CreatedAt).bytes(b.Note)
	if a.err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline %q: %w", b.SnapshotID, a.err)
	}
	body, as, err := store.MarshalBaselineApart(b, store.LayoutAuto)
	if err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline %q: %w", b.SnapshotID, err)
	}
	a.add(body)
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var stored bool
		if err := s.row(ctx, tx, `SELECT EXISTS (SELECT 1 FROM runs WHERE run_id = ?)`, b.RunResult.RunID).Scan(&stored); err != nil {
			return err
		}
		if !stored {
			rr, err := s.newRunRow(&b.RunResult)
			if err != nil {
				return fmt.Errorf("run %q: %w", b.RunResult.RunID, err)
			}
			if err := s.write(ctx, tx, rr, true); err != nil {
				return err
			}
		}
		if _, err := s.exec(ctx, tx, upsert("baselines", "snapshot_id, run_id, suite, model, created_at, note, body"), a.list...); err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `DELETE FROM pending_baselines WHERE run_id = ? AND snapshot_id = ?`,
			b.RunResult.RunID, b.SnapshotID); err != nil {
			return err
		}
		return s.saveAnswers(ctx, tx, store.BaselineOwner(b.SnapshotID), as)
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
func (s *DB) Promote(ctx context.Context, runID, note string) (*promptcanary.Baseline, error) {
	r, err := s.Run(store.WithSpilledAnswers(ctx), runID)
	if err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	b := store.NewBaseline(r, note, s.hooks.Now())
	if _, err := s.SaveBaseline(ctx, b); err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	if err := store.WholeAnswers(ctx, &b.RunResult); err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	return b, nil
}

// Baseline loads the baseline whose snapshot id id names.
func (s *DB) Baseline(ctx context.Context, id string) (*promptcanary.Baseline, error) {
	return load(ctx, s, "baseline", "baselines", "snapshot_id", id, false, s.decodeBaseline)
}

// LatestBaseline loads the newest readable baseline of suite and model,
// dropping the warnings of FindLatestBaseline.
func (s *DB) LatestBaseline(ctx context.Context, suite, model string) (*promptcanary.Baseline, error) {
	l, err := s.FindLatestBaseline(ctx, suite, model)
	if err != nil {
		return nil, err
	}
	return l.Baseline, nil
}

// FindLatestBaseline loads the newest baseline of suite and model whose
// stored body decodes, naming the newer ones that did not. Bodies are read
// one at a time, each decoded from the driver's own copy, so that the
// usual lookup reads one: a statistical baseline's body is megabytes.
func (s *DB) FindLatestBaseline(ctx context.Context, suite, model string) (*store.BaselineLookup, error) {
	notFound := fmt.Errorf("latest baseline for suite %q and model %q: %w", suite, model, store.ErrNotFound)
	if !s.storable(suite, model) {
		return nil, notFound
	}
	w := matching("suite", suite, "model", model)
	q := `SELECT snapshot_id, created_at, body FROM baselines` + w.String() +
		` ORDER BY created_at DESC NULLS LAST, snapshot_id DESC LIMIT 1 OFFSET ?`
	l := &store.BaselineLookup{}
	for skip := 0; ; skip++ {
		found, err := s.tryBaseline(ctx, q, append(w.args, skip), l)
		if err != nil {
			return nil, fmt.Errorf("latest baseline for suite %q and model %q: %w", suite, model, err)
		}
		if l.Baseline != nil {
			return l, nil
		}
		if !found {
			break
		}
	}
	if len(l.Skipped) > 0 {
		return l, fmt.Errorf("%w: %d unreadable stored baseline(s)", notFound, len(l.Skipped))
	}
	return nil, notFound
}

// tryBaseline reads the one baseline q selects into l, or the reason it
// does not decode into l.Skipped; found is false when q selects none.
func (s *DB) tryBaseline(ctx context.Context, q string, qargs []any, l *store.BaselineLookup) (found bool, err error) {
	rows, err := s.db.QueryContext(ctx, s.bind(q), qargs...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return false, rows.Err()
	}
	var (
		id      string
		created any
		body    []byte
	)
	if err := rows.Scan(&id, &created, &body); err != nil {
		return false, err
	}
	// Decoding may read the baseline's kept-apart answers on a connection
	// of its own: give this one back first, or as many lookups at once as
	// the pool has connections would each hold one and wait for another.
	if err := rows.Close(); err != nil {
		return false, err
	}
	b, err := s.decodeBaseline(ctx, id, body)
	if err != nil {
		var at time.Time // the zero time when it does not parse
		_ = At(&at).Scan(created)
		l.Skipped = append(l.Skipped, store.SkippedBaseline{SnapshotID: id, CreatedAt: at,
			Err: fmt.Errorf("decode stored baseline: %w", err)})
		return true, nil
	}
	l.Baseline = b
	return true, nil
}

// Baselines lists the baselines of suite ("" for all), newest first.
func (s *DB) Baselines(ctx context.Context, suite string) ([]store.BaselineInfo, error) {
	w := matching("suite", suite)
	return list(ctx, s, "baselines", `SELECT snapshot_id, run_id, suite, model, created_at, note FROM baselines`+
		w.String()+` ORDER BY created_at DESC NULLS LAST, snapshot_id DESC`, w.args, func(sc scanner) (store.BaselineInfo, error) {
		var in store.BaselineInfo
		err := sc.Scan(&in.SnapshotID, &in.RunID, &in.Suite, &in.Model, At(&in.CreatedAt), &in.Note)
		return in, err
	}, suite)
}

// SaveDrift stores d, replacing a report with the same id.
func (s *DB) SaveDrift(ctx context.Context, d *promptcanary.DriftReport) error {
	if err := store.CheckID("report", d.ReportID); err != nil {
		return fmt.Errorf("save drift report: %w", err)
	}
	sum := store.SummarizeDrift(d)
	a := s.args(sum.ReportID).text("suite", sum.Suite).text("model", sum.Model).
		text("baseline id", sum.BaselineID).text("current run id", sum.CurrentRunID).time("generated_at", sum.GeneratedAt).
		text("severity", string(sum.Severity)).add(sum.HasDrift, sum.Regressions).bytes(sum.Summary)
	if a.err != nil {
		return fmt.Errorf("save drift report %q: %w", d.ReportID, a.err)
	}
	body, err := store.MarshalDriftBody(d)
	if err != nil {
		return fmt.Errorf("save drift report %q: %w", d.ReportID, err)
	}
	a.add(body)
	err = s.execTx(ctx, upsert("drift_reports", `report_id, suite, model, baseline_id, current_run_id, generated_at,
		severity, has_drift, regressions, summary, body`), a)
	return wrap(err, "save drift report %q", d.ReportID)
}

// Drift loads the drift report id names.
func (s *DB) Drift(ctx context.Context, id string) (*promptcanary.DriftReport, error) {
	return load(ctx, s, "drift report", "drift_reports", "report_id", id, false, decodeDrift)
}

// Drifts lists the drift reports of suite and model, newest first.
func (s *DB) Drifts(ctx context.Context, suite, model string, n int) ([]store.DriftSummary, error) {
	w := matching("suite", suite, "model", model)
	q := `SELECT report_id, suite, model, baseline_id, current_run_id, generated_at,
			severity, has_drift, regressions, summary
		FROM drift_reports` + w.String() + ` ORDER BY generated_at DESC NULLS LAST, report_id DESC LIMIT ?`
	return list(ctx, s, "drift reports", q, append(w.args, s.limit(n)), func(sc scanner) (store.DriftSummary, error) {
		var d store.DriftSummary
		err := sc.Scan(&d.ReportID, &d.Suite, &d.Model, &d.BaselineID, &d.CurrentRunID, At(&d.GeneratedAt),
			&d.Severity, &d.HasDrift, &d.Regressions, &d.Summary)
		return d, err
	}, suite, model)
}

// probeScoresQuery returns the query of ProbeScores, as the database
// takes it, and its arguments.
func (s *DB) probeScoresQuery(suite, model string, n int) (string, []any) {
	w := matching("suite", suite, "model", model)
	q := `WITH sel AS (
			SELECT run_id, started_at FROM runs` + w.String() + ` ORDER BY started_at DESC NULLS LAST, run_id DESC LIMIT ?
		)
		SELECT sel.run_id, sel.started_at, p.probe_id, p.mean, p.pass_rate, p.n
		FROM sel JOIN run_probes p ON p.run_id = sel.run_id
		ORDER BY sel.started_at DESC NULLS LAST, sel.run_id DESC, p.probe_id`
	return s.bind(q), append(w.args, s.limit(n))
}

// ProbeScores returns the per-probe aggregates of the newest n runs of
// suite and model.
func (s *DB) ProbeScores(ctx context.Context, suite, model string, n int) ([]store.ProbeScore, error) {
	if !s.storable(suite, model) {
		return nil, nil
	}
	q, qargs := s.probeScoresQuery(suite, model, n)
	out, err := collect(ctx, s, s.db, q, qargs, func(sc scanner) (store.ProbeScore, error) {
		var p store.ProbeScore
		err := sc.Scan(&p.RunID, At(&p.StartedAt), &p.ProbeID, num(&p.Mean), &p.PassRate, &p.N)
		return p, err
	})
	return out, wrap(err, "probe scores")
}

// PendingBaselines lists the pending marks, oldest first.
func (s *DB) PendingBaselines(ctx context.Context) ([]store.PendingBaseline, error) {
	return list(ctx, s, "pending baselines", `SELECT run_id, snapshot_id, created_at, note, dir FROM pending_baselines
		ORDER BY created_at NULLS FIRST, run_id`, nil, func(sc scanner) (store.PendingBaseline, error) {
		var p store.PendingBaseline
		err := sc.Scan(&p.RunID, &p.SnapshotID, At(&p.CreatedAt), &p.Note, &p.Dir)
		return p, err
	})
}

// ClearPending removes the pending mark of runID.
func (s *DB) ClearPending(ctx context.Context, runID string) error {
	if !s.storable(runID) {
		return nil // no run has that id
	}
	err := s.execTx(ctx, `DELETE FROM pending_baselines WHERE run_id = ?`, s.args(runID))
	return wrap(err, "clear pending baseline of run %q", runID)
}
