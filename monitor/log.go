package monitor

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/promptcanary/promptcanary/internal/redact"
)

// The keys of the monitor's log lines.
const (
	logCheck     = "check"
	logProvider  = "provider"
	logSlot      = "slot"
	logOutcome   = "outcome"
	logRun       = "run"
	logReport    = "report"
	logConfirm   = "confirm_run"
	logPassRate  = "pass_rate"
	logSeverity  = "severity"
	logCost      = "cost_usd"
	logReason    = "reason"
	logIncident  = "incident"
	logKind      = "kind"
	logEvent     = "event"
	logNotifier  = "notifier"
	logAddr      = "addr"
	logMissed    = "missed_slots"
	logErr       = "err"
	logBy        = "by"
	logBaseline  = "baseline"
	logRunning   = "running"
	logSpent     = "spent_usd"
	logBudget    = "budget_usd"
	logChecks    = "checks"
	logNotifiers = "notifiers"
	logOwner     = "owner"
	logState     = "state"
	logTakenOver = "taken_over_from"
	logCount     = "count"
	logDelivery  = "delivery"
	logTTL       = "lease_ttl"
	logDown      = "down_for"

	// How long a confirmation waits (confirm_after), and until when.
	logConfirmAfter = "confirm_after"
	logDue          = "due"
)

// scrubber is a slog.Handler that removes every known secret from the
// message and the attributes before the next handler sees them: no log
// line of the monitor can carry an API key, a token or a webhook URL.
type scrubber struct {
	next    slog.Handler
	secrets *redact.Set
}

// newScrubber wraps h; a nil h discards everything.
func newScrubber(h slog.Handler, secrets *redact.Set) slog.Handler {
	if h == nil {
		h = slog.DiscardHandler
	}
	return &scrubber{next: h, secrets: secrets}
}

// Enabled defers to the wrapped handler.
func (s *scrubber) Enabled(ctx context.Context, l slog.Level) bool { return s.next.Enabled(ctx, l) }

// Handle scrubs r and passes it on.
func (s *scrubber) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, s.secrets.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(s.attr(a))
		return true
	})
	return s.next.Handle(ctx, out)
}

// WithAttrs scrubs attrs once, when they are attached.
func (s *scrubber) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = s.attr(a)
	}
	return &scrubber{next: s.next.WithAttrs(clean), secrets: s.secrets}
}

// WithGroup defers to the wrapped handler.
func (s *scrubber) WithGroup(name string) slog.Handler {
	return &scrubber{next: s.next.WithGroup(name), secrets: s.secrets}
}

// attr returns a with every string inside scrubbed: strings, errors and
// anything else printed as a string, groups recursively.
func (s *scrubber) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, s.secrets.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = s.attr(x)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, s.secrets.String(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, s.secrets.String(x.String()))
		default:
			return slog.String(a.Key, s.secrets.String(fmt.Sprint(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
