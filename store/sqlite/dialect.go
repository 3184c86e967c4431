package sqlite

import (
	"time"

	"github.com/promptcanary/promptcanary/store/sqlstore"
)

// dialect is SQLite's: times as fixed-width UTC text that sorts in time
// order (an optional time not set is NULL), free text as text, LIMIT -1
// for none. Writers take the database one at a time (immediate
// transactions), so the checks inside a transaction decide conflicts and
// no row is locked.
var dialect = sqlstore.Dialect{
	Time:    func(t time.Time) (any, error) { return formatTime(t), nil },
	OptTime: optTime,
	Bound:   func(t time.Time) any { return formatTime(t) },
	Bytes:   func(s string) any { return s },
	NoLimit: -1,
	TempIDs: `CREATE TEMP TABLE %s (id TEXT PRIMARY KEY) WITHOUT ROWID`,
	// Types as in 0003_monitor.sql: a time is text, NULL only where optional.
	Schema: sqlstore.Schema{ID: "TEXT", Time: "TEXT", AnyTime: "TEXT NOT NULL", Bytes: "TEXT",
		Seq: "INTEGER PRIMARY KEY AUTOINCREMENT"},
}

// optTime stores a zero time as NULL.
func optTime(t time.Time) (any, error) {
	if t.IsZero() {
		return nil, nil
	}
	return formatTime(t), nil
}
