package cli

import (
	"context"
	"fmt"
	"io"
	"slices"

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
			d, err := LoadTrends(c.Context(), hist, suiteName, model, limit)
			if err != nil {
				return err
			}
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

// LoadTrends reads from hist what the trends command charts: the latest
// limit runs of suite and model (every run when limit is 0), their probe
// scores and their drift reports, oldest first. A suite or model left ""
// is that of the latest run recorded with the other; with no such run the
// error is a usage error that says so.
func LoadTrends(ctx context.Context, hist store.Store, suite, model string, limit int) (*report.TrendData, error) {
	if suite == "" || model == "" {
		latest, err := hist.Runs(ctx, store.RunFilter{Suite: suite, Model: model, Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(latest) == 0 {
			return nil, usageErr(fmt.Errorf("%s", noRunsMessage(store.RunFilter{Suite: suite, Model: model}, 0)),
				"list what is recorded with 'promptcanary history'")
		}
		if suite == "" {
			suite = latest[0].Suite
		}
		if model == "" {
			model = latest[0].Model
		}
	}
	runs, err := hist.Runs(ctx, store.RunFilter{Suite: suite, Model: model, Limit: limit})
	if err != nil {
		return nil, err
	}
	scores, err := hist.ProbeScores(ctx, suite, model, limit)
	if err != nil {
		return nil, err
	}
	drifts, err := hist.Drifts(ctx, suite, model, limit)
	if err != nil {
		return nil, err
	}
	slices.Reverse(runs) // the store lists newest first
	slices.Reverse(drifts)
	return &report.TrendData{Suite: suite, Model: model, Runs: runs, Scores: scores, Drifts: drifts}, nil
}
