package store

import (
	"context"
	"time"
)

// PruneStats counts what a Prune deleted, or would delete in a dry run,
// and the records older than the cutoff it kept.
type PruneStats struct {
	// Runs, Drifts, CheckRuns and Incidents count the records deleted;
	// IncidentEvents and Notifications the events and notification
	// attempts that went with the incidents.
	Runs, Drifts, CheckRuns, Incidents, IncidentEvents, Notifications int
	// Gates counts the upgrade gates deleted (see Gates): those of a slot
	// before the cutoff. Nothing refers to a gate, so none is kept.
	Gates int
	// KeptRuns, KeptDrifts, KeptCheckRuns and KeptIncidents count the
	// records older than the cutoff that stay, because something that
	// stays refers to them (see Pruner) or, for incidents, because they
	// are open or were resolved after the cutoff.
	KeptRuns, KeptDrifts, KeptCheckRuns, KeptIncidents int
	// FreeBytes is the space inside the store that deleted records left
	// free for new ones, when the store can tell (SQLite: the free pages
	// of the database file, which stays as large until vacuumed), else 0.
	FreeBytes int64
}

// PruneKind is one line of PruneStats: a kind of record, how many were
// deleted and how many older than the cutoff were kept (-1 when that does
// not apply).
type PruneKind struct {
	Kind          string
	Deleted, Kept int
}

// Kinds returns s one kind of record per line, in the order of the kinds
// of Copy.
func (s PruneStats) Kinds() []PruneKind {
	return []PruneKind{
		{KindRuns, s.Runs, s.KeptRuns},
		{KindDrifts, s.Drifts, s.KeptDrifts},
		{KindCheckRuns, s.CheckRuns, s.KeptCheckRuns},
		{KindIncidents, s.Incidents, s.KeptIncidents},
		{KindIncidentEvents, s.IncidentEvents, -1},
		{KindNotifications, s.Notifications, -1},
		{KindGates, s.Gates, -1},
	}
}

// KindGates is the kind of record of PruneStats.Gates.
const KindGates = "upgrade gates"

// Deleted returns the number of records of every kind deleted.
func (s PruneStats) Deleted() int {
	return s.Runs + s.Drifts + s.CheckRuns + s.Incidents + s.IncidentEvents + s.Notifications + s.Gates
}

// Pruner is implemented by stores that can delete the history older than
// a cutoff, keeping what is still in use. Prune deletes, in one
// transaction:
//
//   - incidents resolved before cutoff, with their events and
//     notification attempts (open incidents are never deleted);
//   - check runs whose slot is before cutoff;
//   - drift reports generated before cutoff;
//   - runs started before cutoff;
//   - upgrade gates of a slot before cutoff, where the store keeps them;
//
// but keeps every baseline, and whatever something that stays refers to:
// the runs of baselines and of pending baselines, the runs and reports of
// the incidents that stay (and of their events), the check runs that
// share a run or a report with those incidents, the runs and reports of
// the check runs that stay, and the runs the drift reports that stay
// compared. Records at the cutoff or newer are never deleted, so records
// written meanwhile (by a monitor) are safe.
//
// With dryRun set it deletes nothing and returns what it would delete.
type Pruner interface {
	Prune(ctx context.Context, cutoff time.Time, dryRun bool) (PruneStats, error)
}
