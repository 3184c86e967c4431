// Package file is a store.Store kept as JSON files in one directory, the
// layout of the original Python tool extended with run history:
//
//	dir/{suite}__{model}__{YYYYmmddTHHMMSS}_{id8}.json   baselines (BaselineName)
//	dir/runs/{run_id}.json                               runs
//	dir/runs/{run_id}.baseline-pending                   a baseline asked of the run, not saved yet
//	dir/drift/{report_id}.json                           drift reports
//
// A baseline file holds its run: saving a baseline writes that one file,
// and Run and Runs find the runs of baseline files too.
//
// Both tools share a baseline directory: this package reads the original's
// baseline files and writes files the original reads (a one-sample
// baseline is in its format; a many-sample one in the compact layout of
// store.MarshalBaseline). Every file is written atomically, and Open
// removes the temporary files a killed process left. A file that cannot be
// read is left out of listings; loading it directly reports why, and
// FindLatestBaseline names it.
package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/atomicfile"
	"github.com/promptcanary/promptcanary/store"
)

const (
	runsDir    = "runs"
	driftDir   = "drift"
	ext        = ".json"
	pendingExt = ".baseline-pending"
)

// Store is a file store. It is safe for concurrent use, and several
// processes may share a directory: each write replaces one whole file.
type Store struct {
	dir string
	// now is the clock of Promote.
	now func() time.Time

	// mu serialises the baseline writes of this process, which read the
	// directory before writing.
	mu sync.Mutex

	// cache holds what was decoded from each file, valid while the file's
	// size and modification time are unchanged.
	cacheMu sync.Mutex
	cache   map[string]cacheEntry

	// removed are the stale temporary files Open removed.
	removed []string
}

type cacheEntry struct {
	size int64
	mod  time.Time
	val  any
}

var _ store.Store = (*Store)(nil)

// Open opens the file store in dir, creating dir if needed, and removes
// the temporary files that a process killed while writing left in it (see
// atomicfile.RemoveStale); Removed lists them.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open store %q: %w", dir, err)
	}
	s := &Store{dir: dir, now: time.Now, cache: make(map[string]cacheEntry)}
	for _, sub := range []string{dir, filepath.Join(dir, runsDir), filepath.Join(dir, driftDir)} {
		removed, err := atomicfile.RemoveStale(sub, s.now())
		s.removed = append(s.removed, removed...)
		if err != nil {
			return nil, fmt.Errorf("open store %q: %w", dir, err)
		}
	}
	return s, nil
}

// Removed returns the stale temporary files Open removed.
func (s *Store) Removed() []string { return s.removed }

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Close releases the store's cache. The store stays usable.
func (s *Store) Close() error {
	s.cacheMu.Lock()
	clear(s.cache)
	s.cacheMu.Unlock()
	return nil
}

func (s *Store) runPath(id string) string   { return filepath.Join(s.dir, runsDir, id+ext) }
func (s *Store) driftPath(id string) string { return filepath.Join(s.dir, driftDir, id+ext) }

// SaveRun writes r to runs/{run_id}.json, in the compact layout when it
// has several samples per prompt.
func (s *Store) SaveRun(ctx context.Context, r *promptcanary.Run) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("save run: %w", err)
	}
	if err := store.CheckID("run", r.RunID); err != nil {
		return fmt.Errorf("save run: %w", err)
	}
	if err := writeFrom(s.runPath(r.RunID), func(w io.Writer) error {
		return store.WriteRunIndent(w, r, store.LayoutAuto)
	}); err != nil {
		return fmt.Errorf("save run %q: %w", r.RunID, err)
	}
	return nil
}

// Run loads the run id names, from runs/ or else from the baseline file
// that holds it.
func (s *Store) Run(ctx context.Context, id string) (*promptcanary.Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load run: %w", err)
	}
	full, err := s.resolveFile("run", filepath.Join(s.dir, runsDir), id)
	if err == nil {
		return LoadRun(s.runPath(full))
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	// Not in runs/: the run of a baseline file, if id names exactly one.
	infos, lerr := s.baselineInfos(ctx)
	if lerr != nil {
		return nil, lerr
	}
	paths := make(map[string]string)
	var matches []string
	for _, in := range infos { // newest first: a run's newest baseline
		if _, dup := paths[in.RunID]; !dup && (in.RunID == id || len(id) >= store.MinPrefix && strings.HasPrefix(in.RunID, id)) {
			paths[in.RunID] = in.Path
			matches = append(matches, in.RunID)
		}
	}
	if len(matches) == 0 {
		return nil, err
	}
	full, err = store.Resolve("run", id, matches)
	if err != nil {
		return nil, err
	}
	b, err := LoadBaseline(paths[full])
	if err != nil {
		return nil, fmt.Errorf("load run %q: %w", full, err)
	}
	return &b.RunResult, nil
}

// resolveFile resolves id among the file names (without .json) of sub.
func (s *Store) resolveFile(kind, sub, id string) (string, error) {
	if store.CheckID(kind, id) != nil {
		return "", fmt.Errorf("%s %q: %w", kind, id, store.ErrNotFound)
	}
	if _, err := os.Stat(filepath.Join(sub, id+ext)); err == nil {
		return id, nil
	}
	var matches []string
	if len(id) >= store.MinPrefix {
		entries, err := readDir(sub)
		if err != nil {
			return "", fmt.Errorf("find %s %q: %w", kind, id, err)
		}
		for _, e := range entries {
			if name := strings.TrimSuffix(e.Name(), ext); strings.HasPrefix(name, id) {
				matches = append(matches, name)
			}
		}
	}
	return store.Resolve(kind, id, matches)
}

// readDir lists the .json files of dir; a missing dir has none.
func readDir(dir string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := entries[:0]
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ext) {
			out = append(out, e)
		}
	}
	return out, nil
}

// scanFailure is a file scan could not decode.
type scanFailure struct {
	path string
	err  error
}

// scan decodes every readable .json file of dir with decode, through the
// cache (kind names what decode makes of a file), skipping the files
// decode rejects.
func (s *Store) scan(ctx context.Context, kind, dir string, decode func(path string) (any, error)) ([]any, error) {
	out, _, err := s.scanAll(ctx, kind, dir, decode)
	return out, err
}

// scanAll is scan that also returns the files decode rejected.
func (s *Store) scanAll(ctx context.Context, kind, dir string, decode func(path string) (any, error)) ([]any, []scanFailure, error) {
	entries, err := readDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("list %q: %w", dir, err)
	}
	var failed []scanFailure
	out := make([]any, 0, len(entries))
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		path := filepath.Join(dir, e.Name())
		key := kind + "\x00" + path
		s.cacheMu.Lock()
		c, ok := s.cache[key]
		s.cacheMu.Unlock()
		if ok && c.size == info.Size() && c.mod.Equal(info.ModTime()) {
			out = append(out, c.val)
			continue
		}
		v, err := decode(path)
		if err != nil {
			failed = append(failed, scanFailure{path, err}) // corrupt, partial or foreign file
			continue
		}
		s.cacheMu.Lock()
		s.cache[key] = cacheEntry{size: info.Size(), mod: info.ModTime(), val: v}
		s.cacheMu.Unlock()
		out = append(out, v)
	}
	return out, failed, nil
}

// runEntry is what listings need of a run file.
type runEntry struct {
	sum    store.RunSummary
	scores []store.ProbeScore
}

// runEntries lists the runs of runs/ and then those of baseline files
// whose id is not in runs/ (the newest baseline's copy), with their
// pending baseline marks.
func (s *Store) runEntries(ctx context.Context) ([]*runEntry, error) {
	vals, err := s.scan(ctx, "run", filepath.Join(s.dir, runsDir), func(path string) (any, error) {
		r, err := LoadRun(path)
		if err != nil {
			return nil, err
		}
		if filepath.Base(path) != r.RunID+ext {
			return nil, fmt.Errorf("load run %q: holds run %q", path, r.RunID)
		}
		return &runEntry{sum: store.Summarize(r), scores: store.ProbeScoresOf(r)}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	bvals, err := s.scan(ctx, "baseline run", s.dir, func(path string) (any, error) {
		b, err := LoadBaseline(path)
		if err != nil {
			return nil, err
		}
		r := &b.RunResult
		return &baselineRunEntry{created: b.CreatedAt, snapshot: b.SnapshotID,
			runEntry: runEntry{sum: store.Summarize(r), scores: store.ProbeScoresOf(r)}}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	pending, err := s.pendingMarks()
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	seen := make(map[string]bool, len(vals))
	out := make([]*runEntry, 0, len(vals)+len(bvals))
	for _, v := range vals {
		e := *v.(*runEntry)
		e.sum.BaselinePending = pending[e.sum.RunID]
		seen[e.sum.RunID] = true
		out = append(out, &e)
	}
	brs := make([]*baselineRunEntry, len(bvals))
	for i, v := range bvals {
		brs[i] = v.(*baselineRunEntry)
	}
	slices.SortFunc(brs, func(a, b *baselineRunEntry) int { // newest first
		if c := b.created.Compare(a.created); c != 0 {
			return c
		}
		return strings.Compare(b.snapshot, a.snapshot)
	})
	for _, b := range brs {
		if !seen[b.sum.RunID] {
			seen[b.sum.RunID] = true
			e := b.runEntry
			out = append(out, &e)
		}
	}
	return out, nil
}

// baselineRunEntry is the run of a baseline file.
type baselineRunEntry struct {
	runEntry
	created  time.Time
	snapshot string
}

// selectRuns returns the summaries f selects, newest first, with
// IsBaseline and Verdict set, and the entries they come from.
func (s *Store) selectRuns(ctx context.Context, f store.RunFilter) ([]store.RunSummary, map[string]*runEntry, error) {
	entries, err := s.runEntries(ctx)
	if err != nil {
		return nil, nil, err
	}
	infos, err := s.baselineInfos(ctx)
	if err != nil {
		return nil, nil, err
	}
	isBaseline := make(map[string]bool, len(infos))
	for _, in := range infos {
		isBaseline[in.RunID] = true
	}
	drifts, err := s.driftSummaries(ctx)
	if err != nil {
		return nil, nil, err
	}
	latest := make(map[string]store.DriftSummary)
	for _, d := range drifts { // newest first
		if _, ok := latest[d.CurrentRunID]; !ok {
			latest[d.CurrentRunID] = d
		}
	}
	byID := make(map[string]*runEntry, len(entries))
	var out []store.RunSummary
	for _, e := range entries {
		sum := e.sum
		sum.IsBaseline = isBaseline[sum.RunID]
		if d, ok := latest[sum.RunID]; ok {
			sum.Verdict = string(d.Severity)
		}
		sum.Settle()
		if f.Suite != "" && sum.Suite != f.Suite || f.Model != "" && sum.Model != f.Model ||
			!f.Since.IsZero() && sum.StartedAt.Before(f.Since) || f.BaselinesOnly && !sum.IsBaseline {
			continue
		}
		byID[sum.RunID] = e
		out = append(out, sum)
	}
	store.SortRuns(out)
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, byID, nil
}

// Runs lists the runs f selects, newest first.
func (s *Store) Runs(ctx context.Context, f store.RunFilter) ([]store.RunSummary, error) {
	out, _, err := s.selectRuns(ctx, f)
	return out, err
}

// ProbeScores returns the per-probe aggregates of the newest limit runs of
// suite and model.
func (s *Store) ProbeScores(ctx context.Context, suite, model string, limit int) ([]store.ProbeScore, error) {
	runs, byID, err := s.selectRuns(ctx, store.RunFilter{Suite: suite, Model: model, Limit: limit})
	if err != nil {
		return nil, err
	}
	var out []store.ProbeScore
	for _, r := range runs {
		out = append(out, byID[r.RunID].scores...)
	}
	return out, nil
}

// baselineInfos lists the readable baseline files of the directory, newest
// first.
func (s *Store) baselineInfos(ctx context.Context) ([]store.BaselineInfo, error) {
	vals, err := s.scan(ctx, "baseline", s.dir, func(path string) (any, error) {
		return readBaselineInfo(path)
	})
	if err != nil {
		return nil, fmt.Errorf("list baselines: %w", err)
	}
	out := make([]store.BaselineInfo, len(vals))
	for i, v := range vals {
		out[i] = v.(store.BaselineInfo)
	}
	store.SortBaselines(out)
	return out, nil
}

// Baselines lists the baselines of suite ("" for all), newest first.
func (s *Store) Baselines(ctx context.Context, suite string) ([]store.BaselineInfo, error) {
	infos, err := s.baselineInfos(ctx)
	if err != nil {
		return nil, err
	}
	out := infos[:0]
	for _, in := range infos {
		if suite == "" || in.Suite == suite {
			out = append(out, in)
		}
	}
	return out, nil
}

// SaveBaseline writes b under its BaselineName, removes other files that
// hold the same snapshot, and clears the pending mark of b's run for this
// snapshot. The baseline file is the only file written: it holds b's run,
// which Run and Runs find there unless runs/ holds a run with its id.
func (s *Store) SaveBaseline(ctx context.Context, b *promptcanary.Baseline) (store.BaselineInfo, error) {
	if err := ctx.Err(); err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline: %w", err)
	}
	if err := store.CheckBaseline(b); err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	infos, err := s.baselineInfos(ctx)
	if err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline %q: %w", b.SnapshotID, err)
	}
	path := filepath.Join(s.dir, BaselineName(b))
	if err := WriteBaseline(path, b); err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline %q: %w", b.SnapshotID, err)
	}
	for _, in := range infos {
		if in.SnapshotID == b.SnapshotID && in.Path != path {
			if err := os.Remove(in.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return store.BaselineInfo{}, fmt.Errorf("save baseline %q: replace %q: %w", b.SnapshotID, in.Path, err)
			}
		}
	}
	if err := s.clearPending(b.RunResult.RunID, b.SnapshotID); err != nil {
		return store.BaselineInfo{}, fmt.Errorf("save baseline %q: %w", b.SnapshotID, err)
	}
	info := store.Info(b)
	info.CreatedAt = micro(info.CreatedAt)
	info.Path = path
	return info, nil
}

// Promote saves a baseline taken from the stored run runID names.
func (s *Store) Promote(ctx context.Context, runID, note string) (*promptcanary.Baseline, error) {
	r, err := s.Run(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	b := portable(store.NewBaseline(r, note, s.now()))
	if _, err := s.SaveBaseline(ctx, b); err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	return b, nil
}

// Baseline loads the baseline whose snapshot id id names.
func (s *Store) Baseline(ctx context.Context, id string) (*promptcanary.Baseline, error) {
	infos, err := s.baselineInfos(ctx)
	if err != nil {
		return nil, err
	}
	var matches []string
	paths := make(map[string]string)
	for _, in := range infos {
		if strings.HasPrefix(in.SnapshotID, id) {
			if _, dup := paths[in.SnapshotID]; !dup {
				matches = append(matches, in.SnapshotID)
				paths[in.SnapshotID] = in.Path // newest file of the snapshot
			}
		}
	}
	full, err := store.Resolve("baseline", id, matches)
	if err != nil {
		return nil, err
	}
	return loadBaseline(ctx, paths[full])
}

// LatestBaseline loads the newest readable baseline of suite and model,
// read from each file's suite_name and provider.model_id (not from its
// name). It drops the warnings of FindLatestBaseline, which callers that
// can show them should use instead.
func (s *Store) LatestBaseline(ctx context.Context, suite, model string) (*promptcanary.Baseline, error) {
	l, err := s.FindLatestBaseline(ctx, suite, model)
	if err != nil {
		return nil, err
	}
	return l.Baseline, nil
}

// SaveDrift writes d to drift/{report_id}.json.
func (s *Store) SaveDrift(ctx context.Context, d *promptcanary.DriftReport) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("save drift report: %w", err)
	}
	if err := store.CheckID("report", d.ReportID); err != nil {
		return fmt.Errorf("save drift report: %w", err)
	}
	data, err := store.MarshalIndent(d)
	if err != nil {
		return fmt.Errorf("save drift report %q: %w", d.ReportID, err)
	}
	if err := atomicfile.Write(s.driftPath(d.ReportID), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save drift report %q: %w", d.ReportID, err)
	}
	return nil
}

// Drift loads the drift report id names.
func (s *Store) Drift(ctx context.Context, id string) (*promptcanary.DriftReport, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load drift report: %w", err)
	}
	full, err := s.resolveFile("drift report", filepath.Join(s.dir, driftDir), id)
	if err != nil {
		return nil, err
	}
	return loadDrift(s.driftPath(full))
}

func (s *Store) driftSummaries(ctx context.Context) ([]store.DriftSummary, error) {
	vals, err := s.scan(ctx, "drift", filepath.Join(s.dir, driftDir), func(path string) (any, error) {
		d, err := loadDrift(path)
		if err != nil {
			return nil, err
		}
		return store.SummarizeDrift(d), nil
	})
	if err != nil {
		return nil, fmt.Errorf("list drift reports: %w", err)
	}
	out := make([]store.DriftSummary, len(vals))
	for i, v := range vals {
		out[i] = v.(store.DriftSummary)
	}
	store.SortDrifts(out)
	return out, nil
}

// Drifts lists the drift reports of suite and model, newest first.
func (s *Store) Drifts(ctx context.Context, suite, model string, limit int) ([]store.DriftSummary, error) {
	all, err := s.driftSummaries(ctx)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, d := range all {
		if (suite == "" || d.Suite == suite) && (model == "" || d.Model == model) {
			out = append(out, d)
		}
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
