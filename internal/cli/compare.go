package cli

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/suite"
)

type compareOptions struct {
	config           string
	settings         settings
	current          string
	baseline         string
	baselineDir      string
	baselineProvider string
	failOnDrift      bool
	legacy           bool
	noAdaptive       bool
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
		Args: argsUsage(cobra.NoArgs),
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
	f.BoolVar(&o.legacy, "legacy-compare", false, "use the original single-sample rule even with many samples")
	f.BoolVar(&o.noAdaptive, "no-adaptive", false, "take every --samples sample instead of stopping early on prompts that are clearly fine")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list stable pairs too")
	o.out.flags(c)
	return c
}

func (a *app) compare(c *cobra.Command, o *compareOptions) error {
	if o.current != "" && len(o.settings.providers) > 0 {
		return usageErr(errors.New("--current and --provider exclude each other"), "compare a saved run with --current, or run now with --provider")
	}
	if o.baseline != "" && o.baselineProvider != "" {
		return usageErr(errors.New("--baseline and --baseline-provider exclude each other"))
	}
	ctx := c.Context()
	var (
		st       *suite.Suite
		currents []*promptcanary.Run
		bases    []*promptcanary.Baseline
	)
	if o.current != "" {
		run, err := file.LoadRun(o.current)
		if err != nil {
			return usageErr(err)
		}
		currents = []*promptcanary.Run{run}
		if st, err = a.suiteForStore(o.config); err != nil {
			return err
		}
	} else {
		var err error
		if st, err = loadSuite(o.config); err != nil {
			return err
		}
	}
	hist, err := a.openStore(o.config, st)
	if err != nil {
		return err
	}
	defer hist.Close()

	if o.current != "" {
		b, err := a.findBaseline(ctx, o, hist, currents[0].SuiteName, currents[0].Provider.ModelID)
		if err != nil {
			return err
		}
		bases = []*promptcanary.Baseline{b}
	} else {
		targets, samples, err := o.settings.resolve(c, st, a.getenv)
		if err != nil {
			return err
		}
		if len(targets) > 1 && (o.baseline != "" || o.baselineProvider != "") {
			return usageErr(errors.New("--baseline and --baseline-provider pick one baseline, but several providers are run"), "compare one provider at a time, or let each use its own latest baseline")
		}
		// Find every baseline before calling anything: a missing one is a
		// usage error, and adaptive sampling needs the baseline's results.
		bases = make([]*promptcanary.Baseline, len(targets))
		adaptive := make([]*runner.Adaptive, len(targets))
		for i, t := range targets {
			if bases[i], err = a.findBaseline(ctx, o, hist, st.Name, t.spec); err != nil {
				return err
			}
			if samples > 1 && !o.noAdaptive && !o.legacy {
				adaptive[i] = acceptAgainst(bases[i])
			}
		}
		runs, err := a.execute(ctx, st, &o.settings, targets, samples, adaptive)
		if errors.Is(err, context.Canceled) {
			a.warn("interrupted: nothing compared or recorded")
			return codeErr(ExitInterrupted)
		}
		if err != nil {
			return err
		}
		currents = runs
	}

	reports := make([]*promptcanary.DriftReport, len(currents))
	for i, cur := range currents {
		opts := drift.Options{StalePrompts: stalePrompts(&bases[i].RunResult, cur), Seed: statsSeed(bases[i], cur)}
		if o.legacy {
			opts.Method = drift.MethodSingleSample
		}
		if reports[i], err = drift.Compare(bases[i], cur, opts); err != nil {
			return usageErr(err)
		}
	}
	for i, cur := range currents {
		if o.current == "" {
			if err := hist.SaveRun(ctx, cur); err != nil {
				return err
			}
		}
		if err := hist.SaveDrift(ctx, reports[i]); err != nil {
			return err
		}
	}
	opts := report.Options{Color: a.colorFor(a.stdio.Out), Verbose: o.verbose}
	for i, d := range reports {
		if i > 0 {
			fmt.Fprintln(a.stdio.Out)
		}
		if err := report.Drift(a.stdio.Out, report.Terminal, d, opts); err != nil {
			return err
		}
		out := o.out
		if len(reports) > 1 {
			out = o.out.suffixed(d.Provider.ModelID)
		}
		if err := out.write(func(w io.Writer, f report.Format) error { return report.Drift(w, f, d, opts) }); err != nil {
			return err
		}
	}
	unmeasured, drifted := false, false
	for i, cur := range currents {
		if len(cur.Errors) > o.settings.maxErrors {
			a.warn("%s: %d provider call(s) failed (--max-errors %d): the run could not be measured", cur.Provider.ModelID, len(cur.Errors), o.settings.maxErrors)
			unmeasured = true
		}
		drifted = drifted || reports[i].HasDrift
	}
	if unmeasured {
		return codeErr(ExitUnmeasured)
	}
	if o.failOnDrift && drifted {
		return codeErr(ExitGate)
	}
	return nil
}

// acceptAgainst stops sampling a prompt once its results are clearly no
// worse than the baseline's (drift.AcceptEarly), in drift.Stages.
func acceptAgainst(b *promptcanary.Baseline) *runner.Adaptive {
	byPrompt := map[string][]promptcanary.ProbeResult{}
	for _, r := range b.RunResult.ProbeResults {
		byPrompt[r.PromptID] = append(byPrompt[r.PromptID], r)
	}
	return &runner.Adaptive{
		Stages: drift.Stages,
		Accept: func(promptID string, results []promptcanary.ProbeResult) bool {
			return drift.AcceptEarly(byPrompt[promptID], results)
		},
	}
}

// stalePrompts lists the prompts whose hash differs between baseline and
// run: their configuration changed, so their pairs are stale, not drift.
// Runs without hashes (older files, the Python tool's) mark nothing stale.
func stalePrompts(base, cur *promptcanary.Run) map[string]bool {
	stale := map[string]bool{}
	for id, h := range cur.PromptHashes {
		if bh, ok := base.PromptHashes[id]; ok && bh != h {
			stale[id] = true
		}
	}
	return stale
}

// statsSeed derives the permutation seed from the two run ids, so the same
// comparison always gives the same verdict; the report records it.
func statsSeed(b *promptcanary.Baseline, cur *promptcanary.Run) uint64 {
	h := fnv.New64a()
	h.Write([]byte(b.SnapshotID))
	h.Write([]byte{0})
	h.Write([]byte(cur.RunID))
	return h.Sum64()
}

// findBaseline loads --baseline, or the latest baseline for the suite and
// model (or --baseline-provider) in the history and --baseline-dir.
func (a *app) findBaseline(ctx context.Context, o *compareOptions, hist store.Store, suiteName, model string) (*promptcanary.Baseline, error) {
	if o.baseline != "" {
		b, err := file.LoadBaseline(o.baseline)
		if err != nil {
			return nil, usageErr(err)
		}
		return b, nil
	}
	if o.baselineProvider != "" {
		model = o.baselineProvider
	}
	b, err := latestBaseline(ctx, hist, o.baselineDir, suiteName, model)
	if errors.Is(err, store.ErrNotFound) {
		return nil, usageErr(fmt.Errorf("no baseline for suite %q and model %q in %q or the run history", suiteName, model, o.baselineDir),
			"save one with 'promptcanary run -p "+model+" --save-baseline', or pass --baseline FILE")
	}
	if err != nil {
		return nil, usageErr(err)
	}
	return b, nil
}
