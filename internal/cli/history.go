package cli

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store"
)

func (a *app) historyCmd() *cobra.Command {
	var (
		config, suiteName, model string
		limit                    int
		since                    time.Duration
		baselines                bool
	)
	c := &cobra.Command{
		Use:   "history",
		Short: "List recorded runs, newest first",
		Long: `List the runs recorded in the history database: suite, provider, time,
samples per prompt, score, pass rate and the verdict of the latest drift
comparison of that run. B marks runs that are baselines; P marks a run
whose baseline was asked for but not saved (the save was interrupted): the
next run or compare finishes it.`,
		Example: `  promptcanary history --limit 10
  promptcanary history --suite checkout-agent --model openai/gpt-4o --since 7d`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			hist, err := a.openHistory(c, config)
			if err != nil {
				return err
			}
			defer hist.Close()
			f := store.RunFilter{Suite: suiteName, Model: model, Limit: limit, BaselinesOnly: baselines}
			if since > 0 {
				f.Since = time.Now().Add(-since)
			}
			runs, err := hist.Runs(c.Context(), f)
			if err != nil {
				return err
			}
			if len(runs) == 0 {
				fmt.Fprintf(a.stdio.Err, "promptcanary: %s\n", noRunsMessage(f, since))
				return nil
			}
			tw := tabwriter.NewWriter(a.stdio.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tSTARTED\tSUITE\tPROVIDER\tSAMPLES\tSCORE\tPASS RATE\tERRORS\tVERDICT\t")
			for _, r := range runs {
				mark := ""
				switch {
				case r.IsBaseline:
					mark = " B"
				case r.BaselinePending:
					mark = " P"
				}
				verdict := r.Verdict
				if verdict == "" {
					verdict = "-"
				}
				fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t\n", short(r.RunID), mark,
					r.StartedAt.UTC().Format("2006-01-02 15:04"), termtext.Safe(r.Suite), termtext.Safe(r.Model), r.Samples,
					fmtScore(r.Score), fmtRate(r.PassRate), r.Errors, termtext.Safe(verdict))
			}
			return tw.Flush()
		},
	}
	fl := c.Flags()
	fl.StringVarP(&config, "config", "c", "canary.yaml", "suite file, which locates the history (default: canary.yaml here or in a parent directory)")
	fl.StringVar(&suiteName, "suite", "", "only runs of this suite")
	fl.StringVar(&model, "model", "", "only runs of this provider/model")
	fl.IntVarP(&limit, "limit", "n", 20, "most runs listed (0 = all)")
	fl.Var(ageValue{d: &since}, "since", "only runs started within this age, e.g. 36h, 7d, 2w, 6mo")
	fl.BoolVar(&baselines, "baselines", false, "only runs that are baselines")
	return c
}

// noRunsMessage says that nothing matched, and which filters were applied.
func noRunsMessage(f store.RunFilter, since time.Duration) string {
	var filters []string
	if f.Suite != "" {
		filters = append(filters, fmt.Sprintf("suite %q", f.Suite))
	}
	if f.Model != "" {
		filters = append(filters, fmt.Sprintf("model %q", f.Model))
	}
	if since > 0 {
		filters = append(filters, "started in the last "+formatAge(since))
	}
	if f.BaselinesOnly {
		filters = append(filters, "baselines only")
	}
	if len(filters) == 0 {
		return "no runs recorded yet"
	}
	return "no runs match " + strings.Join(filters, ", ") + " (drop a filter to see more)"
}

func fmtScore(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtRate(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}
