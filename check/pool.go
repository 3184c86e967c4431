package check

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// PoolRequest selects the recorded runs that a pooled baseline is
// promoted from: the newest Runs clean runs of one model.
type PoolRequest struct {
	History store.Store
	// Model is the provider/model of the runs; "" with Check takes the
	// check's.
	Model string
	// Suite, when set, keeps runs of that suite; "" takes the suite of
	// the newest clean run.
	Suite string
	// Check, when set, keeps the runs the monitor recorded for that
	// check (its scheduled runs, not their confirmations) and judges them
	// by their check runs; History must then hold the monitor's state
	// (store.Monitor).
	Check string
	// Since, when set, keeps runs started at or after it.
	Since time.Time
	// Runs is how many runs to pool.
	Runs int
}

// PassedOver is a clean run that a pool left out, and why.
type PassedOver struct {
	RunID     string
	StartedAt time.Time
	Why       string
}

// Pool is the outcome of CleanRuns.
type Pool struct {
	// Runs are the runs to pool, oldest first; the newest is the
	// reference the others were checked against.
	Runs []*promptcanary.Run
	// PassedOver are the clean runs left out as incompatible, newest
	// first.
	PassedOver []PassedOver
	// NotClean counts the runs that were not clean.
	NotClean int
}

// ErrTooFewRuns is returned, wrapped, by CleanRuns when fewer clean,
// compatible runs than asked for are recorded; the Pool returned with it
// holds those found.
var ErrTooFewRuns = errors.New("too few clean runs")

// candidate is a recorded run CleanRuns may pool.
type candidate struct {
	runID string
	clean bool
}

// CleanRuns finds the newest req.Runs clean runs of a model that can be
// pooled into one baseline (see PoolBaseline). A run is clean when it
// measured every call: it was not interrupted, no call failed for good
// and it has probe results; and when it was not found drifting: for a
// check, its check run's outcome is clean (the monitor's policy flagged
// nothing in its drift report), else the latest drift report whose
// current run it is, if any, has severity none. The newest clean run is
// the reference: an older one is pooled only when it is compatible with
// it (see Compatible), else passed over with the reason.
func CleanRuns(ctx context.Context, req PoolRequest) (*Pool, error) {
	if req.Runs < 1 || req.Runs > promptcanary.MaxSamples {
		return nil, inRange("runs", req.Runs, 1, promptcanary.MaxSamples)
	}
	cands, err := candidates(ctx, req)
	if err != nil {
		return nil, err
	}
	p := &Pool{}
	var ref *promptcanary.Run
	for _, c := range cands {
		if len(p.Runs) == req.Runs {
			break
		}
		if !c.clean {
			p.NotClean++
			continue
		}
		r, err := req.History.Run(ctx, c.runID)
		if err != nil {
			return nil, fmt.Errorf("read run %s: %w", shortID(c.runID), err)
		}
		if r.Interrupted || len(r.Errors) > 0 || !r.Measured() {
			p.NotClean++
			continue
		}
		if ref != nil {
			if err := Compatible(ref, r); err != nil {
				p.PassedOver = append(p.PassedOver, PassedOver{RunID: r.RunID, StartedAt: r.StartedAt, Why: err.Error()})
				continue
			}
		}
		ref = cmpOr(ref, r)
		p.Runs = append(p.Runs, r)
	}
	slices.Reverse(p.Runs)
	if len(p.Runs) < req.Runs {
		return p, fmt.Errorf("%w: %d of %d", ErrTooFewRuns, len(p.Runs), req.Runs)
	}
	return p, nil
}

// cmpOr returns a when it is set, else b.
func cmpOr(a, b *promptcanary.Run) *promptcanary.Run {
	if a != nil {
		return a
	}
	return b
}

// candidates lists the runs req selects, newest first, each marked clean
// or not by what its listing says (the run itself is read later).
func candidates(ctx context.Context, req PoolRequest) ([]candidate, error) {
	if req.Check == "" {
		sums, err := req.History.Runs(ctx, store.RunFilter{Suite: req.Suite, Model: req.Model, Since: req.Since})
		if err != nil {
			return nil, err
		}
		out := make([]candidate, len(sums))
		for i, s := range sums {
			out[i] = candidate{runID: s.RunID, clean: s.Measured() && !s.Interrupted && s.Errors == 0 &&
				(s.Verdict == "" || s.Verdict == string(promptcanary.SeverityNone))}
		}
		return out, nil
	}
	mon, ok := req.History.(store.Monitor)
	if !ok {
		return nil, errors.New("the history holds no monitor state, so no check runs")
	}
	crs, err := mon.CheckRuns(ctx, req.Check, req.Model, 0)
	if err != nil {
		return nil, err
	}
	var out []candidate
	for _, cr := range crs {
		if cr.RunID == "" || cr.StartedAt.Before(req.Since) || (req.Suite != "" && cr.Suite != req.Suite) {
			continue
		}
		out = append(out, candidate{runID: cr.RunID, clean: cr.Outcome == promptcanary.CheckClean})
	}
	return out, nil
}

// Compatible reports, as an error that says why, whether r can be pooled
// into one baseline with ref: the same suite and model, and the same
// prompt hashes (each prompt with its probes, system prompt, tools and
// sampling parameters; the seed may differ). Runs recorded without prompt
// hashes are compatible only with one another.
func Compatible(ref, r *promptcanary.Run) error {
	switch {
	case r.SuiteName != ref.SuiteName:
		return fmt.Errorf("it is a run of suite %q, not %q", r.SuiteName, ref.SuiteName)
	case r.Provider.ModelID != ref.Provider.ModelID:
		return fmt.Errorf("it is a run of %s, not %s", r.Provider.ModelID, ref.Provider.ModelID)
	case maps.Equal(r.PromptHashes, ref.PromptHashes):
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(ref.PromptHashes)) {
		h, ok := r.PromptHashes[id]
		switch {
		case !ok:
			return fmt.Errorf("it has no prompt %s, which run %s has", id, shortID(ref.RunID))
		case h != ref.PromptHashes[id]:
			return fmt.Errorf("its prompt %s differs from run %s's (text, probes or sampling parameters)", id, shortID(ref.RunID))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(r.PromptHashes)) {
		if _, ok := ref.PromptHashes[id]; !ok {
			return fmt.Errorf("it has prompt %s, which run %s has not", id, shortID(ref.RunID))
		}
	}
	return fmt.Errorf("its prompt hashes differ from run %s's", shortID(ref.RunID))
}
