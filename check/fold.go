package check

import (
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
)

// foldedRuns is what a ReportsOnly compare of saved runs keeps of the
// runs' and baselines' probe results: what the comparison reads of them
// (drift.Results), and what the outcome says of each run.
type foldedRuns struct {
	cur, base []*drift.Results
	measured  []bool
	problems  []Problem
}

// folds reports whether req's saved runs and baselines can be folded:
// they are consumed (ReportsOnly), and no run is judged again against its
// baseline's answers (runner.Rescore) or limited to some prompts, both of
// which read whole probe results.
func (req *CompareRequest) folds() bool {
	if !req.ReportsOnly || len(req.Current) == 0 || req.Prompts != nil {
		return false
	}
	if req.Suite == nil {
		return true
	}
	for _, cur := range req.Current {
		if req.Suite.Plan(cur.Provider, max(cur.Samples, 1)).Referenced() {
			return false
		}
	}
	return true
}

// foldRuns folds the probe results of the saved runs, releasing them
// (ProbeResults set to nil) once folded, after noting which runs measured
// something and which are problems.
func foldRuns(runs []*promptcanary.Run, maxErrors int) (*foldedRuns, error) {
	f := &foldedRuns{cur: make([]*drift.Results, len(runs)), base: make([]*drift.Results, len(runs)),
		measured: make([]bool, len(runs)), problems: unmeasured(runs, maxErrors)}
	for i, r := range runs {
		res, err := drift.NewResults(r.ProbeResults)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", r.RunID, err)
		}
		f.cur[i], f.measured[i] = res, r.Measured()
		r.ProbeResults = nil
	}
	return f, nil
}

// baseline folds the probe results of the i-th run's baseline b and
// returns a copy of b without them.
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
