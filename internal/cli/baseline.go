package cli

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"

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

func (a *app) baselinePromoteCmd(o *baselineOptions) *cobra.Command {
	var note, exportDir string
	c := &cobra.Command{
		Use:   "promote RUN_ID",
		Short: "Mark a recorded run as the baseline for its suite and model",
		Long: `Mark a recorded run as the baseline for its suite and model. With --export
the baseline file is also written; if that write fails, the promotion stays
recorded, the error says so and the command exits 5. A run with fewer samples
per prompt than a default baseline (30) is promoted with a warning that says
how large a drop a compare against it can still see.`,
		Example: "  promptcanary baseline promote 3f2a --note 'reviewed after the June model update' --export baselines",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			hist, err := a.openHistory(c, o.config)
			if err != nil {
				return err
			}
			defer hist.Close()
			b, err := hist.Promote(c.Context(), args[0], note)
			if err != nil {
				if isNotFound(err) {
					return usageErr(err, "list runs with 'promptcanary history'")
				}
				return usageErr(err)
			}
			fmt.Fprintf(a.stdio.Out, "run %s is now the baseline for %s on %s (snapshot %s)\n", short(b.RunResult.RunID),
				termtext.Safe(b.SuiteName), termtext.Safe(b.Provider.ModelID), short(b.SnapshotID))
			a.warnThinBaseline(b)
			if exportDir == "" {
				return nil
			}
			path := filepath.Join(exportDir, file.BaselineName(b))
			if err := file.WriteBaseline(path, b); err != nil {
				return &exitError{code: ExitOutput, err: fmt.Errorf("export baseline: %w", err),
					hints: []string{fmt.Sprintf("the promotion is recorded; write the file later with 'promptcanary baseline export %s --dir DIR'", short(b.SnapshotID))}}
			}
			fmt.Fprintf(a.stdio.Out, "exported to %s\n", termtext.Safe(path))
			return nil
		},
	}
	c.Flags().StringVar(&note, "note", "", "why this run is the reference")
	c.Flags().StringVar(&exportDir, "export", "", "also write the baseline file into this directory")
	return c
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
	a.warn("run %s took %d sample(s) per prompt, fewer than the %d of a default baseline: against %d current samples a pair's own test can at best see %s (%s with %d baseline samples)",
		short(b.RunResult.RunID), n, full, cur, see(n), see(full), full)
	printLines(a.stdio.Err, "promptcanary: hint: ", fmt.Sprintf("save a fuller baseline with 'promptcanary run --save-baseline' (%d samples per prompt), or '--baseline-samples N'", full))
}
