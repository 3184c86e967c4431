package monitor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
)

// pinned reports whether the check compares against a fixed baseline.
func (e *entry) isPinned() bool { return e.c.Baseline != "" && e.c.Baseline != "latest" }

// baselines is the view of e's baselines: the store and the baselines/
// directory beside the suite, which `promptcanary run --save-baseline`
// writes.
func (m *Monitor) baselines(e *entry) check.Baselines {
	return check.Baselines{History: m.hist, Dir: e.baselineDir, Files: file.OpenDir, Warn: func(w string) {
		m.log.Warn(w, logCheck, e.c.Name, logProvider, e.c.Provider)
	}}
}

// findBaseline returns the baseline e compares against now: the pinned
// one, or the newest for its suite and provider. A missing baseline is an
// error that names the check's line and says how to make one.
func (m *Monitor) findBaseline(ctx context.Context, e *entry) (*promptcanary.Baseline, error) {
	if e.pinned != nil {
		return e.pinned, nil
	}
	where := fmt.Sprintf("%s: checks (%s)", m.where(e.c.Line), e.c.Name)
	if e.isPinned() {
		b, err := m.pinnedBaseline(ctx, e, e.c.Baseline)
		if errors.Is(err, store.ErrNotFound) {
			return nil, &hinted{fmt.Errorf("%s: baseline %q: no baseline or run with this id in the store or %s: %w", where, e.c.Baseline, e.baselineDir, store.ErrNotFound),
				[]string{"list the baselines with 'promptcanary baselines' and the runs with 'promptcanary history', or set baseline: latest"}}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: baseline %q: %w", where, e.c.Baseline, err)
		}
		if b.SuiteName != "" && b.SuiteName != e.c.Suite.Name {
			return nil, fmt.Errorf("%s: baseline %q is of suite %q, and the check runs suite %q", where, e.c.Baseline, b.SuiteName, e.c.Suite.Name)
		}
		return b, nil
	}
	b, err := m.baselines(e).Latest(ctx, e.c.Suite.Name, e.c.Provider)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &hinted{fmt.Errorf("%s: no baseline for suite %q and provider %s in the store or %s: %w", where, e.c.Suite.Name, e.c.Provider, e.baselineDir, store.ErrNotFound),
			[]string{fmt.Sprintf("save one: run 'promptcanary run --save-baseline -p %s' in %s (it writes baselines/ beside canary.yaml, which the monitor reads)", shellQuote(e.c.Provider), m.rel(e.c.Suite.Dir())),
				"or pin a stored run or baseline with baseline: ID in the check"}}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: find the baseline: %w", where, err)
	}
	return b, nil
}

// findControlBaseline checks that e's control has a baseline to be
// compared against, the newest for the suite and the control in the
// store or the baselines/ directory, as a check that follows the latest
// does: without one, no run of the check could weigh its control. where
// names the control's line.
func (m *Monitor) findControlBaseline(ctx context.Context, e *entry, where string) error {
	_, err := m.baselines(e).Latest(ctx, e.c.Suite.Name, e.c.Control)
	if errors.Is(err, store.ErrNotFound) {
		return &hinted{fmt.Errorf("%s: no baseline for suite %q and the control %s in the store or %s: %w", where, e.c.Suite.Name, e.c.Control, e.baselineDir, store.ErrNotFound),
			[]string{fmt.Sprintf("save one: run 'promptcanary run --save-baseline -p %s' in %s, as for the check's provider", shellQuote(e.c.Control), m.rel(e.c.Suite.Dir())),
				"or remove control: from the check"}}
	}
	if err != nil {
		return fmt.Errorf("%s: find the baseline: %w", where, err)
	}
	return nil
}

// pinnedBaseline finds the baseline id names: a snapshot id in the store
// or the baselines/ directory, else the stored run id (or id prefix)
// names, as it was measured: the baseline promoted from that run alone,
// or the run itself. A pooled baseline carries the id of its newest run
// but is not that run: it is pinned by its snapshot id, and a run id never
// resolves to it, whether given whole or as a prefix.
func (m *Monitor) pinnedBaseline(ctx context.Context, e *entry, id string) (*promptcanary.Baseline, error) {
	ctx = store.WithSpilledAnswers(ctx)
	b, err := m.hist.Baseline(ctx, id)
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return b, err
	}
	if _, serr := os.Stat(e.baselineDir); serr == nil {
		fs, ferr := file.Open(e.baselineDir)
		if ferr != nil {
			return nil, ferr
		}
		b, err := fs.Baseline(ctx, id)
		if err == nil || !errors.Is(err, store.ErrNotFound) {
			return b, err
		}
	}
	r, err := m.hist.Run(ctx, id)
	if err != nil {
		return nil, err
	}
	infos, err := m.hist.Baselines(ctx, e.c.Suite.Name)
	if err != nil {
		return nil, err
	}
	for _, in := range infos {
		if in.RunID != r.RunID {
			continue
		}
		b, err := m.hist.Baseline(ctx, in.SnapshotID)
		if err != nil || len(b.Runs) == 0 {
			return b, err
		}
	}
	b = store.NewBaseline(r, "pinned run", r.StartedAt)
	b.SnapshotID = r.RunID
	return b, nil
}

// currentBaseline is the baseline of e's next run; a change of the latest
// baseline (a promotion, a new --save-baseline) restarts the trend
// detector.
func (m *Monitor) currentBaseline(ctx context.Context, e *entry) (*promptcanary.Baseline, error) {
	b, err := m.findBaseline(ctx, e)
	if err != nil {
		return nil, err
	}
	if e.track.Follow(b.SnapshotID) {
		m.changed()
	}
	return b, nil
}

// rel shows path relative to monitor.yaml's directory when it is inside.
func (m *Monitor) rel(path string) string {
	if r, err := filepath.Rel(filepath.Dir(m.cfg.Path), path); err == nil && !strings.HasPrefix(r, "..") {
		if r == "." {
			return "the directory of " + filepath.Base(m.cfg.Path)
		}
		return r
	}
	return path
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
