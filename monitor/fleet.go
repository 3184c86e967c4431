package monitor

import (
	"context"
	"slices"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/store"
)

// Monitors sharing a store split the slots of a check between them, so
// no monitor sees every run: what a decision depends on (failures in a
// row, the last success, the trend detector, the open incidents, today's
// spend) is read back from the store whenever another monitor recorded a
// run since this one last looked. A lone monitor finds nothing new and
// reads little.

// syncProbe is how many of a check's newest runs are read to learn
// whether another monitor recorded one.
const syncProbe = 8

// ringSize is how many run ids an idRing remembers: more than syncProbe
// and refreshRuns, so that runs already accounted for are recognised.
const ringSize = 64

// refreshRuns is how many of a check's newest runs and leases the ticker
// reads for the dashboard, staleness and the budget.
const refreshRuns = 16

// idRing remembers the last ringSize ids added.
type idRing struct {
	ids  []string
	next int
}

// add remembers id.
func (r *idRing) add(id string) {
	if len(r.ids) < ringSize {
		r.ids = append(r.ids, id)
		return
	}
	r.ids[r.next] = id
	r.next = (r.next + 1) % ringSize
}

// has reports whether id is remembered.
func (r *idRing) has(id string) bool { return slices.Contains(r.ids, id) }

// reset remembers only the ids of runs (newest first), the newest
// ringSize of them.
func (r *idRing) reset(runs []promptcanary.CheckRun) {
	r.ids, r.next = r.ids[:0], 0
	for i := min(len(runs), ringSize) - 1; i >= 0; i-- {
		r.add(runs[i].ID)
	}
}

// syncCheck brings e's decision state and the open incidents up to date
// with the store before cr (recorded already) is decided: when the
// check's newest runs hold one this monitor has not applied, the state is
// rebuilt from the check's history without cr, as restore does.
func (m *Monitor) syncCheck(ctx context.Context, e *entry, cr *promptcanary.CheckRun) {
	ctx = context.WithoutCancel(ctx)
	m.syncIncidents(ctx)
	runs, err := m.state.CheckRuns(ctx, e.c.Name, e.c.Provider, syncProbe)
	if err != nil {
		m.log.Warn("read the check's runs back", logCheck, e.c.Name, logProvider, e.c.Provider, logErr, err)
		return
	}
	e.mu.Lock()
	unknown := slices.ContainsFunc(runs, func(r promptcanary.CheckRun) bool { return r.ID != cr.ID && !e.applied.has(r.ID) })
	e.mu.Unlock()
	if unknown {
		if runs, err = m.state.CheckRuns(ctx, e.c.Name, e.c.Provider, historyRuns); err != nil {
			m.log.Warn("read the check's runs back", logCheck, e.c.Name, logProvider, e.c.Provider, logErr, err)
			return
		}
		runs = slices.DeleteFunc(runs, func(r promptcanary.CheckRun) bool { return r.ID == cr.ID })
		e.mu.Lock()
		e.replay(runs)
		e.applied.reset(runs)
		e.mu.Unlock()
	}
	e.mu.Lock()
	e.applied.add(cr.ID)
	e.mu.Unlock()
}

// syncIncidents replaces the open incidents with the store's: another
// monitor may have opened, updated, acknowledged or resolved one. On
// error the incidents as this monitor knows them stay.
func (m *Monitor) syncIncidents(ctx context.Context) {
	open, err := m.state.Incidents(ctx, store.IncidentFilter{OpenOnly: true})
	if err != nil {
		m.log.Warn("read the open incidents back", logErr, err)
		return
	}
	m.incidents.Book.Lock()
	defer m.incidents.Book.Unlock()
	m.incidents.Book.Load(open)
	m.syncOpen()
}

// refresh reads each check's newest runs and leases, for what the
// ticker and the dashboard show of runs other monitors make: the last run
// and success (so a check that another monitor runs is not stale), a run
// in flight elsewhere, and today's spend (the budget is the fleet's).
func (m *Monitor) refresh(ctx context.Context, now time.Time) {
	for _, e := range m.entries {
		runs, err := m.state.CheckRuns(ctx, e.c.Name, e.c.Provider, refreshRuns)
		if err != nil {
			m.log.Warn("read the check's runs back", logCheck, e.c.Name, logProvider, e.c.Provider, logErr, err)
			continue
		}
		remote, err := m.schedule.InFlightElsewhere(ctx, e.c.Name, e.c.Provider, refreshRuns)
		if err != nil {
			m.log.Warn("read the check's slot leases", logCheck, e.c.Name, logProvider, e.c.Provider, logErr, err)
			continue
		}
		var last, lastMeasured *promptcanary.CheckRun
		e.mu.Lock()
		if e.last != nil && !remote.IsZero() && !e.last.Slot.Before(remote) {
			// A lease read before this monitor took the slot over and
			// recorded it (or a later one): not in flight elsewhere.
			remote = time.Time{}
		}
		e.remote = remote
		for i := range runs {
			r := &runs[i]
			if !e.counted.has(r.ID) {
				e.counted.add(r.ID)
				m.changed() // another monitor's run
				if incident.DayOf(r.StartedAt) == incident.DayOf(now) {
					m.incidents.Budget.Add(r.CostUSD, r.StartedAt)
				}
				if r.CostUSD > 0 {
					e.estimate = r.CostUSD
				}
			}
			if last == nil && !schedulingSkip(r) {
				last = r
			}
			if lastMeasured == nil && (r.Outcome == promptcanary.CheckClean || r.Outcome == promptcanary.CheckDrift) {
				lastMeasured = r
			}
		}
		if last != nil && (e.last == nil || last.Slot.After(e.last.Slot)) {
			c := *last
			e.last = &c
		} else {
			last = nil
		}
		if lastMeasured != nil && lastMeasured.FinishedAt.After(e.lastSuccess) {
			e.lastSuccess = lastMeasured.FinishedAt
		} else {
			lastMeasured = nil
		}
		e.mu.Unlock()
		if last != nil || lastMeasured != nil {
			m.metrics.restore(last, lastMeasured)
		}
	}
}
