// Package pgtest gives tests a PostgreSQL store of their own: the DSN of
// the test database (PROMPTCANARY_TEST_POSTGRES, set by
// `eval "$(scripts/postgres.sh start)"`) with a fresh schema as its search
// path, dropped when the test ends. Without a test database the test is
// skipped with a message saying how to run it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the variable holding the test database's DSN.
const EnvDSN = "PROMPTCANARY_TEST_POSTGRES"

// SchemaPrefix starts the name of every schema FreshDSN makes in this
// process, so a TestMain can check that none is left.
var SchemaPrefix = fmt.Sprintf("pctest_%d_", os.Getpid())

// DSN returns the test database's DSN, and skips the test when there is none.
func DSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		tb.Skip(`PostgreSQL not available: run eval "$(scripts/postgres.sh start)" to set ` + EnvDSN)
	}
	return dsn
}

// Exec runs sql on the test database, outside any test schema.
func Exec(tb testing.TB, sql string, args ...any) {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, DSN(tb))
	if err != nil {
		tb.Fatalf("connect to the test database: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}

// FreshDSN makes an empty schema, dropped when the test ends, and returns
// the DSN of the test database with that schema as its search path: each
// test has a store of its own, so tests run in parallel and leave nothing.
func FreshDSN(tb testing.TB) string {
	tb.Helper()
	dsn := DSN(tb)
	b := make([]byte, 6)
	rand.Read(b)
	name := SchemaPrefix + hex.EncodeToString(b)
	ident := pgx.Identifier{name}.Sanitize()
	Exec(tb, `CREATE SCHEMA `+ident)
	tb.Cleanup(func() { Exec(tb, `DROP SCHEMA `+ident+` CASCADE`) })
	return WithParam(tb, dsn, "search_path", name)
}

// WithParam returns dsn, a URL or a key=value string, with the parameter
// key set to value.
func WithParam(tb testing.TB, dsn, key, value string) string {
	tb.Helper()
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn + " " + key + "=" + value
	}
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("parse %s: %v", EnvDSN, err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
