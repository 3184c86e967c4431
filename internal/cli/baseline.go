package cli

import (
	"errors"
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/store"
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
