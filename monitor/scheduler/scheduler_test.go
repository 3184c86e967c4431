package scheduler

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/store"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeLeases is a store.Leases that answers from its fields and counts
// the calls it gets; a method it does not override panics.
type fakeLeases struct {
	store.Leases
	mu      sync.Mutex
	claim   store.SlotClaim
	extend  error
	expired []store.SlotLease
	recent  []store.SlotLease
	pruned  []time.Time // the before of every PruneLeases
}

func (f *fakeLeases) ClaimSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, ttl time.Duration) (store.SlotClaim, error) {
	return f.claim, nil
}

func (f *fakeLeases) ExtendSlot(ctx context.Context, key store.SlotKey, owner string, until time.Time) error {
	return f.extend
}

func (f *fakeLeases) ExpiredSlots(ctx context.Context, now time.Time, limit int) ([]store.SlotLease, error) {
	return f.expired, nil
}

func (f *fakeLeases) SlotLeases(ctx context.Context, check, provider string, limit int) ([]store.SlotLease, error) {
	return f.recent, nil
}

func (f *fakeLeases) PruneLeases(ctx context.Context, before time.Time) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pruned = append(f.pruned, before)
	return 0, nil
}

// newTest returns a scheduler of owner "me" over leases, one run at a
// time, with the clock at *now.
func newTest(leases store.Leases, now *time.Time) *Scheduler {
	return New(Options{
		Leases: leases, Owner: "me", TTL: time.Minute, Concurrency: 1,
		Now: func() time.Time { return *now }, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Wrote: func(err error) error { return err },
	})
}

func lease(owner string, slot time.Duration, state store.LeaseState) store.SlotLease {
	return store.SlotLease{SlotKey: store.SlotKey{Check: "c", Provider: "p", Slot: epoch.Add(slot)}, Owner: owner, State: state}
}

func TestTakeOverLeavesItsOwnLateLeases(t *testing.T) {
	now := epoch
	f := &fakeLeases{expired: []store.SlotLease{lease("me", 0, store.LeaseRunning), lease("dead", time.Hour, store.LeaseRunning)}}
	var got []string
	newTest(f, &now).TakeOver(context.Background(), now, func(l store.SlotLease) { got = append(got, l.Owner) })
	if len(got) != 1 || got[0] != "dead" {
		t.Errorf("taken over: the slots of %v, want only the dead monitor's", got)
	}
}

func TestInFlightElsewhereIsTheEarliestOtherRun(t *testing.T) {
	now := epoch
	f := &fakeLeases{recent: []store.SlotLease{
		lease("me", 0, store.LeaseRunning),
		lease("other", 3*time.Hour, store.LeaseRunning),
		lease("other", time.Hour, store.LeaseDone),
		lease("other", 2*time.Hour, store.LeaseRunning),
	}}
	got, err := newTest(f, &now).InFlightElsewhere(context.Background(), "c", "p", 16)
	if err != nil || !got.Equal(epoch.Add(2*time.Hour)) {
		t.Errorf("InFlightElsewhere = %v, %v; want %v", got, err, epoch.Add(2*time.Hour))
	}
}

func TestPruneAtMostOncePerPeriod(t *testing.T) {
	now := epoch
	f := &fakeLeases{}
	s := newTest(f, &now)
	for _, at := range []time.Duration{0, 30 * time.Minute, PruneEvery, PruneEvery + time.Minute, -time.Hour} {
		s.Prune(context.Background(), epoch.Add(at))
	}
	want := []time.Time{epoch.Add(-LeaseKeep), epoch.Add(PruneEvery - LeaseKeep), epoch.Add(-time.Hour - LeaseKeep)}
	if len(f.pruned) != len(want) {
		t.Fatalf("pruned before %v, want %v (an hour apart, and again when the clock goes back)", f.pruned, want)
	}
	for i := range want {
		if !f.pruned[i].Equal(want[i]) {
			t.Errorf("prune %d: before %v, want %v", i, f.pruned[i], want[i])
		}
	}
}

func TestAcquireBoundsRunsAndStopComesFirst(t *testing.T) {
	now := epoch
	s := newTest(&fakeLeases{}, &now)
	ctx := context.Background()
	if err := s.Acquire(ctx, nil); err != nil {
		t.Fatalf("first Acquire: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := s.Acquire(short, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire beyond the bound: %v, want it to wait until ctx ends", err)
	}
	s.Release()
	stop, stopNow := context.WithCancel(ctx)
	stopNow()
	if err := s.Acquire(ctx, stop); !errors.Is(err, context.Canceled) {
		t.Errorf("Acquire after the stop: %v, want the stop's error though a run slot is free", err)
	}
	if err := s.Acquire(ctx, nil); err != nil {
		t.Errorf("Acquire after Release: %v", err)
	}
}

func TestHeartbeatAbandonsALostLease(t *testing.T) {
	now := epoch
	f := &fakeLeases{claim: store.SlotClaim{Claimed: true}}
	s := newTest(f, &now)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, _, err := s.Claim(ctx, lease("me", 0, "").SlotKey, cancel)
	if err != nil || l == nil {
		t.Fatalf("Claim = %v, %v; want the lease", l, err)
	}
	if until := s.Heartbeat(ctx); !until.Equal(epoch.Add(time.Minute)) || ctx.Err() != nil {
		t.Fatalf("Heartbeat = %v (run cancelled: %v), want the lease extended to %v", until, ctx.Err(), epoch.Add(time.Minute))
	}
	f.extend = store.ErrLeaseLost
	s.Heartbeat(ctx)
	if ctx.Err() == nil {
		t.Error("a heartbeat that found the lease lost did not cancel the run")
	}
}

// every is a schedule of a slot every d.
type every time.Duration

func (e every) Next(after time.Time) time.Time {
	return after.Truncate(time.Duration(e)).Add(time.Duration(e))
}
func (e every) Interval() time.Duration { return time.Duration(e) }

func TestLatestDueCoalescesMissedSlots(t *testing.T) {
	p := Plan{Check: "c", Provider: "p", Schedule: every(time.Hour)}
	for _, tc := range []struct {
		name       string
		now        time.Duration
		want       time.Duration
		wantMissed int
	}{
		{"on time", 30 * time.Minute, 0, 0},
		{"three slots late", 3*time.Hour + time.Minute, 3 * time.Hour, 3},
		// The count after a jump is approximate (-1: not checked).
		{"beyond maxCoalesce jumps to now", 2000 * time.Hour, 2000 * time.Hour, -1},
	} {
		slot, missed := p.latestDue(epoch, epoch.Add(tc.now))
		if !slot.Equal(epoch.Add(tc.want)) || tc.wantMissed >= 0 && missed != tc.wantMissed {
			t.Errorf("%s: latestDue = %v, %d; want %v, %d", tc.name, slot, missed, epoch.Add(tc.want), tc.wantMissed)
		}
	}
}

func TestHeartbeatsBeatUntilStopped(t *testing.T) {
	now := epoch
	s := newTest(&fakeLeases{}, &now)
	s.ttl = 30 * time.Millisecond
	var mu sync.Mutex
	beats := 0
	stop := s.Heartbeats(context.Background(), func(context.Context) {
		mu.Lock()
		beats++
		mu.Unlock()
	})
	time.Sleep(100 * time.Millisecond)
	stop()
	mu.Lock()
	n := beats
	mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if n < 2 || beats != n {
		t.Errorf("%d beats in 100ms at a 30ms TTL, %d after stop: want a beat every 10ms, none after stop", n, beats-n)
	}
}

// twoADay fires at 9:00 and 10:00 UTC: gaps of 1 and 23 hours.
type twoADay struct{}

func (twoADay) Next(after time.Time) time.Time {
	day := after.UTC().Truncate(24 * time.Hour)
	for _, t := range []time.Time{day.Add(9 * time.Hour), day.Add(10 * time.Hour), day.Add(33 * time.Hour)} {
		if t.After(after) {
			return t
		}
	}
	return day.Add(34 * time.Hour)
}
func (twoADay) Interval() time.Duration { return 23 * time.Hour }

// TestDelayKeepsUnevenSlotsInOrder checks that a slot's jitter is a share
// of the gap to the next slot, not of the longest gap: with the largest
// jitter, every 9:00 run still starts before the 10:00 slot.
func TestDelayKeepsUnevenSlotsInOrder(t *testing.T) {
	p := Plan{Check: "c", Provider: "p", Schedule: twoADay{}, Jitter: 0.5}
	longest := time.Duration(0)
	for d := range 200 {
		nine := epoch.Truncate(24 * time.Hour).Add(time.Duration(d)*24*time.Hour + 9*time.Hour)
		delay := p.Delay(nine)
		if delay >= 30*time.Minute {
			t.Fatalf("day %d: the 9:00 slot is delayed %v, past half its one-hour gap", d, delay)
		}
		longest = max(longest, p.Delay(nine.Add(time.Hour)))
	}
	if longest < time.Hour {
		t.Errorf("the 10:00 slots' longest delay is %v: the 23-hour gap should allow more than an hour at 50%%", longest)
	}
}
