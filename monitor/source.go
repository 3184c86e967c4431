package monitor

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/monitor/web"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/suite"
)

var (
	_ web.Source    = (*Monitor)(nil)
	_ web.Versioned = (*Monitor)(nil)
)

// readyTimeout bounds the store check of /readyz.
const readyTimeout = 2 * time.Second

// Handler returns everything the monitor serves: the dashboard, the JSON
// API, /metrics, /healthz and /readyz. Actions (acknowledge, promote) are
// on only with an admin token.
func (m *Monitor) Handler() http.Handler {
	m.handlerMu.Do(func() {
		m.handler = web.New(web.Options{
			Source:         m,
			AdminToken:     m.cfg.AdminToken,
			Metrics:        m.metrics.handler(),
			ActionsAllowed: m.cfg.AdminToken != "",
			BaseURL:        m.baseURL,
			AllowedHosts:   m.allowedHosts(),
			Now:            m.now,
			Logger:         m.log,
		})
	})
	return m.handler
}

// Statuses lists every check and provider in configuration order.
func (m *Monitor) Statuses() []web.CheckStatus {
	now := m.now()
	m.mu.Lock()
	since := m.staleFrom
	m.mu.Unlock()
	out := make([]web.CheckStatus, len(m.entries))
	for i, e := range m.entries {
		stale := false
		if !since.IsZero() {
			stale, _, _ = e.stale(now, since)
		}
		baseline := e.track.Baseline()
		e.mu.Lock()
		s := web.CheckStatus{
			Check: e.c.Name, Provider: e.c.Provider, Suite: e.c.Suite.Name, Schedule: e.c.Schedule.String(),
			Next: e.next, Running: e.running || !e.remote.IsZero(), Baseline: baseline,
			Stale: stale, Control: e.c.Control,
		}
		if e.gate != nil {
			s.Candidate = e.gate.c.Provider
		}
		if e.runLevel != nil {
			s.RunLevel = e.runLevel.status()
		}
		if e.c.Confirm && e.c.ConfirmAfter > 0 {
			s.Confirmation = suite.FormatDuration(e.c.ConfirmAfter) + " after a run that flags drift"
		}
		if e.last != nil {
			last := *e.last
			s.Last = &last
		}
		e.mu.Unlock()
		s.Open = m.incidents.Book.Of(e.c.Name, e.c.Provider)
		out[i] = s
	}
	return out
}

// Version moves on whenever the monitor records (or reads back from
// another monitor) a check run, an incident step, a notification attempt
// or a baseline: the dashboard keeps what its pages read between two
// versions (web.Versioned).
func (m *Monitor) Version() uint64 { return m.version.Load() }

// changed moves Version on.
func (m *Monitor) changed() { m.version.Add(1) }

// History is the store of runs, baselines and drift reports.
func (m *Monitor) History() store.Store { return m.hist }

// State is the store of check runs, incidents and notifications.
func (m *Monitor) State() store.Monitor { return m.state }

// Ready reports whether the store answers and takes writes (as the last
// write or probe of it found).
func (m *Monitor) Ready(ctx context.Context) error {
	if err := m.health.failure(); err != nil {
		return fmt.Errorf("store cannot be written: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if _, err := m.hist.Runs(ctx, store.RunFilter{Limit: 1}); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if _, err := m.state.CheckRuns(ctx, "", "", 1); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// Promote makes the stored run runID the baseline of a check that follows
// its latest baseline: the run must be of the check's suite and provider.
// A check pinned to a baseline refuses: its baseline changes in
// monitor.yaml only.
func (m *Monitor) Promote(ctx context.Context, check, prov, runID string) error {
	return m.scrub(m.promote(ctx, check, prov, runID))
}

// promote is Promote with errors not yet scrubbed.
func (m *Monitor) promote(ctx context.Context, check, prov, runID string) error {
	e, err := m.entry(check, prov)
	if err != nil {
		return fmt.Errorf("promote run %q: %w", runID, err)
	}
	if e.isPinned() {
		return fmt.Errorf("promote run %q: check %s (%s) is pinned to baseline %s by %s: change baseline: there to move it",
			runID, check, prov, e.c.Baseline, m.where(e.c.Line))
	}
	r, err := m.hist.Run(ctx, runID)
	if err != nil {
		return fmt.Errorf("promote run %q: %w", runID, err)
	}
	if r.SuiteName != e.c.Suite.Name || r.Provider.ModelID != e.c.Provider {
		return fmt.Errorf("promote run %s: it is a run of suite %q with %s, and check %s runs suite %q with %s",
			short(r.RunID), r.SuiteName, r.Provider.ModelID, check, e.c.Suite.Name, e.c.Provider)
	}
	if !r.Measured() || r.Interrupted {
		return fmt.Errorf("promote run %s: it measured nothing or was interrupted, and a baseline must measure every prompt", short(r.RunID))
	}
	b, err := m.hist.Promote(context.WithoutCancel(ctx), r.RunID, "promoted from the dashboard for check "+check)
	if err != nil {
		return fmt.Errorf("promote run %s: %w", short(r.RunID), err)
	}
	e.track.Restart(b.SnapshotID)
	m.changed()
	m.log.Info("baseline promoted", logCheck, check, logProvider, prov, logRun, r.RunID, logBaseline, b.SnapshotID)
	return nil
}

// entry finds the check and provider, with a did-you-mean.
func (m *Monitor) entry(check, prov string) (*entry, error) {
	var names []string
	for _, e := range m.entries {
		if e.c.Name == check && e.c.Provider == prov {
			return e, nil
		}
		names = append(names, e.c.Name)
	}
	for _, e := range m.entries {
		if e.c.Name == check {
			return nil, fmt.Errorf("check %s has no provider %q", check, prov)
		}
	}
	return nil, fmt.Errorf("unknown check %q%s", check, suggest.Hint(check, names))
}

// openIncidents is the state of incidents, for tests and Once.
func (m *Monitor) openIncidents() []promptcanary.Incident { return m.incidents.Book.List() }
