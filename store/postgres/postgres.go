// Package postgres is a store.Store on PostgreSQL (12 or newer), through a
// pgx connection pool under database/sql (pgx's stdlib driver), with the
// queries of store/sqlstore in PostgreSQL's dialect, for histories that
// several machines share: every developer's runs in one place, and several
// monitors (promptcanary serve) on one store.
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
	"embed"
	"errors"
	"fmt"
	"time"

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
}

var (
	_ store.Store      = (*Store)(nil)
	_ store.Identifier = (*Store)(nil)
	_ store.Exporter   = (*Store)(nil)
)

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
	s := newStore(pool, shown)
	if err = s.check(ctx); err == nil {
		err = s.migrate(ctx, ms)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// newStore returns the Store on pool, whose DSN shown hides the password.
func newStore(pool *pgxpool.Pool, shown string) *Store {
	db := stdlib.OpenDBFromPool(pool)
	return &Store{DB: sqlstore.New(db, &dialect, sqlstore.Hooks{Name: shown}), sql: db, pool: pool, dsn: shown}
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate brings the schema up to the newest of ms in one transaction,
// holding a transaction-level advisory lock on the schema: stores opened
// at once, by several monitors, wait for each other and apply each
// migration once (PostgreSQL's DDL is transactional, so a failed migration
// leaves nothing). It refuses a schema newer than this program.
func (s *Store) migrate(ctx context.Context, ms []store.Migration) error {
	return sqlstore.InTx(ctx, s.sql, func(tx *sql.Tx) error {
		var schema *string
		if err := tx.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			return err
		}
		if schema == nil {
			var searchPath string
			if err := tx.QueryRowContext(ctx, `SHOW search_path`).Scan(&searchPath); err != nil {
				return err
			}
			return fmt.Errorf("no schema to create the tables in: search_path %q names no schema that exists (CREATE SCHEMA it first)", searchPath)
		}
		// The lock is per schema, so that stores in different schemas of
		// one database do not wait for each other.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('promptcanary migrate ' || $1, 0))`, *schema); err != nil {
			return fmt.Errorf("lock the schema %q for migrations: %w", *schema, err)
		}
		// Looked up before it is created: a role without CREATE on the
		// schema can open a store that is up to date.
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT to_regclass(quote_ident($1) || '.schema_migrations') IS NOT NULL`, *schema).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_migrations (
				version    integer PRIMARY KEY,
				name       text NOT NULL,
				applied_at timestamptz NOT NULL DEFAULT now()
			)`); err != nil {
				return err
			}
		}
		// Exec without arguments uses the simple protocol, which runs the
		// several statements of a file.
		return s.Migrate(ctx, tx, ms, "")
	})
}

// check refuses a server too old for the schema or a database whose
// encoding is not UTF8 (text in another encoding cannot hold every name).
func (s *Store) check(ctx context.Context) error {
	var version int
	var encoding string
	err := s.sql.QueryRowContext(ctx, `SELECT current_setting('server_version_num')::int, current_setting('server_encoding')`).
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

// Identity names the cluster (by its start time and port), the database
// (by name and oid) and the schema the store uses: two DSNs that reach the
// same tables by different host names or users have the same identity.
func (s *Store) Identity(ctx context.Context) (string, error) {
	var id string
	err := s.sql.QueryRowContext(ctx, `SELECT format('postgres:%s:%s/%s(%s)/%s',
			extract(epoch FROM pg_postmaster_start_time()), COALESCE(inet_server_port(), 0),
			current_database(), (SELECT oid FROM pg_database WHERE datname = current_database()), current_schema())`).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("identify store %q: %w", s.dsn, err)
	}
	return id, nil
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

// isViolation reports whether err is PostgreSQL's error code (23505
// unique_violation, 23503 foreign_key_violation) on the constraint or
// index named constraint ("" any).
func isViolation(err error, code, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code && (constraint == "" || pe.ConstraintName == constraint)
}
