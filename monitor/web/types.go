// Package web serves the monitor's dashboard and JSON API: the checks
// overview, a check's history, a run's drift report, the incidents, and
// token-protected actions. Pages are rendered on the server and readable
// without JavaScript; every asset is embedded.
package web

import (
	"context"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// CheckStatus is the live state of one check and provider.
type CheckStatus struct {
	// Check is the check's name, Provider its provider ("NAME/MODEL", the
	// model id its runs record) and Suite the suite's name (as its runs
	// record it): the heatmap and promotion look runs up by both.
	Check, Provider, Suite string
	// Schedule describes when the check runs.
	Schedule string
	// Confirmation says when a run that flags drift is confirmed, ""
	// for at once (or no confirmation): "20m after the run".
	Confirmation string
	// Control is the check's control arm (NAME/MODEL), "" for none.
	Control string
	// Last is the latest check run, nil before the first.
	Last *promptcanary.CheckRun
	// Next is the next scheduled slot.
	Next    time.Time
	Running bool
	// Stale is set when the check has not completed a run for twice its
	// interval.
	Stale bool
	// Open are the check's open incidents.
	Open []promptcanary.Incident
	// Baseline is the snapshot id compared against, "" when none.
	Baseline string
	// Candidate is the check's upgrade gate candidate (candidate:), ""
	// when it names none.
	Candidate string
	// RunLevel is the check's run-level rule (run_level: true), nil when
	// the check does not use it.
	RunLevel *RunLevel
}

// RunLevel is what the check page shows of a check's run-level rule.
type RunLevel struct {
	// BaselineRuns are the baseline's runs among the reference runs,
	// Learned the check's clean runs.
	BaselineRuns, Learned int
	// Applies is set when the rule judges the suite: enough reference
	// runs that spread beyond sampling. Without it the check keeps the
	// usual rule.
	Applies bool
	// Open is how many runs the open window holds, 0 when none is open.
	Open int
	// Control is the window of the check's difference from its control
	// arm, nil for a check without a control.
	Control *ControlWindow
}

// ControlWindow is what the check page shows of the run-level rule's
// window of a check's difference from its control arm.
type ControlWindow struct {
	// Learned are the clean runs' differences it learned.
	Learned int
	// Applies is set from 6 learned runs with a spread.
	Applies bool
	// Held is how many of the last runs it holds, whose means of 3 or
	// more it tests.
	Held int
}

// Reference returns how many reference runs the rule has.
func (r *RunLevel) Reference() int { return r.BaselineRuns + r.Learned }

// Source is what the dashboard reads and acts on: the monitor.
type Source interface {
	// Statuses lists every check and provider, in configuration order.
	Statuses() []CheckStatus
	// History is the store of runs, baselines and drift reports.
	History() store.Store
	// State is the store of check runs, incidents and notifications.
	State() store.Monitor
	// Acknowledge silences an open incident's repeats until its state
	// changes.
	Acknowledge(ctx context.Context, incidentID, by string) error
	// Promote makes the stored run runID the baseline of a check.
	Promote(ctx context.Context, check, provider, runID string) error
	// Ready reports whether the store is reachable and the configuration
	// loaded.
	Ready(ctx context.Context) error
}
