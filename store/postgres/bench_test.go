package postgres

import (
	"context"
	"testing"

	"github.com/promptcanary/promptcanary/store/storebench"
)

// The benchmarks mirror store/sqlite's, on the same data, so the figures
// of the two backends compare. They run against the database of
// PROMPTCANARY_TEST_POSTGRES, over loopback TCP.

// analyze refreshes the planner's statistics after a fill, as autovacuum
// would a little later.
func analyze(tb testing.TB, s *Store) {
	tb.Helper()
	if _, err := s.pool.Exec(context.Background(), `ANALYZE`); err != nil {
		tb.Fatal(err)
	}
}

func BenchmarkSaveRun(b *testing.B)      { storebench.SaveRun(b, openFresh(b), false) }
func BenchmarkSaveLargeRun(b *testing.B) { storebench.SaveRun(b, openFresh(b), true) }
func BenchmarkLoadLargeRun(b *testing.B) { storebench.LoadLargeRun(b, openFresh(b)) }

func BenchmarkHistory10k(b *testing.B) {
	s := openFresh(b)
	storebench.History10k(b, s, func() { analyze(b, s) })
}

// BenchmarkMonitor fills the store eight writers at a time, as monitors
// sharing it would.
func BenchmarkMonitor(b *testing.B) {
	s := openFresh(b)
	storebench.Monitor(b, s, 8, func() { analyze(b, s) })
}

// relationSize is the size on disk of the store's tables with their
// indexes and TOAST (compressed) data.
func relationSize(tb testing.TB, s *Store) int64 {
	tb.Helper()
	ctx := context.Background()
	if _, err := s.pool.Exec(ctx, `CHECKPOINT`); err != nil {
		tb.Fatal(err)
	}
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint
		FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'`).Scan(&n)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestStatisticalRunSize also logs the size of the run's JSON before
// PostgreSQL compresses it.
func TestStatisticalRunSize(t *testing.T) {
	t.Parallel()
	s := openFresh(t)
	storebench.StatisticalRunSize(t, s, func() int64 { return relationSize(t, s) })
	var raw int64
	if err := s.pool.QueryRow(context.Background(), `SELECT octet_length(body) FROM runs WHERE run_id = 'large-run'`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	t.Logf("the run's JSON before compression: %d bytes", raw)
}
