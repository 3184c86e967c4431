// Package store keeps the history of runs, the baselines later runs are
// compared against and the drift reports of those comparisons, behind one
// interface with several backends: store/sqlite (the default home of every
// run) and store/file (JSON files compatible with the original Python tool).
//
// Every backend must pass the conformance suite in store/storetest.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/promptcanary/promptcanary"
)

// ErrNotFound is returned, wrapped with what was missing, when a run, a
// baseline or a drift report does not exist.
var ErrNotFound = errors.New("not found")

// ErrAmbiguous is returned, wrapped with the candidates, when an id prefix
// matches several records.
var ErrAmbiguous = errors.New("ambiguous id")

// MinPrefix is the shortest id prefix that Run, Baseline and Drift resolve;
// a shorter id must match exactly.
const MinPrefix = 4

// RunFilter selects runs. Zero fields select everything.
type RunFilter struct {
	// Suite and Model, when set, must match the run's suite name and
	// provider model id exactly.
	Suite, Model string
	// Since, when set, keeps runs started at or after it.
	Since time.Time
	// Limit, when positive, keeps only the newest Limit runs.
	Limit int
	// BaselinesOnly keeps runs that some baseline was taken from.
	BaselinesOnly bool
}

// RunSummary is the one-line view of a stored run.
type RunSummary struct {
	RunID, Suite, Model   string
	StartedAt, FinishedAt time.Time
	// Samples is the number of samples per prompt.
	Samples int
	// Results, Passed and Errors count probe results, passing probe results
	// and failed provider calls.
	Results, Passed, Errors int
	// Score is the mean probe score and PassRate the fraction of results
	// that passed; both are NaN ("n/a") for a run without results, whose
	// every call failed (see Measured), and Score is NaN too when a score
	// is not a number.
	Score, PassRate float64
	// IsBaseline reports whether some baseline was taken from this run.
	IsBaseline bool
	// Verdict is the severity of the latest drift report whose current run
	// is this run, "" if none, and VerdictUnmeasured when such a report
	// exists but the run has no result: it compared nothing.
	Verdict string
	// Interrupted is set when the run was cancelled before it finished.
	Interrupted bool
	// BaselinePending is set when a baseline of the run was asked for
	// (Journal.SaveRunPending) but is not saved yet: a crash or a failed
	// write came between. The next run finishes it.
	BaselinePending bool
}

// BaselineInfo is the one-line view of a stored baseline.
type BaselineInfo struct {
	SnapshotID, RunID, Suite, Model string
	CreatedAt                       time.Time
	Note                            string
	// Path is the baseline's file, for file stores only.
	Path string
}

// DriftSummary is the one-line view of a stored drift report.
type DriftSummary struct {
	ReportID, Suite, Model, BaselineID, CurrentRunID string
	GeneratedAt                                      time.Time
	Severity                                         promptcanary.Severity
	HasDrift                                         bool
	Regressions                                      int
	Summary                                          string
}

// ProbeScore aggregates the results of one probe instance in one run, over
// all its prompts and samples: the rows behind score trends and the
// probe × run heatmap.
type ProbeScore struct {
	RunID     string
	StartedAt time.Time
	ProbeID   string
	// Mean is the mean score (NaN when a score is not a number), PassRate
	// the fraction of results that passed and N the number of results.
	Mean, PassRate float64
	N              int
}

// Store is the history of runs, baselines and drift reports. Listings are
// newest first. Implementations are safe for concurrent use.
type Store interface {
	// SaveRun stores r, replacing a stored run with the same id. It stores
	// all of r or nothing.
	SaveRun(ctx context.Context, r *promptcanary.Run) error
	// Run returns the run with the given id, or the only run whose id
	// starts with it (at least MinPrefix characters).
	Run(ctx context.Context, id string) (*promptcanary.Run, error)
	// Runs lists the runs f selects, newest first.
	Runs(ctx context.Context, f RunFilter) ([]RunSummary, error)
	// SaveBaseline stores b, replacing a stored baseline with the same
	// snapshot id, and also stores b.RunResult as a run if no run with its
	// id is stored yet.
	SaveBaseline(ctx context.Context, b *promptcanary.Baseline) (BaselineInfo, error)
	// Promote marks the stored run runID as the baseline for its suite and
	// model: it saves a new baseline taken from it, with note.
	Promote(ctx context.Context, runID, note string) (*promptcanary.Baseline, error)
	// Baseline returns the baseline with the given snapshot id, or the only
	// one whose id starts with it (at least MinPrefix characters).
	Baseline(ctx context.Context, id string) (*promptcanary.Baseline, error)
	// LatestBaseline returns the newest baseline whose suite name and
	// provider model id match exactly; an empty suite or model matches any.
	// It fails with ErrNotFound, naming suite and model, when none does.
	LatestBaseline(ctx context.Context, suite, model string) (*promptcanary.Baseline, error)
	// Baselines lists the baselines of suite, or of every suite when suite
	// is "", newest first.
	Baselines(ctx context.Context, suite string) ([]BaselineInfo, error)
	// SaveDrift stores d, replacing a stored report with the same id.
	SaveDrift(ctx context.Context, d *promptcanary.DriftReport) error
	// Drift returns the drift report with the given id, or the only one
	// whose id starts with it (at least MinPrefix characters).
	Drift(ctx context.Context, id string) (*promptcanary.DriftReport, error)
	// Drifts lists the drift reports of suite and model ("" matches any),
	// newest first, at most limit when limit is positive.
	Drifts(ctx context.Context, suite, model string, limit int) ([]DriftSummary, error)
	// ProbeScores returns one row per run × probe instance for the newest
	// limit runs (all when limit <= 0) of suite and model ("" matches any):
	// newest run first, probe ids in ascending order within a run.
	ProbeScores(ctx context.Context, suite, model string, limit int) ([]ProbeScore, error)
	// Close releases the store's resources.
	Close() error
}

// IncidentFilter selects incidents. Zero fields select everything.
type IncidentFilter struct {
	// Check, when set, keeps the incidents of that check.
	Check string
	// OpenOnly keeps incidents that are not resolved.
	OpenOnly bool
	// Limit, when positive, keeps only the newest Limit incidents (by
	// OpenedAt).
	Limit int
}

// Monitor is the state of the monitor (promptcanary serve) beside the
// history: scheduled check runs, incidents with their events, and every
// notification attempt. A store that can hold it implements Monitor as
// well as Store; callers find it by type assertion. Listings are newest
// first.
type Monitor interface {
	// SaveCheckRun stores cr, replacing a stored check run with the same id
	// (an id follows the rule of CheckID).
	SaveCheckRun(ctx context.Context, cr *promptcanary.CheckRun) error
	// CheckRuns lists the check runs of check ("" any) and provider (""
	// any), newest slot first, at most limit when limit is positive.
	CheckRuns(ctx context.Context, check, provider string, limit int) ([]promptcanary.CheckRun, error)
	// SaveIncident stores inc, replacing a stored incident with the same id
	// (an id follows the rule of CheckID). At most one incident per
	// fingerprint is open: saving an open incident while another with its
	// fingerprint is open fails with ErrConflict and stores nothing.
	SaveIncident(ctx context.Context, inc *promptcanary.Incident) error
	// Incident returns the incident with the given id, or the only one whose
	// id starts with it (at least MinPrefix characters).
	Incident(ctx context.Context, id string) (*promptcanary.Incident, error)
	// Incidents lists the incidents f selects, newest opened first.
	Incidents(ctx context.Context, f IncidentFilter) ([]promptcanary.Incident, error)
	// AddIncidentEvent appends an event to its incident's timeline; it
	// fails with ErrNotFound when the incident is not stored.
	AddIncidentEvent(ctx context.Context, e promptcanary.IncidentEvent) error
	// IncidentEvents lists an incident's events, oldest first.
	IncidentEvents(ctx context.Context, incidentID string) ([]promptcanary.IncidentEvent, error)
	// SaveNotification appends one notification attempt; it fails with
	// ErrNotFound when the incident is not stored.
	SaveNotification(ctx context.Context, a promptcanary.NotificationAttempt) error
	// Notifications lists the attempts of an incident's notifications ("" all
	// incidents), oldest first, at most limit (the newest) when positive.
	Notifications(ctx context.Context, incidentID string, limit int) ([]promptcanary.NotificationAttempt, error)
}
