package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
)

type compareOptions struct {
	config           string
	settings         settings
	current          string
	baseline         string
	baselineDir      string
	baselineProvider string
	failOnDrift      bool
	verbose          bool
	out              outputs
}

func (a *app) compareCmd() *cobra.Command {
	o := &compareOptions{}
	c := &cobra.Command{
		Use:   "compare",
		Short: "Compare a run against a baseline and report drift",
		Long: `Compare a run against a baseline: either run the suite now (--provider) or
load a saved run (--current FILE). The baseline is --baseline FILE, or the
latest baseline in --baseline-dir for this suite and provider/model
(--baseline-provider picks another model's baseline).

Pairs are matched by (probe id, prompt id). Pairs on one side only are
reported as added or removed, calls that failed as not measured: neither is
drift.

` + exitCodeHelp,
		Example: `  promptcanary compare -p sim/stable
  promptcanary compare -p sim/drifted --baseline-provider sim/stable --fail-on-drift
  promptcanary compare --current run.json --baseline baselines/x.json --output-md drift.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return a.compare(c, o) },
	}
	f := c.Flags()
	f.StringVarP(&o.config, "config", "c", "canary.yaml", "suite file")
	o.settings.flags(c)
	f.StringVar(&o.current, "current", "", "compare this saved run JSON instead of running now")
	f.StringVar(&o.baseline, "baseline", "", "baseline file (default: the latest in --baseline-dir for this suite and model)")
	f.StringVar(&o.baselineDir, "baseline-dir", "baselines", "directory of baseline files")
	f.StringVar(&o.baselineProvider, "baseline-provider", "", "use the latest baseline of this provider/model instead of the current one's")
	f.BoolVar(&o.failOnDrift, "fail-on-drift", false, "exit 1 when drift is detected")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list stable pairs too")
	o.out.flags(c)
	return c
}

func (a *app) compare(c *cobra.Command, o *compareOptions) error {
	if o.current != "" && o.settings.provider != "" {
		return usageErr(errors.New("--current and --provider exclude each other"), "compare a saved run with --current, or run now with --provider")
	}
	if o.baseline != "" && o.baselineProvider != "" {
		return usageErr(errors.New("--baseline and --baseline-provider exclude each other"))
	}
	ctx := c.Context()
	var (
		current *promptcanary.Run
		err     error
	)
	if o.current != "" {
		current, err = file.LoadRun(o.current)
		if err != nil {
			return usageErr(err)
		}
	} else {
		st, err := loadSuite(o.config)
		if err != nil {
			return err
		}
		current, err = a.execute(ctx, c, st, &o.settings)
		if errors.Is(err, context.Canceled) {
			a.warn("interrupted: nothing compared")
			return codeErr(ExitInterrupted)
		}
		if err != nil {
			return err
		}
	}

	base, err := a.findBaseline(ctx, o, current)
	if err != nil {
		return err
	}
	d, err := drift.Compare(base, current, drift.Options{})
	if err != nil {
		return usageErr(err)
	}
	opts := report.Options{Color: a.colorFor(a.stdio.Out), Verbose: o.verbose}
	if err := report.Drift(a.stdio.Out, report.Terminal, d, opts); err != nil {
		return err
	}
	if err := o.out.write(func(w io.Writer, f report.Format) error { return report.Drift(w, f, d, opts) }); err != nil {
		return err
	}
	if len(current.Errors) > o.settings.maxErrors {
		a.warn("%d provider call(s) failed (--max-errors %d): the run could not be measured", len(current.Errors), o.settings.maxErrors)
		return codeErr(ExitUnmeasured)
	}
	if o.failOnDrift && d.HasDrift {
		return codeErr(ExitGate)
	}
	return nil
}

// findBaseline loads --baseline, or the latest baseline for the suite and
// model in --baseline-dir.
func (a *app) findBaseline(ctx context.Context, o *compareOptions, current *promptcanary.Run) (*promptcanary.Baseline, error) {
	if o.baseline != "" {
		b, err := file.LoadBaseline(o.baseline)
		if err != nil {
			return nil, usageErr(err)
		}
		return b, nil
	}
	model := current.Provider.ModelID
	if o.baselineProvider != "" {
		model = o.baselineProvider
	}
	fs, err := file.Open(o.baselineDir)
	if err != nil {
		return nil, usageErr(err)
	}
	b, err := fs.LatestBaseline(ctx, current.SuiteName, model)
	if errors.Is(err, store.ErrNotFound) {
		return nil, usageErr(fmt.Errorf("no baseline for suite %q and model %q in %q", current.SuiteName, model, o.baselineDir),
			"save one with 'promptcanary run -p "+model+" --save-baseline', or pass --baseline FILE")
	}
	if err != nil {
		return nil, usageErr(err)
	}
	return b, nil
}
