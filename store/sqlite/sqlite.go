// Package sqlite is the default store.Store: one SQLite database file
// (modernc.org/sqlite, no cgo) in WAL mode, safe for several processes
// writing at once.
//
// Every run is saved in one immediate transaction, so a crashed or
// interrupted save leaves nothing behind. A write that finds the database
// locked by another process retries with backoff for up to WriteTimeout
// before it fails. Runs and baselines are kept as JSON in the layout of
// store.LayoutAuto: compact for several samples per prompt. The schema is created and
// upgraded by the numbered migrations embedded from migrations/, recorded
// in the schema_migrations table.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlstore"
)

// BusyTimeout is how long one statement waits for another writer to
// finish before SQLite reports the database busy.
const BusyTimeout = 10 * time.Second

// WriteTimeout is how long a write retries, with backoff, while the
// database stays busy or locked: long enough that a finished run is not
// lost to another process's transaction, bounded so that a database
// locked for good fails with a clear error.
const WriteTimeout = 2 * time.Minute

// The connection pool: SQLite serves one writer at a time and readers in
// parallel up to the cores, so a few connections carry any load; more
// only cost descriptors (the database, its WAL and shared memory each)
// and page caches. Requests beyond MaxConns wait for a free connection.
const (
	MaxConns     = 8
	maxIdleConns = 4
	connIdleTime = time.Minute
)

// Options tune Open. Zero fields take the defaults.
type Options struct {
	// BusyTimeout is SQLite's busy timeout (default BusyTimeout).
	BusyTimeout time.Duration
	// WriteTimeout bounds the retries of a busy write (default
	// WriteTimeout).
	WriteTimeout time.Duration
	// ReadOnly opens the database for reading only (PRAGMA query_only):
	// every write fails as it does on a read-only file, and the schema
	// must be current since no migration can be applied.
	ReadOnly bool
}

// timeLayout stores times as fixed-width UTC text that sorts in time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// Store is a SQLite store. It is safe for concurrent use.
type Store struct {
	// DB holds the queries shared with the other SQL stores.
	*sqlstore.DB
	db   *sql.DB
	path string
	// now is the clock of Promote.
	now func() time.Time
	// beforeCommit, when set by tests, runs inside SaveRun's transaction
	// once every row is written.
	beforeCommit func(ctx context.Context)
	// writeTimeout bounds the retries of a busy write.
	writeTimeout time.Duration
}

var _ store.Store = (*Store)(nil)

// Open opens the database at path, creating it and its parent directories
// if needed, and applies the pending schema migrations.
func Open(path string) (*Store, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with options.
func OpenWith(path string, opts Options) (*Store, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = BusyTimeout
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = WriteTimeout
	}
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("open store %q: the path must not contain '?'", path)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("open store %q: %w", path, err)
		}
	}
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", path, err)
	}
	dsn := path + fmt.Sprintf("?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate",
		opts.BusyTimeout.Milliseconds())
	if opts.ReadOnly {
		dsn = strings.Replace(dsn, "_txlock=immediate", "_txlock=deferred&_pragma=query_only(1)", 1)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", path, err)
	}
	db.SetMaxOpenConns(MaxConns)
	db.SetMaxIdleConns(maxIdleConns)
	db.SetConnMaxIdleTime(connIdleTime)
	s := newStore(db, path, opts.WriteTimeout)
	apply := func() error { return migrate(context.Background(), db, ms) }
	if opts.ReadOnly {
		apply = func() error { return current(context.Background(), db, ms) }
	}
	if err := s.retry(context.Background(), apply); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %q: %w", path, err)
	}
	return s, nil
}

// newStore returns the Store on db, the database at path.
func newStore(db *sql.DB, path string, writeTimeout time.Duration) *Store {
	s := &Store{db: db, path: path, now: time.Now, writeTimeout: writeTimeout}
	s.DB = sqlstore.New(db, &dialect, s.inTx)
	return s
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// SchemaVersion returns the newest migration applied to the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store %q: %w", s.path, err)
	}
	return nil
}

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t, nil
}

// finite maps NaN and infinities to NULL.
func finite(f float64) sql.NullFloat64 {
	return sql.NullFloat64{Float64: f, Valid: !math.IsNaN(f) && !math.IsInf(f, 0)}
}

// orNaN maps NULL back to NaN.
func orNaN(f sql.NullFloat64) float64 {
	if !f.Valid {
		return math.NaN()
	}
	return f.Float64
}

// where joins the conditions that are set.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, arg any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, arg)
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// limit returns a LIMIT value: n when positive, else no limit.
func limit(n int) int {
	if n > 0 {
		return n
	}
	return -1
}

// resolve finds the id in column col of table that id names: itself, or
// the only id starting with it.
func (s *Store) resolve(ctx context.Context, kind, table, col, id string) (string, error) {
	// Ids starting with id sort right after it: read the first few.
	rows, err := s.db.QueryContext(ctx, `SELECT `+col+` FROM `+table+` WHERE `+col+` >= ? ORDER BY `+col+` LIMIT 6`, id)
	if err != nil {
		return "", fmt.Errorf("find %s %q: %w", kind, id, err)
	}
	defer rows.Close()
	var matches []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return "", fmt.Errorf("find %s %q: %w", kind, id, err)
		}
		if strings.HasPrefix(m, id) {
			matches = append(matches, m)
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("find %s %q: %w", kind, id, err)
	}
	return store.Resolve(kind, id, matches)
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
	body, as, err := store.MarshalRunApart(r, store.LayoutAuto)
	if err != nil {
		return fmt.Errorf("save run %q: %w", r.RunID, err)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := saveRun(ctx, tx, r, body, as); err != nil {
			return err
		}
		if p != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO pending_baselines (run_id, snapshot_id, created_at, note, dir)
				VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (run_id) DO UPDATE SET snapshot_id = excluded.snapshot_id, created_at = excluded.created_at,
					note = excluded.note, dir = excluded.dir`,
				p.RunID, p.SnapshotID, formatTime(p.CreatedAt), p.Note, p.Dir); err != nil {
				return err
			}
		}
		if s.beforeCommit != nil {
			s.beforeCommit(ctx)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save run %q: %w", r.RunID, err)
	}
	return nil
}

// inTx runs fn in an immediate transaction and commits it when fn
// succeeds, retrying the whole transaction while the database is busy.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.retry(ctx, func() error { return s.tryTx(ctx, fn) })
}

// retry calls fn until it succeeds, fails otherwise than with a busy or
// locked database, ctx ends, or s.writeTimeout has passed since the first
// call, with exponential backoff from 10 ms to 1 s between calls.
func (s *Store) retry(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(s.writeTimeout)
	delay := 10 * time.Millisecond
	for {
		err := fn()
		if err == nil || !isBusy(err) {
			return err
		}
		if time.Now().Add(delay).After(deadline) {
			return fmt.Errorf("database %q stayed locked by another process for %v: %w", s.path, s.writeTimeout, err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (while waiting for the locked database %q)", ctx.Err(), s.path)
		case <-t.C:
		}
		delay = min(2*delay, time.Second)
	}
}

// isBusy reports whether err is SQLite's "database is busy" or "locked".
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// tryTx is one attempt of inTx.
func (s *Store) tryTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return sqlstore.InTx(ctx, s.db, fn)
}

// saveRun writes the rows of r, whose JSON is body and answers kept apart
// as, in tx.
func saveRun(ctx context.Context, tx *sql.Tx, r *promptcanary.Run, body []byte, as []store.Answer) error {
	sum := store.Summarize(r)
	_, err := tx.ExecContext(ctx, `INSERT INTO runs
		(run_id, suite, model, started_at, finished_at, samples, results, passed, errors, score, pass_rate, interrupted, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id) DO UPDATE SET
			suite = excluded.suite, model = excluded.model, started_at = excluded.started_at,
			finished_at = excluded.finished_at, samples = excluded.samples, results = excluded.results,
			passed = excluded.passed, errors = excluded.errors, score = excluded.score,
			pass_rate = excluded.pass_rate, interrupted = excluded.interrupted, body = excluded.body`,
		sum.RunID, sum.Suite, sum.Model, formatTime(sum.StartedAt), formatTime(sum.FinishedAt), sum.Samples,
		sum.Results, sum.Passed, sum.Errors, finite(sum.Score), sum.StoredPassRate(), sum.Interrupted, body)
	if err != nil {
		return err
	}
	if err := saveAnswers(ctx, tx, store.RunOwner(r.RunID), as); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_probes WHERE run_id = ?`, r.RunID); err != nil {
		return err
	}
	scores := store.ProbeScoresOf(r)
	if len(scores) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO run_probes (run_id, probe_id, mean, pass_rate, n) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, p := range scores {
		if _, err := stmt.ExecContext(ctx, r.RunID, p.ProbeID, finite(p.Mean), p.PassRate, p.N); err != nil {
			return err
		}
	}
	return nil
}

// Run loads the run id names.
func (s *Store) Run(ctx context.Context, id string) (*promptcanary.Run, error) {
	full, err := s.resolve(ctx, "run", "runs", "run_id", id)
	if err != nil {
		return nil, err
	}
	var body []byte
	if err := s.db.QueryRowContext(ctx, `SELECT body FROM runs WHERE run_id = ?`, full).Scan(&body); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			err = store.ErrNotFound // removed meanwhile
		}
		return nil, fmt.Errorf("load run %q: %w", full, err)
	}
	r, err := s.decodeRun(ctx, full, body)
	if err != nil {
		return nil, fmt.Errorf("load run %q: %w", full, err)
	}
	return r, nil
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
		w.add("r.started_at >= ?", formatTime(f.Since))
	}
	if f.BaselinesOnly {
		w.conds = append(w.conds, "EXISTS (SELECT 1 FROM baselines b WHERE b.run_id = r.run_id)")
	}
	q := `SELECT r.run_id, r.suite, r.model, r.started_at, r.finished_at, r.samples, r.results, r.passed,
			r.errors, r.score, r.pass_rate, r.interrupted,
			EXISTS (SELECT 1 FROM baselines b WHERE b.run_id = r.run_id),
			EXISTS (SELECT 1 FROM pending_baselines p WHERE p.run_id = r.run_id),
			COALESCE((SELECT d.severity FROM drift_reports d WHERE d.current_run_id = r.run_id
				ORDER BY d.generated_at DESC, d.report_id DESC LIMIT 1), '')
		FROM runs r` + w.String() + ` ORDER BY r.started_at DESC, r.run_id DESC LIMIT ?`
	return q, append(w.args, limit(f.Limit))
}

// Runs lists the runs f selects, newest first.
func (s *Store) Runs(ctx context.Context, f store.RunFilter) ([]store.RunSummary, error) {
	q, args := runsQuery(f)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []store.RunSummary
	for rows.Next() {
		var (
			sum               store.RunSummary
			started, finished string
			score             sql.NullFloat64
		)
		if err := rows.Scan(&sum.RunID, &sum.Suite, &sum.Model, &started, &finished, &sum.Samples, &sum.Results,
			&sum.Passed, &sum.Errors, &score, &sum.PassRate, &sum.Interrupted, &sum.IsBaseline, &sum.BaselinePending, &sum.Verdict); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		if sum.StartedAt, err = parseTime(started); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		if sum.FinishedAt, err = parseTime(finished); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		sum.Score = orNaN(score)
		sum.Settle()
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
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
	body, as, err := store.MarshalBaselineApart(b, store.LayoutAuto)
	if err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline %q: %w", b.SnapshotID, err)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs WHERE run_id = ?`, b.RunResult.RunID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			runBody, runAs, err := store.MarshalRunApart(&b.RunResult, store.LayoutAuto)
			if err != nil {
				return err
			}
			if err := saveRun(ctx, tx, &b.RunResult, runBody, runAs); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO baselines (snapshot_id, run_id, suite, model, created_at, note, body)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (snapshot_id) DO UPDATE SET
				run_id = excluded.run_id, suite = excluded.suite, model = excluded.model,
				created_at = excluded.created_at, note = excluded.note, body = excluded.body`,
			b.SnapshotID, b.RunResult.RunID, b.SuiteName, b.Provider.ModelID, formatTime(b.CreatedAt), b.Note, body)
		if err != nil {
			return err
		}
		if err := saveAnswers(ctx, tx, store.BaselineOwner(b.SnapshotID), as); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM pending_baselines WHERE run_id = ? AND snapshot_id = ?`, b.RunResult.RunID, b.SnapshotID)
		return err
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
	full, err := s.resolve(ctx, "baseline", "baselines", "snapshot_id", id)
	if err != nil {
		return nil, err
	}
	return s.loadBaseline(ctx, full)
}

func (s *Store) loadBaseline(ctx context.Context, id string) (*promptcanary.Baseline, error) {
	var body []byte
	if err := s.db.QueryRowContext(ctx, `SELECT body FROM baselines WHERE snapshot_id = ?`, id).Scan(&body); err != nil {
		return nil, err
	}
	b, err := s.decodeBaseline(ctx, id, body)
	if err != nil {
		return nil, fmt.Errorf("load baseline: %w", err)
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
// stored body decodes, naming the newer ones that did not.
func (s *Store) FindLatestBaseline(ctx context.Context, suite, model string) (*store.BaselineLookup, error) {
	var w where
	if suite != "" {
		w.add("suite = ?", suite)
	}
	if model != "" {
		w.add("model = ?", model)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT snapshot_id, created_at, body FROM baselines`+w.String()+
		` ORDER BY created_at DESC, snapshot_id DESC`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("latest baseline for suite %q and model %q: %w", suite, model, err)
	}
	defer rows.Close()
	l := &store.BaselineLookup{}
	for rows.Next() {
		var (
			id, created string
			// The driver's own copy of the body, decoded before the next
			// row: a statistical baseline's body is megabytes, and Scan
			// into a []byte would copy it again.
			body sql.RawBytes
		)
		if err := rows.Scan(&id, &created, &body); err != nil {
			return nil, fmt.Errorf("latest baseline for suite %q and model %q: %w", suite, model, err)
		}
		b, err := s.decodeBaseline(ctx, id, body)
		if err != nil {
			t, _ := parseTime(created)
			l.Skipped = append(l.Skipped, store.SkippedBaseline{SnapshotID: id, CreatedAt: t, Err: fmt.Errorf("decode stored baseline: %w", err)})
			continue
		}
		l.Baseline = b
		return l, nil
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("latest baseline for suite %q and model %q: %w", suite, model, err)
	}
	err = fmt.Errorf("latest baseline for suite %q and model %q: %w", suite, model, store.ErrNotFound)
	if len(l.Skipped) > 0 {
		return l, fmt.Errorf("%w: %d unreadable stored baseline(s)", err, len(l.Skipped))
	}
	return nil, err
}

// Baselines lists the baselines of suite ("" for all), newest first.
func (s *Store) Baselines(ctx context.Context, suite string) ([]store.BaselineInfo, error) {
	var w where
	if suite != "" {
		w.add("suite = ?", suite)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT snapshot_id, run_id, suite, model, created_at, note FROM baselines`+
		w.String()+` ORDER BY created_at DESC, snapshot_id DESC`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("list baselines: %w", err)
	}
	defer rows.Close()
	var out []store.BaselineInfo
	for rows.Next() {
		var (
			in      store.BaselineInfo
			created string
		)
		if err := rows.Scan(&in.SnapshotID, &in.RunID, &in.Suite, &in.Model, &created, &in.Note); err != nil {
			return nil, fmt.Errorf("list baselines: %w", err)
		}
		if in.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("list baselines: %w", err)
		}
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list baselines: %w", err)
	}
	return out, nil
}

// SaveDrift stores d, replacing a report with the same id.
func (s *Store) SaveDrift(ctx context.Context, d *promptcanary.DriftReport) error {
	if err := store.CheckID("report", d.ReportID); err != nil {
		return fmt.Errorf("save drift report: %w", err)
	}
	body, err := store.MarshalDriftBody(d)
	if err != nil {
		return fmt.Errorf("save drift report %q: %w", d.ReportID, err)
	}
	sum := store.SummarizeDrift(d)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO drift_reports
			(report_id, suite, model, baseline_id, current_run_id, generated_at, severity, has_drift, regressions, summary, body)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (report_id) DO UPDATE SET
				suite = excluded.suite, model = excluded.model, baseline_id = excluded.baseline_id,
				current_run_id = excluded.current_run_id, generated_at = excluded.generated_at,
				severity = excluded.severity, has_drift = excluded.has_drift,
				regressions = excluded.regressions, summary = excluded.summary, body = excluded.body`,
			sum.ReportID, sum.Suite, sum.Model, sum.BaselineID, sum.CurrentRunID, formatTime(sum.GeneratedAt),
			string(sum.Severity), sum.HasDrift, sum.Regressions, sum.Summary, body)
		return err
	})
	if err != nil {
		return fmt.Errorf("save drift report %q: %w", d.ReportID, err)
	}
	return nil
}

// Drift loads the drift report id names.
func (s *Store) Drift(ctx context.Context, id string) (*promptcanary.DriftReport, error) {
	full, err := s.resolve(ctx, "drift report", "drift_reports", "report_id", id)
	if err != nil {
		return nil, err
	}
	var body []byte
	if err := s.db.QueryRowContext(ctx, `SELECT body FROM drift_reports WHERE report_id = ?`, full).Scan(&body); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			err = store.ErrNotFound
		}
		return nil, fmt.Errorf("load drift report %q: %w", full, err)
	}
	d, err := store.UnmarshalDrift(body)
	if err != nil {
		return nil, fmt.Errorf("load drift report %q: %w", full, err)
	}
	return d, nil
}

// Drifts lists the drift reports of suite and model, newest first.
func (s *Store) Drifts(ctx context.Context, suite, model string, n int) ([]store.DriftSummary, error) {
	var w where
	if suite != "" {
		w.add("suite = ?", suite)
	}
	if model != "" {
		w.add("model = ?", model)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT report_id, suite, model, baseline_id, current_run_id, generated_at,
			severity, has_drift, regressions, summary
		FROM drift_reports`+w.String()+` ORDER BY generated_at DESC, report_id DESC LIMIT ?`, append(w.args, limit(n))...)
	if err != nil {
		return nil, fmt.Errorf("list drift reports: %w", err)
	}
	defer rows.Close()
	var out []store.DriftSummary
	for rows.Next() {
		var (
			d         store.DriftSummary
			generated string
		)
		if err := rows.Scan(&d.ReportID, &d.Suite, &d.Model, &d.BaselineID, &d.CurrentRunID, &generated,
			&d.Severity, &d.HasDrift, &d.Regressions, &d.Summary); err != nil {
			return nil, fmt.Errorf("list drift reports: %w", err)
		}
		if d.GeneratedAt, err = parseTime(generated); err != nil {
			return nil, fmt.Errorf("list drift reports: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
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
			SELECT run_id, started_at FROM runs` + w.String() + ` ORDER BY started_at DESC, run_id DESC LIMIT ?
		)
		SELECT sel.run_id, sel.started_at, p.probe_id, p.mean, p.pass_rate, p.n
		FROM sel JOIN run_probes p ON p.run_id = sel.run_id
		ORDER BY sel.started_at DESC, sel.run_id DESC, p.probe_id`
	return q, append(w.args, limit(n))
}

// ProbeScores returns the per-probe aggregates of the newest n runs of
// suite and model.
func (s *Store) ProbeScores(ctx context.Context, suite, model string, n int) ([]store.ProbeScore, error) {
	q, args := probeScoresQuery(suite, model, n)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("probe scores: %w", err)
	}
	defer rows.Close()
	var out []store.ProbeScore
	for rows.Next() {
		var (
			p       store.ProbeScore
			started string
			mean    sql.NullFloat64
		)
		if err := rows.Scan(&p.RunID, &started, &p.ProbeID, &mean, &p.PassRate, &p.N); err != nil {
			return nil, fmt.Errorf("probe scores: %w", err)
		}
		if p.StartedAt, err = parseTime(started); err != nil {
			return nil, fmt.Errorf("probe scores: %w", err)
		}
		p.Mean = orNaN(mean)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("probe scores: %w", err)
	}
	return out, nil
}
