package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// BaselineDir opens a directory of baseline files (what CI shares through
// git) as a Store, so that code reading and writing baselines needs no
// file format of its own. store/file provides one, file.OpenDir, and
// registers it from init as the default.
type BaselineDir func(dir string) (Store, error)

var (
	defaultDirMu sync.RWMutex
	defaultDir   BaselineDir
)

// RegisterBaselineDir makes open the BaselineDir used where a caller
// names none. store/file calls it from init.
func RegisterBaselineDir(open BaselineDir) {
	defaultDirMu.Lock()
	defer defaultDirMu.Unlock()
	defaultDir = open
}

// Open opens dir with open, or with the registered default when open is
// nil; without either it fails, naming the package to import.
func (open BaselineDir) Open(dir string) (Store, error) {
	if open == nil {
		defaultDirMu.RLock()
		open = defaultDir
		defaultDirMu.RUnlock()
	}
	if open == nil {
		return nil, fmt.Errorf("open baseline directory %s: no baseline file format: import github.com/promptcanary/promptcanary/store/file", dir)
	}
	return open(dir)
}

// Finished is a pending baseline that FinishPending saved, or could not.
type Finished struct {
	Pending PendingBaseline
	// Path is the baseline file written, "" when the baseline went to the
	// store only or could not be saved.
	Path string
	// Err says why it could not be saved; the mark stays for the next try.
	Err error
}

// FinishPending saves the baselines that a crash or a failed write left
// pending in hist: for each mark, oldest first, it rebuilds the baseline
// from the stored run (the same snapshot id and time, so the same file
// name), writes its file into the mark's directory, opened with dirs,
// when it has one, then saves it in hist, which clears the mark. A mark
// whose run cannot be loaded any more is cleared and reported with the
// error. It fails only when the marks cannot be listed; each baseline's
// own failure is in its Finished.
func FinishPending(ctx context.Context, hist Store, dirs BaselineDir) ([]Finished, error) {
	j, ok := hist.(Journal)
	if !ok {
		return nil, nil
	}
	pending, err := j.PendingBaselines(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Finished, 0, len(pending))
	for _, p := range pending {
		f := Finished{Pending: p}
		f.Path, f.Err = finish(ctx, hist, j, dirs, p)
		out = append(out, f)
	}
	return out, nil
}

func finish(ctx context.Context, hist Store, j Journal, dirs BaselineDir, p PendingBaseline) (string, error) {
	r, err := hist.Run(ctx, p.RunID)
	if errors.Is(err, ErrNotFound) {
		if cerr := j.ClearPending(ctx, p.RunID); cerr != nil {
			return "", errors.Join(err, cerr)
		}
		return "", fmt.Errorf("finish baseline %s: %w (mark cleared)", p.SnapshotID, err)
	}
	if err != nil {
		return "", fmt.Errorf("finish baseline %s: %w", p.SnapshotID, err)
	}
	b := p.Baseline(r)
	path := ""
	if p.Dir != "" {
		fs, err := dirs.Open(p.Dir)
		if err != nil {
			return "", fmt.Errorf("finish baseline %s: %w", p.SnapshotID, err)
		}
		defer fs.Close()
		info, err := fs.SaveBaseline(ctx, b)
		if err != nil {
			return "", fmt.Errorf("finish baseline %s: %w", p.SnapshotID, err)
		}
		path = info.Path
	}
	if _, err := hist.SaveBaseline(ctx, b); err != nil {
		return path, fmt.Errorf("finish baseline %s: %w", p.SnapshotID, err)
	}
	return path, nil
}
