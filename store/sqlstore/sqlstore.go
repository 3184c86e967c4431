// Package sqlstore is the one SQL layer of the SQL stores (store/sqlite,
// store/postgres): their queries, column lists and row scanners, written
// once against database/sql with ? placeholders, and a Dialect for what
// differs between the databases: numbered placeholders, how times and
// free text are kept, which text a column can hold, the LIMIT that means
// none, row locks and the errors told apart.
//
// A backend opens its *sql.DB, applies its migrations and wraps the
// database in a DB, whose methods it promotes by embedding.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary/store"
)

// Dialect is what differs between the databases a DB runs on.
type Dialect struct {
	// Numbered makes placeholders $1, $2, … instead of ?.
	Numbered bool
	// Time encodes a time for a column; it fails for a time the column
	// cannot hold.
	Time func(t time.Time) (any, error)
	// OptTime encodes a time for a column where the zero time is NULL.
	OptTime func(t time.Time) (any, error)
	// Bound encodes a time as the bound of a filter: never fails.
	Bound func(t time.Time) any
	// CheckText reports why s cannot be kept in a text column; nil when
	// every string can. what names the field in the error.
	CheckText func(what, s string) error
	// Bytes encodes free text (notes, summaries, errors).
	Bytes func(s string) any
	// NoLimit is the LIMIT argument that means no limit.
	NoLimit any
	// SkipLocked ends a subquery that selects rows to claim: row locks
	// that other claimers skip ("" where transactions run one at a time).
	SkipLocked string
	// UniqueViolation reports whether err is a unique violation on the
	// index named index; nil where transactions run one at a time, so
	// that the checks inside them decide.
	UniqueViolation func(err error, index string) bool
	// ForeignKeyViolation reports whether err is a foreign key violation.
	ForeignKeyViolation func(err error) bool
	// TempIDs creates a temporary table of ids named %s, for Prune.
	TempIDs string
	// PruneLock, when set, runs first in Prune's transaction.
	PruneLock string
	// Blobs, when set, runs the query q, whose rows are a key and a blob,
	// and calls fn with each row, the blob in the driver's own buffer
	// (valid until fn returns), where the database/sql driver would copy
	// it once more than needed. Without it rows are read as sql.RawBytes.
	Blobs func(ctx context.Context, db *sql.DB, q string, args []any, fn func(key string, blob []byte) error) error
	// Schema are the dialect's words for the shared parts of the schema.
	Schema Schema
}

// Schema are a dialect's words for the column types in the parts of the
// schema the backends share (store/sqlstore/schema, run by Migrate).
type Schema struct {
	// ID is the type of an id column, ordered byte by byte.
	ID string
	// Time is the type of a time column.
	Time string
	// AnyTime declares a column of a time that may be the zero time:
	// NOT NULL where Time keeps that time as itself, nullable where it
	// keeps it as NULL.
	AnyTime string
	// Bytes is the type of a free text column.
	Bytes string
	// Seq declares a primary key that numbers rows as they are added.
	Seq string
}

// Hooks are the backend's parts of a DB.
type Hooks struct {
	// InTx runs the DB's transactions (default: InTx on its database).
	InTx TxFunc
	// BeforeCommit, when set, runs inside the transaction of a saved run
	// once every row is written: tests crash or cancel there.
	BeforeCommit func(ctx context.Context)
	// Now is the clock of Promote (default time.Now).
	Now func() time.Time
	// Name names the store in errors: a path, a DSN without its password.
	Name string
}

// TxFunc runs fn in a transaction and commits it when fn succeeds.
type TxFunc func(ctx context.Context, fn func(tx *sql.Tx) error) error

// DB holds the queries shared by the SQL stores. It is safe for
// concurrent use.
type DB struct {
	db    *sql.DB
	d     *Dialect
	tx    TxFunc
	hooks Hooks
}

// New returns the DB on db in dialect d.
func New(db *sql.DB, d *Dialect, h Hooks) *DB {
	if h.InTx == nil {
		h.InTx = func(ctx context.Context, fn func(tx *sql.Tx) error) error { return InTx(ctx, db, fn) }
	}
	if h.Now == nil {
		h.Now = time.Now
	}
	return &DB{db: db, d: d, tx: h.InTx, hooks: h}
}

// InTx runs fn in a transaction of db and commits it when fn succeeds.
func InTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	// Rolled back on every way out but a commit, a panic in fn included,
	// which would otherwise leave the transaction (and SQLite's write
	// lock) held.
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, sql.ErrTxDone) {
			return ctxErr
		}
		return err
	}
	return nil
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// bind rewrites the ? placeholders of q for the dialect. A ? in a quoted
// string or name ('…' or "…", a doubled quote inside) or in a -- comment
// (to the end of its line, so an apostrophe there opens no string) is
// left alone; q holds no /* */ comments, E'…' strings or dollar quotes,
// whose ? it rewrites.
func (s *DB) bind(q string) string {
	if !s.d.Numbered || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	var quote byte // what ends the string or comment q is inside of at i, if any
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && c == '-' && strings.HasPrefix(q[i:], "--"):
			quote = '\n' // a comment ends with its line
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote == 0 && c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// txAfter runs fn in a transaction of s unless err, a problem found in
// its arguments, is set: then it returns err.
func (s *DB) txAfter(ctx context.Context, err error, fn func(tx *sql.Tx) error) error {
	if err != nil {
		return err
	}
	return s.tx(ctx, fn)
}

// exec runs q on c and returns the number of rows it changed.
func (s *DB) exec(ctx context.Context, c querier, q string, args ...any) (int64, error) {
	res, err := c.ExecContext(ctx, s.bind(q), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// execTx runs the one statement q with the arguments a in a transaction
// of s, unless a has a problem: then it returns that.
func (s *DB) execTx(ctx context.Context, q string, a *args) error {
	return s.txAfter(ctx, a.err, func(tx *sql.Tx) error {
		_, err := s.exec(ctx, tx, q, a.list...)
		return err
	})
}

// inserts are an insert statement and the arguments of the rows it
// writes.
type inserts struct {
	q    string
	rows []*args
}

// insertAll runs, in tx, the statement of each of batches once a row.
func (s *DB) insertAll(ctx context.Context, tx *sql.Tx, batches ...inserts) error {
	for _, b := range batches {
		for _, a := range b.rows {
			if _, err := s.exec(ctx, tx, b.q, a.list...); err != nil {
				return err
			}
		}
	}
	return nil
}

// row runs q, which returns at most one row, on c.
func (s *DB) row(ctx context.Context, c querier, q string, args ...any) *sql.Row {
	return c.QueryRowContext(ctx, s.bind(q), args...)
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// collect runs q on c and reads every row with scan.
func collect[T any](ctx context.Context, s *DB, c querier, q string, args []any, scan func(scanner) (T, error)) ([]T, error) {
	rows, err := c.QueryContext(ctx, s.bind(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// list runs q on the database and reads every row with scan, unless one
// of values, the filters of q, could not be stored: then nothing matches.
// what names the listing in errors.
func list[T any](ctx context.Context, s *DB, what, q string, qargs []any, scan func(scanner) (T, error), values ...string) ([]T, error) {
	if !s.storable(values...) {
		return nil, nil
	}
	out, err := collect(ctx, s, s.db, q, qargs, scan)
	return out, wrap(err, "list %s", what)
}

// scanString reads a row of one text column.
func scanString(sc scanner) (string, error) {
	var v string
	err := sc.Scan(&v)
	return v, err
}

// storable reports whether every one of values could be kept in a text
// column. A filter on a value that could not be stored matches nothing,
// without asking the database (which may refuse the value).
func (s *DB) storable(values ...string) bool {
	return s.d.CheckText == nil || !slices.ContainsFunc(values, func(v string) bool { return s.d.CheckText("", v) != nil })
}

// limit returns the LIMIT argument of n: n when positive, else none.
func (s *DB) limit(n int) any {
	if n > 0 {
		return n
	}
	return s.d.NoLimit
}

// args collects the arguments of a write in the dialect: times encoded,
// text checked for what its column can hold, free text as the dialect
// keeps it. The first problem is kept in err.
type args struct {
	d    *Dialect
	list []any
	err  error
}

// args starts the arguments of a write.
func (s *DB) args(values ...any) *args { return &args{d: s.d, list: values} }

func (a *args) fail(err error) {
	if err != nil && a.err == nil {
		a.err = err
	}
}

// time adds t; what names it in the error.
func (a *args) time(what string, t time.Time) *args { return a.encoded(what, t, a.d.Time) }

// optTime adds t, NULL when zero; what names it in the error.
func (a *args) optTime(what string, t time.Time) *args { return a.encoded(what, t, a.d.OptTime) }

// encoded adds t as enc encodes it; what names it in the error.
func (a *args) encoded(what string, t time.Time, enc func(time.Time) (any, error)) *args {
	v, err := enc(t)
	if err != nil {
		a.fail(fmt.Errorf("%s: %w", what, err))
	}
	a.list = append(a.list, v)
	return a
}

// text adds s, which must fit a text column; what names it in the error.
func (a *args) text(what, s string) *args {
	if a.d.CheckText != nil {
		a.fail(a.d.CheckText(what, s))
	}
	a.list = append(a.list, s)
	return a
}

// bytes adds the free text s.
func (a *args) bytes(s string) *args {
	a.list = append(a.list, a.d.Bytes(s))
	return a
}

// add adds values as they are.
func (a *args) add(values ...any) *args {
	a.list = append(a.list, values...)
	return a
}

// finite maps NaN and infinities to NULL.
func finite(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// timeDest scans a stored time into t: NULL as the zero time, an integer
// as nanoseconds since the Unix epoch, text as RFC 3339.
type timeDest struct{ t *time.Time }

// At returns a scan destination that reads a stored time into t: NULL as
// the zero time, an integer as nanoseconds since the Unix epoch (in UTC),
// text as RFC 3339.
func At(t *time.Time) sql.Scanner { return timeDest{t} }

// Scan implements sql.Scanner.
func (d timeDest) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d.t = time.Time{}
	case int64:
		*d.t = time.Unix(0, v).UTC()
	case time.Time:
		*d.t = v.UTC()
	case string:
		return d.parse(v)
	case []byte:
		return d.parse(string(v))
	default:
		return fmt.Errorf("stored time of type %T", src)
	}
	return nil
}

func (d timeDest) parse(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("stored time %q: %w", s, err)
	}
	*d.t = t
	return nil
}

// floatDest scans a float column into f, NULL as NaN.
type floatDest struct{ f *float64 }

// num returns the scan destination of a float column.
func num(f *float64) floatDest { return floatDest{f} }

// Scan implements sql.Scanner.
func (d floatDest) Scan(src any) error {
	var n sql.NullFloat64
	if err := n.Scan(src); err != nil {
		return err
	}
	*d.f = math.NaN()
	if n.Valid {
		*d.f = n.Float64
	}
	return nil
}

// where joins the conditions that are set.
type where struct {
	conds []string
	args  []any
}

// add adds cond, with its one placeholder ?, and its argument.
func (w *where) add(cond string, arg any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, arg)
}

// matching returns the conditions "column = ?" of pairs, a column and a
// value each, whose value is not "".
func matching(pairs ...string) *where {
	w := &where{}
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			w.add(pairs[i]+" = ?", pairs[i+1])
		}
	}
	return w
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// insert returns the statement that writes a row of cols (comma
// separated) to table.
func insert(table, cols string) string {
	return `INSERT INTO ` + table + ` (` + cols + `) VALUES ` + placeholders(strings.Count(cols, ",")+1)
}

// upsert returns the statement that writes a row of cols to table,
// replacing the row with its key, the first of cols.
func upsert(table, cols string) string {
	names := strings.Split(cols, ",")
	for i, c := range names {
		c = strings.TrimSpace(c)
		names[i] = c + " = excluded." + c
	}
	key, _, _ := strings.Cut(cols, ",")
	return insert(table, cols) + ` ON CONFLICT (` + key + `) DO UPDATE SET ` + strings.Join(names[1:], ", ")
}

// placeholders returns n placeholders in parentheses: (?, ?, ?).
func placeholders(n int) string { return "(?" + strings.Repeat(", ?", n-1) + ")" }

// resolve finds the id in column col of table that id names: itself, or
// the only id starting with it.
func (s *DB) resolve(ctx context.Context, kind, table, col, id string) (string, error) {
	if !s.storable(id) {
		return store.Resolve(kind, id, nil) // never stored
	}
	// Ids starting with id sort right after it (byte order): read the
	// first few.
	matches, err := collect(ctx, s, s.db, `SELECT `+col+` FROM `+table+` WHERE `+col+` >= ? ORDER BY `+col+` LIMIT 6`,
		[]any{id}, scanString)
	if err != nil {
		return "", fmt.Errorf("find %s %q: %w", kind, id, err)
	}
	out := matches[:0]
	for _, m := range matches {
		if strings.HasPrefix(m, id) {
			out = append(out, m)
		}
	}
	return store.Resolve(kind, id, out)
}

// wrap returns nil for a nil err, else err wrapped with the operation the
// format and its arguments name: "list runs: …".
func wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
