package telemetry

import (
	"context"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/promptcanary/promptcanary"
)

// The attributes and events promptcanary adds to its own spans (the GenAI
// ones are in provider.go). Ids and counts only: no prompt, answer or
// probe detail text.
const (
	AttrCommand          = "promptcanary.command"
	AttrSuite            = "promptcanary.suite"
	AttrProvider         = "promptcanary.provider"
	AttrRunID            = "promptcanary.run.id"
	AttrRunSamples       = "promptcanary.run.samples"
	AttrRunAnswers       = "promptcanary.run.answers"
	AttrRunErrors        = "promptcanary.run.errors"
	AttrRunPassRate      = "promptcanary.run.pass_rate"
	AttrRunInterrupted   = "promptcanary.run.interrupted"
	AttrCheck            = "promptcanary.check.name"
	AttrCheckSlot        = "promptcanary.check.slot"
	AttrCheckOutcome     = "promptcanary.check.outcome"
	AttrCheckConfirmed   = "promptcanary.check.confirmed"
	AttrBaselineID       = "promptcanary.baseline.id"
	AttrBaselinePassRate = "promptcanary.baseline.pass_rate"
	AttrReportID         = "promptcanary.report.id"
	AttrDriftDetected    = "promptcanary.drift.detected"
	AttrSeverity         = "promptcanary.drift.severity"
	AttrRegressions      = "promptcanary.drift.regressions"
	AttrCompared         = "promptcanary.drift.compared"
	AttrIncidentID       = "promptcanary.incident.id"
	AttrIncidentState    = "promptcanary.incident.state"
	AttrIncidentKind     = "promptcanary.incident.kind"
	AttrIncidentSeverity = "promptcanary.incident.severity"

	// EventDrift is the event of a drift verdict (a compared run),
	// EventIncident that of a step of an incident (opened, updated,
	// repeated, resolved).
	EventDrift    = "promptcanary.drift"
	EventIncident = "promptcanary.incident"
)

// maxStatus bounds an error message in a span's status.
const maxStatus = 512

// Span is a span of a command, a provider's run or a monitor check. A nil
// *Span does nothing.
type Span struct {
	s trace.Span
	t *Tracer
}

// spanKey is the context key of the current *Span.
type spanKey struct{}

// From returns the span StartCommand or StartCheck put in ctx, nil when
// there is none.
func From(ctx context.Context) *Span {
	s, _ := ctx.Value(spanKey{}).(*Span)
	return s
}

// start starts a span named name under ctx's.
func (t *Tracer) start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, *Span) {
	ctx, s := t.tr.Start(ctx, name, trace.WithAttributes(attrs...))
	sp := &Span{s: s, t: t}
	return context.WithValue(ctx, spanKey{}, sp), sp
}

// StartCommand starts the span of a command ("promptcanary run") on the
// suite named suite ("" when it is not known yet: the runs' spans name
// it). On a nil Tracer it returns ctx and nil.
func (t *Tracer) StartCommand(ctx context.Context, command, suite string) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{attribute.String(AttrCommand, command)}
	if suite != "" {
		attrs = append(attrs, attribute.String(AttrSuite, suite))
	}
	return t.start(ctx, "promptcanary "+command, attrs...)
}

// StartCheck starts the span of a monitor check's run of a slot. On a nil
// Tracer it returns ctx and nil.
func (t *Tracer) StartCheck(ctx context.Context, check, provider, suite string, slot time.Time) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	return t.start(ctx, "check "+check, attribute.String(AttrCheck, check), attribute.String(AttrProvider, provider),
		attribute.String(AttrSuite, suite), attribute.String(AttrCheckSlot, slot.UTC().Format(time.RFC3339)))
}

// StartRun starts the span of one provider's run (spec is NAME/MODEL) and
// returns the function that ends it with the run and its error; its shape
// is check.Exec's Observe. On a nil Tracer it returns ctx and a function
// that does nothing.
func (t *Tracer) StartRun(ctx context.Context, spec string) (context.Context, func(*promptcanary.Run, error)) {
	if t == nil {
		return ctx, func(*promptcanary.Run, error) {}
	}
	ctx, s := t.tr.Start(ctx, "run "+spec, trace.WithAttributes(attribute.String(AttrProvider, spec)))
	return ctx, func(r *promptcanary.Run, err error) {
		if r != nil {
			s.SetAttributes(runAttrs(r)...)
		}
		t.status(s, err)
		s.End()
	}
}

// runAttrs are the attributes of a finished run: its id, counts and, when
// it has probe results, its pass rate.
func runAttrs(r *promptcanary.Run) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.String(AttrRunID, r.RunID), attribute.String(AttrSuite, r.SuiteName),
		attribute.Int(AttrRunSamples, r.Samples), attribute.Int(AttrRunAnswers, len(r.LLMResponses)),
		attribute.Int(AttrRunErrors, len(r.Errors)),
	}
	if n := len(r.ProbeResults); n > 0 {
		passed := 0
		for i := range r.ProbeResults {
			if r.ProbeResults[i].Passed {
				passed++
			}
		}
		attrs = append(attrs, attribute.Float64(AttrRunPassRate, float64(passed)/float64(n)))
	}
	if r.Interrupted {
		attrs = append(attrs, attribute.Bool(AttrRunInterrupted, true))
	}
	in, out := r.Tokens()
	return append(attrs, attribute.Int(AttrInputTokens, in), attribute.Int(AttrOutputTokens, out))
}

// status marks s failed with err's message, scrubbed and bounded.
func (t *Tracer) status(s trace.Span, err error) {
	if err == nil {
		return
	}
	s.SetStatus(codes.Error, t.secrets.Truncate(err.Error(), maxStatus))
}

// Drift adds the verdict of a compared run as an event: drift or not, its
// severity, the regressions and the pairs compared, with the ids of the
// run, the baseline and the report.
func (s *Span) Drift(r *promptcanary.DriftReport) {
	if s == nil || r == nil {
		return
	}
	s.s.AddEvent(EventDrift, trace.WithAttributes(
		attribute.Bool(AttrDriftDetected, r.HasDrift), attribute.String(AttrSeverity, string(r.Severity)),
		attribute.Int(AttrRegressions, len(r.Regressions())), attribute.Int(AttrCompared, r.Compared()),
		attribute.String(AttrProvider, r.Provider.ModelID), attribute.String(AttrRunID, r.CurrentRunID),
		attribute.String(AttrBaselineID, r.BaselineSnapshotID), attribute.String(AttrReportID, r.ReportID)))
}

// Incident adds a step of an incident (state: opened, updated, repeated,
// resolved, …) as an event.
func (s *Span) Incident(inc *promptcanary.Incident, state string) {
	if s == nil || inc == nil {
		return
	}
	s.s.AddEvent(EventIncident, trace.WithAttributes(
		attribute.String(AttrIncidentID, inc.ID), attribute.String(AttrIncidentState, state),
		attribute.String(AttrIncidentKind, string(inc.Kind)), attribute.String(AttrIncidentSeverity, string(inc.Severity)),
		attribute.String(AttrCheck, inc.Check), attribute.String(AttrProvider, inc.Provider)))
}

// EndCheck ends a check's span with what the check run found: its
// outcome, severity, pass rates and ids; an unmeasured run marks the span
// failed with its reason (already scrubbed by the monitor, scrubbed again).
func (s *Span) EndCheck(cr *promptcanary.CheckRun) {
	if s == nil {
		return
	}
	attrs := []attribute.KeyValue{attribute.String(AttrCheckOutcome, string(cr.Outcome))}
	if cr.RunID != "" {
		attrs = append(attrs, attribute.String(AttrRunID, cr.RunID))
	}
	if cr.BaselineID != "" {
		attrs = append(attrs, attribute.String(AttrBaselineID, cr.BaselineID))
	}
	if cr.Outcome == promptcanary.CheckClean || cr.Outcome == promptcanary.CheckDrift {
		// A rate of nothing compared is NaN: no rate, left out.
		if !math.IsNaN(cr.PassRate) {
			attrs = append(attrs, attribute.Float64(AttrRunPassRate, cr.PassRate))
		}
		if !math.IsNaN(cr.BaselinePassRate) {
			attrs = append(attrs, attribute.Float64(AttrBaselinePassRate, cr.BaselinePassRate))
		}
	}
	if cr.Outcome == promptcanary.CheckDrift {
		attrs = append(attrs, attribute.String(AttrSeverity, string(cr.Severity)), attribute.Bool(AttrCheckConfirmed, cr.Confirmed))
	}
	s.s.SetAttributes(attrs...)
	if cr.Outcome == promptcanary.CheckUnmeasured {
		s.s.SetStatus(codes.Error, s.t.secrets.Truncate(cr.Reason, maxStatus))
	}
	s.s.End()
}

// End ends a command's span; err, when not nil, marks it failed with its
// message scrubbed.
func (s *Span) End(err error) {
	if s == nil {
		return
	}
	s.t.status(s.s, err)
	s.s.End()
}
