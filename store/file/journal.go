package file

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/atomicfile"
	"github.com/promptcanary/promptcanary/store"
)

var _ store.Journal = (*Store)(nil)

func (s *Store) pendingPath(runID string) string {
	return filepath.Join(s.dir, runsDir, runID+pendingExt)
}

// pendingJSON is the content of a runs/{run_id}.baseline-pending file.
type pendingJSON struct {
	RunID      string    `json:"run_id"`
	SnapshotID string    `json:"snapshot_id"`
	CreatedAt  time.Time `json:"created_at"`
	Note       string    `json:"note,omitempty"`
	Dir        string    `json:"dir,omitempty"`
}

// SaveRunPending writes the pending mark p, then the run r: a crash
// between the two leaves a mark without its run, which PendingBaselines
// removes, never a run without its mark.
func (s *Store) SaveRunPending(ctx context.Context, r *promptcanary.Run, p store.PendingBaseline) error {
	if err := p.Check(); err != nil {
		return fmt.Errorf("save run: %w", err)
	}
	if p.RunID != r.RunID {
		return fmt.Errorf("save run %q: the pending baseline is of run %q", r.RunID, p.RunID)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("save run: %w", err)
	}
	data, err := json.Marshal(pendingJSON(p))
	if err != nil {
		return fmt.Errorf("save run %q: %w", r.RunID, err)
	}
	if err := atomicfile.Write(s.pendingPath(r.RunID), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("save run %q: mark its baseline pending: %w", r.RunID, err)
	}
	return s.SaveRun(ctx, r)
}

// PendingBaselines lists the pending marks whose run is stored, oldest
// first, and removes those whose run is not (a crash before the run was
// written).
func (s *Store) PendingBaselines(ctx context.Context) ([]store.PendingBaseline, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list pending baselines: %w", err)
	}
	dir := filepath.Join(s.dir, runsDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list pending baselines: %w", err)
	}
	var out []store.PendingBaseline
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), pendingExt)
		if !ok || !e.Type().IsRegular() || store.CheckID("run", id) != nil {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("list pending baselines: %w", err)
		}
		var p pendingJSON
		if err := json.Unmarshal(data, &p); err != nil || p.RunID != id || store.PendingBaseline(p).Check() != nil {
			return nil, fmt.Errorf("list pending baselines: read %q: not a pending baseline mark", path)
		}
		if _, err := os.Stat(s.runPath(id)); errors.Is(err, fs.ErrNotExist) {
			os.Remove(path) // the run was never written: nothing to finish
			continue
		}
		out = append(out, store.PendingBaseline(p))
	}
	slices.SortFunc(out, func(a, b store.PendingBaseline) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.RunID, b.RunID)
	})
	return out, nil
}

// ClearPending removes the pending mark of runID.
func (s *Store) ClearPending(ctx context.Context, runID string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("clear pending baseline: %w", err)
	}
	if err := store.CheckID("run", runID); err != nil {
		return fmt.Errorf("clear pending baseline: %w", err)
	}
	if err := os.Remove(s.pendingPath(runID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear pending baseline of run %q: %w", runID, err)
	}
	return nil
}

// clearPending removes the pending mark of runID if it is for snapshot.
func (s *Store) clearPending(runID, snapshot string) error {
	path := s.pendingPath(runID)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("clear pending mark: %w", err)
	}
	var p pendingJSON
	if json.Unmarshal(data, &p) == nil && p.SnapshotID != snapshot {
		return nil // a mark for another baseline of the run
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear pending mark: %w", err)
	}
	return nil
}

// pendingMarks returns the ids of the runs with a pending mark.
func (s *Store) pendingMarks() (map[string]bool, error) {
	entries, err := os.ReadDir(filepath.Join(s.dir, runsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool)
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), pendingExt); ok {
			out[id] = true
		}
	}
	return out, nil
}

// Finished is a pending baseline that FinishPending saved, or could not.
type Finished = store.Finished

// OpenDir opens the baseline directory dir, as Open, for code that knows
// only the store package's interfaces (check, through store.BaselineDir).
func OpenDir(dir string) (store.Store, error) {
	s, err := Open(dir)
	if err != nil {
		return nil, err
	}
	return s, nil
}

var _ store.BaselineDir = OpenDir

func init() { store.RegisterBaselineDir(OpenDir) }

// FinishPending saves the baselines that a crash or a failed write left
// pending in hist, writing baseline files with OpenDir: see
// store.FinishPending.
func FinishPending(ctx context.Context, hist store.Store) ([]Finished, error) {
	return store.FinishPending(ctx, hist, OpenDir)
}
