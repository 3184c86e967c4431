package postgres

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary/store/sqlstore"
)

// dialect is PostgreSQL's: numbered placeholders, times as bigint
// nanoseconds (NULL for the zero time), text checked for what PostgreSQL
// text holds, free text as bytea, LIMIT NULL for none. Monitors on several
// machines run at once: claims lock the rows they take (FOR UPDATE SKIP
// LOCKED), and the partial unique index on open fingerprints decides
// which of two monitors opens an incident.
var dialect = sqlstore.Dialect{
	Numbered:  true,
	Time:      func(t time.Time) (any, error) { return nanos(t) },
	OptTime:   func(t time.Time) (any, error) { return nanos(t) },
	Bound:     func(t time.Time) any { return clampNanos(t) },
	CheckText: checkText,
	Bytes:     func(s string) any { return []byte(s) }, // never nil, which would be NULL
	NoLimit:   nil,
	SkipLocked: `
			FOR UPDATE SKIP LOCKED`,
	UniqueViolation:     func(err error, index string) bool { return isViolation(err, "23505", index) },
	ForeignKeyViolation: func(err error) bool { return isViolation(err, "23503", "") },
	Blobs:               blobs,
	TempIDs:             `CREATE TEMP TABLE %s (id text COLLATE "C" PRIMARY KEY) ON COMMIT DROP`,
	// While Prune runs it holds the baselines and pending baselines, so
	// that no baseline is taken of a run it deletes (a promotion waits
	// for it, then fails as the run is gone); other writers, such as
	// monitors, go on.
	PruneLock: `LOCK TABLE baselines, pending_baselines IN SHARE MODE`,
	// As in 0001_history.sql: ids compared byte by byte, times as bigint
	// nanoseconds (NULL for none), free text as bytea.
	Schema: sqlstore.Schema{ID: `text COLLATE "C"`, Time: "bigint", AnyTime: "bigint", Bytes: "bytea",
		Seq: "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"},
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

// blobs reads the rows of q, a bytea key and a bytea blob, on pgx itself
// (database/sql's Conn.Raw): pgtype.DriverBytes hands fn the blob in the
// connection's read buffer, where the database/sql driver copies each
// value first. A long answer is then in memory once, in its spill file's
// writer, not three times.
func blobs(ctx context.Context, db *sql.DB, q string, args []any, fn func(key string, blob []byte) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		rows, err := driverConn.(*stdlib.Conn).Conn().Query(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				key  []byte
				blob pgtype.DriverBytes
			)
			if err := rows.Scan(&key, &blob); err != nil {
				return err
			}
			if err := fn(string(key), blob); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}
