package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A store whose sessions are read-only (as on a replica) fails
// CheckWrite; a normal one passes.
func TestCheckWriteReadOnly(t *testing.T) {
	dsn := freshDSN(t)
	s := openDSN(t, dsn)
	ctx := context.Background()
	if err := s.CheckWrite(ctx); err != nil {
		t.Fatalf("writable store: got %v, want nil", err)
	}
	// Open would refuse: its migrations write. The pool alone reads.
	pool, err := pgxpool.New(ctx, withParam(t, dsn, "default_transaction_read_only", "on"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ro := newStore(pool, s.dsn)
	if _, err := ro.SchemaVersion(ctx); err != nil {
		t.Fatalf("read the read-only store: %v", err)
	}
	if err := ro.CheckWrite(ctx); err == nil {
		t.Error("read-only store: CheckWrite got nil, want an error")
	}
}
