package postgres

import (
	"time"

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
	Bytes:     func(s string) any { return bytea(s) },
	NoLimit:   nil,
	SkipLocked: `
			FOR UPDATE SKIP LOCKED`,
	UniqueViolation:     func(err error, index string) bool { return isViolation(err, uniqueViolation, index) },
	ForeignKeyViolation: func(err error) bool { return isViolation(err, foreignKeyViolation, "") },
}
