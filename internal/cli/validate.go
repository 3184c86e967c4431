package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

func (a *app) validateCmd() *cobra.Command {
	var config string
	c := &cobra.Command{
		Use:   "validate",
		Short: "Check canary.yaml without calling any provider",
		Long: `Check canary.yaml: unknown keys, wrong types, unknown probe types, missing or
invalid parameters, duplicate ids and every provider's configuration (names,
models, settings, http/ templates) are all reported at once, each with
file:line, the field and a hint. Nothing is called and no API key is
needed. Exit code 2 on problems.`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			path, err := a.findConfig(c, config)
			if err != nil {
				return err
			}
			st, err := loadSuite(path)
			if err != nil {
				return err
			}
			if err := check.CheckProviders(st, a.getenv); err != nil {
				return err
			}
			var targets []check.Target
			if len(st.Providers) > 0 || st.Defaults.Provider != "" {
				if targets, _, err = check.Resolve(st, check.Settings{Getenv: a.getenv}); err != nil {
					return err
				}
			}
			results := 0
			for _, p := range st.Prompts {
				results += len(st.ProbesFor(p.ID))
			}
			fmt.Fprintf(a.stdio.Out, "%s: ok: suite %q, %d prompt(s), %d probe result(s) per sample\n",
				displayPath(path), termtext.Safe(st.Name), len(st.Prompts), results)
			writeAdjustments(a.stdio.Out, targets)
			return nil
		},
	}
	c.Flags().StringVarP(&config, "config", "c", "canary.yaml", "suite file (default: canary.yaml here or in a parent directory)")
	return c
}
