package cli

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
)

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// baselineOptions are the flags every baseline subcommand shares.
type baselineOptions struct {
	config string
}

func (a *app) baselineCmd() *cobra.Command {
	o := &baselineOptions{}
	c := &cobra.Command{
		Use:   "baseline",
		Short: "Manage baselines in the run history",
		Long: `A baseline is a recorded run marked as the reference for its suite and
provider/model. Promote a run, build one from several runs spread over time,
list baselines, and export them to (or import them from) the JSON baseline
files that CI shares through git.`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.PersistentFlags().StringVarP(&o.config, "config", "c", "canary.yaml", "suite file, which locates the history (default: canary.yaml here or in a parent directory)")
	c.AddCommand(a.baselinePromoteCmd(o), a.baselineBuildCmd(o), a.baselineListCmd(o), a.baselineExportCmd(o), a.baselineImportCmd(o))
	return c
}

// promoteOptions are the flags of 'baseline promote'.
type promoteOptions struct {
	note, exportDir string
	// runs, provider, check, suite and since select the runs of a pooled
	// promotion (--runs).
	runs                   int
	provider, check, suite string
	since                  time.Duration
}

func (a *app) baselinePromoteCmd(bo *baselineOptions) *cobra.Command {
	o := &promoteOptions{}
	c := &cobra.Command{
		Use:   "promote [RUN_ID]",
		Short: "Mark a recorded run, or the newest clean runs pooled, as the baseline for a suite and model",
		Long: `Mark a recorded run as the baseline for its suite and model. With --export
the baseline file is also written; if that write fails, the promotion stays
recorded, the error says so and the command exits 5. A run with fewer samples
per prompt than a default baseline (30) is promoted with a warning that says
how large a drop a compare against it can still see.

With --runs N instead of a RUN_ID, the newest N clean runs of --provider
are pooled into one baseline, as 'baseline build' pools its runs: their
samples numbered one run after another, the runs recorded under "runs". A
run is clean when it measured every call (not interrupted, no call failed
for good) and was not found drifting: with --check, the monitor's check run
of it is clean (its policy flagged nothing); without, its latest drift
report, if it was compared, has severity none. The newest clean run is the
reference: an older one whose suite, model or prompts (text, probes,
sampling parameters; not the seed) differ from it is passed over with a
line that says why. Fewer than N clean runs found: nothing is promoted
(exit 2). Runs are read newest first until N are found, so --since also
bounds how far back a search that cannot succeed reads the history.`,
		Example: `  promptcanary baseline promote 3f2a --note 'reviewed after the June model update' --export baselines
  promptcanary baseline promote --runs 6 -p openai/gpt-4o --since 7d
  promptcanary baseline promote --runs 6 --check checkout --export baselines`,
		Args: argsUsage(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.validate(c, args); err != nil {
				return err
			}
			hist, err := a.openHistory(c, bo.config)
			if err != nil {
				return err
			}
			defer hist.Close()
			var b *promptcanary.Baseline
			if len(args) == 1 {
				b, err = a.promoteOne(c, hist, args[0], o)
			} else {
				b, err = a.promotePooled(c, bo, hist, o)
			}
			if err != nil {
				return err
			}
			a.warnThinBaseline(b)
			return a.exportPromoted(b, o.exportDir)
		},
	}
	f := c.Flags()
	f.StringVar(&o.note, "note", "", "why this run is the reference")
	f.StringVar(&o.exportDir, "export", "", "also write the baseline file into this directory")
	f.IntVar(&o.runs, "runs", 0, "pool the newest N clean runs into one baseline instead of promoting RUN_ID")
	f.StringVarP(&o.provider, "provider", "p", "", "with --runs: the provider/model whose runs are pooled")
	f.StringVar(&o.check, "check", "", "with --runs: only the runs the monitor recorded for this check, judged by their check runs")
	f.StringVar(&o.suite, "suite", "", "with --runs: only runs of this suite (default: canary.yaml's, else the newest clean run's)")
	f.Var(ageValue{d: &o.since}, "since", "with --runs: only runs started within this age, e.g. 36h, 7d, 2w")
	return c
}

// validate refuses a RUN_ID with --runs, neither, and the flags of --runs
// without it.
func (o *promoteOptions) validate(c *cobra.Command, args []string) error {
	pooled := c.Flags().Changed("runs")
	switch {
	case pooled && len(args) == 1:
		return usageErr(fmt.Errorf("baseline promote takes a RUN_ID or --runs N, not both"),
			"promote one run with 'promptcanary baseline promote RUN_ID', or pool the newest clean runs with '--runs N -p NAME/MODEL'")
	case !pooled && len(args) == 0:
		return usageErr(errors.New("baseline promote needs a RUN_ID, or --runs N to pool the newest clean runs"),
			"list runs with 'promptcanary history'")
	case pooled && o.runs < 1:
		return usageErr(fmt.Errorf("--runs %d is out of range", o.runs), "pool 1 or more runs, for example --runs 6 -p NAME/MODEL")
	case pooled && o.provider == "" && o.check == "":
		return usageErr(errors.New("--runs needs --provider NAME/MODEL or --check NAME: whose runs to pool"),
			"for example 'promptcanary baseline promote --runs 6 -p openai/gpt-4o'")
	}
	if !pooled {
		for _, name := range []string{"provider", "check", "suite", "since"} {
			if c.Flags().Changed(name) {
				return usageErr(fmt.Errorf("--%s selects the runs of --runs, and a RUN_ID names its run", name),
					"drop --"+name+", or pool runs with --runs N instead of a RUN_ID")
			}
		}
	}
	return nil
}

// promoteOne promotes the recorded run id, as the command always did.
func (a *app) promoteOne(c *cobra.Command, hist store.Store, id string, o *promoteOptions) (*promptcanary.Baseline, error) {
	b, err := hist.Promote(c.Context(), id, o.note)
	if err != nil {
		if isNotFound(err) {
			return nil, usageErr(err, "list runs with 'promptcanary history'")
		}
		return nil, usageErr(err)
	}
	fmt.Fprintf(a.stdio.Out, "run %s is now the baseline for %s on %s (snapshot %s)\n", short(b.RunResult.RunID),
		termtext.Safe(b.SuiteName), termtext.Safe(b.Provider.ModelID), short(b.SnapshotID))
	return b, nil
}

// exportPromoted writes b into dir ("" writes nothing); a failure keeps
// the promotion and exits 5.
func (a *app) exportPromoted(b *promptcanary.Baseline, dir string) error {
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, file.BaselineName(b))
	if err := file.WriteBaseline(path, b); err != nil {
		return &exitError{code: ExitOutput, err: fmt.Errorf("export baseline: %w", err),
			hints: []string{fmt.Sprintf("the promotion is recorded; write the file later with 'promptcanary baseline export %s --dir DIR'", short(b.SnapshotID))}}
	}
	fmt.Fprintf(a.stdio.Out, "exported to %s\n", termtext.Safe(path))
	return nil
}

// promotePooled pools the newest clean runs o selects into one baseline
// and records it in hist.
func (a *app) promotePooled(c *cobra.Command, bo *baselineOptions, hist store.Store, o *promoteOptions) (*promptcanary.Baseline, error) {
	req := check.PoolRequest{History: hist, Model: o.provider, Suite: o.suite, Check: o.check, Runs: o.runs}
	if req.Suite == "" {
		if _, st, err := a.optionalSuite(c, bo.config); err == nil && st != nil {
			req.Suite = st.Name
		}
	}
	if o.since > 0 {
		req.Since = time.Now().Add(-o.since)
	}
	pool, err := check.CleanRuns(c.Context(), req)
	if pool != nil {
		for _, p := range pool.PassedOver {
			a.warn("passed over run %s (started %s): %s", short(p.RunID), p.StartedAt.UTC().Format("2006-01-02 15:04"), termtext.Safe(p.Why))
		}
	}
	if errors.Is(err, check.ErrTooFewRuns) {
		return nil, tooFewRuns(req, pool)
	}
	if err != nil {
		return nil, err
	}
	b, err := check.PoolBaseline(pool.Runs, time.Now())
	if err != nil {
		// The runs are compatible: what is left is too many samples.
		return nil, usageErr(err, "pool fewer runs with a smaller --runs")
	}
	b.Note = o.note
	if _, err := hist.SaveBaseline(c.Context(), b); err != nil {
		return nil, fmt.Errorf("record the pooled baseline: %w", err)
	}
	ids := make([]string, len(pool.Runs))
	for i, r := range pool.Runs {
		ids[i] = short(r.RunID)
	}
	fmt.Fprintf(a.stdio.Out, "baseline of %s on %s pooled from %s (%s), %d samples per prompt: snapshot %s\n", termtext.Safe(b.SuiteName),
		termtext.Safe(b.Provider.ModelID), plural(len(ids), "run"), strings.Join(ids, ", "), b.RunResult.Samples, short(b.SnapshotID))
	return b, nil
}

// tooFewRuns is the error of a pooled promotion that found fewer clean,
// compatible runs than --runs.
func tooFewRuns(req check.PoolRequest, pool *check.Pool) error {
	whose := req.Model
	if req.Check != "" {
		whose = "check " + req.Check
		if req.Model != "" {
			whose += " on " + req.Model
		}
	}
	if req.Suite != "" {
		whose += " in suite " + req.Suite
	}
	if !req.Since.IsZero() {
		whose += " since " + req.Since.UTC().Format("2006-01-02 15:04")
	}
	err := fmt.Errorf("found %s of %s that can be pooled, fewer than --runs %d: nothing promoted",
		plural(len(pool.Runs), "clean run"), termtext.Safe(whose), req.Runs)
	var hints []string
	if pool.NotClean > 0 || len(pool.PassedOver) > 0 {
		hints = append(hints, fmt.Sprintf("%s not clean (drift, failed calls, interrupted) and %d passed over as incompatible",
			plural(pool.NotClean, "run was", "runs were"), len(pool.PassedOver)))
	}
	if len(pool.Runs) > 0 {
		hints = append(hints, fmt.Sprintf("pool the runs found with --runs %d, or let more clean runs be recorded", len(pool.Runs)))
	} else {
		hints = append(hints, "list the recorded runs with 'promptcanary history'")
	}
	return usageErr(err, hints...)
}

// plural writes n with the noun one, or many (default: one with an s)
// when n is not 1: "1 run", "3 runs", "2 runs were".
func plural(n int, one string, many ...string) string {
	if n == 1 {
		return "1 " + one
	}
	m := one + "s"
	if len(many) > 0 {
		m = many[0]
	}
	return fmt.Sprintf("%d %s", n, m)
}

// warnThinBaseline warns when a promoted baseline has fewer samples per
// prompt than a default one, and says what that costs: the smallest drop
// of a pair's pass rate its own test could see against the largest
// adaptive stage of a compare, beside the same with a default baseline.
func (a *app) warnThinBaseline(b *promptcanary.Baseline) {
	n, full := max(b.RunResult.Samples, 1), check.DefaultBaselineSamples
	if n >= full {
		return
	}
	cur := drift.Stages[len(drift.Stages)-1]
	see := func(nb int) string {
		d := drift.PairDetectableDrop(nb, cur, drift.DefaultAlpha)
		if math.IsInf(d, 1) {
			return "no drop at all"
		}
		return fmt.Sprintf("a drop of %.0f points", math.Ceil(100*d-1e-9))
	}
	what := "run " + short(b.RunResult.RunID) + " took"
	if len(b.Runs) > 0 {
		what = fmt.Sprintf("the baseline pooled from %d runs holds", len(b.Runs))
	}
	a.warn("%s %d sample(s) per prompt, fewer than the %d of a default baseline: against %d current samples a pair's own test can at best see %s (%s with %d baseline samples)",
		what, n, full, cur, see(n), see(full), full)
	printLines(a.stdio.Err, "promptcanary: hint: ", fmt.Sprintf("save a fuller baseline with 'promptcanary run --save-baseline' (%d samples per prompt), or '--baseline-samples N'", full))
}
