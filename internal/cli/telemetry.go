package cli

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/monitor/config"
)

// traced runs fn, a command's work, in a span named for command when the
// OpenTelemetry exporter variables (OTEL_EXPORTER_OTLP_ENDPOINT, …) are
// set: the command's context then carries the span, and a.exec wraps the
// providers so that every run and call is a span below it. Tracing never
// changes the outcome: a variable it cannot read, or a collector it cannot
// reach, is a warning. Untraced, fn runs as it is.
func (a *app) traced(c *cobra.Command, command string, fn func() error) error {
	cfg, err := telemetry.FromEnv(a.getenv)
	if err != nil {
		a.warn("%s; no traces are exported", err)
		return fn()
	}
	t, err := telemetry.Start(c.Context(), cfg, telemetry.Options{Secrets: a.secrets, Version: moduleVersion()})
	if err != nil {
		a.warn("%s; no traces are exported", err)
		return fn()
	}
	if t == nil {
		return fn()
	}
	a.tracer = t
	defer func() { a.tracer = nil }()
	ctx, span := t.StartCommand(c.Context(), command, "")
	c.SetContext(ctx)
	err = fn()
	span.End(failure(err))
	if cerr := t.Close(); cerr != nil {
		a.warn("%s", cerr)
	}
	return err
}

// failure is err when it means the command failed: not a verdict (exit 1,
// drift or a failing probe) or a plain exit code an outcome set.
func failure(err error) error {
	if err == nil {
		return nil
	}
	switch exitCode(err) {
	case ExitOK, ExitGate:
		return nil
	}
	if strings.TrimSpace(err.Error()) == "" {
		return fmt.Errorf("exit code %d", exitCode(err))
	}
	return err
}

// serveTracer starts the monitor's tracer from otel: in monitor.yaml over
// the OpenTelemetry variables, nil when neither names an endpoint. Export
// failures are logged (at most once a minute), never fatal.
func (a *app) serveTracer(ctx context.Context, cfg *config.Config, log *slog.Logger) *telemetry.Tracer {
	env, err := telemetry.FromEnv(a.getenv)
	if err != nil {
		a.warn("%s; it is ignored", err)
		env, _ = telemetry.FromEnv(func(string) string { return "" })
	}
	tc := cfg.OTel.Apply(env)
	t, err := telemetry.Start(ctx, tc, telemetry.Options{Secrets: a.secrets, Version: moduleVersion(),
		OnError: func(err error) { log.Warn("opentelemetry export failed", "err", err) }})
	if err != nil {
		a.warn("%s; no traces are exported", err)
		return nil
	}
	return t
}
