package monitor

import (
	"context"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/store"
)

// historyRuns is how many of a check's latest runs New reads back: enough
// for the trend detector's warmup several times over, today's spend of a
// check that runs every few minutes, and the count of failures in a row.
const historyRuns = 500

// restore loads what the last process left: the open incidents, and each
// check's last runs (its last success, failures in a row, the trend
// detector's state, today's spend, the cost of a run). So a restart
// neither re-opens an incident nor notifies it again.
func (m *Monitor) restore(ctx context.Context) error {
	open, err := m.state.Incidents(ctx, store.IncidentFilter{OpenOnly: true})
	if err != nil {
		return err
	}
	m.incidents.Book.Lock()
	m.incidents.Book.Load(open)
	m.incidents.Book.Unlock()
	now := m.now()
	for _, e := range m.entries {
		runs, err := m.state.CheckRuns(ctx, e.c.Name, e.c.Provider, historyRuns)
		if err != nil {
			return err
		}
		m.restoreEntry(e, runs, now)
	}
	m.incidents.Book.Lock()
	m.syncOpen()
	m.incidents.Book.Unlock()
	return nil
}

// restoreEntry rebuilds e's state from its runs, newest first.
func (m *Monitor) restoreEntry(e *entry, runs []promptcanary.CheckRun, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	last, lastMeasured := e.replay(runs)
	if last != nil {
		c := *last
		e.last = &c
	}
	for i := range runs {
		if r := &runs[i]; r.CostUSD > 0 {
			e.estimate = r.CostUSD
			break
		}
	}
	for i := range runs {
		if r := &runs[i]; incident.DayOf(r.StartedAt) == incident.DayOf(now) {
			m.incidents.Budget.Add(r.CostUSD, r.StartedAt)
		}
	}
	e.applied.reset(runs)
	e.counted.reset(runs)
	m.metrics.restore(last, lastMeasured)
}

// replay rebuilds from e's runs (newest first) what decisions depend on:
// the failures in a row, the last success and the trend detector, and
// returns the last run (a slot skipped for the scheduler's sake is none)
// and the last measured one. The caller holds e.mu.
func (e *entry) replay(runs []promptcanary.CheckRun) (last, lastMeasured *promptcanary.CheckRun) {
	failing := true
	e.failures = 0
	for i := range runs {
		r := &runs[i]
		if last == nil && !schedulingSkip(r) {
			last = r
		}
		switch r.Outcome {
		case promptcanary.CheckClean, promptcanary.CheckDrift:
			if lastMeasured == nil {
				lastMeasured = r
				e.lastSuccess = r.FinishedAt
			}
			failing = false
		case promptcanary.CheckUnmeasured:
			if failing && r.Reason != reasonInterrupted {
				e.failures++
			}
		}
	}
	// The trend detector continues over the runs against the current
	// baseline; a new baseline since the last run starts it afresh.
	var compared []promptcanary.CheckRun
	for _, r := range runs {
		if r.BaselineID != "" {
			compared = append(compared, r)
		}
	}
	if len(compared) > 0 && compared[0].BaselineID == e.baselineID {
		e.trend.Replay(compared)
	} else {
		e.trend.Reset()
	}
	return last, lastMeasured
}
