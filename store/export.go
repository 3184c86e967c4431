package store

import (
	"context"
	"iter"

	"github.com/promptcanary/promptcanary"
)

// RunRecord is a stored run with its pending-baseline mark, as an Exporter
// lists it.
type RunRecord struct {
	Run *promptcanary.Run
	// Pending is the run's mark (see Journal), nil when it has none.
	Pending *PendingBaseline
}

// IncidentRecord is an incident with its timeline and its notification
// attempts, as a MonitorExporter lists it and an Importer writes it.
type IncidentRecord struct {
	Incident promptcanary.Incident
	// Events are the incident's events, oldest first (as IncidentEvents
	// lists them).
	Events []promptcanary.IncidentEvent
	// Notifications are its notification attempts, oldest first (as
	// Notifications lists them).
	Notifications []promptcanary.NotificationAttempt
}

// Exporter is implemented by stores that can list every record of the
// history they hold: what store copy reads and verifies. Each iterator
// yields the records in ascending order of their id, compared byte by
// byte, so that two stores' listings can be compared in one pass. The
// iterators read a page at a time and hold at most one run, baseline or
// report in memory; a record saved or deleted during an iteration may or
// may not be yielded. An iterator stops after yielding an error.
type Exporter interface {
	// ExportRuns yields every run, by run id, with its pending mark.
	ExportRuns(ctx context.Context) iter.Seq2[RunRecord, error]
	// ExportBaselines yields every baseline, by snapshot id.
	ExportBaselines(ctx context.Context) iter.Seq2[*promptcanary.Baseline, error]
	// ExportDrifts yields every drift report, by report id.
	ExportDrifts(ctx context.Context) iter.Seq2[*promptcanary.DriftReport, error]
}

// MonitorExporter is Exporter for the state of the monitor (see Monitor).
type MonitorExporter interface {
	// ExportCheckRuns yields every check run, by id.
	ExportCheckRuns(ctx context.Context) iter.Seq2[promptcanary.CheckRun, error]
	// ExportIncidents yields every incident, by id, with its events and
	// notification attempts.
	ExportIncidents(ctx context.Context) iter.Seq2[IncidentRecord, error]
}

// Importer is implemented by Monitors that can write an incident's whole
// record at once, replacing what they hold, which AddIncidentEvent and
// SaveNotification (they append) cannot: what makes a repeated copy
// idempotent.
type Importer interface {
	// ImportIncident stores rec.Incident, replacing a stored incident with
	// its id together with all its events and notification attempts, by
	// rec.Events and rec.Notifications in their order; all or nothing. It
	// fails with ErrConflict as SaveIncident does.
	ImportIncident(ctx context.Context, rec IncidentRecord) error
}

// Identifier is implemented by stores that can say which database they
// are: two stores with the same Identity hold the same records. Copy uses
// it to refuse copying a store onto itself.
type Identifier interface {
	// Identity returns a string naming the database (and, for a server,
	// the schema) the store reads and writes. It contains no password.
	Identity(ctx context.Context) (string, error)
}
