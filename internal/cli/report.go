package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/report"
)

func (a *app) reportCmd() *cobra.Command {
	r := &rendering{}
	c := &cobra.Command{
		Use:   "report INPUT",
		Short: "Render a saved run, baseline or drift report",
		Long: `Render a saved JSON file in another format. INPUT may be a run (run
--output-json), a baseline file or a drift report (compare --output-json);
the kind is recognised from its content. Use - to read standard input.`,
		Example: `  promptcanary report run.json --format html --output run.html
  promptcanary report drift.json --format markdown`,
		Args: argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := r.parse()
			if err != nil {
				return err
			}
			var data []byte
			if args[0] == "-" {
				data, err = io.ReadAll(a.stdio.In)
			} else {
				data, err = os.ReadFile(args[0])
			}
			if err != nil {
				return usageErr(fmt.Errorf("read %q: %w", args[0], err))
			}
			run, d, err := report.Decode(data)
			if err != nil {
				return usageErr(fmt.Errorf("read %q: %w", args[0], err))
			}
			return a.emit(r, f, func(w io.Writer, opts report.Options) error {
				if d != nil {
					return report.Drift(w, f, d, opts)
				}
				return report.Run(w, f, run, opts)
			})
		},
	}
	r.flags(c)
	return c
}
