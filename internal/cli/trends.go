package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/store"
)

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
			f, err := r.parse(c)
			if err != nil {
				return err
			}
			hist, err := a.openHistory(c, config)
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
					return usageErr(fmt.Errorf("%s", noRunsMessage(store.RunFilter{Suite: suiteName, Model: model}, 0)),
						"list what is recorded with 'promptcanary history'")
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
	fl.StringVarP(&config, "config", "c", "canary.yaml", "suite file, which locates the history (default: canary.yaml here or in a parent directory)")
	fl.StringVar(&suiteName, "suite", "", "suite (default: that of the latest run)")
	fl.StringVar(&model, "model", "", "provider/model (default: that of the latest run)")
	fl.IntVarP(&limit, "limit", "n", 30, "most recent runs charted")
	r.flags(c, "terminal: also list each charted run with its id, and every probe of the heatmap (default: the 30 worst)", report.Terminal, report.Markdown, report.HTML, report.JSON)
	return c
}

// reverse puts newest-first store listings in chronological order.
func reverse[T any](s []T) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}
