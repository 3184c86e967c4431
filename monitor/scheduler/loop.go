package scheduler

import (
	"context"
	"time"
)

// MaxSleep is the longest Loop sleeps before it looks at the clock again,
// so that a jump of the wall clock (or a machine waking from sleep) is
// noticed within it.
var MaxSleep = time.Minute

// maxCoalesce bounds the missed slots Loop steps through one by one after
// a long gap; beyond it, it jumps.
const maxCoalesce = 1000

// logMissed is the key of the slots a coalesced run stands for.
const logMissed = "missed_slots"

// Schedule is when the slots of a check are (config.Schedule).
type Schedule interface {
	// Next returns the first slot strictly after after.
	Next(after time.Time) time.Time
	// Interval is the longest gap between two slots.
	Interval() time.Duration
}

// Plan is the schedule of one check and provider, as Loop follows it.
type Plan struct {
	Check, Provider string
	Schedule        Schedule
	// Jitter is the fraction of the interval a slot's run may be delayed
	// by (see Jitter).
	Jitter float64
	// Next, when not nil, is told every fire time Loop waits for.
	Next func(fire time.Time)
}

// Delay is the jitter of slot: how long after it its run starts, a share
// of the gap to the slot after it (for an even schedule, the interval).
// The gap, not the longest interval: with cron "0 9,10 * * *" a 9:00 run
// delayed by a share of the 23-hour gap could start after the 10:00 one.
func (p *Plan) Delay(slot time.Time) time.Duration {
	gap := p.Schedule.Interval()
	if next := p.Schedule.Next(slot); next.After(slot) {
		gap = next.Sub(slot)
	}
	return Jitter(p.Check, p.Provider, p.Jitter, gap, slot)
}

// fire returns when slot's run starts, and tells p.Next.
func (p *Plan) fire(slot time.Time) time.Time {
	f := slot.Add(p.Delay(slot))
	if p.Next != nil {
		p.Next(f)
	}
	return f
}

// horizon is the furthest a slot's fire time can be from any moment: an
// interval (the longest gap between slots) and the largest jitter.
func (p *Plan) horizon() time.Duration {
	iv := p.Schedule.Interval()
	return iv + time.Duration(max(p.Jitter, 0)*float64(iv)) + time.Second
}

// Loop follows p until ctx ends: it sleeps until the next slot (plus its
// jitter), coalesces every slot missed meanwhile (after a clock jump or a
// long sleep) into one, and calls dispatch with it, which starts the
// slot's run without waiting for it. When the clock is set back, it goes
// on from the new time.
func (s *Scheduler) Loop(ctx context.Context, p Plan, dispatch func(slot time.Time)) {
	slot := p.Schedule.Next(s.now())
	for {
		var ok bool
		if slot, ok = s.sleep(ctx, &p, slot); !ok {
			return
		}
		var missed int
		slot, missed = p.latestDue(slot, s.now())
		if missed > 0 {
			s.log.Warn("missed slots coalesced into one run (clock jump or long sleep)", logCheck, p.Check, logProvider, p.Provider,
				logMissed, missed, logSlot, slot)
		}
		dispatch(slot)
		slot = p.Schedule.Next(slot)
	}
}

// sleep waits until the fire time of slot and returns the slot; after
// the clock was set back, the first slot from the new time. False when
// ctx ended first.
func (s *Scheduler) sleep(ctx context.Context, p *Plan, slot time.Time) (time.Time, bool) {
	fire := p.fire(slot)
	for {
		now := s.now()
		if !now.Before(fire) {
			break
		}
		if fire.Sub(now) > p.horizon() {
			// The clock was set back: the slot is further away than any
			// slot can be; go on from the new time.
			s.log.Warn("the clock was set back: the schedule goes on from now", logCheck, p.Check, logProvider, p.Provider, logSlot, slot)
			slot = p.Schedule.Next(now)
			fire = p.fire(slot)
			continue
		}
		select {
		case <-ctx.Done():
			return slot, false
		case <-s.after(min(fire.Sub(now), MaxSleep)):
		}
	}
	return slot, ctx.Err() == nil
}

// latestDue returns the latest slot from slot on whose fire time has
// passed at now, and how many slots it skipped.
func (p *Plan) latestDue(slot, now time.Time) (time.Time, int) {
	missed := 0
	if iv := p.Schedule.Interval(); iv > 0 && now.Sub(slot) > maxCoalesce*iv {
		missed = int(now.Sub(slot) / iv)
		slot = p.Schedule.Next(now.Add(-2 * iv))
	}
	for {
		n := p.Schedule.Next(slot)
		if !n.After(slot) || n.Add(p.Delay(n)).After(now) {
			return slot, missed
		}
		slot = n
		missed++
	}
}
