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

// slotKey is the key of e's slot.
func slotKey(e *entry, slot time.Time) store.SlotKey {
	return store.SlotKey{Check: e.c.Name, Provider: e.c.Provider, Slot: slot.UTC()}
}

// claimSlot claims e's slot in the store for this monitor; nil when
// another monitor holds or finished it (or the store cannot be reached:
// logged). cancel (nil for none) stops the slot's run when a heartbeat
// finds the lease lost. The caller releases the lease it gets with
// m.schedule.Unhold.
func (m *Monitor) claimSlot(ctx context.Context, e *entry, slot time.Time, cancel context.CancelFunc) *scheduler.Lease {
	l, c, err := m.schedule.Claim(ctx, slotKey(e, slot), cancel)
	if err != nil {
		m.log.Error("claim the slot: the slot is not run by this monitor", logCheck, e.c.Name, logProvider, e.c.Provider, logSlot, slot, logErr, err)
		// Nothing measures the check now.
		m.metrics.up.WithLabelValues(e.c.Name, e.c.Provider).Set(0)
		return nil
	}
	if l == nil {
		m.log.Debug("slot held by another monitor", logCheck, e.c.Name, logProvider, e.c.Provider, logSlot, slot,
			logOwner, c.Lease.Owner, logState, string(c.Lease.State))
		return nil
	}
	if l.TakenOver {
		m.log.Warn("slot taken over: the monitor running it stopped answering", logCheck, e.c.Name, logProvider, e.c.Provider,
			logSlot, slot, logOwner, l.Previous)
	}
	m.changed() // the check shows as running
	return l
}

// runSlot runs e's slot when this monitor claims it (a slot an earlier
// slot of the check still runs for is recorded as skipped), and returns
// the check run recorded; false when another monitor has the slot or the
// lease was lost meanwhile. The caller holds e (entry.claim) and a run
// slot (m.schedule.Acquire).
func (m *Monitor) runSlot(ctx context.Context, e *entry, slot time.Time) (promptcanary.CheckRun, bool) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := m.claimSlot(ctx, e, slot, cancel)
	if l == nil {
		return promptcanary.CheckRun{}, false
	}
	defer m.schedule.Unhold(l)
	if l.Busy != nil {
		return m.skip(ctx, e, l, scheduler.BusyReason(l.Busy, m.schedule.Owner()))
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
	defer m.schedule.Unhold(l)
	return m.skip(ctx, e, l, reason)
}

// heartbeat extends every lease and claim this monitor holds by the TTL
// (see scheduler.Scheduler.Heartbeat and delivery.Outbox.Extend).
func (m *Monitor) heartbeat(ctx context.Context) {
	until := m.schedule.Heartbeat(ctx)
	m.outbox.Extend(ctx, until)
}

// takeOver runs the slots whose monitor died: their leases expired
// without being finished (scheduler.Scheduler.TakeOver). Each is claimed
// again (one monitor wins) and run from the start; its check run records
// this monitor as the one that completed it. A slot of a check this
// monitor does not run, or runs right now, waits for another tick or
// another monitor.
func (m *Monitor) takeOver(ctx context.Context, now time.Time) {
	m.schedule.TakeOver(ctx, now, func(l store.SlotLease) {
		e, err := m.entry(l.Check, l.Provider)
		if err != nil || !e.claim(l.Slot) {
			return
		}
		m.start(ctx, e, l.Slot, false)
	})
}
