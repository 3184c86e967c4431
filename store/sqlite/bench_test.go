package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func BenchmarkSaveRun(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := storetest.NewRun("bench", "s", "m", t0)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.RunID = fmt.Sprintf("bench-%d", i)
		if err := s.SaveRun(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHistory(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
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
