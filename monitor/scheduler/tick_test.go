package scheduler

import (
	"context"
	"testing"
	"time"
)

func TestTickPeriod(t *testing.T) {
	now := epoch
	s := newTest(&fakeLeases{}, &now) // TTL one minute
	for _, tc := range []struct {
		name      string
		intervals []time.Duration
		want      time.Duration
	}{
		{"a third of the TTL", []time.Duration{time.Hour}, 20 * time.Second},
		{"a quarter of the shortest interval", []time.Duration{time.Hour, 40 * time.Second}, 10 * time.Second},
		{"at least 250ms", []time.Duration{time.Second}, 250 * time.Millisecond},
		{"no check", nil, 20 * time.Second},
	} {
		if got := s.TickPeriod(tc.intervals); got != tc.want {
			t.Errorf("%s: TickPeriod = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Tick ticks once per period on the scheduler's clock, says when the
// clock jumped (set back, or a tick more than two minutes late), prunes
// after each tick and stops with its context.
func TestTickNoticesClockJumps(t *testing.T) {
	now := epoch
	f := &fakeLeases{}
	s := newTest(f, &now)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Each wait moves the clock on by the next step: on time, late by
	// more than two minutes, then set back.
	steps := []time.Duration{10 * time.Second, 10*time.Second + 2*time.Minute + time.Second, -time.Hour, 10 * time.Second}
	var waits []time.Duration
	s.after = func(d time.Duration) <-chan time.Time {
		waits = append(waits, d)
		c := make(chan time.Time, 1)
		if len(waits) > len(steps) {
			cancel()
			return c
		}
		now = now.Add(steps[len(waits)-1])
		c <- now
		return c
	}
	var jumps []bool
	s.Tick(ctx, epoch, 10*time.Second, func(at time.Time, jumped bool) {
		if !at.Equal(now) {
			t.Errorf("tick at %v, want the clock's %v", at, now)
		}
		jumps = append(jumps, jumped)
	})
	if want := []bool{false, true, true, false}; len(jumps) != len(want) || jumps[0] || !jumps[1] || !jumps[2] || jumps[3] {
		t.Errorf("jumped = %v, want %v", jumps, want)
	}
	for _, w := range waits {
		if w != 10*time.Second {
			t.Errorf("waited %v, want the period", w)
		}
	}
	if len(f.pruned) != 2 {
		// The first tick prunes, the next within PruneEvery do not; the
		// clock set back an hour makes pruning due again.
		t.Errorf("pruned %d times, want 2", len(f.pruned))
	}
}
