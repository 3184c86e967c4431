// Package sqlite is the default store.Store: one SQLite database file
// (modernc.org/sqlite, no cgo) in WAL mode, safe for several processes
// writing at once, with the queries of store/sqlstore in SQLite's dialect.
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
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

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
	// beforeCommit, when set by tests, runs inside SaveRun's transaction
	// once every row is written.
	beforeCommit func(ctx context.Context)
	// writeTimeout bounds the retries of a busy write.
	writeTimeout time.Duration
}

var (
	_ store.Store      = (*Store)(nil)
	_ store.Identifier = (*Store)(nil)
	_ store.Exporter   = (*Store)(nil)
)

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
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open store %q: %w", path, err)
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
	apply := func() error { return s.migrate(context.Background(), ms) }
	if opts.ReadOnly {
		apply = func() error { return s.Current(context.Background(), ms) }
	}
	if err := s.retry(context.Background(), apply); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %q: %w", path, err)
	}
	return s, nil
}

// newStore returns the Store on db, the database at path.
func newStore(db *sql.DB, path string, writeTimeout time.Duration) *Store {
	s := &Store{db: db, path: path, writeTimeout: writeTimeout}
	s.DB = sqlstore.New(db, &dialect, sqlstore.Hooks{Name: path, InTx: s.inTx, BeforeCommit: func(ctx context.Context) {
		if s.beforeCommit != nil {
			s.beforeCommit(ctx)
		}
	}})
	return s
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate brings the schema of s up to the newest of ms in one immediate
// transaction, so concurrent opens apply each migration once. It refuses a
// database whose schema is newer than this program.
func (s *Store) migrate(ctx context.Context, ms []store.Migration) error {
	return sqlstore.InTx(ctx, s.db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TEXT NOT NULL
		)`); err != nil {
			return err
		}
		return s.Migrate(ctx, tx, ms, ", applied_at", time.Now().UTC().Format(time.RFC3339))
	})
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

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

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store %q: %w", s.path, err)
	}
	return nil
}

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// inTx runs fn in an immediate transaction and commits it when fn
// succeeds, retrying the whole transaction while the database is busy.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.retry(ctx, func() error { return sqlstore.InTx(ctx, s.db, fn) })
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
