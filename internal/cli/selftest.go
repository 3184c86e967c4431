package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/selftest"
	"github.com/promptcanary/promptcanary/store/file"
)

type selftestOptions struct {
	config          string
	baseline        string
	baselineDir     string
	provider        string
	samples         int
	baselineSamples int
	failOnMiss      bool
	render          rendering
}

func (a *app) selftestCmd() *cobra.Command {
	o := &selftestOptions{}
	c := &cobra.Command{
		Use:   "selftest",
		Short: "Show which drifts the suite would catch, on a baseline's stored answers",
		Long: `Apply a catalogue of realistic drifts (JSON wrapped in prose or a fence, a
preamble, renamed or dropped keys, truncation, a disclaimer, a refusal, a
renamed tool or argument, hedging, a language switch, …) to the answers
stored in a baseline, judge the original and the drifted answers with the
suite's probes, and print which drifts each probe catches. Drifts that no
probe catches come with a suggested probe. With --samples, it also gives the
smallest drop of a probe's pass rate that a compare with those sample sizes
would detect. Nothing is called.

The baseline is --baseline FILE, or the latest for the suite and the model
of --provider (default: provider: or the first providers: entry of
canary.yaml), from --baseline-dir or the history.

Exit codes: 0 printed (drifts may be missed), 1 --fail-on-miss and a drift
is missed, 2 usage or configuration error, 5 the output could not be written.`,
		Example: `  promptcanary selftest
  promptcanary selftest --samples 5 --format html --output selftest.html
  promptcanary selftest --baseline baselines/x.json --fail-on-miss`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error { return a.selftest(c, o) },
	}
	f := c.Flags()
	f.StringVarP(&o.config, "config", "c", "canary.yaml", "suite file (default: canary.yaml here or in a parent directory)")
	f.StringVar(&o.baseline, "baseline", "", "baseline file whose answers are drifted (default: the latest for this suite and model)")
	f.StringVar(&o.baselineDir, "baseline-dir", "baselines", "directory of baseline files (default: baselines/ beside canary.yaml)")
	f.StringVarP(&o.provider, "provider", "p", "", "model whose latest baseline is used (default: provider: in canary.yaml)")
	f.IntVar(&o.samples, "samples", 0, "samples per prompt of the compares to size: print the smallest detectable drop per probe")
	f.IntVar(&o.baselineSamples, "baseline-samples", 0, "samples per prompt of the baseline for --samples (default: the baseline's own)")
	f.BoolVar(&o.failOnMiss, "fail-on-miss", false, "exit 1 when a drift that applies is caught by no probe")
	o.render.flags(c, "also describe every drift of the catalogue", report.Terminal, report.Markdown, report.HTML, report.JSON)
	return c
}

func (a *app) selftest(c *cobra.Command, o *selftestOptions) error {
	format, err := o.render.parse(c)
	if err != nil {
		return err
	}
	config, err := a.findConfig(c, o.config)
	if err != nil {
		return err
	}
	st, err := loadSuite(config)
	if err != nil {
		return err
	}
	var base *promptcanary.Baseline
	if o.baseline != "" {
		if base, err = file.LoadBaseline(o.baseline); err != nil {
			return usageErr(err)
		}
	} else {
		model := o.provider
		switch {
		case model != "":
		case st.Defaults.Provider != "":
			model = st.Defaults.Provider
		case len(st.Providers) > 0:
			model = st.Providers[0].Spec
		default:
			return usageErr(errors.New("no model to take a baseline of"), "pass --provider NAME/MODEL or --baseline FILE")
		}
		hist, err := a.openStore(config, st)
		if err != nil {
			return err
		}
		defer hist.Close()
		views := check.Baselines{History: hist, Dir: a.suitePath(c, "baseline-dir", o.baselineDir, st), Files: file.OpenDir, Warn: a.warnBaseline}
		if base, err = views.Latest(c.Context(), st.Name, model); err != nil {
			return err
		}
	}
	opts := selftest.Options{}
	if o.samples != 0 || c.Flags().Changed("baseline-samples") {
		n := &selftest.Samples{Baseline: o.baselineSamples, Current: o.samples}
		if n.Baseline == 0 {
			n.Baseline = max(base.RunResult.SamplesPerPrompt(), 1)
		}
		if n.Current == 0 {
			n.Current = 1
			if st.Defaults.Samples != nil {
				n.Current = *st.Defaults.Samples
			}
		}
		opts.Samples = n
	}
	res, err := selftest.Run(st, base, opts)
	if err != nil {
		return usageErr(err)
	}
	if err := a.emit(&o.render, format, func(w io.Writer, ro report.Options) error {
		return report.Selftest(w, format, res, ro)
	}); err != nil {
		return err
	}
	if caught, applicable := res.Caught(); o.failOnMiss && caught < applicable {
		fmt.Fprintf(a.stdio.Err, "promptcanary: %d of %d drifts that apply are caught by no probe\n", applicable-caught, applicable)
		return codeErr(ExitGate)
	}
	return nil
}
