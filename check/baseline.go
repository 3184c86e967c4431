package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// Baselines is the one view of the baselines a compare can use: the
// baseline files in a directory (what CI shares through git) and the run
// history (what runs on this machine saved). The newest wins.
type Baselines struct {
	// History is the run history; nil means none.
	History store.Store
	// Dir is the directory of baseline files; "" or a missing directory
	// means none.
	Dir string
	// Files opens Dir, and the directory of any baseline an earlier run
	// left pending; nil means the registered default (store/file's, see
	// store.BaselineDir).
	Files store.BaselineDir
	// Warn, when set, is told of every newer baseline that had to be
	// skipped because it could not be read, and which one was used instead.
	Warn func(string)
}

// Latest returns the newest baseline for (suite, model) in the history or
// the directory. When there is none, the error is a *ConfigError that
// names the models that do have a baseline for the suite.
//
// A long answer of the baseline stays in its spill file, the response
// holding its head (store.WithSpilledAnswers), as a comparison reads it.
func (v Baselines) Latest(ctx context.Context, suiteName, model string) (*promptcanary.Baseline, error) {
	ctx = store.WithSpilledAnswers(ctx)
	var best *promptcanary.Baseline
	if v.History != nil {
		b, err := v.latest(ctx, v.History, suiteName, model)
		if err != nil {
			return nil, err
		}
		best = b
	}
	fs, err := v.files()
	if err != nil {
		return nil, err
	}
	if fs != nil {
		defer fs.Close()
	}
	if fs != nil && (best == nil || v.fileMayWin(ctx, fs, suiteName, model, best)) {
		b, err := v.latest(ctx, fs, suiteName, model)
		if err != nil {
			return nil, err
		}
		if b != nil && (best == nil || b.CreatedAt.After(best.CreatedAt)) {
			best = b
		}
	}
	if best != nil {
		return best, nil
	}
	return nil, v.notFound(ctx, suiteName, model)
}

// latest looks up the newest baseline in one store, nil when it has none,
// passing on the warnings of a store that names unreadable newer ones.
func (v Baselines) latest(ctx context.Context, s store.Store, suiteName, model string) (*promptcanary.Baseline, error) {
	lf, ok := s.(store.LatestFinder)
	if !ok {
		b, err := s.LatestBaseline(ctx, suiteName, model)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		return b, err
	}
	l, err := lf.FindLatestBaseline(ctx, suiteName, model)
	if l != nil && v.Warn != nil {
		for _, w := range l.Warnings() {
			v.Warn(w)
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return l.Baseline, nil
}

// fileMayWin reports whether the directory may hold a baseline for
// (suite, model) to use instead of best, the history's: one created after
// it, or a file that cannot be read, which the lookup must warn about.
// Otherwise the directory's newest baseline, as large as best (a
// statistical baseline is tens of megabytes in memory), is not loaded:
// "run --save-baseline" writes the same baseline to both places.
func (v Baselines) fileMayWin(ctx context.Context, fs store.Store, suiteName, model string, best *promptcanary.Baseline) bool {
	infos, err := fs.Baselines(ctx, "")
	if err != nil {
		return true // the lookup reports it
	}
	for _, in := range infos {
		if (suiteName == "" || in.Suite == suiteName) && (model == "" || in.Model == model) && in.CreatedAt.After(best.CreatedAt) {
			return true
		}
	}
	// Every baseline file was read: as many as the directory holds.
	entries, err := os.ReadDir(v.Dir)
	if err != nil {
		return true
	}
	files := 0
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			files++
		}
	}
	return files != len(infos)
}

// files opens the baseline directory, nil when it does not exist.
func (v Baselines) files() (store.Store, error) {
	if v.Dir == "" {
		return nil, nil
	}
	if _, err := os.Stat(v.Dir); err != nil {
		return nil, nil
	}
	return v.Files.Open(v.Dir)
}

// Models lists the models with a baseline for suiteName, sorted.
func (v Baselines) Models(ctx context.Context, suiteName string) ([]string, error) {
	var infos []store.BaselineInfo
	if v.History != nil {
		got, err := v.History.Baselines(ctx, suiteName)
		if err != nil {
			return nil, err
		}
		infos = append(infos, got...)
	}
	fs, err := v.files()
	if err != nil {
		return nil, err
	}
	if fs != nil {
		defer fs.Close()
		got, err := fs.Baselines(ctx, suiteName)
		if err != nil {
			return nil, err
		}
		infos = append(infos, got...)
	}
	var models []string
	for _, in := range infos {
		if !slices.Contains(models, in.Model) {
			models = append(models, in.Model)
		}
	}
	slices.Sort(models)
	return models, nil
}

// notFound explains a missing baseline: where it looked, which models do
// have one, and how to use or make one.
func (v Baselines) notFound(ctx context.Context, suiteName, model string) error {
	where := "the run history"
	if v.Dir != "" {
		where = fmt.Sprintf("%q or the run history", v.Dir)
	}
	err := fmt.Errorf("no baseline for suite %q and model %q in %s: %w", suiteName, model, where, store.ErrNotFound)
	hints := []string{"save one with 'promptcanary run -p " + model + " --save-baseline', or pass --baseline FILE"}
	if models, _ := v.Models(ctx, suiteName); len(models) > 0 {
		hints = append([]string{fmt.Sprintf("suite %q has baselines for %s: compare against one with --baseline-provider %s",
			suiteName, strings.Join(models, ", "), models[0])}, hints...)
	}
	return configErr(err, hints...)
}
