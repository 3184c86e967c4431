package store

import (
	"context"
	"fmt"
	"time"

	"github.com/promptcanary/promptcanary"
)

// PendingBaseline is a baseline asked of a run and recorded with it, but
// not saved yet. A run saved with one and a crash before its baseline was
// saved leave it behind; Baseline rebuilds the very baseline that was asked
// for (same snapshot id, time and file name), so saving it again is
// idempotent.
type PendingBaseline struct {
	RunID      string
	SnapshotID string
	CreatedAt  time.Time
	Note       string
	// Dir is the directory of baseline files the baseline goes to, "" when
	// it goes to the store only.
	Dir string
}

// Pending returns the pending mark of b, bound for the baseline
// directory dir ("" for none).
func Pending(b *promptcanary.Baseline, dir string) PendingBaseline {
	return PendingBaseline{RunID: b.RunResult.RunID, SnapshotID: b.SnapshotID, CreatedAt: b.CreatedAt, Note: b.Note, Dir: dir}
}

// Baseline returns the baseline p stands for, taken from r, the run p
// marks.
func (p PendingBaseline) Baseline(r *promptcanary.Run) *promptcanary.Baseline {
	b := NewBaseline(r, p.Note, p.CreatedAt)
	b.SnapshotID = p.SnapshotID
	b.CreatedAt = p.CreatedAt
	return b
}

// Check reports whether p can be recorded: valid ids.
func (p PendingBaseline) Check() error {
	if err := CheckID("run", p.RunID); err != nil {
		return err
	}
	return CheckID("snapshot", p.SnapshotID)
}

// Journal is implemented by stores that can record, in the same step as a
// run, that a baseline of it was asked for: a crash between saving the run
// and saving its baseline then leaves a marked run, which Runs reports as
// BaselinePending and the next run finishes (see file.FinishPending),
// instead of a run silently without its baseline.
type Journal interface {
	// SaveRunPending stores r as SaveRun does and marks it with p (whose
	// RunID must be r's), all or nothing. SaveBaseline of p's baseline
	// clears the mark.
	SaveRunPending(ctx context.Context, r *promptcanary.Run, p PendingBaseline) error
	// PendingBaselines lists the marks left, oldest first.
	PendingBaselines(ctx context.Context) ([]PendingBaseline, error)
	// ClearPending removes the mark of runID, if any, without saving a
	// baseline: the baseline was given up.
	ClearPending(ctx context.Context, runID string) error
}

// SkippedBaseline is a baseline that a latest-baseline lookup passed over
// because it could not be read, though it was the newer candidate.
type SkippedBaseline struct {
	// Path is its file (file stores) or "" (a database row).
	Path string
	// SnapshotID is its id when it could be read, else "".
	SnapshotID string
	// CreatedAt is its creation time, from its content or its file name.
	CreatedAt time.Time
	// Err says why it could not be read.
	Err error
}

// BaselineLookup is the outcome of a latest-baseline lookup: the baseline
// found and the newer ones that had to be skipped.
type BaselineLookup struct {
	Baseline *promptcanary.Baseline
	// Path is the baseline's file, for file stores only.
	Path string
	// Skipped are the unreadable candidates newer than Baseline, newest
	// first. Baseline is nil when every candidate was skipped.
	Skipped []SkippedBaseline
}

// Warnings returns one line per skipped baseline, naming its file and the
// one used instead, for the CLI to print.
func (l *BaselineLookup) Warnings() []string {
	used := "no other baseline"
	if l.Baseline != nil {
		used = fmt.Sprintf("baseline %s", l.Baseline.SnapshotID)
		if l.Path != "" {
			used = fmt.Sprintf("the older %q", l.Path)
		}
		used += " (created " + l.Baseline.CreatedAt.UTC().Format("2006-01-02 15:04:05 UTC") + ")"
	}
	out := make([]string, len(l.Skipped))
	for i, s := range l.Skipped {
		what := fmt.Sprintf("baseline file %q", s.Path)
		if s.Path == "" {
			what = fmt.Sprintf("stored baseline %s", s.SnapshotID)
		}
		out[i] = fmt.Sprintf("%s is unreadable (%v); using %s instead", what, s.Err, used)
	}
	return out
}

// LatestFinder is implemented by stores whose latest-baseline lookup can
// report the newer baselines it skipped. LatestBaseline of such a store
// returns FindLatestBaseline's Baseline and drops the warnings.
type LatestFinder interface {
	// FindLatestBaseline finds the newest readable baseline of suite and
	// model as LatestBaseline does. It fails with ErrNotFound when there
	// is no candidate at all; when every candidate is unreadable it
	// returns a lookup with a nil Baseline and the skipped ones, and an
	// error wrapping ErrNotFound.
	FindLatestBaseline(ctx context.Context, suite, model string) (*BaselineLookup, error)
}
