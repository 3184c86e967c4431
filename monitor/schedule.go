package monitor

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/monitor/scheduler"
)

// plan is e's schedule as the scheduler follows it; the fire time it
// waits for is e's next run.
func plan(e *entry) scheduler.Plan {
	return scheduler.Plan{
		Check: e.c.Name, Provider: e.c.Provider, Schedule: e.c.Schedule, Jitter: e.c.Jitter,
		Next: func(fire time.Time) {
			e.mu.Lock()
			e.next = fire
			e.mu.Unlock()
		},
	}
}

// dispatch starts the run of e for slot, or records it as skipped when a
// run of e is still in flight: one check never runs twice at once. Of
// monitors sharing the store, the one that claims the slot's lease runs
// it (or records it skipped); the others do nothing with it. The loop
// never waits for the store.
func (m *Monitor) dispatch(ctx context.Context, e *entry, slot time.Time) {
	if !e.claim(slot) {
		e.mu.Lock()
		busy := e.runningSlot
		e.mu.Unlock()
		reason := fmt.Sprintf("the run of the slot %s is still in flight", busy.UTC().Format(time.RFC3339))
		m.runs.Go(func() { m.skipSlot(m.runCtx, e, slot, reason) })
		return
	}
	m.start(ctx, e, slot, true)
}

// start runs e's slot, which the caller claimed (entry.claim), among the
// runs in flight once a run slot is free, and releases e. When stop (the
// schedule's context) ends first, the run is not started, and recorded
// as skipped if recordStopped.
func (m *Monitor) start(stop context.Context, e *entry, slot time.Time, recordStopped bool) {
	m.runs.Go(func() {
		defer e.release()
		rctx := m.runCtx
		if err := m.schedule.Acquire(rctx, stop); err != nil {
			if recordStopped {
				m.skipSlot(rctx, e, slot, "the monitor stopped before the run could start")
			}
			return
		}
		defer m.schedule.Release()
		m.runSlot(rctx, e, slot)
	})
}

// stopping returns a channel closed once Stop stops scheduling; nil
// (never closed) for a monitor that was not started, as in Once, whose
// caller's context says when to stop.
func (m *Monitor) stopping() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.schedCtx == nil {
		return nil
	}
	return m.schedCtx.Done()
}

// watch evaluates the rules that do not wait for a run, on every tick of
// the scheduler until ctx ends: staleness (no measured run for twice the
// interval) and the end of the budget's day. Staleness counts from the
// start at the earliest, and from the last jump of the clock (or wake from
// sleep): after one, every check gets twice its interval to complete
// again before it is called stale. Each tick is also the heartbeat of the
// leases and claims this monitor holds, takes over the slots of monitors
// that died, reads back what other monitors sharing the store did, and
// wakes the outbox for the notifications due again.
func (m *Monitor) watch(ctx context.Context, started time.Time) {
	intervals := make([]time.Duration, len(m.entries))
	for i, e := range m.entries {
		intervals[i] = e.c.Schedule.Interval()
	}
	since, probed := started, started
	m.schedule.Tick(ctx, started, m.schedule.TickPeriod(intervals), func(now time.Time, jumped bool) {
		if jumped {
			m.log.Warn("the clock jumped (or the machine slept): staleness counts from now", logSlot, now)
			since = now
			m.mu.Lock()
			m.staleFrom = now
			m.mu.Unlock()
		}
		if now.Sub(probed) >= probeEvery || now.Before(probed) {
			probed = now
			_ = m.probeStore(ctx)
		}
		m.heartbeat(ctx)
		m.takeOver(ctx, now)
		m.refresh(ctx, now)
		m.incidents.ReadBack(ctx)
		m.incidents.BudgetDay(ctx, now)
		if m.health.failure() == nil {
			// When the store is why nothing is measured, /readyz,
			// store_up and the log say so; an incident could not be
			// recorded anyway.
			m.incidents.Stale(ctx, now, func() []incident.Stale { return staleChecks(m.entries, now, since) })
		}
		m.outbox.Wake()
	})
}

// stale reports whether e has not completed a measured run for twice its
// interval, counted from since (the start of the monitor) at the earliest,
// and since when. A run in flight, here or on another monitor sharing the
// store, counts from its slot: a run that takes a little longer than the
// interval (a drift and its confirmation, a slow provider) is not stale,
// one that hangs for twice the interval is; inFlight says that the time
// counts from the run in flight.
func (e *entry) stale(now, since time.Time) (stale bool, ref time.Time, inFlight bool) {
	ref = e.track.LastSuccess()
	e.mu.Lock()
	if e.running && e.runningSlot.After(ref) {
		ref, inFlight = e.runningSlot, true
	}
	if !e.remote.IsZero() && e.remote.After(ref) {
		ref, inFlight = e.remote, true
	}
	e.mu.Unlock()
	if ref.Before(since) {
		ref, inFlight = since, false
	}
	return now.Sub(ref) > 2*e.c.Schedule.Interval(), ref, inFlight
}

// staleChecks are the entries that have not completed a measured run for
// twice their interval, counted from since at the earliest (entry.stale).
func staleChecks(entries []*entry, now, since time.Time) []incident.Stale {
	var out []incident.Stale
	for _, e := range entries {
		if stale, ref, inFlight := e.stale(now, since); stale {
			out = append(out, incident.Stale{Subject: e.track.Subject, Since: ref, InFlight: inFlight, Schedule: e.c.Schedule.String()})
		}
	}
	return out
}

// dashboardURL is the dashboard's address when addr names a host that
// others can reach by it, "" for an unspecified address (0.0.0.0, ::).
func dashboardURL(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return ""
	}
	return "http://" + addr
}
