package file_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func BenchmarkRuns(b *testing.B) {
	s := mustOpen(b, b.TempDir())
	ctx := context.Background()
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 200 {
		if err := s.SaveRun(ctx, storetest.NewRun(fmt.Sprintf("run-%04d", i), "s", "m", t0.Add(time.Duration(i)*time.Minute))); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if got, err := s.Runs(ctx, store.RunFilter{Limit: 20}); err != nil || len(got) != 20 {
			b.Fatalf("got %d, %v", len(got), err)
		}
	}
}
