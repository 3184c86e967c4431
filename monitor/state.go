package monitor

import (
	"context"
	"time"

	"github.com/promptcanary/promptcanary"
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
	m.inc.mu.Lock()
	m.inc.open = make(map[string]*promptcanary.Incident, len(open))
	for i := range open {
		inc := open[i]
		if prev := m.inc.open[inc.Fingerprint]; prev == nil || inc.OpenedAt.After(prev.OpenedAt) {
			m.inc.open[inc.Fingerprint] = &inc
		}
	}
	m.inc.mu.Unlock()
	now := m.now()
	for _, e := range m.entries {
		runs, err := m.state.CheckRuns(ctx, e.c.Name, e.c.Provider, historyRuns)
		if err != nil {
			return err
		}
		m.restoreEntry(e, runs, now)
	}
	m.inc.mu.Lock()
	m.syncOpen()
	m.inc.mu.Unlock()
	return nil
}

// restoreEntry rebuilds e's state from its runs, newest first.
func (m *Monitor) restoreEntry(e *entry, runs []promptcanary.CheckRun, now time.Time) {
	var last, lastMeasured *promptcanary.CheckRun
	failing := true
	estimated := false
	e.mu.Lock()
	defer e.mu.Unlock()
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
		if !estimated && r.CostUSD > 0 {
			e.estimate, estimated = r.CostUSD, true
		}
		if dayOf(r.StartedAt) == dayOf(now) {
			m.budget.add(r.CostUSD, r.StartedAt)
		}
	}
	if last != nil {
		c := *last
		e.last = &c
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
	}
	m.metrics.restore(last, lastMeasured)
}
