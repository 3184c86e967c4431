package monitor

import (
	"context"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/scheduler"
	"github.com/promptcanary/promptcanary/store"
)

// DefaultLeaseTTL is how long a slot or a notification a monitor claimed
// stays its own without a heartbeat (scheduler.DefaultLeaseTTL).
const DefaultLeaseTTL = scheduler.DefaultLeaseTTL

// takeoverBatch bounds the expired slots one tick of the ticker takes over.
const takeoverBatch = 16

// leaseKeep is how long finished leases and deliveries are kept before
// the monitor prunes them; pruneEvery how often it does.
const (
	leaseKeep  = 7 * 24 * time.Hour
	pruneEvery = time.Hour
)

// slotKey is the key of e's slot.
func slotKey(e *entry, slot time.Time) store.SlotKey {
	return store.SlotKey{Check: e.c.Name, Provider: e.c.Provider, Slot: slot.UTC()}
}

// claimSlot claims e's slot in the store for this monitor; nil when
// another monitor holds or finished it (or the store cannot be reached:
// logged). cancel (nil for none) stops the slot's run when a heartbeat
// finds the lease lost; it is set before the heartbeats can see the
// lease. The caller releases the lease it gets with m.unhold.
func (m *Monitor) claimSlot(ctx context.Context, e *entry, slot time.Time, cancel context.CancelFunc) *scheduler.Lease {
	key := slotKey(e, slot)
	c, err := m.leases.ClaimSlot(context.WithoutCancel(ctx), key, m.owner, m.now(), m.ttl)
	if m.wrote(realWrite, err) != nil {
		m.log.Error("claim the slot: the slot is not run by this monitor", logCheck, e.c.Name, logProvider, e.c.Provider, logSlot, slot, logErr, err)
		// Nothing measures the check now.
		m.metrics.up.WithLabelValues(e.c.Name, e.c.Provider).Set(0)
		return nil
	}
	if !c.Claimed {
		m.log.Debug("slot held by another monitor", logCheck, e.c.Name, logProvider, e.c.Provider, logSlot, slot,
			logOwner, c.Lease.Owner, logState, string(c.Lease.State))
		return nil
	}
	l := scheduler.NewLease(key, c, cancel)
	if l.TakenOver {
		m.log.Warn("slot taken over: the monitor running it stopped answering", logCheck, e.c.Name, logProvider, e.c.Provider,
			logSlot, slot, logOwner, l.Previous)
	}
	m.held.Add(l)
	m.changed() // the check shows as running
	return l
}

// unhold stops the heartbeats of l.
func (m *Monitor) unhold(l *scheduler.Lease) { m.held.Remove(l) }

// runSlot runs e's slot when this monitor claims it (a slot an earlier
// slot of the check still runs for is recorded as skipped), and returns
// the check run recorded; false when another monitor has the slot or the
// lease was lost meanwhile. The caller holds e (entry.claim) and a run
// slot (m.acquire).
func (m *Monitor) runSlot(ctx context.Context, e *entry, slot time.Time) (promptcanary.CheckRun, bool) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := m.claimSlot(ctx, e, slot, cancel)
	if l == nil {
		return promptcanary.CheckRun{}, false
	}
	defer m.unhold(l)
	if l.Busy != nil {
		return m.skip(ctx, e, l, scheduler.BusyReason(l.Busy, m.owner))
	}
	rctx, span := m.tracer.StartCheck(rctx, e.c.Name, e.c.Provider, e.c.Suite.Name, slot)
	cr, ok := m.run(rctx, e, l)
	span.EndCheck(&cr)
	return cr, ok
}

// skipSlot records e's slot as skipped for reason when this monitor
// claims it; false when another monitor has the slot.
func (m *Monitor) skipSlot(ctx context.Context, e *entry, slot time.Time, reason string) (promptcanary.CheckRun, bool) {
	l := m.claimSlot(ctx, e, slot, nil)
	if l == nil {
		return promptcanary.CheckRun{}, false
	}
	defer m.unhold(l)
	return m.skip(ctx, e, l, reason)
}

// heartbeat extends every lease and claim this monitor holds by the TTL
// (see scheduler.Held.Extend and delivery.Outbox.Extend).
func (m *Monitor) heartbeat(ctx context.Context) {
	until := m.now().Add(m.ttl)
	m.held.Extend(ctx, func(key store.SlotKey) error {
		return m.wrote(realWrite, m.leases.ExtendSlot(ctx, key, m.owner, until))
	}, m.log)
	m.outbox.Extend(ctx, until)
}

// heartbeats calls heartbeat every third of the TTL, on the wall clock,
// until ctx ends: Once has no ticker of its own.
func (m *Monitor) heartbeats(ctx context.Context) {
	t := time.NewTicker(m.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.heartbeat(ctx)
		}
	}
}

// takeOver runs the slots whose monitor died: their leases expired
// without being finished. Each is claimed again (one monitor wins) and run
// from the start; its check run records this monitor as the one that
// completed it. A slot of a check this monitor does not run, or runs
// right now, waits for another tick or another monitor.
func (m *Monitor) takeOver(ctx context.Context, now time.Time) {
	expired, err := m.leases.ExpiredSlots(ctx, now, takeoverBatch)
	if err != nil {
		m.log.Warn("list the expired slot leases", logErr, err)
		return
	}
	for _, l := range expired {
		if l.Owner == m.owner {
			// Ours, and its heartbeat is late (a slow store, a paused
			// process): the run is still ours unless another takes it.
			continue
		}
		e := m.entryOf(l.Check, l.Provider)
		if e == nil || !e.claim(l.Slot) {
			continue
		}
		slot := l.Slot
		m.runs.Go(func() {
			defer e.release()
			rctx := m.runCtx
			if err := m.acquire(rctx, ctx); err != nil {
				return
			}
			defer m.releaseSlot()
			m.runSlot(rctx, e, slot)
		})
	}
}

// entryOf returns the entry of check and provider, nil when this monitor
// does not run it.
func (m *Monitor) entryOf(check, prov string) *entry {
	for _, e := range m.entries {
		if e.c.Name == check && e.c.Provider == prov {
			return e
		}
	}
	return nil
}

// prune deletes the leases and deliveries finished more than leaseKeep
// ago, at most once per pruneEvery.
func (m *Monitor) prune(ctx context.Context, now time.Time) {
	m.mu.Lock()
	due := now.Sub(m.prunedAt) >= pruneEvery || now.Before(m.prunedAt)
	if due {
		m.prunedAt = now
	}
	m.mu.Unlock()
	if !due {
		return
	}
	n, err := m.leases.PruneLeases(ctx, now.Add(-leaseKeep))
	if err != nil {
		m.log.Warn("prune the finished leases", logErr, err)
		return
	}
	if n > 0 {
		m.log.Debug("finished leases pruned", logCount, n)
	}
}
