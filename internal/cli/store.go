package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/suite"
)

// defaultStore is the run history beside canary.yaml.
const defaultStore = ".promptcanary/history.db"

// storePath picks the history database: --store, else store: in the suite
// (relative to its file), else .promptcanary/history.db beside the suite file.
func (a *app) storePath(config string, st *suite.Suite) string {
	switch {
	case a.store != "":
		return a.store
	case st != nil && st.Defaults.Store != "":
		if filepath.IsAbs(st.Defaults.Store) {
			return st.Defaults.Store
		}
		return filepath.Join(filepath.Dir(st.Path), st.Defaults.Store)
	}
	return filepath.Join(filepath.Dir(config), defaultStore)
}

// openStore opens the run history for a command that has a suite.
func (a *app) openStore(config string, st *suite.Suite) (store.Store, error) {
	path := a.storePath(config, st)
	s, err := sqlite.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", path, err)
	}
	return s, nil
}

// openHistory opens the run history for a command that only reads it:
// --store, else the store: of canary.yaml when that file exists, else the
// default beside it. A missing database is an error, not a new empty one.
func (a *app) openHistory(config string) (store.Store, error) {
	st, err := a.suiteForStore(config)
	if err != nil {
		return nil, err
	}
	path := a.storePath(config, st)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, usageErr(fmt.Errorf("no run history at %q", path),
			"runs are recorded by 'promptcanary run' and 'compare'; pass --store PATH to read another history")
	}
	s, err := sqlite.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", path, err)
	}
	return s, nil
}

// suiteForStore loads canary.yaml only to read its store: key: not at all
// with --store, and not when the file does not exist.
func (a *app) suiteForStore(config string) (*suite.Suite, error) {
	if a.store != "" {
		return nil, nil
	}
	if _, err := os.Stat(config); err != nil {
		return nil, nil
	}
	return loadSuite(config)
}

// latestBaseline returns the newest baseline for (suite, model) found in
// the history or in the baseline directory. Both hold baselines: the
// directory is what CI shares through git, the history what runs here saved.
func latestBaseline(ctx context.Context, hist store.Store, dir, suiteName, model string) (*promptcanary.Baseline, error) {
	var best *promptcanary.Baseline
	if hist != nil {
		b, err := hist.LatestBaseline(ctx, suiteName, model)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		best = b
	}
	if _, err := os.Stat(dir); err == nil {
		fs, err := file.Open(dir)
		if err != nil {
			return nil, err
		}
		b, err := fs.LatestBaseline(ctx, suiteName, model)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		if b != nil && (best == nil || b.CreatedAt.After(best.CreatedAt)) {
			best = b
		}
	}
	if best == nil {
		return nil, store.ErrNotFound
	}
	return best, nil
}
