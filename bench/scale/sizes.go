package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/postgres"
	"github.com/promptcanary/promptcanary/store/sqlite"
)

// storeSizes measures what the run compared by runCommands, and then its
// drift report, add to a fresh SQLite database and, with dsn, to a fresh
// PostgreSQL schema; m gets the sizes.
func storeSizes(ctx context.Context, c *config, dir, dsn string, m *measured) ([]figure, error) {
	run, err := readRun(filepath.Join(dir, "current.json"))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "drift.json"))
	if err != nil {
		return nil, err
	}
	doc, err := store.DecodeDocument(data)
	if err != nil {
		return nil, err
	}
	if doc.Kind != store.KindDrift {
		return nil, fmt.Errorf("drift.json holds a %s, not a drift report", doc.Kind)
	}
	report := doc.Drift
	if n := len(run.ProbeResults); n != c.prompts*c.probes*c.samples-c.probes*len(run.Errors) {
		return nil, fmt.Errorf("the run holds %d probe results, want %d", n, c.prompts*c.probes*c.samples)
	}

	path := filepath.Join(dir, "sizes.db")
	var sizes [3]int64
	for i := range sizes {
		s, err := sqlite.Open(path)
		if err != nil {
			return nil, err
		}
		switch i {
		case 1:
			err = s.SaveRun(ctx, run)
		case 2:
			err = s.SaveDrift(ctx, report)
		}
		if cerr := s.Close(); err == nil {
			err = cerr // closing checkpoints the write-ahead log into the file
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite: %w", err)
		}
		if sizes[i], err = fileSize(path); err != nil {
			return nil, err
		}
	}
	m.sqliteRun, m.sqliteReport = sizes[1]-sizes[0], sizes[2]-sizes[1]
	figs := []figure{
		{"SQLite: one run", mb(sizes[1] - sizes[0]), "≤ 5 MB", check(sizes[1]-sizes[0] <= maxRunStored)},
		{"SQLite: its drift report", mb(sizes[2] - sizes[1]), "≤ 0.5 MB", check(sizes[2]-sizes[1] <= maxReportStored)},
	}
	if dsn == "" {
		return figs, nil
	}
	pg, err := postgresSizes(ctx, dsn, run, report)
	if err != nil {
		return figs, fmt.Errorf("postgres: %w", err)
	}
	m.pgRun, m.pgReport = pg[0], pg[1]
	return append(figs,
		figure{"PostgreSQL: one run", mb(pg[0]), "≤ 5 MB", check(pg[0] <= maxRunStored)},
		figure{"PostgreSQL: its drift report", mb(pg[1]), "≤ 0.5 MB", check(pg[1] <= maxReportStored)}), nil
}

// readRun decodes the run file at path.
func readRun(path string) (*promptcanary.Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := store.DecodeDocument(data)
	if err != nil {
		return nil, err
	}
	return doc.PickRun("")
}

// fileSize is the size of the SQLite database at path with its
// write-ahead log, if any.
func fileSize(path string) (int64, error) {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		info, err := os.Stat(p)
		if os.IsNotExist(err) && p != path {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += info.Size()
	}
	return n, nil
}

// postgresSizes returns what saving run, then report, adds to the tables,
// indexes and TOAST of a fresh schema.
func postgresSizes(ctx context.Context, dsn string, run *promptcanary.Run, report *promptcanary.DriftReport) ([2]int64, error) {
	var out [2]int64
	schema, s, done, err := freshStore(ctx, dsn)
	if err != nil {
		return out, err
	}
	defer done()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return out, err
	}
	defer conn.Close(ctx)
	size := func() (int64, error) {
		var n int64
		err := conn.QueryRow(ctx, `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`, schema).Scan(&n)
		return n, err
	}
	before, err := size()
	if err != nil {
		return out, err
	}
	if err := s.SaveRun(ctx, run); err != nil {
		return out, err
	}
	mid, err := size()
	if err != nil {
		return out, err
	}
	if err := s.SaveDrift(ctx, report); err != nil {
		return out, err
	}
	after, err := size()
	if err != nil {
		return out, err
	}
	return [2]int64{mid - before, after - mid}, nil
}

// freshSchema creates a schema of its own in the database of dsn and
// returns its name, a DSN that uses it and a function that drops it.
func freshSchema(ctx context.Context, dsn string) (string, string, func(), error) {
	b := make([]byte, 6)
	rand.Read(b)
	name := "promptcanary_scale_" + hex.EncodeToString(b)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", "", nil, err
	}
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+ident); err != nil {
		conn.Close(ctx)
		return "", "", nil, err
	}
	drop := func() {
		conn.Exec(context.Background(), `DROP SCHEMA `+ident+` CASCADE`)
		conn.Close(context.Background())
	}
	return name, withParam(dsn, "search_path", name), drop, nil
}

// freshStore opens a store in a fresh schema (see freshSchema) and
// returns the schema's name, the store and a function that closes the
// store and drops the schema.
func freshStore(ctx context.Context, dsn string) (string, *postgres.Store, func(), error) {
	name, sdsn, drop, err := freshSchema(ctx, dsn)
	if err != nil {
		return "", nil, nil, err
	}
	s, err := postgres.Open(ctx, sdsn)
	if err != nil {
		drop()
		return "", nil, nil, err
	}
	return name, s, func() { s.Close(); drop() }, nil
}

// withParam returns dsn, a URL or a key=value string, with the parameter
// key set to value.
func withParam(dsn, key, value string) string {
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn + " " + key + "=" + value
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn + " " + key + "=" + value
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
