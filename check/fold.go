package check

import (
	"context"
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/suite"
)

// foldedRuns is what a ReportsOnly compare of saved runs keeps of the
// runs' and baselines' probe results: what the comparison reads of them
// (drift.Results), and what the outcome says of each run.
type foldedRuns struct {
	cur, base []*drift.Results
	measured  []bool
	problems  []Problem
}

// Folds reports whether a ReportsOnly compare of saved runs of suite st
// (nil when there is no suite file) limited to prompts (nil for all)
// reads the runs' probe results only through drift.Results: then the
// caller may decode the runs with NewFolding (see
// CompareRequest.Folding). It does not when a run is limited to some
// prompts, or judged again against its baseline's answers
// (runner.Rescore): both read whole probe results.
func Folds(st *suite.Suite, prompts []string) bool {
	return prompts == nil && (st == nil || !st.Plan(promptcanary.ProviderConfig{}, 1).Referenced())
}

// NewFolding returns a store.Folding that folds each run's probe results
// into a drift.Results.
func NewFolding() *store.Folding {
	return &store.Folding{New: func() store.Folder { return new(drift.Results) }}
}

// folds reports whether req's saved runs and baselines are folded: they
// are consumed (ReportsOnly) and Folds.
func (req *CompareRequest) folds() bool {
	return req.ReportsOnly && len(req.Current) > 0 && Folds(req.Suite, req.Prompts)
}

// foldRuns folds the probe results of the saved runs, or takes them from
// req.Folding when the runs were decoded with it (their responses too),
// releasing each run's ProbeResults once folded.
func (req *CompareRequest) foldRuns() (*foldedRuns, error) {
	runs := req.Current
	f := &foldedRuns{cur: make([]*drift.Results, len(runs)), base: make([]*drift.Results, len(runs)), measured: make([]bool, len(runs))}
	answered := make([]int, len(runs))
	for i, r := range runs {
		res, err := results(req.Folding, r)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.RunID, err)
		}
		f.cur[i], f.measured[i] = res, res.Len() > 0
		answered[i] = len(r.LLMResponses) + res.Responses() // folded or not
		r.ProbeResults = nil
	}
	f.problems = unmeasured(runs, f.measured, answered, req.MaxErrors)
	return f, nil
}

// results returns the probe results of r folded: by fo when r was decoded
// with it, else now.
func results(fo *store.Folding, r *promptcanary.Run) (*drift.Results, error) {
	if fo != nil {
		if got := fo.Take(r); got != nil {
			res, ok := got.(*drift.Results)
			if !ok {
				return nil, fmt.Errorf("probe results folded into a %T, want a *drift.Results (check.NewFolding)", got)
			}
			return res, nil
		}
	}
	return drift.NewResults(r.ProbeResults)
}

// latestFolded is Baselines.Latest, folding the baseline's probe results
// as they are decoded into folded.base[i]: the baseline returned holds
// none.
func (req *CompareRequest) latestFolded(ctx context.Context, i int, suiteName, model string, folded *foldedRuns) (*promptcanary.Baseline, error) {
	fo := NewFolding()
	b, err := req.Baselines.Latest(store.WithFolding(ctx, fo), suiteName, model)
	if err != nil {
		return nil, err
	}
	if folded.base[i], err = results(fo, &b.RunResult); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", b.SnapshotID, err)
	}
	c := *b
	c.RunResult.ProbeResults = nil
	return &c, nil
}

// baseline folds the probe results of the i-th run's baseline b, given
// whole (CompareRequest.Baseline), and returns a copy of b without them.
func (f *foldedRuns) baseline(i int, b *promptcanary.Baseline) (*promptcanary.Baseline, error) {
	res, err := drift.NewResults(b.RunResult.ProbeResults)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", b.SnapshotID, err)
	}
	f.base[i] = res
	c := *b
	c.RunResult.ProbeResults = nil
	return &c, nil
}
