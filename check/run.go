package check

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/suite"
)

// RunRequest is one run of a suite against its targets.
type RunRequest struct {
	Suite   *suite.Suite
	Targets []Target
	Samples int
	Exec    Exec
	// History records every finished run; nil records nothing.
	History store.Store
	// SaveBaseline saves each run as the baseline of its suite and model,
	// into BaselineDir and the history, when every run was measured.
	SaveBaseline bool
	BaselineDir  string
	// BaselineFiles opens BaselineDir, and the directory of any baseline
	// an earlier run left pending; nil means the registered default
	// (store/file's, see store.BaselineDir).
	BaselineFiles store.BaselineDir
	// MaxErrors is how many calls of one run may fail before it counts as
	// unmeasured.
	MaxErrors int
	// Now stamps baselines; nil means the clock.
	Now func() time.Time
	// Build, when set, marks every run as one of a baseline build's
	// (each run gets its own copy) before it is recorded.
	Build *promptcanary.BuildMark
}

// DefaultBaselineSamples is the size of a statistical baseline: enough to
// see a 20-point drop on one probe across prompts (see the drift design).
const DefaultBaselineSamples = 30

// BaselineSamples returns the samples per prompt of a baseline saved by a
// run of samples per prompt: requested when the caller asks for a size,
// else at least DefaultBaselineSamples for a statistical run (more samples
// than any later run takes), else one, as the original tool.
func BaselineSamples(samples int, requested *int) (int, error) {
	switch {
	case requested != nil:
		samples = *requested
	case samples > 1:
		samples = max(samples, DefaultBaselineSamples)
	}
	if samples < 1 || samples > promptcanary.MaxSamples {
		return 0, inRange("baseline_samples", samples, 1, promptcanary.MaxSamples)
	}
	return samples, nil
}

// SavedBaseline is a baseline written by a run.
type SavedBaseline struct {
	Baseline *promptcanary.Baseline
	// Path is the baseline file written.
	Path string
}

// RunOutcome is what a run measured and saved.
type RunOutcome struct {
	// Runs are the runs, one per target in order; partial when Interrupted.
	Runs []*promptcanary.Run
	// Interrupted is set when the context was cancelled mid-run: nothing
	// was recorded and no baseline saved.
	Interrupted bool
	// Recorded is set when every run is in the history.
	Recorded bool
	// Baselines are the baselines saved.
	Baselines []SavedBaseline
	// NoBaseline says why no baseline was saved though one was asked for.
	NoBaseline string
	// Finished are the baselines an earlier, interrupted run left pending,
	// which this run completed (or could not: see each one's Err).
	Finished []store.Finished
	// Problems are the runs that could not be measured.
	Problems []Problem
	// Failures are the steps after the calls that failed (recording in the
	// history, writing a baseline); the runs themselves were measured.
	Failures []error
}

// Run first finishes any baseline an earlier run left pending (a crash
// between recording a run and saving its baseline), then executes the
// suite against every target, records each finished run in the history
// before anything else can fail, and saves the baselines asked for. Errors
// returned are configuration mistakes (nothing was called) or unexpected
// failures of the engine; what fails after the calls finished is in
// RunOutcome.Failures.
//
// A baseline is recorded in two steps that a crash can separate: the run
// goes into the history with a pending-baseline mark (one transaction),
// then the baseline file is written and the baseline recorded, which
// clears the mark. A crash in between leaves a run that 'history' shows as
// pending and that the next Run completes into the same baseline.
func Run(ctx context.Context, req RunRequest) (*RunOutcome, error) {
	out := &RunOutcome{}
	out.Finished, out.Failures = finishPending(ctx, req.History, req.BaselineFiles)
	runs, err := Execute(ctx, req.Suite, req.Targets, req.Samples, nil, req.Exec)
	// Cancelled or past its deadline, the run is interrupted: partial
	// runs come back for the caller to show.
	interrupted := err != nil && ctx.Err() != nil
	if runs == nil || (err != nil && !interrupted) {
		return nil, err
	}
	out.Runs = runs
	if interrupted {
		out.Interrupted = true
		return out, nil
	}
	if req.Build != nil {
		for _, r := range runs {
			mark := *req.Build
			r.Build = &mark
		}
	}
	out.Problems = unmeasured(runs, nil, nil, req.MaxErrors)
	var pending []*promptcanary.Baseline
	if req.SaveBaseline {
		if len(out.Problems) > 0 {
			out.NoBaseline = "a baseline must measure every prompt"
		} else {
			now := time.Now
			if req.Now != nil {
				now = req.Now
			}
			for _, r := range runs {
				pending = append(pending, store.NewBaseline(r, "", now().UTC()))
			}
		}
	}
	dir := req.BaselineDir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // the next run may start elsewhere
	}
	// The history first: a finished run is never lost to a later step.
	// The context is not the run's: a run that finished is recorded even
	// if the user presses Ctrl-C while it is being written.
	wctx := context.WithoutCancel(ctx)
	out.Recorded = req.History != nil
	for i, r := range runs {
		if req.History == nil {
			break
		}
		var err error
		j, journal := req.History.(store.Journal)
		if pending != nil && journal {
			err = j.SaveRunPending(wctx, r, store.Pending(pending[i], dir))
		} else {
			err = req.History.SaveRun(wctx, r)
		}
		if err != nil {
			out.Recorded = false
			out.Failures = append(out.Failures, fmt.Errorf("record run %s in the history: %w", r.RunID, err))
		}
	}
	if pending != nil {
		out.Baselines, out.Failures = saveBaselines(wctx, req.History, req.BaselineFiles, dir, pending, out.Failures)
	}
	return out, nil
}

// SaveBaselines writes each of bases into the directory dir opened with
// files (nil: the registered default, see store.BaselineDir) and records
// it in hist (nil records nothing), as Run saves the baselines it takes.
// What fails is returned; the baselines saved are the others.
func SaveBaselines(ctx context.Context, hist store.Store, files store.BaselineDir, dir string, bases []*promptcanary.Baseline) ([]SavedBaseline, []error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return saveBaselines(context.WithoutCancel(ctx), hist, files, dir, bases, nil)
}

// saveBaselines writes each baseline's file and records it in the history
// (which clears its pending mark), collecting failures.
func saveBaselines(ctx context.Context, hist store.Store, files store.BaselineDir, dir string, bases []*promptcanary.Baseline, failures []error) ([]SavedBaseline, []error) {
	fs, err := files.Open(dir)
	if err != nil {
		fs = nil
	} else {
		defer fs.Close()
	}
	var saved []SavedBaseline
	for _, b := range bases {
		var info store.BaselineInfo
		if fs != nil {
			info, err = fs.SaveBaseline(ctx, b)
		}
		if err != nil {
			// The user hears of it now; a pending mark is for crashes, so
			// that later runs do not retry a directory that cannot work.
			if j, ok := hist.(store.Journal); ok {
				if cerr := j.ClearPending(ctx, b.RunResult.RunID); cerr != nil {
					err = errors.Join(err, cerr)
				}
			}
			failures = append(failures, notSaved(b, err))
			continue
		}
		if hist != nil {
			if _, err := hist.SaveBaseline(ctx, b); err != nil {
				failures = append(failures, fmt.Errorf("record the baseline %s in the history: %w", info.Path, err))
			}
		}
		saved = append(saved, SavedBaseline{Baseline: b, Path: info.Path})
	}
	return saved, failures
}

// notSaved is the failure of saving baseline b: err, and how to save it
// later.
func notSaved(b *promptcanary.Baseline, err error) error {
	if len(b.Runs) > 0 {
		runs := "1 run"
		if len(b.Runs) != 1 {
			runs = fmt.Sprintf("%d runs", len(b.Runs))
		}
		return fmt.Errorf("save the baseline of %s pooled from %s (the runs are recorded: they pool again without new calls): %w",
			b.Provider.ModelID, runs, err)
	}
	return fmt.Errorf("save the baseline of %s (run %s is recorded: 'promptcanary baseline promote %s --export DIR' makes it one later): %w",
		b.Provider.ModelID, shortID(b.RunResult.RunID), shortID(b.RunResult.RunID), err)
}

// Verdict decides the gate: Unmeasured when a run could not be measured,
// Tripped when failOnFailure is set and a probe failed, else Pass.
func (o *RunOutcome) Verdict(failOnFailure bool) Verdict {
	if len(o.Problems) > 0 {
		return Unmeasured
	}
	if failOnFailure {
		for _, r := range o.Runs {
			if len(r.Failed()) > 0 {
				return Tripped
			}
		}
	}
	return Pass
}

// shortID abbreviates an id for messages, as the history lists it.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// finishPending completes the baselines an interrupted run left pending in
// hist, writing their files with files (see store.FinishPending).
func finishPending(ctx context.Context, hist store.Store, files store.BaselineDir) ([]store.Finished, []error) {
	if hist == nil {
		return nil, nil
	}
	done, err := store.FinishPending(ctx, hist, files)
	if err != nil {
		return done, []error{fmt.Errorf("finish pending baselines: %w", err)}
	}
	return done, nil
}
