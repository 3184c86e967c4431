package web

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// memStore is a hand-written in-memory store.Store and store.Monitor,
// ordered like the real backends (listings newest first).
type memStore struct {
	mu        sync.Mutex
	runs      map[string]*promptcanary.Run
	baselines map[string]*promptcanary.Baseline
	drifts    map[string]*promptcanary.DriftReport
	checkRuns []promptcanary.CheckRun
	incidents map[string]*promptcanary.Incident
	events    []promptcanary.IncidentEvent
	notes     []promptcanary.NotificationAttempt
	// calls counts the calls of each method, for tests of what a page reads.
	calls map[string]int
}

var (
	_ store.Store   = (*memStore)(nil)
	_ store.Monitor = (*memStore)(nil)
)

func newMemStore() *memStore {
	return &memStore{
		runs: map[string]*promptcanary.Run{}, baselines: map[string]*promptcanary.Baseline{},
		drifts: map[string]*promptcanary.DriftReport{}, incidents: map[string]*promptcanary.Incident{},
		calls: map[string]int{},
	}
}

// read counts a call of the method name and locks m; the caller runs
// the function it returns, to unlock m, as the method returns.
func (m *memStore) read(name string) (unlock func()) {
	m.mu.Lock()
	m.calls[name]++
	return m.mu.Unlock
}

func (m *memStore) SaveRun(ctx context.Context, r *promptcanary.Run) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs[r.RunID] = r
	return nil
}

func resolveIn[T any](kind, id string, recs map[string]T) (T, error) {
	var matches []string
	for k := range recs {
		if strings.HasPrefix(k, id) {
			matches = append(matches, k)
		}
	}
	full, err := store.Resolve(kind, id, matches)
	if err != nil {
		var zero T
		return zero, err
	}
	return recs[full], nil
}

func (m *memStore) Run(ctx context.Context, id string) (*promptcanary.Run, error) {
	defer m.read("Run")()
	return resolveIn("run", id, m.runs)
}

func (m *memStore) Runs(ctx context.Context, f store.RunFilter) ([]store.RunSummary, error) {
	defer m.read("Runs")()
	isBase := map[string]bool{}
	for _, b := range m.baselines {
		isBase[b.RunResult.RunID] = true
	}
	var out []store.RunSummary
	for _, r := range m.runs {
		if (f.Suite != "" && r.SuiteName != f.Suite) || (f.Model != "" && r.Provider.ModelID != f.Model) ||
			(f.BaselinesOnly && !isBase[r.RunID]) || (!f.Since.IsZero() && r.StartedAt.Before(f.Since)) {
			continue
		}
		s := store.Summarize(r)
		s.IsBaseline = isBase[r.RunID]
		out = append(out, s)
	}
	store.SortRuns(out)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

func (m *memStore) SaveBaseline(ctx context.Context, b *promptcanary.Baseline) (store.BaselineInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.baselines[b.SnapshotID] = b
	if _, ok := m.runs[b.RunResult.RunID]; !ok {
		r := b.RunResult
		m.runs[r.RunID] = &r
	}
	return store.Info(b), nil
}

func (m *memStore) Promote(ctx context.Context, runID, note string) (*promptcanary.Baseline, error) {
	r, err := m.Run(ctx, runID)
	if err != nil {
		return nil, err
	}
	b := store.NewBaseline(r, note, time.Now())
	_, err = m.SaveBaseline(ctx, b)
	return b, err
}

func (m *memStore) Baseline(ctx context.Context, id string) (*promptcanary.Baseline, error) {
	defer m.read("Baseline")()
	return resolveIn("baseline", id, m.baselines)
}

func (m *memStore) LatestBaseline(ctx context.Context, suite, model string) (*promptcanary.Baseline, error) {
	infos, err := m.Baselines(ctx, suite)
	if err != nil {
		return nil, err
	}
	for _, in := range infos {
		if model == "" || in.Model == model {
			return m.Baseline(ctx, in.SnapshotID)
		}
	}
	return nil, fmt.Errorf("baseline of %q on %q: %w", suite, model, store.ErrNotFound)
}

func (m *memStore) Baselines(ctx context.Context, suite string) ([]store.BaselineInfo, error) {
	defer m.read("Baselines")()
	var out []store.BaselineInfo
	for _, b := range m.baselines {
		if suite == "" || b.SuiteName == suite {
			out = append(out, store.Info(b))
		}
	}
	store.SortBaselines(out)
	return out, nil
}

func (m *memStore) SaveDrift(ctx context.Context, d *promptcanary.DriftReport) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drifts[d.ReportID] = d
	return nil
}

func (m *memStore) Drift(ctx context.Context, id string) (*promptcanary.DriftReport, error) {
	defer m.read("Drift")()
	return resolveIn("drift report", id, m.drifts)
}

func (m *memStore) Drifts(ctx context.Context, suite, model string, limit int) ([]store.DriftSummary, error) {
	defer m.read("Drifts")()
	var out []store.DriftSummary
	for _, d := range m.drifts {
		if (suite == "" || d.SuiteName == suite) && (model == "" || d.Provider.ModelID == model) {
			out = append(out, store.SummarizeDrift(d))
		}
	}
	store.SortDrifts(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (m *memStore) ProbeScores(ctx context.Context, suite, model string, limit int) ([]store.ProbeScore, error) {
	sums, err := m.Runs(ctx, store.RunFilter{Suite: suite, Model: model, Limit: limit})
	if err != nil {
		return nil, err
	}
	defer m.read("ProbeScores")()
	var out []store.ProbeScore
	for _, s := range sums {
		out = append(out, store.ProbeScoresOf(m.runs[s.RunID])...)
	}
	return out, nil
}

func (m *memStore) Close() error { return nil }

func (m *memStore) SaveCheckRun(ctx context.Context, cr *promptcanary.CheckRun) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.checkRuns = slices.DeleteFunc(m.checkRuns, func(c promptcanary.CheckRun) bool { return c.ID == cr.ID })
	m.checkRuns = append(m.checkRuns, *cr)
	slices.SortStableFunc(m.checkRuns, func(a, b promptcanary.CheckRun) int {
		if c := b.Slot.Compare(a.Slot); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return nil
}

func (m *memStore) CheckRuns(ctx context.Context, check, provider string, limit int) ([]promptcanary.CheckRun, error) {
	defer m.read("CheckRuns")()
	var out []promptcanary.CheckRun
	for _, cr := range m.checkRuns {
		if (check == "" || cr.Check == check) && (provider == "" || cr.Provider == provider) {
			out = append(out, cr)
			if limit > 0 && len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

func (m *memStore) SaveIncident(ctx context.Context, inc *promptcanary.Incident) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *inc
	m.incidents[inc.ID] = &cp
	return nil
}

func (m *memStore) Incident(ctx context.Context, id string) (*promptcanary.Incident, error) {
	defer m.read("Incident")()
	inc, err := resolveIn("incident", id, m.incidents)
	if err != nil {
		return nil, err
	}
	cp := *inc
	return &cp, nil
}

func (m *memStore) Incidents(ctx context.Context, f store.IncidentFilter) ([]promptcanary.Incident, error) {
	defer m.read("Incidents")()
	var out []promptcanary.Incident
	for _, inc := range m.incidents {
		if (f.Check == "" || inc.Check == f.Check) && (!f.OpenOnly || inc.Open()) {
			out = append(out, *inc)
		}
	}
	slices.SortFunc(out, func(a, b promptcanary.Incident) int {
		if c := b.OpenedAt.Compare(a.OpenedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

func (m *memStore) AddIncidentEvent(ctx context.Context, e promptcanary.IncidentEvent) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.incidents[e.IncidentID]; !ok {
		return fmt.Errorf("incident %q: %w", e.IncidentID, store.ErrNotFound)
	}
	m.events = append(m.events, e)
	return nil
}

func (m *memStore) IncidentEvents(ctx context.Context, id string) ([]promptcanary.IncidentEvent, error) {
	defer m.read("IncidentEvents")()
	var out []promptcanary.IncidentEvent
	for _, e := range m.events {
		if e.IncidentID == id {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b promptcanary.IncidentEvent) int { return a.At.Compare(b.At) })
	return out, nil
}

func (m *memStore) SaveNotification(ctx context.Context, a promptcanary.NotificationAttempt) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.notes = append(m.notes, a)
	return nil
}

func (m *memStore) Notifications(ctx context.Context, id string, limit int) ([]promptcanary.NotificationAttempt, error) {
	defer m.read("Notifications")()
	var out []promptcanary.NotificationAttempt
	for _, a := range m.notes {
		if id == "" || a.IncidentID == id {
			out = append(out, a)
		}
	}
	slices.SortStableFunc(out, func(a, b promptcanary.NotificationAttempt) int { return a.At.Compare(b.At) })
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

// fakeSource is a hand-written Source over a history and a state store,
// recording the actions it is asked for.
type fakeSource struct {
	mu       sync.Mutex
	statuses []CheckStatus
	hist     store.Store
	state    store.Monitor
	ready    error
	now      func() time.Time
	acks     []string // "incident by"
	promotes []string // "check provider run"
	// failAck and failPromote make the actions fail.
	failAck, failPromote error
}

var _ Source = (*fakeSource)(nil)

func (f *fakeSource) Statuses() []CheckStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.statuses)
}

func (f *fakeSource) History() store.Store            { return f.hist }
func (f *fakeSource) State() store.Monitor            { return f.state }
func (f *fakeSource) Ready(ctx context.Context) error { return f.ready }

func (f *fakeSource) Acknowledge(ctx context.Context, id, by string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAck != nil {
		return f.failAck
	}
	inc, err := f.state.Incident(ctx, id)
	if err != nil {
		return err
	}
	if !inc.Open() {
		return errors.New("incident is resolved")
	}
	inc.AcknowledgedAt, inc.AcknowledgedBy = f.now(), by
	if err := f.state.SaveIncident(ctx, inc); err != nil {
		return err
	}
	f.acks = append(f.acks, id+" "+by)
	return f.state.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: id, At: f.now(), Type: promptcanary.EventAcknowledged, Summary: "acknowledged by " + by})
}

func (f *fakeSource) Promote(ctx context.Context, check, provider, runID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failPromote != nil {
		return f.failPromote
	}
	b, err := f.hist.Promote(ctx, runID, "promoted from the dashboard")
	if err != nil {
		return err
	}
	for i := range f.statuses {
		if f.statuses[i].Check == check && f.statuses[i].Provider == provider {
			f.statuses[i].Baseline = b.SnapshotID
		}
	}
	f.promotes = append(f.promotes, check+" "+provider+" "+runID)
	return nil
}

// actions returns how many actions were taken.
func (f *fakeSource) actions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.acks) + len(f.promotes)
}

// gateStore is memStore with upgrade gates (store.Gates).
type gateStore struct {
	*memStore
	mu    sync.Mutex
	gates []promptcanary.CandidateGate // newest slot first
}

var _ store.Gates = (*gateStore)(nil)

func (g *gateStore) SaveGate(_ context.Context, x *promptcanary.CandidateGate) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gates = append([]promptcanary.CandidateGate{*x}, g.gates...)
	return nil
}

func (g *gateStore) Gates(_ context.Context, check, provider string, limit int) ([]promptcanary.CandidateGate, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []promptcanary.CandidateGate
	for _, x := range g.gates {
		if (check == "" || x.Check == check) && (provider == "" || x.Provider == provider) && (limit <= 0 || len(out) < limit) {
			out = append(out, x)
		}
	}
	return out, nil
}

// gateSource is the fake Source, versioned as the monitor is.
type gateSource struct{ *fakeSource }

func (gateSource) Version() uint64 { return 1 }
