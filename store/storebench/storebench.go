// Package storebench holds the benchmarks every SQL store runs on the
// same data, so that the figures of the backends compare: saving and
// loading runs, the listings behind the dashboard in a history of 10,000
// runs, and a monitor's store after months of hourly checks.
package storebench

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

// Store is a store under benchmark: its history and its monitor state.
type Store interface {
	store.Store
	store.Monitor
}

// t0 is the time the benchmarks' histories start at.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// loop runs the benchmark b of fn, which fails with a message.
func loop(b *testing.B, name string, fn func() error) {
	b.Run(name, func(b *testing.B) {
		for b.Loop() {
			if err := fn(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// count returns the error of a listing of got, err that did not hold want
// entries.
func count[T any](got []T, err error, want int) error {
	if err != nil || len(got) != want {
		return fmt.Errorf("got %d, %v, want %d", len(got), err, want)
	}
	return nil
}

// SaveRun measures saving a run of storetest.NewRun, a new id each time;
// with large, a run of 200 prompts × 10 probes × 30 samples.
func SaveRun(b *testing.B, s Store, large bool) {
	r := storetest.NewRun("bench", "s", "m", t0)
	if large {
		r = storetest.LargeRun("large", 200, 10, 30, 5)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.RunID = fmt.Sprintf("bench-%d", i)
		if err := s.SaveRun(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

// LoadLargeRun measures loading a run of 200 prompts × 10 probes × 30
// samples.
func LoadLargeRun(b *testing.B, s Store) {
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

// History10k measures the listings behind the dashboard's charts in a
// history of 10,000 runs (20 suite × model pairs of 500 runs). settle,
// when set, runs once the history is stored (PostgreSQL's ANALYZE).
func History10k(b *testing.B, s Store, settle func()) {
	ctx := context.Background()
	start := time.Now()
	for i := range 10000 {
		r := storetest.NewRun(fmt.Sprintf("run-%05d", i), fmt.Sprintf("suite-%d", i%10), fmt.Sprintf("model-%d", i%20/10), t0.Add(time.Duration(i)*time.Minute))
		if err := s.SaveRun(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	if settle != nil {
		settle()
	}
	b.Logf("filled in %v", time.Since(start).Round(time.Millisecond))
	for _, n := range []int{50, 200} {
		loop(b, fmt.Sprint("ProbeScores", n), func() error {
			got, err := s.ProbeScores(ctx, "suite-3", "model-1", n)
			return count(got, err, 2*n)
		})
	}
	loop(b, "Runs50", func() error {
		got, err := s.Runs(ctx, store.RunFilter{Suite: "suite-3", Model: "model-1", Limit: 50})
		return count(got, err, 50)
	})
	loop(b, "RunsAll50", func() error {
		got, err := s.Runs(ctx, store.RunFilter{Limit: 50})
		return count(got, err, 50)
	})
	loop(b, "Run", func() error {
		_, err := s.Run(ctx, "run-04321")
		return err
	})
}

// The shape of a monitor's store after months of hourly runs: 10,000
// check runs over 20 checks (500 each, about three weeks of hourly slots),
// 2,000 incidents of which 20 are open, 10,000 notification attempts.
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
// of a monitor's store through the Monitor methods, workers at a time.
func fillMonitor(b *testing.B, s Store, workers int) {
	b.Helper()
	ctx := context.Background()
	each := func(n int, fn func(i int) error) {
		var g errgroup.Group
		g.SetLimit(workers)
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

// Monitor measures the listings of the monitor's dashboard and its writes
// in a monitor's store, filled by workers at a time. settle, when set,
// runs once the store is filled.
func Monitor(b *testing.B, s Store, workers int, settle func()) {
	start := time.Now()
	fillMonitor(b, s, workers)
	if settle != nil {
		settle()
	}
	b.Logf("filled in %v", time.Since(start).Round(time.Millisecond))
	ctx := context.Background()
	check, provider := benchCheck(7)
	loop(b, "CheckRuns200", func() error {
		got, err := s.CheckRuns(ctx, check, provider, 200)
		return count(got, err, 200)
	})
	loop(b, "CheckRunsLatest", func() error { // the overview: one per check
		for i := range benchChecks {
			c, p := benchCheck(i)
			if got, err := s.CheckRuns(ctx, c, p, 1); count(got, err, 1) != nil {
				return count(got, err, 1)
			}
		}
		return nil
	})
	monitorListings(b, s, check)
	cr := storetest.NewCheckRun("cr-bench", check, provider, t0)
	i := 0
	loop(b, "SaveCheckRun", func() error {
		i++
		cr.ID = fmt.Sprintf("cr-bench-%d", i)
		return s.SaveCheckRun(ctx, cr)
	})
	inc := storetest.NewIncident("inc-bench", "bench/p/drift", t0)
	loop(b, "SaveIncident", func() error { // the same open incident, updated
		inc.CleanRuns++
		return s.SaveIncident(ctx, inc)
	})
}

// monitorListings measures the listings of Monitor but those of a check's
// runs.
func monitorListings(b *testing.B, s Store, check string) {
	ctx := context.Background()
	loop(b, "CheckRunsAll200", func() error {
		got, err := s.CheckRuns(ctx, "", "", 200)
		return count(got, err, 200)
	})
	loop(b, "OpenIncidents", func() error {
		got, err := s.Incidents(ctx, store.IncidentFilter{OpenOnly: true})
		return count(got, err, 20)
	})
	loop(b, "IncidentsOfCheck50", func() error {
		got, err := s.Incidents(ctx, store.IncidentFilter{Check: check, Limit: 50})
		return count(got, err, 50)
	})
	loop(b, "IncidentByPrefix", func() error { // a full id
		_, err := s.Incident(ctx, "inc-01234")
		return err
	})
	loop(b, "Notifications50", func() error {
		got, err := s.Notifications(ctx, "", 50)
		return count(got, err, 50)
	})
}

// MaxStatisticalRun bounds what a run of 200 prompts × 10 probes × 30
// samples adds to a store.
const MaxStatisticalRun = 5 << 20

// StatisticalRunSize checks that a run of 200 prompts × 10 probes × 30
// samples adds at most MaxStatisticalRun to s, whose size on disk size
// returns, and logs what its baseline adds.
func StatisticalRunSize(t *testing.T, s Store, size func() int64) {
	if testing.Short() {
		t.Skip("large run")
	}
	ctx := context.Background()
	before := size()
	r := storetest.LargeRun("large-run", 200, 10, 30, 5)
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	run := size() - before
	if _, err := s.Promote(ctx, r.RunID, ""); err != nil {
		t.Fatal(err)
	}
	t.Logf("store size: run %d bytes, run and its baseline %d bytes", run, size()-before)
	if run > MaxStatisticalRun {
		t.Errorf("run: got %d bytes, want at most %d", run, MaxStatisticalRun)
	}
}
