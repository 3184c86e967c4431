package check

import (
	"context"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/suite"
)

// GateRequest is one upgrade gate: the current model and a candidate run
// now on the same prompts, samples and seed (each target's Config), and
// each pair tested for non-inferiority of the candidate. compare
// --candidate and a monitor check with candidate: make it.
type GateRequest struct {
	Suite *suite.Suite
	// Current and Candidate are the two models, each resolved as if it
	// ran alone, so that a model may be its own candidate.
	Current, Candidate Target
	// Samples per prompt on each model.
	Samples int
	Exec    Exec
	// MaxErrors is how many calls of one run may fail before it counts
	// as unmeasured.
	MaxErrors int
	// Margin is the largest drop of a pair's pass rate that still counts
	// as no worse, as a share (drift.DefaultMargin).
	Margin float64
}

// GateOutcome is what a gate measured.
type GateOutcome struct {
	// Runs are the current model's run and the candidate's, partial when
	// Interrupted. Nothing records them.
	Runs []*promptcanary.Run
	// Report is the comparison, nil when Interrupted or a run could not
	// be measured (Problems).
	Report *promptcanary.CandidateReport
	// Interrupted is set when the context was cancelled mid-run.
	Interrupted bool
	// Problems are the runs that could not be measured.
	Problems []Problem
}

// Gate runs the current model and the candidate of req and compares them
// pair by pair (drift.Candidate, at drift.DefaultAlpha). Errors returned
// are configuration mistakes (nothing was called) or unexpected failures
// of the engine.
func Gate(ctx context.Context, req GateRequest) (*GateOutcome, error) {
	out, err := Run(ctx, RunRequest{
		Suite: req.Suite, Targets: []Target{req.Current, req.Candidate}, Samples: req.Samples,
		Exec: req.Exec, MaxErrors: req.MaxErrors,
	})
	if err != nil {
		return nil, err
	}
	g := &GateOutcome{Runs: out.Runs, Interrupted: out.Interrupted, Problems: out.Problems}
	if g.Interrupted || len(g.Problems) > 0 || len(out.Runs) != 2 {
		return g, nil
	}
	g.Report = drift.Candidate(out.Runs[0], out.Runs[1], req.Margin, drift.DefaultAlpha)
	return g, nil
}
