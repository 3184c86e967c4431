package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/store"
)

func (a *app) showCmd() *cobra.Command {
	var config string
	r := &rendering{}
	c := &cobra.Command{
		Use:   "show RUN_ID",
		Short: "Print one recorded run (or drift report) from the history",
		Long: fmt.Sprintf(`Print a recorded run by its id or a unique prefix of at least %d characters.
A drift report id prints that report.`, store.MinPrefix),
		Example: "  promptcanary show 3f2a --format markdown",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := r.parse(c)
			if err != nil {
				return err
			}
			id := args[0]
			if len(id) < store.MinPrefix {
				return usageErr(fmt.Errorf("id %q is too short: give the whole id or a prefix of at least %d characters", id, store.MinPrefix),
					"list runs and their ids with 'promptcanary history'")
			}
			hist, err := a.openHistory(c, config)
			if err != nil {
				return err
			}
			defer hist.Close()
			ctx := c.Context()
			run, err := hist.Run(ctx, id)
			switch {
			case err == nil:
				return a.emit(r, f, func(w io.Writer, opts report.Options) error { return report.Run(w, f, run, opts) })
			case isNotFound(err):
				d, derr := hist.Drift(ctx, id)
				if derr != nil {
					return usageErr(err, "list runs with 'promptcanary history'")
				}
				return a.emit(r, f, func(w io.Writer, opts report.Options) error { return report.Drift(w, f, d, opts) })
			}
			return usageErr(err)
		},
	}
	c.Flags().StringVarP(&config, "config", "c", "canary.yaml", "suite file, which locates the history (default: canary.yaml here or in a parent directory)")
	r.flags(c, "list every result, not only failures and changes", report.Formats...)
	return c
}
