package monitor

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/store"
)

// The upgrade gate of a check that names a candidate (candidate: in
// monitor.yaml): every slot runs the check's provider and the candidate on
// the same prompts, samples and seed (check.Gate, the gate of compare
// --candidate), records the comparison in the store (store.Gates), keeps
// the candidate incident (incident.Lifecycle.Gate) and the candidate
// metrics. The gate runs after the check's own run and confirmation, in
// the same slot, and its cost counts in the check run's.

// gate is the upgrade gate of one entry.
type gate struct {
	c *config.Candidate
	// current and candidate are the two models, each resolved as if it
	// ran alone.
	current, candidate check.Target
	store              store.Gates
}

// logCandidate is the log key of a check's candidate.
const logCandidate = "candidate"

// newGate resolves the candidate of e's check, as a run would open it,
// and restores the metrics of its latest stored gate. A check without a
// candidate has none.
func (m *Monitor) newGate(ctx context.Context, e *entry, o Options) error {
	c := e.c.Candidate
	if c == nil {
		return nil
	}
	where := fmt.Sprintf("%s: checks (%s): candidate %s", m.where(c.Line), e.c.Name, c.Provider)
	gs, ok := m.hist.(store.Gates)
	if !ok {
		return fmt.Errorf("%s: the store %T cannot keep upgrade gates: use a SQLite or PostgreSQL store", where, m.hist)
	}
	resolve := func(spec string) (check.Target, error) {
		samples := c.Samples
		targets, _, err := check.Resolve(e.c.Suite, check.Settings{Providers: []string{spec}, Samples: &samples, Getenv: o.Getenv, Secrets: m.secrets})
		if err != nil {
			return check.Target{}, withHints(fmt.Errorf("%s: %w", where, err), err)
		}
		t := targets[0]
		t.Options.BaseDir = filepath.Dir(m.cfg.Path)
		if t.Entry != nil || e.c.Suite.Defaults.Provider == spec {
			t.Options.BaseDir = e.c.Suite.Dir()
		}
		if _, err := check.Open(e.c.Suite, []check.Target{t}); err != nil {
			return check.Target{}, withHints(fmt.Errorf("%s: %w", where, err), err)
		}
		return t, nil
	}
	g := &gate{c: c, store: gs}
	var err error
	if g.current, err = resolve(e.c.Provider); err != nil {
		return err
	}
	if g.candidate, err = resolve(c.Provider); err != nil {
		return err
	}
	e.gate = g
	m.metrics.candidate.init(e.c.Name, e.c.Provider, c.Provider)
	last, err := gs.Gates(ctx, e.c.Name, e.c.Provider, 1)
	if err != nil {
		return fmt.Errorf("%s: read the latest upgrade gate: %w", where, err)
	}
	if len(last) > 0 && last[0].Candidate == c.Provider {
		m.metrics.candidate.observe(&last[0])
	}
	return nil
}

// runGate makes the upgrade gate of e for slot, when e's check has a
// candidate: both models on the same prompts and seed, compared, and the
// gate recorded in the store before anything acts on it. Its cost is
// added to cr's. It returns nil when e has no candidate or the gate was
// interrupted (nothing is recorded then).
func (m *Monitor) runGate(ctx context.Context, e *entry, slot time.Time, cr *promptcanary.CheckRun) *promptcanary.CandidateGate {
	g := e.gate
	if g == nil || ctx.Err() != nil {
		return nil
	}
	cur, cand := g.current, g.candidate
	if e.freshSeed {
		s := seed(e, slot, gateAttempt)
		cur.Config.Seed, cand.Config.Seed = s, s
	}
	out, err := check.Gate(ctx, check.GateRequest{
		Suite: e.c.Suite, Current: cur, Candidate: cand, Samples: g.c.Samples,
		Exec: check.Exec{
			Settings: check.Settings{Secrets: m.secrets},
			Tool:     m.tool,
			Wrap:     m.instrument,
			Observe:  m.observe(),
		},
		MaxErrors: e.c.MaxErrors,
		Margin:    g.c.Margin,
	})
	rec := &promptcanary.CandidateGate{ID: promptcanary.NewID(), Check: e.c.Name, Provider: e.c.Provider, Candidate: g.c.Provider,
		Slot: cr.Slot, CheckRunID: cr.ID}
	switch {
	case err != nil && ctx.Err() != nil, err == nil && out.Interrupted:
		return nil
	case err != nil:
		rec.Reason = m.line(err.Error())
	default:
		for _, r := range out.Runs {
			if r != nil && r.CostUSD != nil {
				rec.CostUSD += *r.CostUSD
			}
		}
		rec.Report = out.Report
		if len(out.Problems) > 0 {
			p := out.Problems[0]
			rec.Reason = m.line(p.Model + ": " + p.Reason)
		} else if rec.Report.Summary.Pairs == 0 {
			rec.Reason = "no pair was measured on both models"
		}
	}
	rec.At = m.now().UTC()
	cr.CostUSD += rec.CostUSD
	if err := m.health.wrote(realWrite, g.store.SaveGate(context.WithoutCancel(ctx), rec)); err != nil {
		m.log.Error("record the upgrade gate", logCheck, e.c.Name, logProvider, e.c.Provider, logCandidate, g.c.Provider, logErr, err)
	}
	m.changed()
	m.metrics.candidate.observe(rec)
	attrs := []any{logCheck, e.c.Name, logProvider, e.c.Provider, logCandidate, g.c.Provider, logSlot, rec.Slot, logReason, incident.GateSummary(rec)}
	m.log.Info("upgrade gate", attrs...)
	return rec
}

// gateAttempt numbers the gate's runs among a slot's seeds (0 the run, 1
// its confirmation).
const gateAttempt = 2

// decideGate applies a recorded gate to the check's candidate incident.
func (m *Monitor) decideGate(ctx context.Context, e *entry, g *promptcanary.CandidateGate) {
	if g == nil {
		return
	}
	m.incidents.Gate(ctx, e.track, g)
}

// gateVerdicts are the pair verdicts the candidate_pairs gauge counts, each
// pair once.
var gateVerdicts = []promptcanary.CandidateVerdict{promptcanary.CandidateBetter, promptcanary.CandidateNoWorse,
	promptcanary.CandidateWorse, promptcanary.CandidateInconclusive}

// gateMetrics are the series of the upgrade gates.
type gateMetrics struct {
	pairs, up *prometheus.GaugeVec
}

// register creates the gate series with g and registers them on reg.
func (gm *gateMetrics) register(g func(name, help string, labels ...string) *prometheus.GaugeVec, reg *prometheus.Registry) {
	gm.pairs = g("candidate_pairs", "Pairs of the check's latest upgrade gate by verdict (better, no_worse, worse, inconclusive; each pair once); NaN until a gate compared pairs.",
		"check", "provider", "candidate", "verdict")
	gm.up = g("candidate_up", "1 when the check's latest upgrade gate compared pairs, 0 when it could not (or before the first).", "check", "provider", "candidate")
	reg.MustRegister(gm.pairs, gm.up)
}

// init creates the series of a check's gate: up at 0, the pairs at NaN.
func (gm *gateMetrics) init(check, prov, cand string) {
	gm.up.WithLabelValues(check, prov, cand)
	for _, v := range gateVerdicts {
		gm.pairs.WithLabelValues(check, prov, cand, string(v)).Set(math.NaN())
	}
}

// observe sets the series from a recorded gate; the pairs keep the last
// gate that compared any.
func (gm *gateMetrics) observe(g *promptcanary.CandidateGate) {
	if g.Report == nil || g.Report.Summary.Pairs == 0 {
		gm.up.WithLabelValues(g.Check, g.Provider, g.Candidate).Set(0)
		return
	}
	gm.up.WithLabelValues(g.Check, g.Provider, g.Candidate).Set(1)
	for _, v := range gateVerdicts {
		gm.pairs.WithLabelValues(g.Check, g.Provider, g.Candidate, string(v)).Set(float64(len(g.Report.With(v))))
	}
}
