package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storebench"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// openBench opens a store in a temporary directory for b.
func openBench(b *testing.B) *Store {
	s, err := Open(filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkSaveRun(b *testing.B)      { storebench.SaveRun(b, openBench(b), false) }
func BenchmarkSaveLargeRun(b *testing.B) { storebench.SaveRun(b, openBench(b), true) }
func BenchmarkLoadLargeRun(b *testing.B) { storebench.LoadLargeRun(b, openBench(b)) }
func BenchmarkHistory10k(b *testing.B)   { storebench.History10k(b, openBench(b), nil) }
func BenchmarkMonitor(b *testing.B)      { storebench.Monitor(b, openBench(b), 1, nil) }

func BenchmarkHistory(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	for i := range 2000 {
		r := storetest.NewRun(fmt.Sprintf("run-%04d", i), fmt.Sprintf("suite-%d", i%10), fmt.Sprintf("model-%d", i%3), t0.Add(time.Duration(i)*time.Minute))
		if err := s.SaveRun(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Runs", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Runs(ctx, store.RunFilter{Suite: "suite-3", Model: "model-1", Limit: 50}); err != nil || len(got) != 50 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("ProbeScores", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.ProbeScores(ctx, "suite-3", "model-1", 50); err != nil || len(got) != 100 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
}

// dbSize is the size of the database with its write-ahead log
// checkpointed into it.
func dbSize(tb testing.TB, s *Store) int64 {
	tb.Helper()
	if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		tb.Fatal(err)
	}
	info, err := os.Stat(s.path)
	if err != nil {
		tb.Fatal(err)
	}
	return info.Size()
}

func TestStatisticalRunSize(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	storebench.StatisticalRunSize(t, s, func() int64 { return dbSize(t, s) })
}
