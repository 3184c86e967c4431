package scheduler

import (
	"context"
	"time"
)

// minTick is the shortest period of Tick.
const minTick = 250 * time.Millisecond

// jumpSlack is how much later than its period a tick may come before the
// clock is taken to have jumped (or the machine to have slept).
const jumpSlack = 2 * time.Minute

// TickPeriod is the period of Tick for checks whose schedules have
// intervals: a third of the TTL (so heartbeats made on every tick keep
// the leases), a quarter of the shortest interval, at most a minute and
// at least 250ms.
func (s *Scheduler) TickPeriod(intervals []time.Duration) time.Duration {
	period := min(time.Minute, s.ttl/3)
	for _, iv := range intervals {
		period = min(period, iv/4)
	}
	return max(period, minTick)
}

// Tick calls tick every period on the scheduler's clock, from started
// until ctx ends, with the time and whether the clock jumped since the
// last tick (it was set back, or the tick came more than two minutes
// late: the clock jumped forward or the machine slept). After each tick
// it prunes the finished leases (Prune).
func (s *Scheduler) Tick(ctx context.Context, started time.Time, period time.Duration, tick func(now time.Time, jumped bool)) {
	last := started
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.after(period):
		}
		now := s.now()
		jumped := now.Before(last) || now.Sub(last) > period+jumpSlack
		last = now
		tick(now, jumped)
		s.Prune(ctx, now)
	}
}
