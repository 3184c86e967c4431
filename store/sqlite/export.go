package sqlite

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/promptcanary/promptcanary/store"
)

var (
	_ store.Exporter   = (*Store)(nil)
	_ store.Identifier = (*Store)(nil)
)

// Identity returns the database file's absolute path, symbolic links
// resolved.
func (s *Store) Identity(context.Context) (string, error) {
	p, err := filepath.Abs(s.path)
	if err != nil {
		return "", fmt.Errorf("identify store %q: %w", s.path, err)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return "sqlite:" + p, nil
}
