package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/monitor"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/suite"
)

type serveOptions struct {
	config      string
	oldConfig   string // -f, the spelling of --config before -f meant --format
	listen      string
	once        bool
	checkConfig bool
	logFormat   string
	leaseTTL    time.Duration
}

func (a *app) serveCmd() *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run the monitor: scheduled checks, incidents, alerts, metrics and a dashboard",
		Long: `Run the checks of monitor.yaml on their schedules, compare each run with the
check's baseline, confirm a drift with a second run before opening an
incident, notify (webhook, Slack, GitHub issues, PagerDuty), and serve the
dashboard, /metrics, /healthz, /readyz and the JSON API on --listen.

SIGINT or SIGTERM stops scheduling; runs in flight finish (up to
shutdown_grace) and are recorded before the monitor exits 0.

With --once every check runs once now (confirmations and notifications
included) and the command exits: 0 all clean, 1 an incident is open,
3 a check could not be measured. It fits cron and a Kubernetes CronJob.
With --check-config the configuration is validated (suites, baselines,
notifiers, a store that can be written) and nothing runs: exit 0 or 2.

Several monitors may share one store (a postgres:// DSN, or a SQLite
file on one machine) with the same monitor.yaml: each scheduled slot of
a check runs once across them, and each notification is sent once. When
one dies, another takes its slot and its notifications over within about
--lease-ttl.

Without --config, monitor.yaml is looked up in the current directory and
its parents, like canary.yaml.`,
		Example: `  promptcanary init --monitor          # monitor.yaml beside canary.yaml
  promptcanary serve -c /srv/canary/monitor.yaml
  promptcanary serve --check-config
  promptcanary serve --once
  promptcanary serve --listen 127.0.0.1:9464`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			return a.serve(c.Context(), c, o)
		},
	}
	f := c.Flags()
	f.StringVarP(&o.config, "config", "c", config.FileName, "monitor configuration (default: monitor.yaml here or in a parent directory)")
	f.StringVarP(&o.oldConfig, "config-f", "f", "", "the old spelling of -c")
	_ = f.MarkHidden("config-f")
	f.StringVar(&o.listen, "listen", "", "address of the dashboard, /metrics and the API (default: listen: in monitor.yaml, else 127.0.0.1:9464)")
	f.BoolVar(&o.once, "once", false, "run every check once now, then exit (0 clean, 1 incident open, 3 unmeasured)")
	f.BoolVar(&o.checkConfig, "check-config", false, "validate the configuration and exit (0 or 2)")
	f.StringVar(&o.logFormat, "log-format", "text", "log lines on stderr: text or json")
	f.DurationVar(&o.leaseTTL, "lease-ttl", monitor.DefaultLeaseTTL, "how long a slot or notification claimed by a monitor that stops answering stays claimed before another monitor sharing the store takes it over")
	c.MarkFlagsMutuallyExclusive("once", "check-config")
	return c
}

func (a *app) serve(ctx context.Context, c *cobra.Command, o serveOptions) error {
	if o.logFormat != "text" && o.logFormat != "json" {
		return usageErr(fmt.Errorf("--log-format %q: want text or json", o.logFormat))
	}
	if o.leaseTTL < time.Second {
		return usageErr(fmt.Errorf("--lease-ttl %s: want at least 1s", o.leaseTTL))
	}
	cfg, err := a.loadMonitorConfig(c, o)
	if err != nil {
		return err
	}
	st, err := openTarget(ctx, cfg.Store, "pass --store PATH (or postgres://…), or set store: in monitor.yaml")
	if err != nil {
		return err
	}
	defer st.Close()

	logger := serveLogger(a.stdio.Err, o.logFormat)
	var tracer *telemetry.Tracer
	if !o.checkConfig {
		tracer = a.serveTracer(ctx, cfg, logger)
		defer func() {
			if err := tracer.Close(); err != nil {
				a.warn("%s", err)
			}
		}()
	}
	m, err := monitor.New(cfg, monitor.Options{
		Store:    st,
		Getenv:   a.getenv,
		Logger:   logger,
		Secrets:  a.secrets,
		Tool:     toolName(),
		BaseURL:  cfg.BaseURL,
		LeaseTTL: o.leaseTTL,
		Tracer:   tracer,
	})
	if err != nil {
		return usageErr(err)
	}
	switch {
	case o.checkConfig:
		return a.serveCheckConfig(ctx, m, cfg)
	case o.once:
		return a.serveOnce(ctx, m, st)
	}
	return a.serveUntilDone(ctx, m, cfg)
}

// loadMonitorConfig loads the monitor configuration serve was given or
// finds, with --listen and --store over what it says. The secrets it
// holds are scrubbed from then on, even when it does not validate.
func (a *app) loadMonitorConfig(c *cobra.Command, o serveOptions) (*config.Config, error) {
	path, err := a.findMonitorConfig(c, o)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(path, a.getenv)
	if cfg != nil {
		a.secrets.Add(cfg.Secrets()...)
	}
	if err != nil {
		var ve *suite.ValidationError
		if errors.As(err, &ve) {
			return nil, &exitError{code: ExitUsage, err: problemsErr{ve}}
		}
		return nil, usageErr(err, "see \"Configuration (monitor.yaml)\" in docs/monitor.md for every key")
	}
	if c.Flags().Changed("listen") {
		cfg.Listen = o.listen
	}
	if a.store != "" {
		cfg.Store = a.store
	}
	return cfg, nil
}

// serveLogger is the monitor's logger, writing to w in --log-format
// (text or json).
func serveLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// serveCheckConfig is serve --check-config: the configuration loaded and
// the store writable, it says so and runs nothing.
func (a *app) serveCheckConfig(ctx context.Context, m *monitor.Monitor, cfg *config.Config) error {
	if err := m.CheckStore(ctx); err != nil {
		return usageErr(err, "make the store writable by the user that runs serve (the file and its directory), free disk space, or set store: in monitor.yaml to a writable path")
	}
	fmt.Fprintf(a.stdio.Out, "%s: ok: %d check(s), %d notifier(s), store %s\n",
		displayPath(cfg.Path), len(cfg.Checks), len(cfg.Notifiers), displayStore(cfg.Store))
	return nil
}

// serveUntilDone runs the monitor until ctx is done, then stops it,
// letting runs in flight finish within the shutdown grace.
func (a *app) serveUntilDone(ctx context.Context, m *monitor.Monitor, cfg *config.Config) error {
	// The monitor's own context outlives the signal: a signal stops
	// scheduling and lets runs in flight finish within the grace period.
	if err := m.Start(context.WithoutCancel(ctx)); err != nil {
		return usageErr(fmt.Errorf("start the monitor: %w", err), "pass --listen ADDR, or set listen: in monitor.yaml")
	}
	fmt.Fprintf(a.stdio.Err, "promptcanary: monitoring %d check(s); dashboard on http://%s/\n", len(cfg.Checks), m.Addr())
	<-ctx.Done()
	fmt.Fprintf(a.stdio.Err, "promptcanary: stopping: runs in flight may take up to %s to finish\n", cfg.ShutdownGrace)
	grace, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace+5*time.Second)
	defer cancel()
	if err := m.Stop(grace); err != nil {
		return &exitError{code: ExitInternal, err: fmt.Errorf("stop the monitor: %w", err)}
	}
	return nil
}

// serveOnce runs every check once and prints one line per check run.
// Notifications not delivered within the shutdown grace are given up and
// recorded as such by Stop.
func (a *app) serveOnce(ctx context.Context, m *monitor.Monitor, st store.Store) error {
	mon, _ := st.(store.Monitor)
	var before []promptcanary.Incident
	if mon != nil {
		before, _ = mon.Incidents(ctx, store.IncidentFilter{OpenOnly: true})
	}
	out, err := m.Once(ctx)
	_ = m.Stop(context.WithoutCancel(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return codeErr(ExitInterrupted)
		}
		return &exitError{code: ExitInternal, err: err}
	}
	code := ExitOK
	for _, r := range out.Runs {
		line := fmt.Sprintf("%-10s %s  %s", r.Outcome, termtext.Safe(r.Check), termtext.Safe(r.Provider))
		switch r.Outcome {
		case promptcanary.CheckClean, promptcanary.CheckDrift:
			line += fmt.Sprintf("  pass rate %s (baseline %s)", fmtRate(r.PassRate), fmtRate(r.BaselinePassRate))
		}
		if r.Outcome == promptcanary.CheckDrift {
			line += "  severity " + string(r.Severity)
			if r.Confirmed {
				line += ", confirmed"
			} else {
				line += ", not confirmed"
			}
		}
		if r.Reason != "" {
			line += "  (" + termtext.Safe(r.Reason) + ")"
		}
		if r.RunID != "" {
			line += "  run " + short(r.RunID)
		}
		fmt.Fprintln(a.stdio.Out, line)
		a.printGate(ctx, st, r)
		if r.Outcome == promptcanary.CheckUnmeasured {
			code = ExitUnmeasured
		}
	}
	a.printResolved(ctx, mon, before, out.Open)
	for _, inc := range out.Open {
		fmt.Fprintf(a.stdio.Out, "incident %s open: %s %s %s (%s): %s\n", short(inc.ID), inc.Kind,
			termtext.Safe(inc.Check), termtext.Safe(inc.Provider), inc.Severity, termtext.Safe(inc.Summary))
		if code == ExitOK {
			code = ExitGate
		}
	}
	if code != ExitOK {
		return codeErr(code)
	}
	return nil
}

// printResolved prints the incidents that were open before the runs of
// serve --once and are resolved after them.
func (a *app) printResolved(ctx context.Context, mon store.Monitor, before, open []promptcanary.Incident) {
	still := make(map[string]bool, len(open))
	for _, inc := range open {
		still[inc.ID] = true
	}
	for _, was := range before {
		if still[was.ID] {
			continue
		}
		inc, err := mon.Incident(ctx, was.ID)
		if err != nil || inc.Open() {
			continue
		}
		fmt.Fprintf(a.stdio.Out, "incident %s resolved: %s %s %s (was %s)\n", short(inc.ID), inc.Kind,
			termtext.Safe(inc.Check), termtext.Safe(inc.Provider), inc.Severity)
	}
}

// findMonitorConfig returns the monitor configuration: --config (or the
// old -f, with a warning) when given, else monitor.yaml in the current
// directory or the nearest parent that has one.
func (a *app) findMonitorConfig(c *cobra.Command, o serveOptions) (string, error) {
	fl := c.Flags()
	if fl.Changed("config-f") {
		if fl.Changed("config") {
			return "", usageErr(errors.New("-f and -c both name the monitor configuration"), "pass -c PATH alone")
		}
		a.warn("serve -f is deprecated: use -c %s (-f means --format in every other command)", o.oldConfig)
		o.config = o.oldConfig
	}
	if fl.Changed("config") || fl.Changed("config-f") {
		if _, err := os.Stat(o.config); errors.Is(err, os.ErrNotExist) {
			return "", usageErr(fmt.Errorf("no monitor configuration at %q", displayPath(o.config)), a.monitorHint())
		}
		return o.config, nil
	}
	path, err := suite.FindFile(".", config.FileName)
	if _, missing := errors.AsType[*suite.NotFoundError](err); missing {
		return "", usageErr(err, a.monitorHint())
	}
	if err != nil {
		return "", usageErr(err)
	}
	return path, nil
}

// monitorHint says how to get a monitor configuration: beside the suite
// found from here, so that following it never scaffolds a nested suite.
func (a *app) monitorHint() string {
	if found, err := suite.Find("."); err == nil {
		return fmt.Sprintf("add one beside %s with 'promptcanary init --monitor', or pass -c PATH", displayPath(found))
	}
	return "create a suite with one with 'promptcanary init --monitor NAME', or pass -c PATH"
}
