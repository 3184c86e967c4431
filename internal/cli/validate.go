package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/suite"
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
			if err := checkProviders(st, a.getenv); err != nil {
				return err
			}
			results := 0
			for _, p := range st.Prompts {
				results += len(st.ProbesFor(p.ID))
			}
			fmt.Fprintf(a.stdio.Out, "%s: ok: suite %q, %d prompt(s), %d probe result(s) per sample\n",
				displayPath(path), termtext.Safe(st.Name), len(st.Prompts), results)
			return nil
		},
	}
	c.Flags().StringVarP(&config, "config", "c", "canary.yaml", "suite file (default: canary.yaml here or in a parent directory)")
	return c
}

// checkProviders checks the configuration of every provider the suite
// names (provider: and providers:) the way a run would open it, without
// calling anything or needing an API key. Every problem carries its line.
func checkProviders(st *suite.Suite, getenv func(string) string) error {
	dir := filepath.Dir(st.Path)
	var errs []error
	checked := map[string]bool{}
	for _, p := range st.Providers {
		checked[p.Spec] = true
		opts := provider.Options{BaseDir: dir, Settings: p.Settings, Getenv: getenv}
		if err := provider.Check(p.Spec, opts); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %w", st.Path, p.Line, p.Field, err))
		}
	}
	if spec := st.Defaults.Provider; spec != "" && !checked[spec] {
		if err := provider.Check(spec, provider.Options{BaseDir: dir, Getenv: getenv}); err != nil {
			errs = append(errs, fmt.Errorf("%s: provider (%s): %w", st.Path, spec, err))
		}
	}
	if len(errs) > 0 {
		return usageErr(errors.Join(errs...))
	}
	return nil
}
