package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store/file"
)

// loadedBaseline is a baseline file read and checked before import.
type loadedBaseline struct {
	path string
	b    *promptcanary.Baseline
}

func (a *app) baselineImportCmd(o *baselineOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE...",
		Short: "Load JSON baseline files (ours or the Python tool's) into the history",
		Long: `Load JSON baseline files into the history. Every file is read and checked
before anything is recorded, so a bad file among many records nothing.`,
		Example: "  promptcanary baseline import baselines/*.json",
		Args:    argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			config, st, err := a.optionalSuite(c, o.config)
			if err != nil {
				return err
			}
			bases := make([]*loadedBaseline, 0, len(args))
			for _, path := range args {
				b, err := file.LoadBaseline(path)
				if err != nil {
					return usageErr(err)
				}
				bases = append(bases, &loadedBaseline{path: path, b: b})
			}
			hist, err := a.openStore(config, st)
			if err != nil {
				return err
			}
			defer hist.Close()
			for _, l := range bases {
				info, err := hist.SaveBaseline(c.Context(), l.b)
				if err != nil {
					return fmt.Errorf("import %s: %w", l.path, err)
				}
				fmt.Fprintf(a.stdio.Out, "imported %s: %s on %s (snapshot %s)\n", termtext.Safe(l.path),
					termtext.Safe(info.Suite), termtext.Safe(info.Model), short(info.SnapshotID))
			}
			return nil
		},
	}
}
