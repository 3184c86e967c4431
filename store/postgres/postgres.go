// Package postgres is a store.Store on PostgreSQL (12 or newer), through a
// pgx connection pool, for histories that several machines share: every
// developer's runs in one place, and several monitors (promptcanary serve)
// on one store.
//
// It holds exactly what the SQLite store holds and passes the same
// conformance suite (store/storetest), monitor state included. Runs,
// baselines and drift reports are the JSON documents of the store package's
// codec, kept as bytea; times are nanoseconds since the Unix epoch, since
// timestamptz keeps only microseconds; text PostgreSQL cannot hold (a NUL
// byte, invalid UTF-8) round-trips in documents and free text and is
// refused, with an error naming the field, in names and ids. At most one
// incident per fingerprint is open, by a partial unique index, so monitors
// racing to open one get store.ErrConflict.
//
// The schema is created and upgraded by the numbered migrations embedded
// from migrations/, recorded in the schema_migrations table, under an
// advisory lock so that monitors starting at once apply each migration
// once. Tables go to the first schema of the connection's search_path
// (?search_path=NAME in the DSN keeps them in a schema of their own).
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlstore"
)

// ConnectTimeout bounds one connection attempt when the DSN does not set
// connect_timeout.
const ConnectTimeout = 10 * time.Second

// minServerVersion is the oldest PostgreSQL the schema works on
// (server_version_num).
const minServerVersion = 120000

// Store is a PostgreSQL store. It is safe for concurrent use, and several
// Stores, in one process or many, may share one database.
type Store struct {
	// DB holds the queries shared with the other SQL stores, on pool
	// through database/sql.
	*sqlstore.DB
	sql  *sql.DB
	pool *pgxpool.Pool
	// dsn is the connection string with its password hidden, for errors.
	dsn string
	// now is the clock of Promote.
	now func() time.Time
}

var _ store.Store = (*Store)(nil)

// Open connects to the PostgreSQL database that dsn names (a
// postgres:// URL or a key=value connection string, as libpq takes them;
// PGPASSWORD and ~/.pgpass work too), checks that it can hold the store
// (PostgreSQL 12 or newer, UTF8 encoding) and applies the pending schema
// migrations. Errors never contain the password.
func Open(ctx context.Context, dsn string) (*Store, error) {
	shown := Redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", shown, scrubError(dsn, err))
	}
	s, err := open(ctx, cfg, shown)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", shown, scrubError(dsn, err))
	}
	return s, nil
}

// open opens a Store on the pool cfg configures.
func open(ctx context.Context, cfg *pgxpool.Config, shown string) (*Store, error) {
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = ConnectTimeout
	}
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDBFromPool(pool)
	s := &Store{DB: sqlstore.New(db, &dialect, nil), sql: db, pool: pool, dsn: shown, now: time.Now}
	if err := s.check(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if err := migrate(ctx, pool, ms); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// check refuses a server too old for the schema or a database whose
// encoding is not UTF8 (text in another encoding cannot hold every name).
func (s *Store) check(ctx context.Context) error {
	var version int
	var encoding string
	err := s.pool.QueryRow(ctx, `SELECT current_setting('server_version_num')::int, current_setting('server_encoding')`).
		Scan(&version, &encoding)
	if err != nil {
		return err
	}
	if version < minServerVersion {
		return fmt.Errorf("PostgreSQL %d.%d is too old: the store needs 12 or newer", version/10000, version%10000)
	}
	if encoding != "UTF8" {
		return fmt.Errorf("the database's encoding is %s, want UTF8 (CREATE DATABASE … ENCODING 'UTF8' TEMPLATE template0)", encoding)
	}
	return nil
}

// DSN returns the connection string the store was opened with, its
// password hidden.
func (s *Store) DSN() string { return s.dsn }

// SchemaVersion returns the newest migration applied to the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.pool.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}

// Close closes the store's connections, waiting for those in use.
func (s *Store) Close() error {
	err := s.sql.Close()
	s.pool.Close()
	if err != nil {
		return fmt.Errorf("close store %q: %w", s.dsn, err)
	}
	return nil
}

// inTx runs fn in a transaction and commits it when fn succeeds.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// Times are kept as nanoseconds since the Unix epoch; a bigint holds
// those from 1677 to 2262.
var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

// nanos returns t as nanoseconds since the Unix epoch, nil (NULL) for the
// zero time. It fails for a time a bigint cannot hold.
func nanos(t time.Time) (*int64, error) {
	if t.IsZero() {
		return nil, nil
	}
	if t.Before(minTime) || t.After(maxTime) {
		return nil, fmt.Errorf("time %s is outside what the store holds (%s to %s)",
			t.Format(time.RFC3339Nano), minTime.Format(time.DateOnly), maxTime.Format(time.DateOnly))
	}
	n := t.UnixNano()
	return &n, nil
}

// fromNanos reads a time written by nanos, in UTC.
func fromNanos(n *int64) time.Time {
	if n == nil {
		return time.Time{}
	}
	return time.Unix(0, *n).UTC()
}

// checkText reports whether s can be stored in a text column: valid UTF-8
// without a NUL byte. what names the field in the error.
func checkText(what, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%s %q: PostgreSQL text cannot hold a NUL byte", what, s)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s %q: not valid UTF-8, which PostgreSQL text cannot hold", what, s)
	}
	return nil
}

// storable reports whether every one of values could be stored in a text
// column. A filter on a value that could not be stored matches nothing,
// without asking the database (which would refuse the value).
func storable(values ...string) bool {
	for _, v := range values {
		if checkText("", v) != nil {
			return false
		}
	}
	return true
}

// row collects the arguments of a write: times as nanoseconds, text checked
// for what PostgreSQL cannot hold, free text as bytes. The first problem is
// kept in err.
type row struct {
	args []any
	err  error
}

// time adds t (see nanos); what names it in the error.
func (r *row) time(what string, t time.Time) *row {
	n, err := nanos(t)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s: %w", what, err)
	}
	r.args = append(r.args, n)
	return r
}

// text adds s, which must fit a text column; what names it in the error.
func (r *row) text(what, s string) *row {
	if err := checkText(what, s); err != nil && r.err == nil {
		r.err = err
	}
	r.args = append(r.args, s)
	return r
}

// bytes adds s as bytea: free text, any bytes.
func (r *row) bytes(s string) *row {
	r.args = append(r.args, bytea(s))
	return r
}

// add adds values as they are.
func (r *row) add(values ...any) *row {
	r.args = append(r.args, values...)
	return r
}

// bytea returns s as a non-nil byte slice (nil would be NULL).
func bytea(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return []byte(s)
}

// finite maps NaN and infinities to nil (NULL).
func finite(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// orNaN maps NULL back to NaN.
func orNaN(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

// where joins the conditions that are set, numbering their placeholders.
type where struct {
	conds []string
	args  []any
}

// add adds cond, whose one placeholder is written ?, with its argument.
func (w *where) add(cond string, arg any) {
	w.args = append(w.args, arg)
	w.conds = append(w.conds, strings.Replace(cond, "?", w.next(), 1))
}

// next returns the placeholder of the argument last added.
func (w *where) next() string { return "$" + strconv.Itoa(len(w.args)) }

// limit adds a LIMIT argument, n when positive, else none (NULL), and
// returns its placeholder.
func (w *where) limit(n int) string {
	var v *int
	if n > 0 {
		v = &n
	}
	w.args = append(w.args, v)
	return w.next()
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// resolve finds the id in column col of table that id names: itself, or
// the only id starting with it.
func (s *Store) resolve(ctx context.Context, kind, table, col, id string) (string, error) {
	if store.CheckID(kind, id) != nil {
		return store.Resolve(kind, id, nil) // never stored
	}
	// Ids starting with id sort right after it (COLLATE "C"): read the
	// first few.
	rows, err := s.pool.Query(ctx, `SELECT `+col+` FROM `+table+` WHERE `+col+` >= $1 ORDER BY `+col+` LIMIT 6`, id)
	if err != nil {
		return "", fmt.Errorf("find %s %q: %w", kind, id, err)
	}
	matches, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("find %s %q: %w", kind, id, err)
	}
	matches = matchPrefix(matches, id)
	return store.Resolve(kind, id, matches)
}

// matchPrefix keeps the ids that start with prefix.
func matchPrefix(ids []string, prefix string) []string {
	out := ids[:0]
	for _, m := range ids {
		if strings.HasPrefix(m, prefix) {
			out = append(out, m)
		}
	}
	return out
}

// isViolation reports whether err is PostgreSQL's error code (such as
// unique_violation, 23505) on the constraint or index named constraint
// ("" any).
func isViolation(err error, code, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code && (constraint == "" || pe.ConstraintName == constraint)
}

// PostgreSQL error codes the store tells apart.
const (
	uniqueViolation     = "23505"
	foreignKeyViolation = "23503"
)
