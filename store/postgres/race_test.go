package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// TestOpenIncidentRaceAcrossStores has two stores (two pools, as two
// monitors would) race to open an incident with the same fingerprint,
// round after round: each round exactly one save wins, and the others get
// store.ErrConflict naming the winner.
func TestOpenIncidentRaceAcrossStores(t *testing.T) {
	t.Parallel()
	dsn := freshDSN(t)
	stores := []*Store{openDSN(t, dsn), openDSN(t, dsn)}
	ctx := context.Background()
	const rounds, perStore = 25, 4
	for round := range rounds {
		fp := fmt.Sprintf("check-%d/openai/drift", round)
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			errs  = make([]error, len(stores)*perStore)
		)
		for i := range errs {
			s := stores[i%len(stores)]
			wg.Go(func() {
				<-start
				errs[i] = s.SaveIncident(ctx, storetest.NewIncident(fmt.Sprintf("inc-%d-%d", round, i), fp, t0))
			})
		}
		close(start)
		wg.Wait()
		var winners []string
		for i, err := range errs {
			if err == nil {
				winners = append(winners, fmt.Sprintf("inc-%d-%d", round, i))
			}
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: got %d incidents opened (%v), want exactly 1", round, len(winners), winners)
		}
		for i, err := range errs {
			if err == nil {
				continue
			}
			if !errors.Is(err, store.ErrConflict) {
				t.Errorf("round %d, writer %d: got %v, want ErrConflict", round, i, err)
			} else if !strings.Contains(err.Error(), fmt.Sprintf("incident %q with fingerprint %q is open", winners[0], fp)) {
				t.Errorf("round %d, writer %d: got %q, want it to name %s", round, i, err, winners[0])
			}
		}
	}
	open, err := stores[0].Incidents(ctx, store.IncidentFilter{OpenOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != rounds {
		t.Errorf("got %d open incidents, want %d", len(open), rounds)
	}
	all, err := stores[1].Incidents(ctx, store.IncidentFilter{})
	if err != nil || len(all) != rounds {
		t.Errorf("got %d incidents stored, %v, want %d (the losers store nothing)", len(all), err, rounds)
	}
}

// TestMigrationRace opens many stores on one empty schema at once, as
// monitors starting together do: all open, and each migration is applied
// once.
func TestMigrationRace(t *testing.T) {
	t.Parallel()
	dsn := freshDSN(t)
	ctx := context.Background()
	const opens = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	stores := make([]*Store, opens)
	errs := make([]error, opens)
	for i := range opens {
		wg.Go(func() {
			<-start
			stores[i], errs[i] = Open(ctx, dsn)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
			continue
		}
		t.Cleanup(func() { stores[i].Close() })
	}
	if t.Failed() {
		return
	}
	ms, err := store.LoadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := stores[0].pool.Query(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != len(ms) || versions[0] != 1 || versions[len(versions)-1] != len(ms) {
		t.Errorf("got migrations %v recorded, want 1 to %d once each", versions, len(ms))
	}
	// Every store works on the one schema.
	for i, s := range stores {
		if err := s.SaveRun(ctx, storetest.NewRun(fmt.Sprintf("run-%d", i), "s", "m", t0)); err != nil {
			t.Errorf("store %d: %v", i, err)
		}
	}
	if runs, err := stores[0].Runs(ctx, store.RunFilter{}); err != nil || len(runs) != opens {
		t.Errorf("got %d runs, %v, want %d", len(runs), err, opens)
	}
}
