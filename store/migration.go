package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
)

// Migration is one numbered schema change of a database backend.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.sql$`)

// LoadMigrations reads the migrations of fsys (files
// migrations/NNNN_name.sql), which must be numbered 1, 2, 3 … without
// gaps: every database backend keeps its schema changes this way.
func LoadMigrations(fsys fs.FS) ([]Migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, name := range names { // fs.Glob sorts
		base := path.Base(name)
		m := migrationName.FindStringSubmatch(base)
		if m == nil {
			return nil, fmt.Errorf("migration %q: name must be NNNN_name.sql", base)
		}
		v, _ := strconv.Atoi(m[1])
		if v != len(out)+1 {
			return nil, fmt.Errorf("migration %q: got version %d, want %d", base, v, len(out)+1)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: m[2], SQL: string(body)})
	}
	if len(out) == 0 {
		return nil, errors.New("no migrations")
	}
	return out, nil
}
