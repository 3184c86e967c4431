package postgres

import (
	"context"
	"fmt"

	"github.com/promptcanary/promptcanary/store"
)

var (
	_ store.Exporter   = (*Store)(nil)
	_ store.Identifier = (*Store)(nil)
)

// Identity names the cluster (by its start time and port), the database
// (by name and oid) and the schema the store uses: two DSNs that reach the
// same tables by different host names or users have the same identity.
func (s *Store) Identity(ctx context.Context) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT format('postgres:%s:%s/%s(%s)/%s',
			extract(epoch FROM pg_postmaster_start_time()), COALESCE(inet_server_port(), 0),
			current_database(), (SELECT oid FROM pg_database WHERE datname = current_database()), current_schema())`).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("identify store %q: %w", s.dsn, err)
	}
	return id, nil
}
