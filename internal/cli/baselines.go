package cli

import (
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store/file"
)

type baselinesOptions struct {
	config string
	dir    string
	suite  string
}

func (a *app) baselinesCmd() *cobra.Command {
	o := &baselinesOptions{}
	c := &cobra.Command{
		Use:     "baselines",
		Short:   "List saved baseline files",
		Example: "  promptcanary baselines --dir baselines --suite checkout-agent",
		Args:    argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			_, st, err := a.optionalSuite(c, o.config)
			if err != nil {
				return err
			}
			dir := a.suitePath(c, "dir", o.dir, st)
			if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
				fmt.Fprintf(a.stdio.Err, "promptcanary: no baselines: %q does not exist\n", dir)
				return nil
			}
			fs, err := file.Open(dir)
			if err != nil {
				return usageErr(err)
			}
			list, err := fs.Baselines(c.Context(), o.suite)
			if err != nil {
				return err
			}
			if len(list) == 0 {
				fmt.Fprintf(a.stdio.Err, "promptcanary: no baselines in %q", dir)
				if o.suite != "" {
					fmt.Fprintf(a.stdio.Err, " for suite %q", termtext.Safe(o.suite))
				}
				fmt.Fprintln(a.stdio.Err)
				return nil
			}
			tw := tabwriter.NewWriter(a.stdio.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "CREATED\tSUITE\tMODEL\tSNAPSHOT\tFILE")
			for _, b := range list {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", b.CreatedAt.UTC().Format("2006-01-02 15:04:05"),
					termtext.Safe(b.Suite), termtext.Safe(b.Model), short(b.SnapshotID), termtext.Safe(b.Path))
			}
			return tw.Flush()
		},
	}
	c.Flags().StringVarP(&o.config, "config", "c", "canary.yaml", "suite file, which locates baselines/ (default: canary.yaml here or in a parent directory)")
	c.Flags().StringVar(&o.dir, "dir", "baselines", "directory of baseline files (default: baselines/ beside canary.yaml)")
	c.Flags().StringVar(&o.suite, "suite", "", "only baselines of this suite")
	return c
}

// short abbreviates an id to 8 characters.
func short(id string) string {
	if len(id) > 8 {
		return termtext.Safe(id[:8])
	}
	return termtext.Safe(id)
}
