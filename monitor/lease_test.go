package monitor

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
)

// leasesOf lists the slot leases of the fixture's check.
func (f *fixture) leasesOf() []store.SlotLease {
	f.t.Helper()
	ls, err := f.store.SlotLeases(context.Background(), "canary", f.spec, 0)
	noErr(f.t, err)
	return ls
}

// The slot of a monitor that died (its lease expired, unfinished) is
// taken over by a live monitor's ticker and run once, to completion; the
// lease records who completed it and from whom it was taken.
func TestDeadMonitorsSlotIsTakenOver(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	cfg := f.config("1h", 1)
	o := f.options()
	o.Owner = "alive"
	m, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	slot := epoch.Add(time.Minute) // 10:00, the first slot
	key := store.SlotKey{Check: "canary", Provider: f.spec, Slot: slot}
	if c, err := f.store.ClaimSlot(context.Background(), key, "dead", slot, 30*time.Second); err != nil || !c.Claimed {
		t.Fatalf("the dead monitor's claim: %+v, %v", c, err)
	}
	f.started(m)
	f.clock.Advance(time.Minute) // 10:00: held by the dead monitor, not run here
	f.idle()
	if runs := f.checkRuns(); len(runs) != 0 {
		t.Fatalf("got runs %+v while the dead monitor's lease holds, want none", runs)
	}
	for range 3 { // the ticker's period is 20s: past the expiry at 10:00:30
		f.clock.Advance(20 * time.Second)
		f.idle()
	}
	eventually(t, "the slot run by the live monitor", func() bool { return len(f.checkRuns()) == 1 })
	f.settled(m)
	runs := f.checkRuns()
	if runs[0].Outcome != promptcanary.CheckClean || !runs[0].Slot.Equal(slot) {
		t.Errorf("got run %+v, want a clean run of the slot 10:00", runs[0])
	}
	ls := f.leasesOf()
	if len(ls) != 1 || ls[0].State != store.LeaseDone || ls[0].Owner != "alive" || ls[0].PreviousOwner != "dead" || ls[0].Takeovers != 1 || ls[0].CheckRunID != runs[0].ID {
		t.Errorf("got leases %+v, want the slot done by alive, taken over from dead", ls)
	}
	if !strings.Contains(f.logs.String(), `"taken_over_from":"dead"`) {
		t.Errorf("the log does not say the slot was taken over from dead")
	}
}

// A monitor whose lease another monitor took over (it was paused, or cut
// from the store, for longer than the TTL) abandons its run and records
// nothing: the slot runs once, on the other monitor.
func TestLostLeaseAbandonsTheRun(t *testing.T) {
	f, m := newOneSample(t, "1h")
	f.blockFirstSlot(m)
	f.idle()
	ls := f.leasesOf()
	if len(ls) != 1 || ls[0].State != store.LeaseRunning || ls[0].Owner != m.schedule.Owner() {
		t.Fatalf("got leases %+v, want the slot held by the monitor", ls)
	}
	// The wall clock jumps past the TTL without a tick (a paused
	// process): another monitor takes the slot over and finishes it.
	f.clock.Jump(f.clock.Now().Add(2 * DefaultLeaseTTL))
	key := ls[0].SlotKey
	c, err := f.store.ClaimSlot(context.Background(), key, "other", f.clock.Now(), time.Hour)
	if err != nil || !c.Claimed || !c.TakenOver {
		t.Fatalf("takeover: %+v, %v", c, err)
	}
	other := &promptcanary.CheckRun{ID: "other-run", Check: key.Check, Provider: key.Provider, Slot: key.Slot, Outcome: promptcanary.CheckClean,
		StartedAt: f.clock.Now(), FinishedAt: f.clock.Now()}
	if err := f.store.FinishSlot(context.Background(), key, "other", f.clock.Now(), other); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(20 * time.Second) // a tick: the heartbeat finds the lease lost
	eventually(t, "the run abandoned", func() bool { return strings.Contains(f.logs.String(), "lease lost") })
	f.settled(m)
	runs := f.checkRuns()
	if len(runs) != 1 || runs[0].ID != "other-run" {
		t.Errorf("got runs %+v, want only the other monitor's", runs)
	}
	if !strings.Contains(f.logs.String(), "check run not recorded: another monitor took the slot over") {
		t.Errorf("the log does not say the run was not recorded")
	}
}

// finishHook is the fixture's store with a hook run inside FinishSlot
// and FinishDelivery, after the store recorded the outcome and before the
// monitor hears of it.
type finishHook struct {
	*sqlite.Store
	after func()
}

func (s *finishHook) FinishSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, cr *promptcanary.CheckRun) error {
	err := s.Store.FinishSlot(ctx, key, owner, now, cr)
	s.after()
	return err
}

func (s *finishHook) FinishDelivery(ctx context.Context, d store.Delivery, owner string) error {
	err := s.Store.FinishDelivery(ctx, d, owner)
	s.after()
	return err
}

// The regression test for a single monitor logging "lease lost" about
// itself: a heartbeat that landed while a run (or a delivery) was being
// recorded, after the store marked it done, extended a finished lease,
// was told it is lost, and blamed another monitor. The hook runs the
// heartbeat at exactly that moment.
func TestHeartbeatAsTheRunFinishes(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		want       promptcanary.CheckOutcome
		deliveries int
	}{
		{name: "clean run", mode: "good", want: promptcanary.CheckClean},
		{name: "drift and its notification", mode: "bad", want: promptcanary.CheckDrift, deliveries: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "")
			f.saveBaseline(10)
			st := &finishHook{Store: f.store}
			o := f.options()
			o.Store = st
			m, err := New(f.config("1h", 5), o)
			if err != nil {
				t.Fatal(err)
			}
			var beats atomic.Int32
			st.after = func() {
				beats.Add(1)
				m.heartbeat(context.Background())
			}
			f.flip.set(tc.mode)
			if cr := f.once(m); cr.Outcome != tc.want {
				t.Fatalf("got outcome %s, want %s", cr.Outcome, tc.want)
			}
			eventually(t, "the deliveries finished", func() bool {
				ds := f.deliveries()
				return len(ds) == tc.deliveries && (len(ds) == 0 || ds[0].State == store.DeliverySent)
			})
			if got := int(beats.Load()); got != 1+tc.deliveries {
				t.Fatalf("the hook ran %d times, want %d", got, 1+tc.deliveries)
			}
			for _, bad := range []string{"lease lost", "not recorded", "another monitor"} {
				if logs := f.logs.String(); strings.Contains(logs, bad) {
					t.Errorf("a lone monitor logs %q:\n%s", bad, logs)
				}
			}
		})
	}
}

// claimAfterRead is the fixture's store with the takeover's claim held
// until a refresh has read the slot leases: the refresh then sees the dead
// monitor's lease still running, as it can when the run's goroutine is
// slow to start on a loaded machine.
type claimAfterRead struct {
	*sqlite.Store
	waiting atomic.Bool
	read    chan struct{}
}

func (s *claimAfterRead) ClaimSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, ttl time.Duration) (store.SlotClaim, error) {
	if owner == "alive" && now.Sub(key.Slot) >= 30*time.Second { // the takeover, not the slot's own claim
		s.waiting.Store(true)
		select {
		case <-s.read:
		case <-ctx.Done():
			return store.SlotClaim{}, ctx.Err()
		}
	}
	return s.Store.ClaimSlot(ctx, key, owner, now, ttl)
}

func (s *claimAfterRead) SlotLeases(ctx context.Context, check, provider string, limit int) ([]store.SlotLease, error) {
	ls, err := s.Store.SlotLeases(ctx, check, provider, limit)
	if s.waiting.CompareAndSwap(true, false) {
		close(s.read)
	}
	return ls, err
}

// released reports whether a refresh has read the leases while the
// takeover's claim was held.
func (s *claimAfterRead) released() bool {
	select {
	case <-s.read:
		return true
	default:
		return false
	}
}

// A refresh that read a slot's lease as in flight on a dead monitor just
// before this monitor took the slot over must not leave the check shown
// as running elsewhere once this monitor has finished it (the check read
// "running" until the next tick, and TestDeadMonitorsSlotIsTakenOver
// flaked on a loaded machine).
func TestTakeoverOutlivesAStaleRefresh(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	st := &claimAfterRead{Store: f.store, read: make(chan struct{})}
	o := f.options()
	o.Owner = "alive"
	o.Store = st
	m, err := New(f.config("1h", 1), o)
	if err != nil {
		t.Fatal(err)
	}
	slot := epoch.Add(time.Minute)
	key := store.SlotKey{Check: "canary", Provider: f.spec, Slot: slot}
	if c, err := f.store.ClaimSlot(context.Background(), key, "dead", slot, 30*time.Second); err != nil || !c.Claimed {
		t.Fatalf("the dead monitor's claim: %+v, %v", c, err)
	}
	f.started(m)
	f.clock.Advance(time.Minute)
	f.idle()
	// Tick until a refresh has read the leases while the takeover's claim
	// waited: the claim may start waiting after any tick's refresh, so a
	// fixed number of ticks could leave it waiting for ever.
	for i := 0; !st.released(); i++ {
		if i == 30 {
			t.Fatal("no refresh read the slot leases while the takeover's claim waited")
		}
		f.clock.Advance(20 * time.Second)
		f.idle()
	}
	eventually(t, "the slot run by the live monitor", func() bool { return len(f.checkRuns()) == 1 })
	f.settled(m)
}
