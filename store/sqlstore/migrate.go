package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/promptcanary/promptcanary/store"
)

//go:embed schema/*.sql
var schemaFiles embed.FS

// Render returns the SQL that Migrate runs for m in a dialect whose words
// are sch. A migration that holds "{{" is a template that may run the
// shared parts of the schema (store/sqlstore/schema) by name ({{template
// "fleet.sql" .}}) in those words, and each backend's tests pin what it
// renders; any other migration is its own SQL, untouched.
func Render(sch Schema, m store.Migration) (string, error) {
	if !strings.Contains(m.SQL, "{{") {
		return m.SQL, nil
	}
	t, err := template.New(m.Name).Parse(m.SQL)
	if err == nil {
		t, err = t.ParseFS(schemaFiles, "schema/*.sql")
	}
	var b strings.Builder
	if err == nil {
		err = t.Execute(&b, sch)
	}
	return b.String(), err
}

// SchemaVersion returns the newest migration applied to the database.
func (s *DB) SchemaVersion(ctx context.Context) (int, error) {
	v, err := s.schemaVersion(ctx, s.db)
	return v, wrap(err, "schema version")
}

func (s *DB) schemaVersion(ctx context.Context, q querier) (int, error) {
	var v int
	err := s.row(ctx, q, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v)
	return v, err
}

// Migrate applies, in tx, the migrations of ms newer than the schema's,
// recording each in schema_migrations (version, name and the columns
// named in more, whose values are values); the table must exist. It
// refuses a schema newer than ms. Each migration's SQL, rendered (Render),
// is run as one statement without arguments, which may hold several.
func (s *DB) Migrate(ctx context.Context, tx *sql.Tx, ms []store.Migration, more string, values ...any) error {
	current, err := s.schemaVersion(ctx, tx)
	if err != nil {
		return err
	}
	latest := ms[len(ms)-1].Version
	if current > latest {
		return fmt.Errorf("schema version %d is newer than this program's %d: upgrade promptcanary", current, latest)
	}
	record := `INSERT INTO schema_migrations (version, name` + more + `) VALUES ` + placeholders(2+len(values))
	for _, m := range ms[current:] {
		q, err := Render(s.d.Schema, m)
		if err == nil {
			_, err = tx.ExecContext(ctx, q)
		}
		if err == nil {
			_, err = s.exec(ctx, tx, record, append([]any{m.Version, m.Name}, values...)...)
		}
		if err != nil {
			return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
		}
	}
	return nil
}

// Current checks, writing nothing, that the schema is the newest of ms,
// for a read-only open.
func (s *DB) Current(ctx context.Context, ms []store.Migration) error {
	v, err := s.schemaVersion(ctx, s.db)
	if err != nil {
		return fmt.Errorf("read-only: no schema to read (open it once read-write to create it): %w", err)
	}
	if latest := ms[len(ms)-1].Version; v != latest {
		return fmt.Errorf("read-only: schema version %d, this program's is %d: open it once read-write to upgrade it", v, latest)
	}
	return nil
}
