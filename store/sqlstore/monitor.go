package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var _ store.Monitor = (*DB)(nil)

// checkRunColumns are the columns scanCheckRun reads, in its order.
const checkRunColumns = `id, check_name, provider, suite, slot, started_at, finished_at, outcome,
	run_id, report_id, confirm_run_id, confirm_report_id, baseline_id, confirmed, pass_rate, score,
	baseline_pass_rate, severity, cost_usd, reason, run_level_rate, run_level_var, run_level_control_diff, run_level_control`

// upsertCheckRun writes a check run: SaveCheckRun and FinishSlot use it.
var upsertCheckRun = upsert("check_runs", checkRunColumns)

// checkRunArgs returns the arguments of upsertCheckRun for cr.
func (s *DB) checkRunArgs(cr *promptcanary.CheckRun) *args {
	return s.args(cr.ID).text("check", cr.Check).text("provider", cr.Provider).text("suite", cr.Suite).
		time("slot", cr.Slot).time("started_at", cr.StartedAt).time("finished_at", cr.FinishedAt).
		text("outcome", string(cr.Outcome)).text("run id", cr.RunID).text("report id", cr.ReportID).
		text("confirmation run id", cr.ConfirmRunID).text("confirmation report id", cr.ConfirmReportID).
		text("baseline id", cr.BaselineID).add(cr.Confirmed, finite(cr.PassRate), finite(cr.Score), finite(cr.BaselinePassRate)).
		text("severity", string(cr.Severity)).add(finite(cr.CostUSD)).bytes(cr.Reason).add(runLevelArgs(cr.RunLevel))
}

// runLevelArgs returns the run_level_rate, run_level_var,
// run_level_control_diff and run_level_control of a check run's run-level
// record, NULL for none.
func runLevelArgs(r *promptcanary.SuiteRunRate) (rate, v, diff, control any) {
	if r == nil {
		return nil, nil, nil, nil
	}
	if r.ControlDiff != nil {
		diff, control = finite(*r.ControlDiff), r.Control
	}
	return finite(r.Rate), finite(r.Var), diff, control
}

// scanCheckRun reads one row of checkRunColumns.
func scanCheckRun(sc scanner) (promptcanary.CheckRun, error) {
	var cr promptcanary.CheckRun
	var rate, v, diff sql.NullFloat64
	var control sql.NullString
	err := sc.Scan(&cr.ID, &cr.Check, &cr.Provider, &cr.Suite, At(&cr.Slot), At(&cr.StartedAt), At(&cr.FinishedAt),
		&cr.Outcome, &cr.RunID, &cr.ReportID, &cr.ConfirmRunID, &cr.ConfirmReportID, &cr.BaselineID, &cr.Confirmed,
		num(&cr.PassRate), num(&cr.Score), num(&cr.BaselinePassRate), &cr.Severity, num(&cr.CostUSD), &cr.Reason, &rate, &v, &diff, &control)
	if rate.Valid && v.Valid {
		cr.RunLevel = &promptcanary.SuiteRunRate{Rate: rate.Float64, Var: v.Float64}
		if diff.Valid {
			cr.RunLevel.ControlDiff, cr.RunLevel.Control = &diff.Float64, control.String
		}
	}
	if err != nil && cr.ID != "" {
		err = fmt.Errorf("check run %q: %w", cr.ID, err)
	}
	return cr, err
}

// SaveCheckRun stores cr, replacing a check run with the same id.
func (s *DB) SaveCheckRun(ctx context.Context, cr *promptcanary.CheckRun) error {
	if err := store.CheckCheckRun(cr); err != nil {
		return fmt.Errorf("save check run: %w", err)
	}
	err := s.execTx(ctx, upsertCheckRun, s.checkRunArgs(cr))
	return wrap(err, "save check run %q", cr.ID)
}

// checkRunsQuery returns the query of CheckRuns, as the database takes
// it, and its arguments.
func (s *DB) checkRunsQuery(check, provider string, n int) (string, []any) {
	w := matching("check_name", check, "provider", provider)
	q := `SELECT ` + checkRunColumns + ` FROM check_runs` + w.String() + ` ORDER BY slot DESC NULLS LAST, id DESC LIMIT ?`
	return s.bind(q), append(w.args, s.limit(n))
}

// CheckRuns lists the check runs of check and provider ("" any), newest
// slot first.
func (s *DB) CheckRuns(ctx context.Context, check, provider string, n int) ([]promptcanary.CheckRun, error) {
	q, qargs := s.checkRunsQuery(check, provider, n)
	return list(ctx, s, "check runs", q, qargs, scanCheckRun, check, provider)
}

// incidentColumns are the columns scanIncident reads, in its order.
const incidentColumns = `id, fingerprint, check_name, suite, provider, kind, severity, summary, units, run_id,
	report_id, opened_at, updated_at, resolved_at, acknowledged_at, acknowledged_by, clean_runs, notified_at, notified_to,
	attribution`

// upsertIncident writes an incident, updated in place when its id is
// stored (rows of other tables that refer to it, a monitor's outbox,
// stay).
var upsertIncident = upsert("incidents", incidentColumns)

// incidentArgs returns the arguments of upsertIncident for inc.
func (s *DB) incidentArgs(inc *promptcanary.Incident) (*args, error) {
	units, err := store.Marshal(inc.Units)
	if err != nil {
		return nil, fmt.Errorf("units: %w", err)
	}
	notifiedTo, err := json.Marshal(inc.NotifiedTo)
	if err != nil {
		return nil, fmt.Errorf("notified_to: %w", err)
	}
	attribution, err := attributionArg(inc.Attribution)
	if err != nil {
		return nil, err
	}
	return s.args(inc.ID).text("fingerprint", inc.Fingerprint).text("check", inc.Check).text("suite", inc.Suite).
		text("provider", inc.Provider).text("kind", string(inc.Kind)).text("severity", string(inc.Severity)).
		bytes(inc.Summary).add(string(units)).text("run id", inc.RunID).text("report id", inc.ReportID).
		time("opened_at", inc.OpenedAt).time("updated_at", inc.UpdatedAt).optTime("resolved_at", inc.ResolvedAt).
		optTime("acknowledged_at", inc.AcknowledgedAt).bytes(inc.AcknowledgedBy).add(inc.CleanRuns).
		optTime("notified_at", inc.NotifiedAt).add(string(notifiedTo), attribution), nil
}

// attributionArg is the attribution column of a: its JSON, NULL for none.
func attributionArg(a *promptcanary.Attribution) (any, error) {
	if a == nil {
		return nil, nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("attribution: %w", err)
	}
	return string(b), nil
}

// upsertIncident writes inc, whose arguments are a, in tx. An open
// incident fails with store.ErrConflict while another incident with its
// fingerprint is open: the check below decides where transactions run one
// at a time, the partial unique index on open fingerprints where they do
// not (conflictOf).
func (s *DB) upsertIncident(ctx context.Context, tx *sql.Tx, inc *promptcanary.Incident, a *args) error {
	if inc.Open() {
		if err := s.openConflict(ctx, tx, inc); !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	_, err := s.exec(ctx, tx, upsertIncident, a.list...)
	return err
}

// openConflict returns the store.ErrConflict naming the open incident,
// other than inc, that has inc's fingerprint; sql.ErrNoRows when none.
func (s *DB) openConflict(ctx context.Context, q querier, inc *promptcanary.Incident) error {
	var other string
	err := s.row(ctx, q, `SELECT id FROM incidents WHERE fingerprint = ? AND resolved_at IS NULL AND id <> ?`,
		inc.Fingerprint, inc.ID).Scan(&other)
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: incident %q with fingerprint %q is open", store.ErrConflict, other, inc.Fingerprint)
}

// conflictOf returns err, or the store.ErrConflict of saving the open
// incident inc when err is the unique violation of its fingerprint,
// naming the open incident that holds it when it can be read.
func (s *DB) conflictOf(ctx context.Context, inc *promptcanary.Incident, err error) error {
	if err == nil || s.d.UniqueViolation == nil || !s.d.UniqueViolation(err, "incidents_open_fingerprint") {
		return err
	}
	// Resolved meanwhile, or the database is gone: the other is not named.
	if err = s.openConflict(ctx, s.db, inc); !errors.Is(err, store.ErrConflict) {
		return fmt.Errorf("%w: another incident with fingerprint %q is open", store.ErrConflict, inc.Fingerprint)
	}
	return err
}

// SaveIncident stores inc, replacing an incident with the same id. It
// fails with store.ErrConflict when inc is open and another open incident
// has its fingerprint.
func (s *DB) SaveIncident(ctx context.Context, inc *promptcanary.Incident) error {
	if err := store.CheckIncident(inc); err != nil {
		return fmt.Errorf("save incident: %w", err)
	}
	a, err := s.incidentArgs(inc)
	if err == nil {
		err = a.err
	}
	err = s.txAfter(ctx, err, func(tx *sql.Tx) error { return s.upsertIncident(ctx, tx, inc, a) })
	return wrap(s.conflictOf(ctx, inc, err), "save incident %q", inc.ID)
}

// scanIncident reads one row of incidentColumns.
func scanIncident(sc scanner) (promptcanary.Incident, error) {
	var (
		inc               promptcanary.Incident
		units, notifiedTo string
		attribution       sql.NullString
	)
	if err := sc.Scan(&inc.ID, &inc.Fingerprint, &inc.Check, &inc.Suite, &inc.Provider, &inc.Kind, &inc.Severity,
		&inc.Summary, &units, &inc.RunID, &inc.ReportID, At(&inc.OpenedAt), At(&inc.UpdatedAt), At(&inc.ResolvedAt),
		At(&inc.AcknowledgedAt), &inc.AcknowledgedBy, &inc.CleanRuns, At(&inc.NotifiedAt), &notifiedTo, &attribution); err != nil {
		return inc, err
	}
	if attribution.Valid {
		inc.Attribution = new(promptcanary.Attribution)
		if err := json.Unmarshal([]byte(attribution.String), inc.Attribution); err != nil {
			return inc, fmt.Errorf("incident %q: attribution: %w", inc.ID, err)
		}
	}
	var err error
	if inc.Units, err = store.UnmarshalUnits([]byte(units)); err != nil {
		return inc, fmt.Errorf("incident %q: units: %w", inc.ID, err)
	}
	if err := json.Unmarshal([]byte(notifiedTo), &inc.NotifiedTo); err != nil {
		return inc, fmt.Errorf("incident %q: notified_to: %w", inc.ID, err)
	}
	return inc, nil
}

// Incident loads the incident id names: itself, or the only one whose id
// starts with it.
func (s *DB) Incident(ctx context.Context, id string) (*promptcanary.Incident, error) {
	var inc promptcanary.Incident
	_, err := s.lookup(ctx, "incident", "incidents", "id", id, func(id string) (err error) {
		inc, err = scanIncident(s.row(ctx, s.db, `SELECT `+incidentColumns+` FROM incidents WHERE id = ?`, id))
		return err
	})
	if err != nil {
		return nil, err
	}
	return &inc, nil
}

// incidentsQuery returns the query of Incidents, as the database takes
// it, and its arguments.
func (s *DB) incidentsQuery(f store.IncidentFilter) (string, []any) {
	w := matching("check_name", f.Check)
	if f.OpenOnly {
		w.conds = append(w.conds, "resolved_at IS NULL")
	}
	q := `SELECT ` + incidentColumns + ` FROM incidents` + w.String() + ` ORDER BY opened_at DESC NULLS LAST, id DESC LIMIT ?`
	return s.bind(q), append(w.args, s.limit(f.Limit))
}

// Incidents lists the incidents f selects, newest opened first.
func (s *DB) Incidents(ctx context.Context, f store.IncidentFilter) ([]promptcanary.Incident, error) {
	q, qargs := s.incidentsQuery(f)
	return list(ctx, s, "incidents", q, qargs, scanIncident, f.Check)
}

// insertEvent appends an event to an incident's timeline.
var insertEvent = insert("incident_events", "incident_id, at, type, run_id, severity, summary")

// eventArgs returns the arguments of insertEvent for e.
func (s *DB) eventArgs(e promptcanary.IncidentEvent) *args {
	return s.args().text("incident id", e.IncidentID).time("at", e.At).text("type", string(e.Type)).
		text("run id", e.RunID).text("severity", string(e.Severity)).bytes(e.Summary)
}

// insertNotification appends a notification attempt.
var insertNotification = insert("notifications", "id, incident_id, notifier, status, event, attempt, at, ok, code, error")

// notificationArgs returns the arguments of insertNotification for a.
func (s *DB) notificationArgs(a *promptcanary.NotificationAttempt) *args {
	return s.args(a.ID, a.IncidentID).text("notifier", a.Notifier).text("status", string(a.Status)).
		text("event", string(a.Event)).add(a.Attempt).time("at", a.At).add(a.OK, a.Code).bytes(a.Error)
}

// appendTo runs the insert q with a in a transaction, once the incident
// id is found stored.
func (s *DB) appendTo(ctx context.Context, id, q string, a *args) error {
	err := a.err
	if !s.storable(id) {
		err = store.ErrNotFound // no incident has that id
	}
	err = s.txAfter(ctx, err, func(tx *sql.Tx) error {
		var n int
		if err := s.row(ctx, tx, `SELECT COUNT(*) FROM incidents WHERE id = ?`, id).Scan(&n); err != nil || n == 0 {
			return cmp.Or(err, store.ErrNotFound)
		}
		_, err := s.exec(ctx, tx, q, a.list...)
		return err
	})
	if err != nil && s.d.ForeignKeyViolation != nil && s.d.ForeignKeyViolation(err) {
		err = store.ErrNotFound // removed meanwhile
	}
	return err
}

// AddIncidentEvent appends e to its incident's timeline; the incident must
// be stored.
func (s *DB) AddIncidentEvent(ctx context.Context, e promptcanary.IncidentEvent) error {
	return wrap(s.appendTo(ctx, e.IncidentID, insertEvent, s.eventArgs(e)), "add %s event to incident %q", e.Type, e.IncidentID)
}

// eventsQuery is the query of IncidentEvents, with ? placeholders.
const eventsQuery = `SELECT incident_id, at, type, run_id, severity, summary
	FROM incident_events WHERE incident_id = ? ORDER BY at NULLS FIRST, seq`

// IncidentEvents lists the events of the incident incidentID, oldest
// first; events at the same time in the order they were added.
func (s *DB) IncidentEvents(ctx context.Context, incidentID string) ([]promptcanary.IncidentEvent, error) {
	what := fmt.Sprintf("events of incident %q", incidentID)
	return list(ctx, s, what, eventsQuery, []any{incidentID}, func(sc scanner) (promptcanary.IncidentEvent, error) {
		var e promptcanary.IncidentEvent
		err := sc.Scan(&e.IncidentID, At(&e.At), &e.Type, &e.RunID, &e.Severity, &e.Summary)
		return e, err
	}, incidentID)
}

// SaveNotification appends the attempt a; its incident must be stored.
func (s *DB) SaveNotification(ctx context.Context, a promptcanary.NotificationAttempt) error {
	if err := store.CheckNotification(&a); err != nil {
		return fmt.Errorf("save notification: %w", err)
	}
	return wrap(s.appendTo(ctx, a.IncidentID, insertNotification, s.notificationArgs(&a)), "save notification %q attempt %d of incident %q", a.ID, a.Attempt, a.IncidentID)
}

// notificationsQuery returns the query of Notifications, newest first, as
// the database takes it, and its arguments.
func (s *DB) notificationsQuery(incidentID string, n int) (string, []any) {
	w := matching("incident_id", incidentID)
	q := `SELECT id, incident_id, notifier, status, event, attempt, at, ok, code, error
		FROM notifications` + w.String() + ` ORDER BY at DESC NULLS LAST, seq DESC LIMIT ?`
	return s.bind(q), append(w.args, s.limit(n))
}

// Notifications lists the attempts of the notifications of incidentID (""
// all), oldest first: the newest n when n is positive.
func (s *DB) Notifications(ctx context.Context, incidentID string, n int) ([]promptcanary.NotificationAttempt, error) {
	q, qargs := s.notificationsQuery(incidentID, n)
	out, err := list(ctx, s, "notifications", q, qargs, func(sc scanner) (promptcanary.NotificationAttempt, error) {
		var a promptcanary.NotificationAttempt
		err := sc.Scan(&a.ID, &a.IncidentID, &a.Notifier, &a.Status, &a.Event, &a.Attempt, At(&a.At), &a.OK, &a.Code, &a.Error)
		return a, err
	}, incidentID)
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}
