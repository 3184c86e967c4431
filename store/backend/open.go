// Package backend opens the store that a --store flag or a store: key
// names: a PostgreSQL database (store/postgres) for a postgres:// URL,
// else a SQLite database file (store/sqlite). It is the one place that
// knows which backends the CLI and the monitor can open.
package backend

import (
	"context"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/postgres"
	"github.com/promptcanary/promptcanary/store/sqlite"
)

// Store is what every backend Open opens implements: the history and the
// monitor's state.
type Store interface {
	store.Store
	store.Monitor
}

var (
	_ Store = (*sqlite.Store)(nil)
	_ Store = (*postgres.Store)(nil)
)

// schemes are the URL schemes Open knows.
var schemes = []string{"postgres", "postgresql"}

// IsURL reports whether target is a database URL (SCHEME://…) rather than
// a file path: a URL has no directory to create, and no file whose absence
// means that there is no history yet.
func IsURL(target string) bool {
	i := strings.Index(target, "://")
	return i > 0 && !strings.ContainsAny(target[:i], `/\.`)
}

// Open opens the store target names: a postgres:// or postgresql:// URL
// opens that PostgreSQL database (see postgres.Open), any other URL is an
// error, and anything else is the path of a SQLite database, created with
// its directory if missing (see sqlite.Open). Errors name the target as
// Display shows it.
func Open(ctx context.Context, target string) (Store, error) {
	switch {
	case postgres.IsDSN(target):
		return postgres.Open(ctx, target)
	case IsURL(target):
		scheme := target[:strings.Index(target, "://")]
		return nil, fmt.Errorf("open store %q: unknown scheme %q%s: want postgres://… or the path of a SQLite database",
			Display(target), scheme, suggest.Hint(scheme, schemes))
	}
	return sqlite.Open(target)
}

// Display returns target fit to show in errors, logs and pages: a
// PostgreSQL URL with its password hidden, only the scheme of any other
// URL, a path as it is.
func Display(target string) string {
	switch {
	case postgres.IsDSN(target):
		return postgres.Redact(target)
	case IsURL(target):
		return target[:strings.Index(target, "://")] + "://…"
	}
	return target
}
