package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store/file"
)

func (a *app) baselineExportCmd(o *baselineOptions) *cobra.Command {
	var outFile, outDir string
	c := &cobra.Command{
		Use:     "export SNAPSHOT_ID",
		Short:   "Write a baseline from the history to a JSON baseline file",
		Example: "  promptcanary baseline export 9c1e --dir baselines",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			hist, err := a.openHistory(c, o.config)
			if err != nil {
				return err
			}
			defer hist.Close()
			b, err := hist.Baseline(c.Context(), args[0])
			if err != nil {
				return usageErr(err, "list baselines with 'promptcanary baseline list'")
			}
			path := outFile
			if path == "" {
				path = filepath.Join(outDir, file.BaselineName(b))
			}
			if err := file.WriteBaseline(path, b); err != nil {
				return &exitError{code: ExitOutput, err: fmt.Errorf("export baseline: %w", err)}
			}
			fmt.Fprintln(a.stdio.Out, termtext.Safe(path))
			return nil
		},
	}
	c.Flags().StringVarP(&outFile, "output", "o", "", "baseline file to write")
	c.Flags().StringVar(&outDir, "dir", "baselines", "directory to write into, under the original tool's file name")
	return c
}
