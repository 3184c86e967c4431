package sqlite

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
)

// However many readers at once, the store opens at most MaxConns
// connections (a database, WAL and shared-memory descriptor each) and
// keeps a few idle afterwards.
func TestPoolIsBounded(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if _, err := s.CheckRuns(ctx, "c", "p", 500); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st := s.db.Stats()
	if st.MaxOpenConnections != MaxConns {
		t.Errorf("got at most %d connections, want %d", st.MaxOpenConnections, MaxConns)
	}
	if st.OpenConnections > maxIdleConns {
		t.Errorf("got %d connections kept after the load, want at most %d", st.OpenConnections, maxIdleConns)
	}
}
