package monitor

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/monitor/policy"
	"github.com/promptcanary/promptcanary/monitor/scheduler"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/store"
)

// measurement is one compare of a check: what it measured, or why it
// could not.
type measurement struct {
	run    *promptcanary.Run
	report *promptcanary.DriftReport
	// control is the control arm's run and report in the same slot, nil
	// without a control or when the compare returned none.
	control *check.Pair
	// reason says why nothing usable was measured, "" when it was.
	reason      string
	interrupted bool
	cost        float64
}

// run makes the run of the slot l holds for e: the budget, the compare,
// a confirmation when it flags drift, the check run recorded (with the
// slot finished, in one step), then the incidents. It returns the check
// run; false when the lease was lost meanwhile (another monitor took the
// slot over), and then nothing is recorded or decided.
func (m *Monitor) run(ctx context.Context, e *entry, l *scheduler.Lease) (promptcanary.CheckRun, bool) {
	slot := l.Key.Slot
	now := m.now()
	cr := promptcanary.CheckRun{
		ID:        promptcanary.NewID(),
		Check:     e.c.Name,
		Provider:  e.c.Provider,
		Suite:     e.c.Suite.Name,
		Slot:      slot.UTC(),
		StartedAt: now.UTC(),
	}
	if ok, reason := m.incidents.Admit(e.track, now); !ok {
		cr.Outcome = promptcanary.CheckSkipped
		cr.Reason = reason
		cr.FinishedAt = cr.StartedAt
		if !m.record(ctx, e, l, &cr) {
			return cr, false
		}
		m.incidents.OverBudget(ctx, now)
		return cr, true
	}
	base, err := m.currentBaseline(ctx, e)
	if err != nil {
		cr.Outcome = promptcanary.CheckUnmeasured
		cr.Reason = m.line(err.Error())
		cr.FinishedAt = m.now().UTC()
		if !m.record(ctx, e, l, &cr) {
			return cr, false
		}
		m.incidents.CatchUp(ctx, e.track, &cr)
		m.incidents.Decide(ctx, e.track, &cr, nil)
		return cr, true
	}
	cr.BaselineID = base.SnapshotID

	first := m.measure(ctx, e, base, seed(e, slot, 0), e.samples)
	cr.CostUSD = first.cost
	if first.run != nil {
		cr.RunID = first.run.RunID
	}
	if first.report != nil {
		cr.ReportID = first.report.ReportID
	}
	var ev *incident.Evidence
	if first.reason != "" {
		cr.Outcome = promptcanary.CheckUnmeasured
		cr.Reason = first.reason
	} else {
		ev = m.judge(ctx, e, base, slot, first, &cr)
	}
	var gate *promptcanary.CandidateGate
	if !first.interrupted {
		gate = m.runGate(ctx, e, slot, &cr)
	}
	cr.FinishedAt = m.now().UTC()
	if !m.record(ctx, e, l, &cr) {
		return cr, false
	}
	if first.interrupted {
		// A stop is no finding: the check is neither failing nor fine.
		return cr, true
	}
	m.incidents.CatchUp(ctx, e.track, &cr)
	m.incidents.Decide(ctx, e.track, &cr, ev)
	m.learnRunLevel(e, &cr)
	m.decideGate(ctx, e, gate)
	return cr, true
}

// evidenceOf returns the evidence of units flagged in the report of ms,
// with that report's likely cause.
func evidenceOf(ms measurement, units []promptcanary.IncidentUnit) *incident.Evidence {
	ev := &incident.Evidence{Units: units, RunID: ms.run.RunID, Attribution: ms.report.Attribution}
	ev.PassRate, ev.BaseRate = ms.report.PassRates()
	return ev
}

// judge decides a measured run: clean, or drift, which a confirmation
// run with fresh samples must confirm (unless the check turns confirmation
// off). It fills cr and returns the evidence of the confirmed units, nil
// when none is confirmed.
func (m *Monitor) judge(ctx context.Context, e *entry, base *promptcanary.Baseline, slot time.Time, first measurement, cr *promptcanary.CheckRun) *incident.Evidence {
	cr.PassRate, cr.BaselinePassRate = first.report.PassRates()
	cr.Score = first.run.OverallScore()
	if e.runLevel != nil {
		if ev, ok := m.judgeRunLevel(ctx, e, base, slot, first, cr); ok {
			return ev
		}
	}
	flagged := policy.Flagged(first.report)
	if len(flagged) == 0 {
		cr.Outcome = promptcanary.CheckClean
		return nil
	}
	cr.Outcome = promptcanary.CheckDrift
	cr.Severity = atLeastLow(first.report.Severity)
	if !e.c.Confirm {
		cr.Confirmed = true
		return evidenceOf(first, flagged)
	}
	second, ok := m.confirmation(ctx, e, base, slot, cr)
	if !ok {
		return nil
	}
	return confirmed(cr, first, second, policy.Confirm(first.report, second.report))
}

// confirmation measures the confirmation run of the run of slot that
// flagged drift, after confirm_after, onto cr; false when it could not be
// measured (cr.Reason says why).
func (m *Monitor) confirmation(ctx context.Context, e *entry, base *promptcanary.Baseline, slot time.Time, cr *promptcanary.CheckRun) (measurement, bool) {
	if !m.awaitConfirmation(ctx, e) {
		// As when the confirmation itself is interrupted: a drift,
		// unconfirmed.
		cr.Reason = "the confirmation run could not be measured: " + reasonStoppedWaiting
		return measurement{}, false
	}
	// The confirmation takes more samples than the run (see
	// policy.ConfirmSamples): with as few, a real drop on one pair would
	// open an incident less often than one compare flags it.
	second := m.measure(ctx, e, base, seed(e, slot, 1), policy.ConfirmSamples(e.samples))
	cr.CostUSD += second.cost
	if second.run != nil {
		cr.ConfirmRunID = second.run.RunID
	}
	if second.report != nil {
		cr.ConfirmReportID = second.report.ReportID
	}
	if second.reason != "" {
		cr.Reason = "the confirmation run could not be measured: " + second.reason
		return measurement{}, false
	}
	return second, true
}

// confirmed decides cr by the units of the confirmation run second that
// confirm the first run's finding, and returns their evidence, nil when
// none does.
func confirmed(cr *promptcanary.CheckRun, first, second measurement, units []promptcanary.IncidentUnit) *incident.Evidence {
	cr.Confirmed = len(units) > 0
	if !cr.Confirmed {
		cr.Reason = "the confirmation run did not flag the same units"
		return nil
	}
	cr.Severity = atLeastLow(lower(first.report.Severity, second.report.Severity))
	return evidenceOf(second, units)
}

// reasonStoppedWaiting says why a confirmation that waited for
// confirm_after never ran.
const reasonStoppedWaiting = "interrupted: the monitor stopped while the confirmation waited for confirm_after"

// awaitConfirmation waits e's confirm_after on the monitor's clock before
// the confirmation run, so that it samples a later hour than a provider's
// bad one. It returns false when the wait ended early: the monitor
// stopped scheduling, or ctx ended (the runs were cancelled, or a
// heartbeat found the slot's lease lost). The lease stays held meanwhile:
// the heartbeats extend every lease held until its run is recorded.
func (m *Monitor) awaitConfirmation(ctx context.Context, e *entry) bool {
	d := e.c.ConfirmAfter
	if d <= 0 {
		return true
	}
	m.log.Info("drift flagged: the confirmation run waits for confirm_after", logCheck, e.c.Name, logProvider, e.c.Provider,
		logConfirmAfter, d.String(), logDue, m.now().Add(d).UTC())
	select {
	case <-m.after(d):
		return true
	case <-ctx.Done():
	case <-m.stopping():
	}
	return false
}

// atLeastLow is s, or low when a report that flagged units graded them
// none: a flagged drift is never below the least severity notifiers take.
func atLeastLow(s promptcanary.Severity) promptcanary.Severity {
	if s.Rank() < promptcanary.SeverityLow.Rank() {
		return promptcanary.SeverityLow
	}
	return s
}

// measure runs the suite once on e's provider, samples per prompt, and
// compares it with base; the check's control, when it has one, runs in
// the same compare with the same seed, against its own baseline.
// The run and its report are recorded in the history by check.Compare.
func (m *Monitor) measure(ctx context.Context, e *entry, base *promptcanary.Baseline, seed *int64, samples int) measurement {
	t, control := e.target, e.control
	if seed != nil {
		t.Config.Seed = seed
	}
	if control != nil {
		// The control answers the same prompts with the same samples.
		c := *control
		c.Config.Seed = t.Config.Seed
		control = &c
	}
	out, err := m.compare(ctx, check.CompareRequest{
		Suite:   e.c.Suite,
		Targets: []check.Target{t},
		Control: control,
		Samples: samples,
		Exec: check.Exec{
			Settings: check.Settings{Secrets: m.secrets},
			Tool:     m.tool,
			Wrap:     m.instrument,
			Observe:  m.observe(),
		},
		Baseline:  base,
		Baselines: m.baselines(e),
		MaxErrors: e.c.MaxErrors,
	})
	if err != nil {
		if ctx.Err() != nil {
			return measurement{reason: incident.ReasonInterrupted, interrupted: true}
		}
		return measurement{reason: m.line(err.Error())}
	}
	for _, f := range out.Failures {
		_ = m.health.wrote(realWrite, f)
		m.log.Error("record in the history", logCheck, e.c.Name, logProvider, e.c.Provider, logErr, f)
	}
	if out.Interrupted {
		return measurement{reason: incident.ReasonInterrupted, interrupted: true}
	}
	ms := measurement{}
	if len(out.Pairs) > 0 {
		p := out.Pairs[0]
		ms.run, ms.report = p.Run, p.Report
		telemetry.From(ctx).Drift(p.Report)
		if p.Run.CostUSD != nil {
			ms.cost = *p.Run.CostUSD
		}
	}
	// The control arm's calls are the check's too: they count against
	// the budget like the gate's.
	if c := out.Control; c != nil && c.Run != nil {
		ms.control = c
		if c.Run.CostUSD != nil {
			ms.cost += *c.Run.CostUSD
		}
	}
	switch {
	case len(out.Problems) > 0:
		ms.reason = out.Problems[0].Reason
		if ms.run != nil && len(ms.run.Errors) > 0 {
			ms.reason += " (first: " + ms.run.Errors[0].Message + ")"
		}
		ms.reason = m.line(ms.reason)
	case ms.report == nil:
		ms.reason = "nothing was compared"
	case ms.report.Compared() == 0:
		ms.reason = fmt.Sprintf("no pair could be compared with baseline %s (were the prompts or probes changed? promote a new baseline)", short(base.SnapshotID))
	}
	return ms
}

// instrument wraps a provider of a run for the provider metrics, and
// for traces when the monitor has a tracer.
func (m *Monitor) instrument(spec string, p provider.Provider) provider.Provider {
	return m.tracer.Wrap(spec, &instrumented{p: p, spec: spec, m: m.metrics, clock: time.Now})
}

// observe is check.Exec's Observe when the monitor traces, else nil.
func (m *Monitor) observe() func(context.Context, string) (context.Context, func(*promptcanary.Run, error)) {
	if m.tracer == nil {
		return nil
	}
	return m.tracer.StartRun
}

// record stores a check run, before anything acts on it, finishing the
// slot l holds in the same step, and updates the check's state and
// metrics. A slot skipped for the scheduler's sake is stored and counted
// but does not become the check's last run. It returns false, recording
// nothing, when the lease was lost: another monitor runs the slot.
func (m *Monitor) record(ctx context.Context, e *entry, l *scheduler.Lease, cr *promptcanary.CheckRun) bool {
	cr.Reason = m.line(cr.Reason)
	e.track.Count(cr.ID)
	err := m.schedule.Finish(ctx, l, cr)
	if errors.Is(err, store.ErrLeaseLost) {
		m.log.Warn("check run not recorded: another monitor took the slot over", logCheck, cr.Check, logProvider, cr.Provider,
			logSlot, cr.Slot, logErr, err)
		return false
	}
	if err != nil {
		m.log.Error("record the check run", logCheck, cr.Check, logProvider, cr.Provider, logErr, err)
	}
	m.changed()
	m.metrics.observeRun(cr)
	m.incidents.Budget.Add(cr.CostUSD, cr.StartedAt)
	e.track.Cost(cr.CostUSD)
	e.mu.Lock()
	if !schedulingSkip(cr) {
		c := *cr
		e.last = &c
	}
	if !e.remote.IsZero() && !e.remote.After(cr.Slot) {
		// A refresh that read the slot's lease before this monitor took
		// it over saw it in flight elsewhere: it is done, here.
		e.remote = time.Time{}
	}
	e.mu.Unlock()
	attrs := []any{logCheck, cr.Check, logProvider, cr.Provider, logSlot, cr.Slot, logOutcome, string(cr.Outcome)}
	if cr.RunID != "" {
		attrs = append(attrs, logRun, cr.RunID)
	}
	if cr.ConfirmRunID != "" {
		attrs = append(attrs, logConfirm, cr.ConfirmRunID)
	}
	if cr.Outcome == promptcanary.CheckClean || cr.Outcome == promptcanary.CheckDrift {
		attrs = append(attrs, logPassRate, cr.PassRate)
	}
	if cr.Severity != "" {
		attrs = append(attrs, logSeverity, string(cr.Severity))
	}
	if cr.CostUSD > 0 {
		attrs = append(attrs, logCost, cr.CostUSD)
	}
	if cr.Reason != "" {
		attrs = append(attrs, logReason, cr.Reason)
	}
	if l.TakenOver {
		attrs = append(attrs, logTakenOver, l.Previous)
	}
	m.log.Info("check run", attrs...)
	return true
}

// skip records the slot l holds as a run that was not made; false when
// the lease was lost meanwhile.
func (m *Monitor) skip(ctx context.Context, e *entry, l *scheduler.Lease, reason string) (promptcanary.CheckRun, bool) {
	now := m.now().UTC()
	cr := promptcanary.CheckRun{
		ID: promptcanary.NewID(), Check: e.c.Name, Provider: e.c.Provider, Suite: e.c.Suite.Name,
		Slot: l.Key.Slot.UTC(), StartedAt: now, FinishedAt: now, Outcome: promptcanary.CheckSkipped, Reason: reason,
	}
	return cr, m.record(ctx, e, l, &cr)
}

// scrubbed is an error whose message is scrubbed of secrets; errors.Is
// and errors.As still see what it wraps.
type scrubbed struct {
	err error
	msg string
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// scrub returns err with its message scrubbed of secrets, nil for nil.
func (m *Monitor) scrub(err error) error {
	if err == nil {
		return nil
	}
	return &scrubbed{err: err, msg: m.secrets.String(err.Error())}
}

// line scrubs secrets from s and keeps its first line.
func (m *Monitor) line(s string) string {
	s = m.secrets.String(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " (…)"
	}
	return s
}

// lower returns the lower of two severities.
func lower(a, b promptcanary.Severity) promptcanary.Severity {
	if b.Rank() < a.Rank() {
		return b
	}
	return a
}

// seed returns the seed of a run of e for slot (attempt 0 the scheduled
// run, 1 its confirmation), or nil to keep the suite's own: a suite that
// pins seed: keeps it for scheduled runs, but a confirmation always takes
// fresh samples.
func seed(e *entry, slot time.Time, attempt int) *int64 {
	if !e.freshSeed && attempt == 0 {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(e.c.Name))
	h.Write([]byte{0})
	h.Write([]byte(e.c.Provider))
	var b [9]byte
	binary.BigEndian.PutUint64(b[:8], uint64(slot.UnixNano()))
	b[8] = byte(attempt)
	h.Write(b[:])
	// Below 2^31 less room for the samples, so that every sample's seed
	// (the seed plus its index, provider.Request.CallSeed) fits the
	// narrowest seed field of an API: Gemini's is 32-bit.
	s := int64(h.Sum64() % (1<<31 - 1<<17))
	return &s
}

// short abbreviates an id for messages.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
