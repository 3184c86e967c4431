package check

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/suite"
)

// CompareRequest is one comparison of current runs against baselines.
// Either Current holds saved runs, or the suite is run now on Targets.
type CompareRequest struct {
	// Suite is needed to run now; with Current it may be nil.
	Suite   *suite.Suite
	Targets []Target
	// Control, when set, is the control arm of every target: a pinned
	// snapshot beside a moving alias, the raw model beside an http/ app,
	// or the same model at another vendor. It runs in the same run with
	// the same prompts, is compared against its own baseline, and each
	// pair's report weighs the two changes in its Attribution.
	Control *Target
	Samples int
	Exec    Exec
	// Current are saved runs to compare instead of running now.
	Current []*promptcanary.Run
	// Baseline, when set, is the baseline every current run is compared
	// against; else each uses the latest baseline of BaselineModel, or of
	// its own model.
	Baseline      *promptcanary.Baseline
	BaselineModel string
	Baselines     Baselines
	// Legacy uses the original single-sample rule even with many samples.
	Legacy bool
	// NoAdaptive takes every sample instead of stopping early on prompts
	// that are clearly fine.
	NoAdaptive bool
	// Prompts, when not nil, limits the comparison to these prompt ids
	// (the run covers part of the suite, --prompt or --tag): the
	// baseline's other prompts are left out instead of reported removed.
	Prompts   []string
	MaxErrors int
	// ReportsOnly is for a caller that reads only the reports: the
	// outcome's pairs leave out their run and baseline, which are garbage
	// once compared instead of held while the reports are recorded (a
	// statistical run of 60,000 probe results is ten megabytes). The
	// saved runs of Current are consumed: unless some must be judged
	// again or limited to Prompts, each one's probe results are folded
	// into what the comparison reads (drift.Results, a seventh of their
	// memory) and its ProbeResults set to nil before any baseline is
	// read, and each baseline's likewise as it is read, so that the
	// comparison never holds two runs' probe results at once.
	ReportsOnly bool
	// Folding, when set, is the check.NewFolding the saved runs of Current
	// were decoded with (store.DecodeDocumentFolding, when Folds allowed
	// it): their probe results are in its folders, not in the runs.
	Folding *store.Folding
}

// Pair is one current run, its baseline and their drift report. Run and
// Baseline are nil when the request was ReportsOnly.
type Pair struct {
	Run      *promptcanary.Run
	Baseline *promptcanary.Baseline
	Report   *promptcanary.DriftReport
	// Measured is whether the run has any probe result (Run.Measured).
	Measured bool
	// served are the served-model and fingerprint changes of a report
	// without statistics, for its attribution.
	served []promptcanary.ChangeSignal
}

// CompareOutcome is what a compare found and recorded.
type CompareOutcome struct {
	Pairs []Pair
	// Control is the control arm's run, baseline and report when the
	// request named one (CompareRequest.Control); its drift is evidence
	// for the pairs' Attribution and never part of the verdict.
	Control *Pair
	// Interrupted is set when the context was cancelled mid-run: nothing
	// was compared or recorded.
	Interrupted bool
	// Recorded is set when the runs (when run now) and the drift reports
	// are in the history.
	Recorded bool
	// Problems are the runs that could not be measured.
	Problems []Problem
	// Finished are the baselines an earlier, interrupted run left pending,
	// which this compare completed before looking for baselines.
	Finished []store.Finished
	// Failures are the steps after the calls that failed (recording in the
	// history); the comparison itself is complete.
	Failures []error
}

// Compare finds every baseline before calling anything (a missing one is
// a *ConfigError), runs the suite now unless Current is given, compares
// each run against its baseline and records runs and reports in the
// history.
func Compare(ctx context.Context, req CompareRequest) (*CompareOutcome, error) {
	n, err := req.runsToCompare()
	if err != nil {
		return nil, err
	}
	out := &CompareOutcome{}
	out.Finished, out.Failures = finishPending(ctx, req.Baselines.History, req.Baselines.Files)
	var folded *foldedRuns
	if req.folds() {
		if folded, err = req.foldRuns(); err != nil {
			return nil, err
		}
	}
	bases, err := req.baselines(ctx, n, folded)
	if err != nil {
		return nil, err
	}
	if req.Control != nil {
		var cb *promptcanary.Baseline
		if cb, err = req.controlBaseline(ctx); err != nil {
			return nil, err
		}
		bases = append(slices.Clip(bases), cb) // the control's last, as runNow runs it
	}
	if folded != nil {
		req.Baseline = nil // bases hold its copy without the probe results
	}
	currents, ranNow := req.Current, len(req.Current) == 0
	if ranNow {
		if currents, err = req.runNow(ctx, bases); err != nil && ctx.Err() != nil {
			out.Interrupted = true
			return out, nil
		} else if err != nil {
			return nil, err
		}
	} else if req.Suite != nil {
		currents = req.rescore(bases)
	}
	if req.Prompts != nil {
		for i := range bases {
			bases[i] = only(bases[i], req.Prompts)
		}
		for i := range currents {
			currents[i] = onlyRun(currents[i], req.Prompts)
		}
	}
	h := req.Baselines.History
	wctx := context.WithoutCancel(ctx)
	out.Recorded = h != nil
	// The runs first: whatever happens next, what was measured is kept.
	if ranNow {
		out.record(h, "record run %s in the history: %w", len(currents), func(i int) (string, error) {
			return currents[i].RunID, h.SaveRun(wctx, currents[i])
		})
	}
	var control *Pair
	if req.Control != nil && len(currents) == n+1 {
		control = &Pair{Run: currents[n], Baseline: bases[n]}
		currents, bases = currents[:n], bases[:n]
	}
	if err := out.compare(&req, bases, currents, folded); err != nil {
		return nil, err
	}
	if control != nil {
		if err := out.compareControl(&req, control); err != nil {
			return nil, err
		}
	}
	out.attribute(ctx, &req)
	out.finish(wctx, &req)
	return out, nil
}

// finish lets a ReportsOnly outcome drop its runs and baselines, then
// records the drift reports, the control's last, in the history.
func (o *CompareOutcome) finish(wctx context.Context, req *CompareRequest) {
	if req.ReportsOnly {
		for i := range o.Pairs {
			o.Pairs[i].Run, o.Pairs[i].Baseline = nil, nil
		}
		if o.Control != nil {
			o.Control.Run, o.Control.Baseline = nil, nil
		}
		// The request's copy too: a method took its address.
		req.Current, req.Baseline = nil, nil
	}
	reports := make([]*promptcanary.DriftReport, 0, len(o.Pairs)+1)
	for _, p := range o.Pairs {
		reports = append(reports, p.Report)
	}
	if o.Control != nil {
		reports = append(reports, o.Control.Report)
	}
	h := req.Baselines.History
	o.record(h, "record drift report %s in the history: %w", len(reports), func(i int) (string, error) {
		return reports[i].ReportID, h.SaveDrift(wctx, reports[i])
	})
}

// runsToCompare checks that the request picks its runs and baselines one
// way each, and returns how many runs it compares.
func (req *CompareRequest) runsToCompare() (int, error) {
	if len(req.Current) > 0 && len(req.Targets) > 0 {
		return 0, fieldErr(func(n ...string) (string, []string) {
			return n[0] + " and " + n[1] + " exclude each other", []string{"compare a saved run with " + n[0] + ", or run now with " + n[1]}
		}, "current", "providers")
	}
	if req.Baseline != nil && req.BaselineModel != "" {
		return 0, fieldErr(func(n ...string) (string, []string) {
			return n[0] + " and " + n[1] + " exclude each other", nil
		}, "baseline", "baseline_provider")
	}
	if req.Control != nil && len(req.Current) > 0 {
		return 0, fieldErr(func(n ...string) (string, []string) {
			return n[0] + " and " + n[1] + " exclude each other: the control arm runs now, beside the targets, and a saved run has none",
				[]string{"run now with " + n[2] + " and " + n[0]}
		}, "control", "current", "providers")
	}
	n := len(req.Current)
	if n == 0 {
		n = len(req.Targets)
	}
	if n > 1 && (req.Baseline != nil || req.BaselineModel != "") {
		return 0, fieldErr(func(n ...string) (string, []string) {
			return n[0] + " and " + n[1] + " pick one baseline, but several runs are compared",
				[]string{"compare one provider at a time, or let each use its own latest baseline"}
		}, "baseline", "baseline_provider")
	}
	return n, nil
}

// runNow runs the suite against the targets, and the control arm when
// the request has one (its baseline last in bases, its run last in the
// runs returned), each against its baseline in bases: adaptive sampling needs the baseline's results, and probes
// that judge an answer against others the baseline's answers.
func (req *CompareRequest) runNow(ctx context.Context, bases []*promptcanary.Baseline) ([]*promptcanary.Run, error) {
	against := make([]Against, len(bases))
	referenced := req.Suite.Plan(promptcanary.ProviderConfig{}, 1).Referenced()
	for i := range bases {
		control := req.Control != nil && i == len(bases)-1
		// The control takes every sample, so that both arms' counts are
		// the samples asked for.
		if req.Samples > 1 && !req.NoAdaptive && !req.Legacy && !control {
			against[i].Adaptive = acceptAgainst(bases[i])
		}
		if referenced {
			against[i].References = runner.References(&bases[i].RunResult)
		}
	}
	targets := req.Targets
	if req.Control != nil {
		targets = append(slices.Clip(targets), *req.Control)
	}
	return Execute(ctx, req.Suite, targets, req.Samples, against, req.Exec)
}

// rescore returns the saved runs to compare: a saved run judged its
// answers against its own other samples, so they are judged again against
// the baseline's, on a copy. A suite without such probes leaves the run
// as it is (a copy of a statistical run's results would be as large as
// the run).
func (req *CompareRequest) rescore(bases []*promptcanary.Baseline) []*promptcanary.Run {
	currents := slices.Clone(req.Current)
	for i, cur := range currents {
		plan := req.Suite.Plan(cur.Provider, max(cur.Samples, 1))
		if !plan.Referenced() {
			continue
		}
		c := *cur
		c.ProbeResults = slices.Clone(cur.ProbeResults)
		plan.References = runner.References(&bases[i].RunResult)
		runner.Rescore(plan, &c)
		currents[i] = &c
	}
	return currents
}

// compare compares each current run with its baseline into o.Pairs and
// lists the runs that could not be measured in o.Problems.
func (o *CompareOutcome) compare(req *CompareRequest, bases []*promptcanary.Baseline, currents []*promptcanary.Run, folded *foldedRuns) error {
	for i, cur := range currents {
		opts := drift.Options{StalePrompts: stalePrompts(&bases[i].RunResult, cur), Seed: statsSeed(bases[i], cur)}
		if req.Suite != nil {
			opts.Costs = CostFuncs(bases[i], cur, req.Suite.Prices)
		} else {
			opts.Costs = CostFuncs(bases[i], cur, nil)
		}
		if req.Legacy {
			opts.Method = drift.MethodSingleSample
		}
		measured := cur.Measured()
		if folded != nil {
			opts.BaselineResults, opts.CurrentResults, measured = folded.base[i], folded.cur[i], folded.measured[i]
			folded.base[i], folded.cur[i] = nil, nil // garbage once compared
		}
		d, err := drift.Compare(bases[i], cur, opts)
		if err != nil {
			// The suites were matched before anything was called, so this
			// is unexpected; the runs are recorded all the same.
			return fmt.Errorf("compare %s with baseline %s: %w", cur.Provider.ModelID, bases[i].SnapshotID, err)
		}
		pair := Pair{Run: cur, Baseline: bases[i], Report: d, Measured: measured}
		if d.Statistics == nil { // its signals hold the served model's changes
			pair.served = drift.ServedChanges(&bases[i].RunResult, cur, opts.BaselineResults, opts.CurrentResults)
		}
		o.Pairs = append(o.Pairs, pair)
	}
	if folded != nil {
		o.Problems = folded.problems
	} else {
		o.Problems = unmeasured(currents, nil, nil, req.MaxErrors)
	}
	return nil
}

// controlBaseline finds the control arm's own baseline: the latest of its
// model for the suite. A missing one names the control setting.
func (req *CompareRequest) controlBaseline(ctx context.Context) (*promptcanary.Baseline, error) {
	spec := req.Control.Spec
	b, err := req.Baselines.Latest(ctx, req.Suite.Name, spec)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fieldErr(func(n ...string) (string, []string) {
			return fmt.Sprintf("%s %s has no baseline for suite %q: the control arm is compared against its own baseline", n[0], spec, req.Suite.Name),
				[]string{"save one with 'promptcanary run --save-baseline -p " + spec + "'"}
		}, "control")
	}
	return b, err
}

// compareControl compares the control arm's run with its own baseline
// into o.Control.
func (o *CompareOutcome) compareControl(req *CompareRequest, c *Pair) error {
	opts := drift.Options{StalePrompts: stalePrompts(&c.Baseline.RunResult, c.Run), Seed: statsSeed(c.Baseline, c.Run)}
	if req.Legacy {
		opts.Method = drift.MethodSingleSample
	}
	d, err := drift.Compare(c.Baseline, c.Run, opts)
	if err != nil {
		return fmt.Errorf("compare the control %s with baseline %s: %w", c.Run.Provider.ModelID, c.Baseline.SnapshotID, err)
	}
	c.Report, c.Measured = d, c.Run.Measured()
	if d.Statistics == nil {
		c.served = drift.ServedChanges(&c.Baseline.RunResult, c.Run, nil, nil)
	}
	o.Control = c
	return nil
}

// record saves n items in the history h, when there is one: save saves
// the i-th and returns its id. A failure clears o.Recorded and is added
// to o.Failures, worded by format (the id, the error).
func (o *CompareOutcome) record(h store.Store, format string, n int, save func(i int) (string, error)) {
	if h == nil {
		return
	}
	for i := range n {
		if id, err := save(i); err != nil {
			o.Recorded = false
			o.Failures = append(o.Failures, fmt.Errorf(format, id, err))
		}
	}
}

// baselines finds the baseline of each of the n runs to compare, before
// anything is called: a missing baseline, one of another suite, or a saved
// run that is its baseline's own run is a *ConfigError.
//
// With folded, each baseline's probe results are folded into folded.base
// as they are decoded (or, for req.Baseline, once found), and the
// baseline returned is a copy without them.
func (req *CompareRequest) baselines(ctx context.Context, n int, folded *foldedRuns) ([]*promptcanary.Baseline, error) {
	bases := make([]*promptcanary.Baseline, n)
	for i := range n {
		suiteName, model := "", ""
		if len(req.Current) > 0 {
			suiteName, model = req.Current[i].SuiteName, req.Current[i].Provider.ModelID
		} else {
			suiteName, model = req.Suite.Name, req.Targets[i].Spec
		}
		if req.Baseline != nil {
			bases[i] = req.Baseline
		} else {
			if req.BaselineModel != "" {
				model = req.BaselineModel
			}
			latest := req.Baselines.Latest
			if folded != nil {
				latest = func(ctx context.Context, suiteName, model string) (*promptcanary.Baseline, error) {
					return req.latestFolded(ctx, i, suiteName, model, folded)
				}
			}
			b, err := latest(ctx, suiteName, model)
			if err != nil {
				return nil, err
			}
			bases[i] = b
		}
		if got := baselineSuite(bases[i]); got != suiteName {
			return nil, configErr(fmt.Errorf("baseline %s is of suite %q, and the run of suite %q: results of different suites cannot be compared", bases[i].SnapshotID, got, suiteName),
				"pass a baseline of this suite, or run the suite the baseline was taken of")
		}
		if len(req.Current) > 0 {
			if err := sameRun(req.Current[i], bases[i]); err != nil {
				return nil, err
			}
		}
		if folded != nil && req.Baseline != nil {
			var err error
			if bases[i], err = folded.baseline(i, bases[i]); err != nil {
				return nil, err
			}
		}
	}
	return bases, nil
}

// sameRun refuses a saved run that is the baseline's own run, or one of
// the runs it pools (Baseline.Runs): a run compared with itself shows no
// drift by construction, which a gate would read as a pass.
func sameRun(cur *promptcanary.Run, b *promptcanary.Baseline) error {
	own := cur.RunID != "" && cur.RunID == b.RunResult.RunID
	for _, r := range b.Runs {
		own = own || cur.RunID != "" && cur.RunID == r.RunID // one of the runs it pools
	}
	if !own {
		return nil
	}
	return configErr(fmt.Errorf("run %s is the baseline's own run (baseline %s): a run compared with itself shows no drift whatever the model does", cur.RunID, b.SnapshotID),
		"compare a later run ('promptcanary run -o run.json', then --current run.json), run now with --provider, or pass another baseline with --baseline")
}

// baselineSuite is the suite a baseline was taken of.
func baselineSuite(b *promptcanary.Baseline) string {
	if b.SuiteName != "" {
		return b.SuiteName
	}
	return b.RunResult.SuiteName
}

// Verdict decides the gate: Unmeasured when a run could not be measured or
// a report compared nothing; Tripped when failOn is set and a report
// drifted at or above it; else Pass.
func (o *CompareOutcome) Verdict(failOn *promptcanary.Severity) Verdict {
	if len(o.Problems) > 0 {
		return Unmeasured
	}
	for _, p := range o.Pairs {
		if p.Report.Compared() == 0 {
			return Unmeasured
		}
	}
	if failOn == nil {
		return Pass
	}
	for _, p := range o.Pairs {
		if p.Report.HasDrift && p.Report.Severity.Rank() >= failOn.Rank() {
			return Tripped
		}
	}
	return Pass
}

// acceptAgainst stops sampling a prompt once its results are clearly no
// worse than the baseline's (drift.AcceptEarly), in drift.Stages.
func acceptAgainst(b *promptcanary.Baseline) *runner.Adaptive {
	byPrompt := map[string][]promptcanary.ProbeResult{}
	for _, r := range b.RunResult.ProbeResults {
		byPrompt[r.PromptID] = append(byPrompt[r.PromptID], r)
	}
	return &runner.Adaptive{
		Stages: drift.Stages,
		Accept: func(promptID string, results []promptcanary.ProbeResult) bool {
			return drift.AcceptEarly(byPrompt[promptID], results)
		},
	}
}

// stalePrompts lists the prompts whose hash differs between baseline and
// run: their configuration changed, so their pairs are stale, not drift.
// Runs without hashes (older files, the Python tool's) mark nothing stale.
func stalePrompts(base, cur *promptcanary.Run) map[string]bool {
	stale := map[string]bool{}
	for id, h := range cur.PromptHashes {
		if bh, ok := base.PromptHashes[id]; ok && bh != h {
			stale[id] = true
		}
	}
	return stale
}

// statsSeed derives the permutation seed from the two run ids, so the same
// comparison always gives the same verdict; the report records it.
func statsSeed(b *promptcanary.Baseline, cur *promptcanary.Run) uint64 {
	h := fnv.New64a()
	h.Write([]byte(b.SnapshotID))
	h.Write([]byte{0})
	h.Write([]byte(cur.RunID))
	return h.Sum64()
}

// only returns a copy of b limited to the prompts ids names.
func only(b *promptcanary.Baseline, ids []string) *promptcanary.Baseline {
	c := *b
	c.RunResult = *onlyRun(&b.RunResult, ids)
	return &c
}

// onlyRun returns a copy of r limited to the prompts ids names.
func onlyRun(r *promptcanary.Run, ids []string) *promptcanary.Run {
	keep := make(map[string]bool, len(ids))
	for _, id := range ids {
		keep[id] = true
	}
	c := *r
	c.ProbeResults = slices.DeleteFunc(slices.Clone(r.ProbeResults), func(p promptcanary.ProbeResult) bool { return !keep[p.PromptID] })
	c.LLMResponses = slices.DeleteFunc(slices.Clone(r.LLMResponses), func(p promptcanary.Response) bool { return !keep[p.PromptID] })
	c.Errors = slices.DeleteFunc(slices.Clone(r.Errors), func(e promptcanary.CallError) bool { return !keep[e.PromptID] })
	return &c
}
