package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) validateCmd() *cobra.Command {
	var config string
	c := &cobra.Command{
		Use:   "validate",
		Short: "Check canary.yaml without calling any provider",
		Long: `Check canary.yaml: unknown keys, wrong types, unknown probe types, missing or
invalid parameters and duplicate ids are all reported at once, each with
file:line, the field and a hint. Nothing is called. Exit code 2 on problems.`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			st, err := loadSuite(config)
			if err != nil {
				return err
			}
			results := 0
			for _, p := range st.Prompts {
				results += len(st.ProbesFor(p.ID))
			}
			fmt.Fprintf(a.stdio.Out, "%s: ok: suite %q, %d prompt(s), %d probe result(s) per sample\n",
				config, st.Name, len(st.Prompts), results)
			return nil
		},
	}
	c.Flags().StringVarP(&config, "config", "c", "canary.yaml", "suite file")
	return c
}
