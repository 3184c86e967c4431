package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
)

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

func (a *app) baselineCmd() *cobra.Command {
	var config string
	c := &cobra.Command{
		Use:   "baseline",
		Short: "Manage baselines in the run history",
		Long: `A baseline is a recorded run marked as the reference for its suite and
provider/model. Promote a run, list baselines, and export them to (or import
them from) the JSON baseline files that CI shares through git.`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.PersistentFlags().StringVarP(&config, "config", "c", "canary.yaml", "suite file (locates the history)")

	var note, exportDir string
	promote := &cobra.Command{
		Use:     "promote RUN_ID",
		Short:   "Mark a recorded run as the baseline for its suite and model",
		Example: "  promptcanary baseline promote 3f2a --note 'reviewed after the June model update' --export baselines",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			hist, err := a.openHistory(config)
			if err != nil {
				return err
			}
			defer hist.Close()
			b, err := hist.Promote(c.Context(), args[0], note)
			if err != nil {
				if isNotFound(err) {
					return usageErr(err, "list runs with 'promptcanary history'")
				}
				return usageErr(err)
			}
			fmt.Fprintf(a.stdio.Out, "run %s is now the baseline for %s on %s (snapshot %s)\n", short(b.RunResult.RunID), b.SuiteName, b.Provider.ModelID, short(b.SnapshotID))
			if exportDir != "" {
				path := filepath.Join(exportDir, file.BaselineName(b))
				if err := file.WriteBaseline(path, b); err != nil {
					return err
				}
				fmt.Fprintf(a.stdio.Out, "exported to %s\n", path)
			}
			return nil
		},
	}
	promote.Flags().StringVar(&note, "note", "", "why this run is the reference")
	promote.Flags().StringVar(&exportDir, "export", "", "also write the baseline file into this directory")

	var listSuite string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the baselines in the run history",
		Args:  argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			hist, err := a.openHistory(config)
			if err != nil {
				return err
			}
			defer hist.Close()
			infos, err := hist.Baselines(c.Context(), listSuite)
			if err != nil {
				return err
			}
			if len(infos) == 0 {
				fmt.Fprintln(a.stdio.Err, "promptcanary: no baselines recorded; promote a run with 'promptcanary baseline promote RUN_ID'")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdio.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "SNAPSHOT\tCREATED\tSUITE\tMODEL\tRUN\tNOTE")
			for _, b := range infos {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", short(b.SnapshotID), b.CreatedAt.UTC().Format("2006-01-02 15:04"), b.Suite, b.Model, short(b.RunID), b.Note)
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&listSuite, "suite", "", "only baselines of this suite")

	var outFile, outDir string
	export := &cobra.Command{
		Use:     "export SNAPSHOT_ID",
		Short:   "Write a baseline from the history to a JSON baseline file",
		Example: "  promptcanary baseline export 9c1e --dir baselines",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			hist, err := a.openHistory(config)
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
				return err
			}
			fmt.Fprintln(a.stdio.Out, path)
			return nil
		},
	}
	export.Flags().StringVarP(&outFile, "output", "o", "", "baseline file to write")
	export.Flags().StringVar(&outDir, "dir", "baselines", "directory to write into, under the original tool's file name")

	imp := &cobra.Command{
		Use:     "import FILE...",
		Short:   "Load JSON baseline files (ours or the Python tool's) into the history",
		Example: "  promptcanary baseline import baselines/*.json",
		Args:    argsUsage(cobra.MinimumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			st, err := a.openHistoryForWrite(config)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, path := range args {
				b, err := file.LoadBaseline(path)
				if err != nil {
					return usageErr(err)
				}
				info, err := st.SaveBaseline(c.Context(), b)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdio.Out, "imported %s: %s on %s (snapshot %s)\n", path, info.Suite, info.Model, short(info.SnapshotID))
			}
			return nil
		},
	}
	c.AddCommand(promote, list, export, imp)
	return c
}

// openHistoryForWrite opens the history for a command that records into it
// without running a suite, creating the database when needed.
func (a *app) openHistoryForWrite(config string) (store.Store, error) {
	st, err := a.suiteForStore(config)
	if err != nil {
		return nil, err
	}
	return a.openStore(config, st)
}
