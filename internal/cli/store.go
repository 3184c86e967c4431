package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/backend"
	"github.com/promptcanary/promptcanary/suite"
)

// storePath picks the history database: --store, else the suite's
// (store: in canary.yaml, else .promptcanary/history.db beside it), else
// .promptcanary/history.db beside where canary.yaml would be.
func (a *app) storePath(config string, st *suite.Suite) string {
	switch {
	case a.store != "":
		return a.store
	case st != nil:
		return st.StorePath()
	}
	return filepath.Join(filepath.Dir(config), suite.DefaultStore)
}

// openStore opens the run history for a command that has a suite.
func (a *app) openStore(config string, st *suite.Suite) (store.Store, error) {
	return openTarget(context.Background(), a.storePath(config, st), "pass --store PATH (or postgres://…), or set store: in canary.yaml")
}

// openTarget opens the store target names: the path of a SQLite database
// or a postgres:// URL. Nothing was called yet, so a store that cannot be
// opened is a setup problem for the user to fix (exit 2), not an internal
// error; the error shows a URL without its password.
func openTarget(ctx context.Context, target, hint string) (backend.Store, error) {
	s, err := backend.Open(ctx, target)
	if err != nil {
		return nil, usageErr(err, hint)
	}
	return s, nil
}

// openHistory opens the run history for a command that only reads it:
// --store, else the store of the suite optionalSuite finds. A missing
// database is an error, not a new empty one.
func (a *app) openHistory(c *cobra.Command, config string) (store.Store, error) {
	config, st, err := a.optionalSuite(c, config)
	if err != nil {
		return nil, err
	}
	path := a.storePath(config, st)
	if _, err := os.Stat(path); !backend.IsURL(path) && errors.Is(err, os.ErrNotExist) {
		return nil, usageErr(fmt.Errorf("no run history at %q", displayPath(path)),
			"runs are recorded by 'promptcanary run' and 'compare'; pass --store PATH to read another history")
	}
	return openTarget(context.Background(), path, "pass --store PATH (or postgres://…), or set store: in canary.yaml")
}

// optionalSuite finds canary.yaml for a command that needs it only to
// locate the history and the baselines: --config when given (nil when that
// file does not exist), else the nearest canary.yaml in this directory or a
// parent, else none (the history then defaults to this directory). With
// --store the suite is not read at all.
func (a *app) optionalSuite(c *cobra.Command, config string) (string, *suite.Suite, error) {
	if a.store != "" {
		return config, nil, nil
	}
	if !c.Flags().Changed("config") {
		wd, err := os.Getwd()
		if err != nil {
			return "", nil, err
		}
		found, err := suite.Find(wd)
		if err != nil {
			return config, nil, nil
		}
		config = found
	}
	if _, err := os.Stat(config); err != nil {
		return config, nil, nil
	}
	st, err := loadSuite(config)
	return config, st, err
}
