package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/report"
)

type reportOptions struct {
	format  string
	output  string
	verbose bool
}

func (a *app) reportCmd() *cobra.Command {
	o := &reportOptions{}
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
			f, err := report.ParseFormat(o.format)
			if err != nil {
				return usageErr(err)
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
			w := a.stdio.Out
			opts := report.Options{Verbose: o.verbose, Color: o.output == "" && f == report.Terminal && a.colorFor(w)}
			render := func(w io.Writer) error {
				if d != nil {
					return report.Drift(w, f, d, opts)
				}
				return report.Run(w, f, run, opts)
			}
			if o.output != "" {
				return writeReport(o.output, render)
			}
			var buf bytes.Buffer
			if err := render(&buf); err != nil {
				return err
			}
			_, err = w.Write(buf.Bytes())
			return err
		},
	}
	c.Flags().StringVarP(&o.format, "format", "f", "terminal", "terminal, markdown, html or json")
	c.Flags().StringVar(&o.output, "output", "", "write to this file instead of standard output")
	c.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "list every result")
	return c
}
