package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/internal/termtext"
)

func (a *app) baselineListCmd(o *baselineOptions) *cobra.Command {
	var suiteName string
	c := &cobra.Command{
		Use:   "list",
		Short: "List the baselines in the run history",
		Args:  argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			hist, err := a.openHistory(c, o.config)
			if err != nil {
				return err
			}
			defer hist.Close()
			infos, err := hist.Baselines(c.Context(), suiteName)
			if err != nil {
				return err
			}
			if len(infos) == 0 {
				what := "no baselines recorded"
				if suiteName != "" {
					what = fmt.Sprintf("no baselines recorded for suite %q", termtext.Safe(suiteName))
				}
				fmt.Fprintf(a.stdio.Err, "promptcanary: %s; promote a run with 'promptcanary baseline promote RUN_ID'\n", what)
				return nil
			}
			tw := tabwriter.NewWriter(a.stdio.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "SNAPSHOT\tCREATED\tSUITE\tMODEL\tRUN\tNOTE")
			for _, b := range infos {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", short(b.SnapshotID), b.CreatedAt.UTC().Format("2006-01-02 15:04"),
					termtext.Safe(b.Suite), termtext.Safe(b.Model), short(b.RunID), termtext.Safe(b.Note))
			}
			return tw.Flush()
		},
	}
	c.Flags().StringVar(&suiteName, "suite", "", "only baselines of this suite")
	return c
}
