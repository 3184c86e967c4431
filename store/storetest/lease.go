package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// FleetStore is a store several monitors can share: the monitor's state,
// slot leases and the outbox of notifications.
type FleetStore interface {
	store.Monitor
	store.Leases
	store.Outbox
}

// RunFleet runs the conformance suite of store.Leases and store.Outbox.
// open must return a new, empty store for each call; RunFleet closes it,
// when it is an io.Closer, as the subtest ends.
func RunFleet(t *testing.T, open func(t *testing.T) FleetStore) {
	t.Helper()
	runSubtests(t, open, []subtest[FleetStore]{
		{"ClaimAndFinish", testClaimAndFinish},
		{"Takeover", testTakeover},
		{"Busy", testBusy},
		{"LeaseListings", testLeaseListings},
		{"InvalidLeases", testInvalidLeases},
		{"ConcurrentClaims", testConcurrentClaims},
		{"RecordStep", testRecordStep},
		{"RecordStepConflict", testRecordStepConflict},
		{"DeliveryLanes", testDeliveryLanes},
		{"DeliveryClaimExpiry", testDeliveryClaimExpiry},
		{"DeliveryRetryLater", testDeliveryRetryLater},
		{"ConcurrentDeliveryClaims", testConcurrentDeliveryClaims},
		{"PruneLeases", testPruneLeases},
	})
}

// key is a slot of the fixtures' check, minutes after t0.
func key(min int) store.SlotKey {
	return store.SlotKey{Check: "checkout-prod", Provider: "openai/gpt-4o-mini", Slot: t0.Add(time.Duration(min) * time.Minute)}
}

// slotRun is the check run of k, with id.
func slotRun(id string, k store.SlotKey) *promptcanary.CheckRun {
	return NewCheckRun(id, k.Check, k.Provider, k.Slot)
}

func mustClaim(t *testing.T, s FleetStore, k store.SlotKey, owner string, now time.Time, ttl time.Duration) store.SlotClaim {
	t.Helper()
	c, err := s.ClaimSlot(context.Background(), k, owner, now, ttl)
	if err != nil {
		t.Fatalf("claim %s for %s: %v", k, owner, err)
	}
	return c
}

func mustLeases(t *testing.T, s FleetStore, check, provider string, n int) []store.SlotLease {
	t.Helper()
	got, err := s.SlotLeases(context.Background(), check, provider, n)
	if err != nil {
		t.Fatalf("slot leases: %v", err)
	}
	return got
}

func testClaimAndFinish(t *testing.T, s FleetStore) {
	ctx := context.Background()
	k := key(0)
	c := mustClaim(t, s, k, "monitor-a", t0, time.Minute)
	want := store.SlotLease{SlotKey: k, State: store.LeaseRunning, Owner: "monitor-a", ClaimedAt: t0, ExpiresAt: t0.Add(time.Minute)}
	if !c.Claimed || c.TakenOver || c.Busy != nil {
		t.Fatalf("first claim: got %+v, want claimed, not taken over, nothing busy", c)
	}
	if diff := cmp.Diff(want, c.Lease); diff != "" {
		t.Errorf("lease (-want +got):\n%s", diff)
	}
	assertUTC(t, "lease", c.Lease.Slot, c.Lease.ClaimedAt, c.Lease.ExpiresAt)

	// Held: another monitor claims nothing and learns the holder, as does
	// the holder itself.
	for _, owner := range []string{"monitor-b", "monitor-a"} {
		c = mustClaim(t, s, k, owner, t0.Add(30*time.Second), time.Minute)
		if c.Claimed || c.TakenOver || c.Lease.Owner != "monitor-a" || c.Lease.State != store.LeaseRunning {
			t.Errorf("claim of a held slot by %s: got %+v, want nothing claimed and monitor-a holding it", owner, c)
		}
	}
	// Only the holder finishes it; a refused finish records nothing.
	err := s.FinishSlot(ctx, k, "monitor-b", t0.Add(40*time.Second), slotRun("cr-b", k))
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("finish by another monitor: got %v, want ErrLeaseLost", err)
	}
	if got := mustCheckRuns(t, s, "", "", 0); len(got) != 0 {
		t.Errorf("after a refused finish: got check runs %v, want none", checkRunIDs(got))
	}
	cr := slotRun("cr-a", k)
	if err := s.FinishSlot(ctx, k, "monitor-a", t0.Add(50*time.Second), cr); err != nil {
		t.Fatalf("finish: %v", err)
	}
	if got := mustCheckRuns(t, s, k.Check, k.Provider, 0); len(got) != 1 || cmp.Diff(*cr, got[0], monitorCmp...) != "" {
		t.Errorf("check runs after finish: got %+v, want %+v", got, *cr)
	}
	want.State, want.CheckRunID, want.FinishedAt = store.LeaseDone, "cr-a", t0.Add(50*time.Second)
	if got := mustLeases(t, s, "", "", 0); len(got) != 1 || cmp.Diff(want, got[0]) != "" {
		t.Errorf("leases after finish: got %+v, want %+v", got, want)
	}
	// A done slot never runs again, expired or not.
	for _, now := range []time.Time{t0.Add(55 * time.Second), t0.Add(time.Hour)} {
		if c := mustClaim(t, s, k, "monitor-b", now, time.Minute); c.Claimed || c.Lease.State != store.LeaseDone || c.Lease.Owner != "monitor-a" {
			t.Errorf("claim of a done slot at %v: got %+v, want nothing claimed, done by monitor-a", now, c)
		}
	}
	if err := s.FinishSlot(ctx, k, "monitor-a", t0.Add(time.Hour), slotRun("cr-again", k)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("second finish: got %v, want ErrLeaseLost", err)
	}
	if err := s.ExtendSlot(ctx, k, "monitor-a", t0.Add(time.Hour)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("extend a done slot: got %v, want ErrLeaseLost", err)
	}
}

func testTakeover(t *testing.T, s FleetStore) {
	ctx := context.Background()
	k := key(0)
	mustClaim(t, s, k, "monitor-a", t0, time.Minute)
	// The heartbeat keeps it: at 90s the lease runs to 2m.
	if err := s.ExtendSlot(ctx, k, "monitor-a", t0.Add(2*time.Minute)); err != nil {
		t.Fatalf("extend: %v", err)
	}
	if err := s.ExtendSlot(ctx, k, "monitor-b", t0.Add(time.Hour)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("extend by another monitor: got %v, want ErrLeaseLost", err)
	}
	if c := mustClaim(t, s, k, "monitor-b", t0.Add(90*time.Second), time.Minute); c.Claimed {
		t.Fatalf("claim of an extended lease: got %+v, want nothing claimed", c)
	}
	if got, err := s.ExpiredSlots(ctx, t0.Add(2*time.Minute), 0); err != nil || len(got) != 0 {
		t.Errorf("expired slots at the expiry itself: got %+v, %v, want none", got, err)
	}
	late := t0.Add(2*time.Minute + time.Nanosecond)
	expired, err := s.ExpiredSlots(ctx, late, 0)
	if err != nil || len(expired) != 1 || expired[0].SlotKey != k || expired[0].Owner != "monitor-a" {
		t.Fatalf("expired slots: got %+v, %v, want the lease of monitor-a", expired, err)
	}
	// The owner died: another monitor takes the slot over.
	c := mustClaim(t, s, k, "monitor-b", late, time.Minute)
	want := store.SlotLease{SlotKey: k, State: store.LeaseRunning, Owner: "monitor-b", ClaimedAt: late, ExpiresAt: late.Add(time.Minute),
		Takeovers: 1, PreviousOwner: "monitor-a"}
	if !c.Claimed || !c.TakenOver || cmp.Diff(want, c.Lease) != "" {
		t.Fatalf("takeover: got %+v, want claimed and taken over, lease %+v", c, want)
	}
	// The old owner, back from a pause, can neither extend nor finish it.
	if err := s.ExtendSlot(ctx, k, "monitor-a", late.Add(time.Hour)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("extend by the old owner: got %v, want ErrLeaseLost", err)
	}
	if err := s.FinishSlot(ctx, k, "monitor-a", late, slotRun("cr-a", k)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("finish by the old owner: got %v, want ErrLeaseLost", err)
	}
	if err := s.FinishSlot(ctx, k, "monitor-b", late.Add(time.Second), slotRun("cr-b", k)); err != nil {
		t.Fatalf("finish by the new owner: %v", err)
	}
	if got := mustCheckRuns(t, s, "", "", 0); !slices.Equal(checkRunIDs(got), []string{"cr-b"}) {
		t.Errorf("check runs: got %v, want only the new owner's cr-b", checkRunIDs(got))
	}
	if got := mustLeases(t, s, k.Check, k.Provider, 0); len(got) != 1 || got[0].Owner != "monitor-b" || got[0].Takeovers != 1 ||
		got[0].PreviousOwner != "monitor-a" || got[0].State != store.LeaseDone {
		t.Errorf("lease: got %+v, want done by monitor-b after one takeover from monitor-a", got)
	}
	if got, err := s.ExpiredSlots(ctx, t0.Add(time.Hour), 0); err != nil || len(got) != 0 {
		t.Errorf("expired slots once done: got %+v, %v, want none", got, err)
	}
}

func testBusy(t *testing.T, s FleetStore) {
	ctx := context.Background()
	mustClaim(t, s, key(0), "monitor-a", t0, time.Minute)
	// Another check's slots are no business of this one.
	other := store.SlotKey{Check: "other", Provider: key(0).Provider, Slot: t0.Add(-time.Minute)}
	mustClaim(t, s, other, "monitor-a", t0, time.Minute)
	c := mustClaim(t, s, key(1), "monitor-b", t0.Add(time.Minute), time.Minute)
	if !c.Claimed || c.Busy == nil || c.Busy.SlotKey != key(0) || c.Busy.Owner != "monitor-a" {
		t.Fatalf("claim while an earlier slot runs: got %+v, want claimed with slot 0 busy", c)
	}
	if err := s.FinishSlot(ctx, key(1), "monitor-b", t0.Add(time.Minute), slotRun("cr-1", key(1))); err != nil {
		t.Fatal(err)
	}
	// An expired lease is still busy: it is to be taken over.
	c = mustClaim(t, s, key(2), "monitor-b", t0.Add(time.Hour), time.Minute)
	if c.Busy == nil || c.Busy.SlotKey != key(0) {
		t.Errorf("claim while an earlier slot's lease expired: got busy %+v, want slot 0", c.Busy)
	}
	if err := s.FinishSlot(ctx, key(0), "monitor-a", t0.Add(time.Hour), slotRun("cr-0", key(0))); err != nil {
		t.Fatal(err)
	}
	if c := mustClaim(t, s, key(3), "monitor-b", t0.Add(time.Hour), time.Minute); c.Busy == nil || c.Busy.SlotKey != key(2) {
		t.Errorf("claim while slot 2 runs: got busy %+v, want slot 2", c.Busy)
	}
	for _, k := range []store.SlotKey{key(2), key(3)} {
		if err := s.FinishSlot(ctx, k, "monitor-b", t0.Add(time.Hour), slotRun(fmt.Sprint("cr-", k.Slot.Minute()), k)); err != nil {
			t.Fatal(err)
		}
	}
	// A later slot running is no business of an earlier one.
	mustClaim(t, s, key(9), "monitor-a", t0.Add(time.Hour), time.Minute)
	if c := mustClaim(t, s, key(4), "monitor-b", t0.Add(time.Hour), time.Minute); !c.Claimed || c.Busy != nil {
		t.Errorf("claim with every earlier slot done: got %+v, want claimed, nothing busy", c)
	}
	// A slot not claimed reports no busy slot, whatever runs.
	if c := mustClaim(t, s, key(4), "monitor-c", t0.Add(time.Hour), time.Minute); c.Claimed || c.Busy != nil {
		t.Errorf("claim of a held slot: got %+v, want nothing claimed and no busy slot", c)
	}
}

func testLeaseListings(t *testing.T, s FleetStore) {
	ctx := context.Background()
	if got, err := s.SlotLeases(ctx, "", "", 0); err != nil || len(got) != 0 {
		t.Errorf("empty store: got %+v, %v, want no leases", got, err)
	}
	for i, k := range []store.SlotKey{key(2), key(0), key(1), {Check: "other", Provider: "p", Slot: t0}} {
		mustClaim(t, s, k, fmt.Sprintf("monitor-%d", i), t0.Add(time.Duration(i)*time.Second), time.Minute)
	}
	slots := func(ls []store.SlotLease) []string {
		var out []string
		for _, l := range ls {
			out = append(out, fmt.Sprintf("%s@%d", l.Check, l.Slot.Sub(t0)/time.Minute))
		}
		return out
	}
	if got := slots(mustLeases(t, s, "checkout-prod", "openai/gpt-4o-mini", 0)); !slices.Equal(got, []string{"checkout-prod@2", "checkout-prod@1", "checkout-prod@0"}) {
		t.Errorf("leases of the check: got %v, want newest slot first", got)
	}
	if got := slots(mustLeases(t, s, "", "", 2)); !slices.Equal(got, []string{"checkout-prod@2", "checkout-prod@1"}) {
		t.Errorf("newest 2 leases: got %v", got)
	}
	if got := slots(mustLeases(t, s, "", "p", 0)); !slices.Equal(got, []string{"other@0"}) {
		t.Errorf("leases of provider p: got %v", got)
	}
	if got := mustLeases(t, s, "nope", "", 0); len(got) != 0 {
		t.Errorf("leases of an unknown check: got %v", slots(got))
	}
	expired, err := s.ExpiredSlots(ctx, t0.Add(time.Hour), 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := slots(expired); !slices.Equal(got, []string{"checkout-prod@0", "other@0"}) {
		t.Errorf("2 expired slots: got %v, want the oldest slots first", got)
	}
}

func testInvalidLeases(t *testing.T, s FleetStore) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		k     store.SlotKey
		owner string
	}{
		{"no owner", key(0), ""},
		{"no check", store.SlotKey{Provider: "p", Slot: t0}, "monitor-a"},
		{"no slot", store.SlotKey{Check: "c", Provider: "p"}, "monitor-a"},
	} {
		if _, err := s.ClaimSlot(ctx, tc.k, tc.owner, t0, time.Minute); err == nil {
			t.Errorf("claim with %s: got no error", tc.name)
		}
	}
	mustClaim(t, s, key(0), "monitor-a", t0, time.Minute)
	// A check run of another slot does not finish this one.
	if err := s.FinishSlot(ctx, key(0), "monitor-a", t0, slotRun("cr-1", key(1))); err == nil || errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("finish with another slot's run: got %v, want a plain error", err)
	}
	bad := slotRun("bad id!", key(0))
	if err := s.FinishSlot(ctx, key(0), "monitor-a", t0, bad); err == nil {
		t.Errorf("finish with an invalid check run id: got no error")
	}
	if got := mustLeases(t, s, "", "", 0); len(got) != 1 || got[0].State != store.LeaseRunning {
		t.Errorf("after refused finishes: got %+v, want the lease still running", got)
	}
	if got := mustCheckRuns(t, s, "", "", 0); len(got) != 0 {
		t.Errorf("after refused finishes: got check runs %v", checkRunIDs(got))
	}
	if err := s.FinishDelivery(ctx, store.Delivery{ID: "d", State: "lost"}, "monitor-a"); err == nil {
		t.Errorf("finish a delivery in an unknown state: got no error")
	}
	if _, err := s.ClaimDeliveries(ctx, "", []string{"hook"}, t0, time.Minute, 0); err == nil {
		t.Errorf("claim deliveries without an owner: got no error")
	}
	if err := s.RecordStep(ctx, store.IncidentStep{Incident: NewIncident("inc", "fp", t0), Event: promptcanary.IncidentEvent{IncidentID: "other"}}); err == nil {
		t.Errorf("record a step whose event is of another incident: got no error")
	}
}

// testConcurrentClaims has monitors race for one free slot, then for one
// expired slot: each time exactly one claims it.
func testConcurrentClaims(t *testing.T, s FleetStore) {
	const monitors = 8
	race := func(k store.SlotKey, now time.Time) []string {
		var (
			mu  sync.Mutex
			won []string
			wg  sync.WaitGroup
		)
		for i := range monitors {
			wg.Go(func() {
				owner := fmt.Sprintf("monitor-%d", i)
				c, err := s.ClaimSlot(context.Background(), k, owner, now, time.Minute)
				if err != nil {
					t.Errorf("%s: %v", owner, err)
					return
				}
				if c.Claimed {
					mu.Lock()
					won = append(won, owner)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return won
	}
	won := race(key(0), t0)
	if len(won) != 1 {
		t.Fatalf("free slot: got %v claiming it, want exactly one", won)
	}
	again := race(key(0), t0.Add(2*time.Minute))
	if len(again) != 1 {
		t.Fatalf("expired slot: got %v taking it over, want exactly one", again)
	}
	l := mustLeases(t, s, "", "", 0)
	if len(l) != 1 || l[0].Owner != again[0] || l[0].PreviousOwner != won[0] || l[0].Takeovers != 1 {
		t.Errorf("lease: got %+v, want held by %s, taken over from %s", l, again[0], won[0])
	}
}

// step returns an incident step with deliveries to notifiers, created at
// at.
func step(inc *promptcanary.Incident, ev promptcanary.IncidentEventType, status promptcanary.NotificationStatus, at time.Time, notifiers ...string) store.IncidentStep {
	s := store.IncidentStep{Incident: inc, Event: promptcanary.IncidentEvent{IncidentID: inc.ID, At: at, Type: ev, RunID: inc.RunID, Severity: inc.Severity, Summary: inc.Summary}}
	for _, n := range notifiers {
		s.Deliveries = append(s.Deliveries, store.Delivery{ID: fmt.Sprintf("d-%s-%s-%s", inc.ID, ev, n), IncidentID: inc.ID, Notifier: n,
			Status: status, Event: ev, CreatedAt: at})
	}
	return s
}

func mustRecordStep(t *testing.T, s FleetStore, st store.IncidentStep) {
	t.Helper()
	if err := s.RecordStep(context.Background(), st); err != nil {
		t.Fatalf("record step %s of %s: %v", st.Event.Type, st.Incident.ID, err)
	}
}

func mustClaimDeliveries(t *testing.T, s FleetStore, owner string, notifiers []string, now time.Time, n int) []store.Delivery {
	t.Helper()
	got, err := s.ClaimDeliveries(context.Background(), owner, notifiers, now, time.Minute, n)
	if err != nil {
		t.Fatalf("claim deliveries for %s: %v", owner, err)
	}
	return got
}

func deliveryIDs(ds []store.Delivery) []string {
	return ids(ds, func(d store.Delivery) string { return d.ID })
}

func testRecordStep(t *testing.T, s FleetStore) {
	ctx := context.Background()
	inc := NewIncident("inc-a", "fp-a", t0)
	inc.Units[1].Q = math.NaN()
	mustRecordStep(t, s, step(inc, promptcanary.EventOpened, promptcanary.NotificationFiring, t0, "oncall", "pager"))
	got, err := s.Incident(ctx, "inc-a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*inc, *got, monitorCmp...); diff != "" {
		t.Errorf("incident (-want +got):\n%s", diff)
	}
	events, err := s.IncidentEvents(ctx, "inc-a")
	if err != nil || len(events) != 1 || events[0].Type != promptcanary.EventOpened || !events[0].At.Equal(t0) || events[0].Summary != inc.Summary {
		t.Errorf("events: got %+v, %v, want the opened event", events, err)
	}
	ds, err := s.Deliveries(ctx, "inc-a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := deliveryIDs(ds); !slices.Equal(got, []string{"d-inc-a-opened-oncall", "d-inc-a-opened-pager"}) {
		t.Fatalf("deliveries: got %v, want one per notifier in order", got)
	}
	want := store.Delivery{ID: "d-inc-a-opened-oncall", IncidentID: "inc-a", Notifier: "oncall", Status: promptcanary.NotificationFiring,
		Event: promptcanary.EventOpened, Incident: *inc, State: store.DeliveryPending, CreatedAt: t0, NextAttemptAt: t0}
	if diff := cmp.Diff(want, ds[0], monitorCmp...); diff != "" {
		t.Errorf("delivery (-want +got):\n%s", diff)
	}
	assertUTC(t, "delivery", ds[0].CreatedAt, ds[0].NextAttemptAt, ds[0].Incident.OpenedAt)

	// A later step changes the incident; the first deliveries keep the
	// incident as it was.
	inc.Severity, inc.Summary = promptcanary.SeverityCritical, "worse"
	mustRecordStep(t, s, step(inc, promptcanary.EventUpdated, promptcanary.NotificationFiring, t0.Add(time.Hour), "oncall"))
	ds, err = s.Deliveries(ctx, "", 0)
	if err != nil || len(ds) != 3 {
		t.Fatalf("deliveries: got %v, %v, want 3", deliveryIDs(ds), err)
	}
	if ds[0].Incident.Severity != promptcanary.SeverityHigh || ds[2].Incident.Severity != promptcanary.SeverityCritical || ds[2].Incident.Summary != "worse" {
		t.Errorf("snapshots: got %s then %s %q, want high then critical", ds[0].Incident.Severity, ds[2].Incident.Severity, ds[2].Incident.Summary)
	}
	if ds, err := s.Deliveries(ctx, "", 1); err != nil || !slices.Equal(deliveryIDs(ds), []string{"d-inc-a-updated-oncall"}) {
		t.Errorf("newest delivery: got %v, %v", deliveryIDs(ds), err)
	}
	if got, err := s.Incident(ctx, "inc-a"); err != nil || got.Severity != promptcanary.SeverityCritical {
		t.Errorf("incident after the update: got %+v, %v, want critical", got, err)
	}
	// A step without deliveries records the incident and the event.
	inc.ResolvedAt = t0.Add(2 * time.Hour)
	mustRecordStep(t, s, step(inc, promptcanary.EventResolved, promptcanary.NotificationResolved, inc.ResolvedAt))
	if got, err := s.Incident(ctx, "inc-a"); err != nil || got.Open() {
		t.Errorf("incident after the resolve: got %+v, %v, want it resolved", got, err)
	}
	if events, err := s.IncidentEvents(ctx, "inc-a"); err != nil || len(events) != 3 {
		t.Errorf("events: got %d, %v, want 3", len(events), err)
	}
}

func testRecordStepConflict(t *testing.T, s FleetStore) {
	ctx := context.Background()
	mustRecordStep(t, s, step(NewIncident("inc-first", "fp", t0), promptcanary.EventOpened, promptcanary.NotificationFiring, t0, "oncall"))
	err := s.RecordStep(ctx, step(NewIncident("inc-second", "fp", t0), promptcanary.EventOpened, promptcanary.NotificationFiring, t0, "oncall"))
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second open of the fingerprint: got %v, want ErrConflict", err)
	}
	if _, err := s.Incident(ctx, "inc-second"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("refused incident: got %v, want ErrNotFound", err)
	}
	if ds, err := s.Deliveries(ctx, "", 0); err != nil || !slices.Equal(deliveryIDs(ds), []string{"d-inc-first-opened-oncall"}) {
		t.Errorf("deliveries: got %v, %v, want only the first's", deliveryIDs(ds), err)
	}
	if events, err := s.IncidentEvents(ctx, "inc-second"); err != nil || len(events) != 0 {
		t.Errorf("events of the refused incident: got %+v, %v", events, err)
	}
}

func testDeliveryLanes(t *testing.T, s FleetStore) {
	ctx := context.Background()
	inc := NewIncident("inc-a", "fp-a", t0)
	mustRecordStep(t, s, step(inc, promptcanary.EventOpened, promptcanary.NotificationFiring, t0, "oncall", "pager"))
	inc.ResolvedAt = t0.Add(time.Minute)
	mustRecordStep(t, s, step(inc, promptcanary.EventResolved, promptcanary.NotificationResolved, t0.Add(time.Minute), "oncall", "pager"))
	other := NewIncident("inc-b", "fp-b", t0)
	mustRecordStep(t, s, step(other, promptcanary.EventOpened, promptcanary.NotificationFiring, t0.Add(2*time.Minute), "oncall"))

	// Not due yet: nothing.
	if got := mustClaimDeliveries(t, s, "monitor-a", []string{"oncall", "pager"}, t0.Add(-time.Second), 0); len(got) != 0 {
		t.Errorf("before they are due: got %v", deliveryIDs(got))
	}
	// A monitor without the notifier claims none of its deliveries.
	if got := mustClaimDeliveries(t, s, "monitor-x", []string{"slack"}, t0.Add(time.Hour), 0); len(got) != 0 {
		t.Errorf("for another notifier: got %v", deliveryIDs(got))
	}
	now := t0.Add(5 * time.Minute)
	got := mustClaimDeliveries(t, s, "monitor-a", []string{"oncall"}, now, 0)
	if ids := deliveryIDs(got); !slices.Equal(ids, []string{"d-inc-a-opened-oncall", "d-inc-b-opened-oncall"}) {
		t.Fatalf("claim: got %v, want the heads of the oncall lanes, not the resolve behind the open", ids)
	}
	if got[0].ClaimedBy != "monitor-a" || !got[0].ClaimExpiresAt.Equal(now.Add(time.Minute)) {
		t.Errorf("claimed delivery: got %+v, want claimed by monitor-a for a minute", got[0])
	}
	// Claimed ones are not claimed again, by anyone.
	if got := mustClaimDeliveries(t, s, "monitor-b", []string{"oncall", "pager"}, now, 0); !slices.Equal(deliveryIDs(got), []string{"d-inc-a-opened-pager"}) {
		t.Errorf("second claim: got %v, want only the pager's open", deliveryIDs(got))
	}
	// Once the open is sent, the resolve behind it is due.
	d := got[0]
	d.State, d.Attempts, d.DoneBy, d.DoneAt = store.DeliverySent, 1, "monitor-a", now.Add(time.Second)
	if err := s.FinishDelivery(ctx, d, "monitor-b"); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("finish by a monitor that did not claim it: got %v, want ErrLeaseLost", err)
	}
	if err := s.FinishDelivery(ctx, d, "monitor-a"); err != nil {
		t.Fatalf("finish: %v", err)
	}
	if err := s.FinishDelivery(ctx, d, "monitor-a"); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("second finish: got %v, want ErrLeaseLost", err)
	}
	got = mustClaimDeliveries(t, s, "monitor-b", []string{"oncall", "pager"}, now.Add(2*time.Second), 0)
	if ids := deliveryIDs(got); !slices.Equal(ids, []string{"d-inc-a-resolved-oncall"}) {
		t.Fatalf("after the open was sent: got %v, want the resolve", ids)
	}
	ds, err := s.Deliveries(ctx, "inc-a", 0)
	if err != nil {
		t.Fatal(err)
	}
	sent := ds[0]
	if sent.ID != d.ID || sent.State != store.DeliverySent || sent.Attempts != 1 || sent.DoneBy != "monitor-a" || !sent.DoneAt.Equal(d.DoneAt) ||
		sent.ClaimedBy != "" || !sent.ClaimExpiresAt.IsZero() {
		t.Errorf("sent delivery: got %+v, want sent by monitor-a, claim released", sent)
	}
	// A delivery given up for good unblocks its lane too.
	pager := ds[1]
	if pager.Notifier != "pager" || pager.ClaimedBy != "monitor-b" {
		t.Fatalf("pager's open: got %+v", pager)
	}
	pager.State, pager.Attempts, pager.Rounds, pager.LastError = store.DeliveryFailed, 8, 1, "HTTP 500"
	pager.DoneBy, pager.DoneAt = "monitor-b", now
	if err := s.FinishDelivery(ctx, pager, "monitor-b"); err != nil {
		t.Fatal(err)
	}
	if got := mustClaimDeliveries(t, s, "monitor-c", []string{"pager"}, now, 0); !slices.Equal(deliveryIDs(got), []string{"d-inc-a-resolved-pager"}) {
		t.Errorf("after the pager's open failed: got %v, want its resolve", deliveryIDs(got))
	}
	ds, _ = s.Deliveries(ctx, "inc-a", 0)
	if f := ds[1]; f.State != store.DeliveryFailed || f.LastError != "HTTP 500" || f.Rounds != 1 || f.Attempts != 8 {
		t.Errorf("failed delivery: got %+v", f)
	}
}

func testDeliveryClaimExpiry(t *testing.T, s FleetStore) {
	ctx := context.Background()
	mustRecordStep(t, s, step(NewIncident("inc-a", "fp-a", t0), promptcanary.EventOpened, promptcanary.NotificationFiring, t0, "oncall"))
	got := mustClaimDeliveries(t, s, "monitor-a", []string{"oncall"}, t0, 0)
	if len(got) != 1 {
		t.Fatalf("claim: got %v", deliveryIDs(got))
	}
	id := got[0].ID
	if err := s.ExtendDelivery(ctx, id, "monitor-a", t0.Add(3*time.Minute)); err != nil {
		t.Fatalf("extend: %v", err)
	}
	if err := s.ExtendDelivery(ctx, id, "monitor-b", t0.Add(time.Hour)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("extend by another monitor: got %v, want ErrLeaseLost", err)
	}
	if got := mustClaimDeliveries(t, s, "monitor-b", []string{"oncall"}, t0.Add(2*time.Minute), 0); len(got) != 0 {
		t.Errorf("claim of an extended claim: got %v", deliveryIDs(got))
	}
	// monitor-a died mid-delivery: monitor-b resumes it once its claim
	// expired, with the attempts made so far.
	d := mustClaimDeliveries(t, s, "monitor-b", []string{"oncall"}, t0.Add(4*time.Minute), 0)
	if len(d) != 1 || d[0].ID != id || d[0].ClaimedBy != "monitor-b" {
		t.Fatalf("claim after the expiry: got %+v, want %s claimed by monitor-b", d, id)
	}
	if err := s.ExtendDelivery(ctx, id, "monitor-a", t0.Add(time.Hour)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("extend by the old claimer: got %v, want ErrLeaseLost", err)
	}
	late := d[0]
	late.State, late.DoneBy = store.DeliverySent, "monitor-a"
	if err := s.FinishDelivery(ctx, late, "monitor-a"); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("finish by the old claimer: got %v, want ErrLeaseLost", err)
	}
	if err := s.ExtendDelivery(ctx, "no-such-delivery", "monitor-a", t0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("extend an unknown delivery: got %v, want ErrNotFound", err)
	}
}

func testDeliveryRetryLater(t *testing.T, s FleetStore) {
	ctx := context.Background()
	mustRecordStep(t, s, step(NewIncident("inc-a", "fp-a", t0), promptcanary.EventOpened, promptcanary.NotificationFiring, t0, "oncall"))
	d := mustClaimDeliveries(t, s, "monitor-a", []string{"oncall"}, t0, 0)[0]
	// A round of attempts failed: pending again, due in 5 minutes, claim
	// released.
	d.Attempts, d.Rounds, d.NextAttemptAt, d.LastError = 4, 1, t0.Add(5*time.Minute), "HTTP 503"
	if err := s.FinishDelivery(ctx, d, "monitor-a"); err != nil {
		t.Fatal(err)
	}
	if got := mustClaimDeliveries(t, s, "monitor-b", []string{"oncall"}, t0.Add(4*time.Minute), 0); len(got) != 0 {
		t.Errorf("before it is due again: got %v", deliveryIDs(got))
	}
	got := mustClaimDeliveries(t, s, "monitor-b", []string{"oncall"}, t0.Add(5*time.Minute), 0)
	if len(got) != 1 || got[0].Attempts != 4 || got[0].Rounds != 1 || got[0].LastError != "HTTP 503" || got[0].State != store.DeliveryPending {
		t.Errorf("when due again: got %+v, want it with its attempts and error", got)
	}
}

// testConcurrentDeliveryClaims has monitors claim from one outbox at once:
// every delivery is claimed by exactly one.
func testConcurrentDeliveryClaims(t *testing.T, s FleetStore) {
	const incidents, monitors = 12, 6
	for i := range incidents {
		mustRecordStep(t, s, step(NewIncident(fmt.Sprintf("inc-%02d", i), fmt.Sprintf("fp-%d", i), t0), promptcanary.EventOpened,
			promptcanary.NotificationFiring, t0, "oncall", "pager"))
	}
	var (
		mu     sync.Mutex
		claims = map[string][]string{}
		wg     sync.WaitGroup
	)
	for m := range monitors {
		wg.Go(func() {
			owner := fmt.Sprintf("monitor-%d", m)
			for range 4 {
				got, err := s.ClaimDeliveries(context.Background(), owner, []string{"oncall", "pager"}, t0, time.Minute, 3)
				if err != nil {
					t.Errorf("%s: %v", owner, err)
					return
				}
				mu.Lock()
				for _, d := range got {
					claims[d.ID] = append(claims[d.ID], owner)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(claims) != 2*incidents {
		t.Errorf("got %d deliveries claimed, want %d", len(claims), 2*incidents)
	}
	for id, by := range claims {
		if len(by) != 1 {
			t.Errorf("delivery %s claimed by %v, want one monitor", id, by)
		}
	}
}

func testPruneLeases(t *testing.T, s FleetStore) {
	ctx := context.Background()
	mustClaim(t, s, key(0), "monitor-a", t0, time.Minute)
	if err := s.FinishSlot(ctx, key(0), "monitor-a", t0.Add(time.Minute), slotRun("cr-0", key(0))); err != nil {
		t.Fatal(err)
	}
	mustClaim(t, s, key(1), "monitor-a", t0, time.Minute)              // abandoned, expired at 1m
	mustClaim(t, s, key(2), "monitor-a", t0.Add(time.Hour), time.Hour) // running
	inc := NewIncident("inc-a", "fp-a", t0)
	mustRecordStep(t, s, step(inc, promptcanary.EventOpened, promptcanary.NotificationFiring, t0, "oncall", "pager"))
	d := mustClaimDeliveries(t, s, "monitor-a", []string{"oncall"}, t0, 0)[0]
	d.State, d.DoneBy, d.DoneAt = store.DeliverySent, "monitor-a", t0.Add(time.Minute)
	if err := s.FinishDelivery(ctx, d, "monitor-a"); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneLeases(ctx, t0.Add(10*time.Minute))
	if err != nil || n != 3 {
		t.Errorf("prune: got %d, %v, want 3 rows (a done slot, an abandoned slot, a sent delivery)", n, err)
	}
	if l := mustLeases(t, s, "", "", 0); len(l) != 1 || l[0].SlotKey != key(2) {
		t.Errorf("leases after prune: got %+v, want the running slot 2", l)
	}
	if ds, err := s.Deliveries(ctx, "", 0); err != nil || !slices.Equal(deliveryIDs(ds), []string{"d-inc-a-opened-pager"}) {
		t.Errorf("deliveries after prune: got %v, %v, want the pending one", deliveryIDs(ds), err)
	}
	if got := mustCheckRuns(t, s, "", "", 0); len(got) != 1 {
		t.Errorf("check runs after prune: got %d, want the check run kept", len(got))
	}
	if n, err := s.PruneLeases(ctx, t0.Add(10*time.Minute)); err != nil || n != 0 {
		t.Errorf("second prune: got %d, %v, want 0", n, err)
	}
}
