package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
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

func BenchmarkSaveRun(b *testing.B) {
	s := openFresh(b)
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

// BenchmarkHistory10k measures the listings behind the dashboard's charts
// in a history of 10,000 runs (20 suite × model pairs of 500 runs).
func BenchmarkHistory10k(b *testing.B) {
	s := openFresh(b)
	ctx := context.Background()
	start := time.Now()
	const runs = 10000
	for i := range runs {
		r := storetest.NewRun(fmt.Sprintf("run-%05d", i), fmt.Sprintf("suite-%d", i%10), fmt.Sprintf("model-%d", i%20/10), t0.Add(time.Duration(i)*time.Minute))
		if err := s.SaveRun(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	analyze(b, s)
	b.Logf("filled in %v", time.Since(start).Round(time.Millisecond))
	b.Run("ProbeScores50", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.ProbeScores(ctx, "suite-3", "model-1", 50); err != nil || len(got) != 100 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("ProbeScores200", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.ProbeScores(ctx, "suite-3", "model-1", 200); err != nil || len(got) != 400 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("Runs50", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Runs(ctx, store.RunFilter{Suite: "suite-3", Model: "model-1", Limit: 50}); err != nil || len(got) != 50 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("RunsAll50", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Runs(ctx, store.RunFilter{Limit: 50}); err != nil || len(got) != 50 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("Run", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Run(ctx, "run-04321"); err != nil || got.RunID != "run-04321" {
				b.Fatalf("got %v", err)
			}
		}
	})
}

// The shape of a monitor's store after months of hourly runs, as in
// store/sqlite: 10,000 check runs over 20 checks, 2,000 incidents of which
// 20 are open, 10,000 notification attempts.
const (
	benchChecks    = 20
	benchCheckRuns = 10000
	benchIncidents = 2000
	benchAttempts  = 10000
)

// benchCheck names check i and its provider.
func benchCheck(i int) (check, provider string) {
	return fmt.Sprintf("check-%02d", i%benchChecks), fmt.Sprintf("sim/model-%d", i%benchChecks%2)
}

// fillMonitor stores the check runs, incidents and notification attempts
// of a monitor's store through the Monitor methods, eight at a time.
func fillMonitor(b *testing.B, s *Store) {
	b.Helper()
	ctx := context.Background()
	each := func(n int, fn func(i int) error) {
		var g errgroup.Group
		g.SetLimit(8)
		for i := range n {
			g.Go(func() error { return fn(i) })
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	each(benchCheckRuns, func(i int) error {
		check, provider := benchCheck(i)
		return s.SaveCheckRun(ctx, storetest.NewCheckRun(fmt.Sprintf("cr-%05d", i), check, provider, t0.Add(time.Duration(i/benchChecks)*time.Hour)))
	})
	each(benchIncidents, func(i int) error {
		check, provider := benchCheck(i)
		inc := storetest.NewIncident(fmt.Sprintf("inc-%05d", i), fmt.Sprintf("%s/%s/drift/%d", check, provider, i), t0.Add(time.Duration(i)*time.Hour))
		inc.Check, inc.Provider = check, provider
		if i < benchIncidents-20 {
			inc.ResolvedAt = inc.OpenedAt.Add(2 * time.Hour)
		}
		return s.SaveIncident(ctx, inc)
	})
	each(benchAttempts, func(i int) error {
		return s.SaveNotification(ctx, promptcanary.NotificationAttempt{
			ID: fmt.Sprintf("n-%05d", i/2), IncidentID: fmt.Sprintf("inc-%05d", i%benchIncidents), Notifier: "hook",
			Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened, Attempt: 1 + i%2,
			At: t0.Add(time.Duration(i) * time.Minute), OK: i%2 == 1, Code: 200,
		})
	})
}

func BenchmarkMonitor(b *testing.B) {
	s := openFresh(b)
	start := time.Now()
	fillMonitor(b, s)
	analyze(b, s)
	b.Logf("filled in %v", time.Since(start).Round(time.Millisecond))
	ctx := context.Background()
	check, provider := benchCheck(7)
	b.Run("CheckRuns200", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.CheckRuns(ctx, check, provider, 200); err != nil || len(got) != 200 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("CheckRunsLatest", func(b *testing.B) { // the overview: one per check
		for b.Loop() {
			for i := range benchChecks {
				c, p := benchCheck(i)
				if got, err := s.CheckRuns(ctx, c, p, 1); err != nil || len(got) != 1 {
					b.Fatalf("got %d, %v", len(got), err)
				}
			}
		}
	})
	b.Run("CheckRunsAll200", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.CheckRuns(ctx, "", "", 200); err != nil || len(got) != 200 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("OpenIncidents", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Incidents(ctx, store.IncidentFilter{OpenOnly: true}); err != nil || len(got) != 20 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("IncidentsOfCheck50", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Incidents(ctx, store.IncidentFilter{Check: check, Limit: 50}); err != nil || len(got) != 50 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("IncidentByPrefix", func(b *testing.B) { // a full id, as in store/sqlite
		for b.Loop() {
			if got, err := s.Incident(ctx, "inc-01234"); err != nil || got.ID != "inc-01234" {
				b.Fatalf("got %v, %v", got, err)
			}
		}
	})
	b.Run("Notifications50", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Notifications(ctx, "", 50); err != nil || len(got) != 50 {
				b.Fatalf("got %d, %v", len(got), err)
			}
		}
	})
	b.Run("SaveCheckRun", func(b *testing.B) {
		cr := storetest.NewCheckRun("cr-bench", check, provider, t0)
		for i := 0; b.Loop(); i++ {
			cr.ID = fmt.Sprintf("cr-bench-%d", i)
			if err := s.SaveCheckRun(ctx, cr); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("SaveIncident", func(b *testing.B) {
		inc := storetest.NewIncident("inc-bench", "bench/p/drift", t0)
		for i := 0; b.Loop(); i++ { // the same open incident, updated
			inc.CleanRuns = i
			if err := s.SaveIncident(ctx, inc); err != nil {
				b.Fatal(err)
			}
		}
	})
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

// maxStatisticalRun bounds what a run of 200 prompts × 10 probes × 30
// samples adds to the store, as in store/sqlite.
const maxStatisticalRun = 5 << 20

func TestStatisticalRunSize(t *testing.T) {
	if testing.Short() {
		t.Skip("large run")
	}
	t.Parallel()
	s := openFresh(t)
	ctx := context.Background()
	before := relationSize(t, s)
	r := storetest.LargeRun("large-run", 200, 10, 30, 5)
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	run := relationSize(t, s) - before
	if _, err := s.Promote(ctx, r.RunID, ""); err != nil {
		t.Fatal(err)
	}
	withBaseline := relationSize(t, s) - before
	var raw int64
	if err := s.pool.QueryRow(ctx, `SELECT octet_length(body) FROM runs`).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	t.Logf("store size: run %d bytes (its JSON %d bytes before compression), run and its baseline %d bytes", run, raw, withBaseline)
	if run > maxStatisticalRun {
		t.Errorf("run: got %d bytes, want at most %d", run, maxStatisticalRun)
	}
}

func BenchmarkSaveLargeRun(b *testing.B) {
	s := openFresh(b)
	r := storetest.LargeRun("large", 200, 10, 30, 5)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.RunID = fmt.Sprintf("large-%d", i)
		if err := s.SaveRun(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadLargeRun(b *testing.B) {
	s := openFresh(b)
	r := storetest.LargeRun("large", 200, 10, 30, 5)
	ctx := context.Background()
	if err := s.SaveRun(ctx, r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Run(ctx, "large"); err != nil {
			b.Fatal(err)
		}
	}
}
