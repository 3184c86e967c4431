package monitor

import (
	"context"
	"time"

	"github.com/promptcanary/promptcanary"
)

// refreshRuns is how many of a check's newest runs and leases the ticker
// reads for the dashboard, staleness and the budget.
const refreshRuns = 16

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
		for i := range runs {
			if m.incidents.Counted(e.track, &runs[i], now) {
				m.changed() // another monitor's run
			}
		}
		if last, lastMeasured := e.readBack(runs, remote); last != nil || lastMeasured != nil {
			m.metrics.restore(last, lastMeasured)
		}
	}
}

// readBack updates e with its newest runs (newest first), some recorded
// by other monitors, and remote, the earliest slot of it in flight on
// another monitor (zero for none). It returns the last run and the last
// measured run when they are newer than what e knew, nil otherwise.
func (e *entry) readBack(runs []promptcanary.CheckRun, remote time.Time) (last, lastMeasured *promptcanary.CheckRun) {
	last = lastRun(runs)
	for i := range runs {
		if r := &runs[i]; r.Outcome == promptcanary.CheckClean || r.Outcome == promptcanary.CheckDrift {
			lastMeasured = r
			break
		}
	}
	if lastMeasured != nil && !e.track.Succeeded(lastMeasured.FinishedAt) {
		lastMeasured = nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.last != nil && !remote.IsZero() && !e.last.Slot.Before(remote) {
		// A lease read before this monitor took the slot over and
		// recorded it (or a later one): not in flight elsewhere.
		remote = time.Time{}
	}
	e.remote = remote
	if last != nil && (e.last == nil || last.Slot.After(e.last.Slot)) {
		c := *last
		e.last = &c
	} else {
		last = nil
	}
	return last, lastMeasured
}
