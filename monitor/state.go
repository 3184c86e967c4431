package monitor

import (
	"context"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/incident"
)

// restore loads what the last process left: the open incidents, and each
// check's last runs (its last success, failures in a row, the trend
// detector's state, today's spend, the cost of a run). So a restart
// neither re-opens an incident nor notifies it again.
func (m *Monitor) restore(ctx context.Context) error {
	if err := m.incidents.LoadOpen(ctx); err != nil {
		return err
	}
	now := m.now()
	for _, e := range m.entries {
		runs, err := m.state.CheckRuns(ctx, e.c.Name, e.c.Provider, incident.HistoryRuns)
		if err != nil {
			return err
		}
		lastMeasured := m.incidents.Restore(e.track, runs, now)
		if err := m.restoreRunLevel(ctx, e, runs); err != nil {
			return err
		}
		last := lastRun(runs)
		if last != nil {
			c := *last
			e.mu.Lock()
			e.last = &c
			e.mu.Unlock()
		}
		m.metrics.restore(last, lastMeasured)
	}
	return nil
}

// lastRun is the newest of runs (newest first) that is a result of the
// check: a slot skipped for the scheduler's sake is none. Nil for none.
func lastRun(runs []promptcanary.CheckRun) *promptcanary.CheckRun {
	for i := range runs {
		if !schedulingSkip(&runs[i]) {
			return &runs[i]
		}
	}
	return nil
}
