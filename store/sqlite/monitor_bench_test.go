package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

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
// of a monitor's store, through the Monitor methods.
func fillMonitor(b *testing.B, s *Store) {
	b.Helper()
	ctx := context.Background()
	for i := range benchCheckRuns {
		check, provider := benchCheck(i)
		cr := storetest.NewCheckRun(fmt.Sprintf("cr-%05d", i), check, provider, t0.Add(time.Duration(i/benchChecks)*time.Hour))
		if err := s.SaveCheckRun(ctx, cr); err != nil {
			b.Fatal(err)
		}
	}
	for i := range benchIncidents {
		check, provider := benchCheck(i)
		inc := storetest.NewIncident(fmt.Sprintf("inc-%05d", i), fmt.Sprintf("%s/%s/drift/%d", check, provider, i), t0.Add(time.Duration(i)*time.Hour))
		inc.Check, inc.Provider = check, provider
		if i < benchIncidents-20 {
			inc.ResolvedAt = inc.OpenedAt.Add(2 * time.Hour)
		}
		if err := s.SaveIncident(ctx, inc); err != nil {
			b.Fatal(err)
		}
	}
	for i := range benchAttempts {
		a := promptcanary.NotificationAttempt{
			ID: fmt.Sprintf("n-%05d", i/2), IncidentID: fmt.Sprintf("inc-%05d", i%benchIncidents), Notifier: "hook",
			Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened, Attempt: 1 + i%2,
			At: t0.Add(time.Duration(i) * time.Minute), OK: i%2 == 1, Code: 200,
		}
		if err := s.SaveNotification(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMonitor(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	fillMonitor(b, s)
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
	b.Run("IncidentByPrefix", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Incident(ctx, "inc-01234"); err != nil || got.ID != "inc-01234" {
				b.Fatalf("got %v", err)
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

// BenchmarkHistory10k measures the listings behind the dashboard's charts
// in a history of 10,000 runs (20 suite × model pairs of 500 runs).
func BenchmarkHistory10k(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "history.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	start := time.Now()
	const runs = 10000
	for i := range runs {
		r := storetest.NewRun(fmt.Sprintf("run-%05d", i), fmt.Sprintf("suite-%d", i%10), fmt.Sprintf("model-%d", i%20/10), t0.Add(time.Duration(i)*time.Minute))
		if err := s.SaveRun(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
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
}
