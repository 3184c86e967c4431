package cli

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/report"
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
comparison of that run (B marks runs that are baselines).`,
		Example: `  promptcanary history --limit 10
  promptcanary history --suite checkout-agent --model openai/gpt-4o --since 168h`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			hist, err := a.openHistory(config)
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
				fmt.Fprintln(a.stdio.Err, "promptcanary: no runs recorded yet")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdio.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tSTARTED\tSUITE\tPROVIDER\tSAMPLES\tSCORE\tPASS RATE\tERRORS\tVERDICT\t")
			for _, r := range runs {
				mark := ""
				if r.IsBaseline {
					mark = " B"
				}
				verdict := r.Verdict
				if verdict == "" {
					verdict = "-"
				}
				fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t\n", short(r.RunID), mark,
					r.StartedAt.UTC().Format("2006-01-02 15:04"), r.Suite, r.Model, r.Samples,
					fmtScore(r.Score), fmtRate(r.PassRate), r.Errors, verdict)
			}
			return tw.Flush()
		},
	}
	fl := c.Flags()
	fl.StringVarP(&config, "config", "c", "canary.yaml", "suite file (locates the history)")
	fl.StringVar(&suiteName, "suite", "", "only runs of this suite")
	fl.StringVar(&model, "model", "", "only runs of this provider/model")
	fl.IntVarP(&limit, "limit", "n", 20, "most runs listed (0 = all)")
	fl.DurationVar(&since, "since", 0, "only runs started within this duration, e.g. 168h")
	fl.BoolVar(&baselines, "baselines", false, "only runs that are baselines")
	return c
}

func fmtScore(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtRate(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func (a *app) showCmd() *cobra.Command {
	var config string
	r := &rendering{}
	c := &cobra.Command{
		Use:   "show RUN_ID",
		Short: "Print one recorded run (or drift report) from the history",
		Long: `Print a recorded run by its id or a unique prefix of at least 4 characters.
A drift report id prints that report.`,
		Example: "  promptcanary show 3f2a --format markdown",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := r.parse()
			if err != nil {
				return err
			}
			hist, err := a.openHistory(config)
			if err != nil {
				return err
			}
			defer hist.Close()
			ctx := c.Context()
			run, err := hist.Run(ctx, args[0])
			switch {
			case err == nil:
				return a.emit(r, f, func(w io.Writer, opts report.Options) error { return report.Run(w, f, run, opts) })
			case isNotFound(err):
				d, derr := hist.Drift(ctx, args[0])
				if derr != nil {
					return usageErr(err, "list runs with 'promptcanary history'")
				}
				return a.emit(r, f, func(w io.Writer, opts report.Options) error { return report.Drift(w, f, d, opts) })
			}
			return usageErr(err)
		},
	}
	c.Flags().StringVarP(&config, "config", "c", "canary.yaml", "suite file (locates the history)")
	r.flags(c)
	return c
}

func (a *app) trendsCmd() *cobra.Command {
	var config, suiteName, model string
	var limit int
	r := &rendering{}
	c := &cobra.Command{
		Use:   "trends",
		Short: "Chart score history, a probe × run heatmap and the drift timeline",
		Long: `Chart one suite and model over its recorded runs: score and pass-rate
sparklines, a probe × run heatmap (worst probes first) and a timeline of
drift verdicts. --format html writes the same as inline SVG charts.`,
		Example: `  promptcanary trends --model sim/stable
  promptcanary trends --format html --output trends.html`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			f, err := r.parse()
			if err != nil {
				return err
			}
			hist, err := a.openHistory(config)
			if err != nil {
				return err
			}
			defer hist.Close()
			ctx := c.Context()
			if suiteName == "" || model == "" {
				latest, err := hist.Runs(ctx, store.RunFilter{Suite: suiteName, Model: model, Limit: 1})
				if err != nil {
					return err
				}
				if len(latest) == 0 {
					return usageErr(fmt.Errorf("no runs recorded for suite %q and model %q", suiteName, model))
				}
				if suiteName == "" {
					suiteName = latest[0].Suite
				}
				if model == "" {
					model = latest[0].Model
				}
			}
			runs, err := hist.Runs(ctx, store.RunFilter{Suite: suiteName, Model: model, Limit: limit})
			if err != nil {
				return err
			}
			scores, err := hist.ProbeScores(ctx, suiteName, model, limit)
			if err != nil {
				return err
			}
			drifts, err := hist.Drifts(ctx, suiteName, model, limit)
			if err != nil {
				return err
			}
			reverse(runs)
			reverse(drifts)
			d := &report.TrendData{Suite: suiteName, Model: model, Runs: runs, Scores: scores, Drifts: drifts}
			return a.emit(r, f, func(w io.Writer, opts report.Options) error { return report.Trends(w, f, d, opts) })
		},
	}
	fl := c.Flags()
	fl.StringVarP(&config, "config", "c", "canary.yaml", "suite file (locates the history)")
	fl.StringVar(&suiteName, "suite", "", "suite (default: that of the latest run)")
	fl.StringVar(&model, "model", "", "provider/model (default: that of the latest run)")
	fl.IntVarP(&limit, "limit", "n", 30, "most recent runs charted")
	r.flags(c)
	return c
}

// reverse puts newest-first store listings in chronological order.
func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}
