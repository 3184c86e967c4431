package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var _ store.Monitor = (*Store)(nil)

// SaveCheckRun stores cr, replacing a check run with the same id.
func (s *Store) SaveCheckRun(ctx context.Context, cr *promptcanary.CheckRun) error {
	if err := store.CheckCheckRun(cr); err != nil {
		return fmt.Errorf("save check run: %w", err)
	}
	w := checkRunRow(cr)
	if w.err != nil {
		return fmt.Errorf("save check run %q: %w", cr.ID, w.err)
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, upsertCheckRun, w.args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("save check run %q: %w", cr.ID, err)
	}
	return nil
}

// checkRunsQuery returns the query of CheckRuns and its arguments.
func checkRunsQuery(check, provider string, n int) (string, []any) {
	var w where
	if check != "" {
		w.add("check_name = ?", check)
	}
	if provider != "" {
		w.add("provider = ?", provider)
	}
	q := `SELECT id, check_name, provider, suite, slot, started_at, finished_at, outcome,
			run_id, report_id, confirm_run_id, confirm_report_id, baseline_id, confirmed, pass_rate, score,
			baseline_pass_rate, severity, cost_usd, reason
		FROM check_runs` + w.String() + ` ORDER BY slot DESC NULLS LAST, id DESC`
	q += ` LIMIT ` + w.limit(n)
	return q, w.args
}

// CheckRuns lists the check runs of check and provider ("" any), newest
// slot first.
func (s *Store) CheckRuns(ctx context.Context, check, provider string, n int) ([]promptcanary.CheckRun, error) {
	if !storable(check, provider) {
		return nil, nil
	}
	q, args := checkRunsQuery(check, provider, n)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list check runs: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (promptcanary.CheckRun, error) {
		var (
			cr                                 promptcanary.CheckRun
			slot, started, finished            *int64
			outcome, severity                  string
			passRate, score, baseRate, costUSD *float64
			reason                             []byte
		)
		err := row.Scan(&cr.ID, &cr.Check, &cr.Provider, &cr.Suite, &slot, &started, &finished, &outcome,
			&cr.RunID, &cr.ReportID, &cr.ConfirmRunID, &cr.ConfirmReportID, &cr.BaselineID, &cr.Confirmed,
			&passRate, &score, &baseRate, &severity, &costUSD, &reason)
		cr.Slot, cr.StartedAt, cr.FinishedAt = fromNanos(slot), fromNanos(started), fromNanos(finished)
		cr.Outcome, cr.Severity, cr.Reason = promptcanary.CheckOutcome(outcome), promptcanary.Severity(severity), string(reason)
		cr.PassRate, cr.Score, cr.BaselinePassRate, cr.CostUSD = orNaN(passRate), orNaN(score), orNaN(baseRate), orNaN(costUSD)
		return cr, err
	})
	if err != nil {
		return nil, fmt.Errorf("list check runs: %w", err)
	}
	return out, nil
}

// SaveIncident stores inc, replacing an incident with the same id. It
// fails with store.ErrConflict when inc is open and another open incident
// has its fingerprint: the partial unique index on open fingerprints
// decides, so two monitors racing to open one cannot both succeed.
func (s *Store) SaveIncident(ctx context.Context, inc *promptcanary.Incident) error {
	if err := store.CheckIncident(inc); err != nil {
		return fmt.Errorf("save incident: %w", err)
	}
	w, err := incidentRow(inc)
	if err == nil {
		err = w.err
	}
	if err != nil {
		return fmt.Errorf("save incident %q: %w", inc.ID, err)
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, upsertIncident, w.args...)
		return err
	})
	if isViolation(err, uniqueViolation, "incidents_open_fingerprint") {
		err = s.conflict(ctx, inc)
	}
	if err != nil {
		return fmt.Errorf("save incident %q: %w", inc.ID, err)
	}
	return nil
}

// conflict returns the store.ErrConflict of saving the open incident inc,
// naming the open incident that holds its fingerprint when it can be read.
func (s *Store) conflict(ctx context.Context, inc *promptcanary.Incident) error {
	var other string
	err := s.pool.QueryRow(ctx, `SELECT id FROM incidents WHERE fingerprint = $1 AND resolved_at IS NULL AND id <> $2`,
		inc.Fingerprint, inc.ID).Scan(&other)
	if err != nil { // resolved meanwhile, or the database is gone
		return fmt.Errorf("%w: another incident with fingerprint %q is open", store.ErrConflict, inc.Fingerprint)
	}
	return fmt.Errorf("%w: incident %q with fingerprint %q is open", store.ErrConflict, other, inc.Fingerprint)
}

// incidentColumns are the columns scanIncident reads, in its order.
const incidentColumns = `id, fingerprint, check_name, suite, provider, kind, severity, summary, units, run_id,
	report_id, opened_at, updated_at, resolved_at, acknowledged_at, acknowledged_by, clean_runs, notified_at, notified_to`

// scanIncident reads one row of incidentColumns.
func scanIncident(row pgx.Row) (promptcanary.Incident, error) {
	var (
		inc                                        promptcanary.Incident
		kind, severity, units, notifiedTo          string
		summary, ackedBy                           []byte
		opened, updated, resolved, acked, notified *int64
	)
	if err := row.Scan(&inc.ID, &inc.Fingerprint, &inc.Check, &inc.Suite, &inc.Provider, &kind, &severity,
		&summary, &units, &inc.RunID, &inc.ReportID, &opened, &updated, &resolved, &acked, &ackedBy,
		&inc.CleanRuns, &notified, &notifiedTo); err != nil {
		return inc, err
	}
	inc.Kind, inc.Severity, inc.Summary, inc.AcknowledgedBy = promptcanary.IncidentKind(kind), promptcanary.Severity(severity), string(summary), string(ackedBy)
	inc.OpenedAt, inc.UpdatedAt, inc.ResolvedAt = fromNanos(opened), fromNanos(updated), fromNanos(resolved)
	inc.AcknowledgedAt, inc.NotifiedAt = fromNanos(acked), fromNanos(notified)
	var err error
	if inc.Units, err = unmarshalUnits([]byte(units)); err != nil {
		return inc, fmt.Errorf("incident %q: units: %w", inc.ID, err)
	}
	if err := json.Unmarshal([]byte(notifiedTo), &inc.NotifiedTo); err != nil {
		return inc, fmt.Errorf("incident %q: notified_to: %w", inc.ID, err)
	}
	return inc, nil
}

// storedUnit is an IncidentUnit as store.Marshal writes it: a float that is
// not a number is null.
type storedUnit struct {
	Unit     string   `json:"unit"`
	Name     string   `json:"name"`
	Baseline *float64 `json:"baseline"`
	Current  *float64 `json:"current"`
	Q        *float64 `json:"q"`
}

// unmarshalUnits decodes units written by store.Marshal, null floats as
// NaN, a null list as nil.
func unmarshalUnits(b []byte) ([]promptcanary.IncidentUnit, error) {
	var in []storedUnit
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, err
	}
	if in == nil {
		return nil, nil
	}
	out := make([]promptcanary.IncidentUnit, len(in))
	for i, u := range in {
		out[i] = promptcanary.IncidentUnit{Unit: u.Unit, Name: u.Name, Baseline: orNaN(u.Baseline), Current: orNaN(u.Current), Q: orNaN(u.Q)}
	}
	return out, nil
}

// Incident loads the incident id names: itself, or the only one whose id
// starts with it.
func (s *Store) Incident(ctx context.Context, id string) (*promptcanary.Incident, error) {
	q := `SELECT ` + incidentColumns + ` FROM incidents WHERE id = $1`
	if store.CheckID("incident", id) == nil {
		// Most lookups are by the full id: one query.
		inc, err := scanIncident(s.pool.QueryRow(ctx, q, id))
		if err == nil {
			return &inc, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("load incident %q: %w", id, err)
		}
	}
	full, err := s.resolve(ctx, "incident", "incidents", "id", id)
	if err != nil {
		return nil, err
	}
	inc, err := scanIncident(s.pool.QueryRow(ctx, q, full))
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			err = store.ErrNotFound // removed meanwhile
		}
		return nil, fmt.Errorf("load incident %q: %w", full, err)
	}
	return &inc, nil
}

// incidentsQuery returns the query of Incidents and its arguments.
func incidentsQuery(f store.IncidentFilter) (string, []any) {
	var w where
	if f.Check != "" {
		w.add("check_name = ?", f.Check)
	}
	if f.OpenOnly {
		w.conds = append(w.conds, "resolved_at IS NULL")
	}
	q := `SELECT ` + incidentColumns + ` FROM incidents` + w.String() + ` ORDER BY opened_at DESC NULLS LAST, id DESC`
	q += ` LIMIT ` + w.limit(f.Limit)
	return q, w.args
}

// Incidents lists the incidents f selects, newest opened first.
func (s *Store) Incidents(ctx context.Context, f store.IncidentFilter) ([]promptcanary.Incident, error) {
	if !storable(f.Check) {
		return nil, nil
	}
	q, args := incidentsQuery(f)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list incidents: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (promptcanary.Incident, error) { return scanIncident(row) })
	if err != nil {
		return nil, fmt.Errorf("list incidents: %w", err)
	}
	return out, nil
}

// AddIncidentEvent appends e to its incident's timeline; the incident must
// be stored.
func (s *Store) AddIncidentEvent(ctx context.Context, e promptcanary.IncidentEvent) error {
	w := (&row{}).text("incident id", e.IncidentID).time("at", e.At).text("type", string(e.Type)).
		text("run id", e.RunID).text("severity", string(e.Severity)).bytes(e.Summary)
	err := w.err
	if !storable(e.IncidentID) {
		err = store.ErrNotFound // no incident has that id
	}
	if err == nil {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO incident_events (incident_id, at, type, run_id, severity, summary)
				VALUES ($1, $2, $3, $4, $5, $6)`, w.args...)
			return err
		})
	}
	if isViolation(err, foreignKeyViolation, "") {
		err = store.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("add %s event to incident %q: %w", e.Type, e.IncidentID, err)
	}
	return nil
}

// IncidentEvents lists the events of the incident incidentID, oldest
// first; events at the same time in the order they were added.
func (s *Store) IncidentEvents(ctx context.Context, incidentID string) ([]promptcanary.IncidentEvent, error) {
	if !storable(incidentID) {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT incident_id, at, type, run_id, severity, summary
		FROM incident_events WHERE incident_id = $1 ORDER BY at NULLS FIRST, seq`, incidentID)
	if err != nil {
		return nil, fmt.Errorf("list events of incident %q: %w", incidentID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (promptcanary.IncidentEvent, error) {
		var (
			e             promptcanary.IncidentEvent
			at            *int64
			typ, severity string
			summary       []byte
		)
		err := row.Scan(&e.IncidentID, &at, &typ, &e.RunID, &severity, &summary)
		e.At, e.Type, e.Severity, e.Summary = fromNanos(at), promptcanary.IncidentEventType(typ), promptcanary.Severity(severity), string(summary)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("list events of incident %q: %w", incidentID, err)
	}
	return out, nil
}

// SaveNotification appends the attempt a; its incident must be stored.
func (s *Store) SaveNotification(ctx context.Context, a promptcanary.NotificationAttempt) error {
	if err := store.CheckNotification(&a); err != nil {
		return fmt.Errorf("save notification: %w", err)
	}
	w := (&row{}).add(a.ID, a.IncidentID).text("notifier", a.Notifier).text("status", string(a.Status)).
		text("event", string(a.Event)).add(a.Attempt).time("at", a.At).add(a.OK, a.Code).bytes(a.Error)
	err := w.err
	if err == nil {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO notifications
				(id, incident_id, notifier, status, event, attempt, at, ok, code, error)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, w.args...)
			return err
		})
	}
	if isViolation(err, foreignKeyViolation, "") {
		err = store.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("save notification %q attempt %d of incident %q: %w", a.ID, a.Attempt, a.IncidentID, err)
	}
	return nil
}

// Notifications lists the attempts of the notifications of incidentID (""
// all), oldest first: the newest n when n is positive.
func (s *Store) Notifications(ctx context.Context, incidentID string, n int) ([]promptcanary.NotificationAttempt, error) {
	if !storable(incidentID) {
		return nil, nil
	}
	var w where
	if incidentID != "" {
		w.add("incident_id = ?", incidentID)
	}
	q := `SELECT id, incident_id, notifier, status, event, attempt, at, ok, code, error
		FROM notifications` + w.String() + ` ORDER BY at DESC NULLS LAST, seq DESC`
	q += ` LIMIT ` + w.limit(n)
	rows, err := s.pool.Query(ctx, q, w.args...)
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (promptcanary.NotificationAttempt, error) {
		var (
			a             promptcanary.NotificationAttempt
			at            *int64
			status, event string
			msg           []byte
		)
		err := row.Scan(&a.ID, &a.IncidentID, &a.Notifier, &status, &event, &a.Attempt, &at, &a.OK, &a.Code, &msg)
		a.At, a.Status, a.Event, a.Error = fromNanos(at), promptcanary.NotificationStatus(status), promptcanary.IncidentEventType(event), string(msg)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}
