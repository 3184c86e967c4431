package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var _ store.Monitor = (*Store)(nil)

// nullTime stores a zero time as NULL.
func nullTime(t time.Time) sql.NullString {
	if t.IsZero() {
		return sql.NullString{}
	}
	return sql.NullString{String: formatTime(t), Valid: true}
}

// parseNullTime reads NULL back as the zero time.
func parseNullTime(s sql.NullString) (time.Time, error) {
	if !s.Valid {
		return time.Time{}, nil
	}
	return parseTime(s.String)
}

// SaveCheckRun stores cr, replacing a check run with the same id.
func (s *Store) SaveCheckRun(ctx context.Context, cr *promptcanary.CheckRun) error {
	if err := store.CheckCheckRun(cr); err != nil {
		return fmt.Errorf("save check run: %w", err)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error { return upsertCheckRun(ctx, tx, cr) })
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
		FROM check_runs` + w.String() + ` ORDER BY slot DESC, id DESC LIMIT ?`
	return q, append(w.args, limit(n))
}

// CheckRuns lists the check runs of check and provider ("" any), newest
// slot first.
func (s *Store) CheckRuns(ctx context.Context, check, provider string, n int) ([]promptcanary.CheckRun, error) {
	q, args := checkRunsQuery(check, provider, n)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list check runs: %w", err)
	}
	defer rows.Close()
	var out []promptcanary.CheckRun
	for rows.Next() {
		var (
			cr                                 promptcanary.CheckRun
			slot, started, finished            string
			passRate, score, baseRate, costUSD sql.NullFloat64
		)
		if err := rows.Scan(&cr.ID, &cr.Check, &cr.Provider, &cr.Suite, &slot, &started, &finished, &cr.Outcome,
			&cr.RunID, &cr.ReportID, &cr.ConfirmRunID, &cr.ConfirmReportID, &cr.BaselineID, &cr.Confirmed,
			&passRate, &score, &baseRate, &cr.Severity, &costUSD, &cr.Reason); err != nil {
			return nil, fmt.Errorf("list check runs: %w", err)
		}
		for _, t := range []struct {
			dst *time.Time
			src string
		}{{&cr.Slot, slot}, {&cr.StartedAt, started}, {&cr.FinishedAt, finished}} {
			if *t.dst, err = parseTime(t.src); err != nil {
				return nil, fmt.Errorf("list check runs: check run %q: %w", cr.ID, err)
			}
		}
		cr.PassRate, cr.Score, cr.BaselinePassRate, cr.CostUSD = orNaN(passRate), orNaN(score), orNaN(baseRate), orNaN(costUSD)
		out = append(out, cr)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list check runs: %w", err)
	}
	return out, nil
}

// SaveIncident stores inc, replacing an incident with the same id.
func (s *Store) SaveIncident(ctx context.Context, inc *promptcanary.Incident) error {
	if err := store.CheckIncident(inc); err != nil {
		return fmt.Errorf("save incident: %w", err)
	}
	if err := s.inTx(ctx, func(tx *sql.Tx) error { return upsertIncident(ctx, tx, inc) }); err != nil {
		return fmt.Errorf("save incident %q: %w", inc.ID, err)
	}
	return nil
}

// upsertIncident writes inc in tx, updated in place when its id is stored
// (rows of other tables that refer to it, a monitor's outbox, stay). An
// open incident fails with store.ErrConflict while another incident with
// its fingerprint is open.
func upsertIncident(ctx context.Context, tx *sql.Tx, inc *promptcanary.Incident) error {
	units, err := store.Marshal(inc.Units)
	if err != nil {
		return fmt.Errorf("units: %w", err)
	}
	notifiedTo, err := json.Marshal(inc.NotifiedTo)
	if err != nil {
		return fmt.Errorf("notified_to: %w", err)
	}
	if inc.Open() {
		var other string
		err := tx.QueryRowContext(ctx, `SELECT id FROM incidents WHERE fingerprint = ? AND resolved_at IS NULL AND id <> ?`,
			inc.Fingerprint, inc.ID).Scan(&other)
		if err == nil {
			return fmt.Errorf("%w: incident %q with fingerprint %q is open", store.ErrConflict, other, inc.Fingerprint)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO incidents (`+incidentColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
			fingerprint = excluded.fingerprint, check_name = excluded.check_name, suite = excluded.suite,
			provider = excluded.provider, kind = excluded.kind, severity = excluded.severity,
			summary = excluded.summary, units = excluded.units, run_id = excluded.run_id,
			report_id = excluded.report_id, opened_at = excluded.opened_at, updated_at = excluded.updated_at,
			resolved_at = excluded.resolved_at, acknowledged_at = excluded.acknowledged_at,
			acknowledged_by = excluded.acknowledged_by, clean_runs = excluded.clean_runs,
			notified_at = excluded.notified_at, notified_to = excluded.notified_to`,
		inc.ID, inc.Fingerprint, inc.Check, inc.Suite, inc.Provider, string(inc.Kind), string(inc.Severity), inc.Summary,
		string(units), inc.RunID, inc.ReportID, formatTime(inc.OpenedAt), formatTime(inc.UpdatedAt),
		nullTime(inc.ResolvedAt), nullTime(inc.AcknowledgedAt), inc.AcknowledgedBy, inc.CleanRuns,
		nullTime(inc.NotifiedAt), string(notifiedTo))
	return err
}

// incidentColumns are the columns scanIncident reads, in its order.
const incidentColumns = `id, fingerprint, check_name, suite, provider, kind, severity, summary, units, run_id,
	report_id, opened_at, updated_at, resolved_at, acknowledged_at, acknowledged_by, clean_runs, notified_at, notified_to`

// scanIncident reads one row of incidentColumns.
func scanIncident(sc interface{ Scan(...any) error }) (promptcanary.Incident, error) {
	var (
		inc                          promptcanary.Incident
		units, notifiedTo            string
		opened, updated              string
		resolved, acked, notifiedAtS sql.NullString
	)
	if err := sc.Scan(&inc.ID, &inc.Fingerprint, &inc.Check, &inc.Suite, &inc.Provider, &inc.Kind, &inc.Severity,
		&inc.Summary, &units, &inc.RunID, &inc.ReportID, &opened, &updated, &resolved, &acked, &inc.AcknowledgedBy,
		&inc.CleanRuns, &notifiedAtS, &notifiedTo); err != nil {
		return inc, err
	}
	var err error
	if inc.Units, err = unmarshalUnits([]byte(units)); err != nil {
		return inc, fmt.Errorf("incident %q: units: %w", inc.ID, err)
	}
	if err := json.Unmarshal([]byte(notifiedTo), &inc.NotifiedTo); err != nil {
		return inc, fmt.Errorf("incident %q: notified_to: %w", inc.ID, err)
	}
	if inc.OpenedAt, err = parseTime(opened); err != nil {
		return inc, fmt.Errorf("incident %q: %w", inc.ID, err)
	}
	if inc.UpdatedAt, err = parseTime(updated); err != nil {
		return inc, fmt.Errorf("incident %q: %w", inc.ID, err)
	}
	for _, t := range []struct {
		dst *time.Time
		src sql.NullString
	}{{&inc.ResolvedAt, resolved}, {&inc.AcknowledgedAt, acked}, {&inc.NotifiedAt, notifiedAtS}} {
		if *t.dst, err = parseNullTime(t.src); err != nil {
			return inc, fmt.Errorf("incident %q: %w", inc.ID, err)
		}
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
		out[i] = promptcanary.IncidentUnit{Unit: u.Unit, Name: u.Name, Baseline: orNaNPtr(u.Baseline), Current: orNaNPtr(u.Current), Q: orNaNPtr(u.Q)}
	}
	return out, nil
}

func orNaNPtr(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

// Incident loads the incident id names: itself, or the only one whose id
// starts with it.
func (s *Store) Incident(ctx context.Context, id string) (*promptcanary.Incident, error) {
	full, err := s.resolve(ctx, "incident", "incidents", "id", id)
	if err != nil {
		return nil, err
	}
	inc, err := scanIncident(s.db.QueryRowContext(ctx, `SELECT `+incidentColumns+` FROM incidents WHERE id = ?`, full))
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
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
	q := `SELECT ` + incidentColumns + ` FROM incidents` + w.String() + ` ORDER BY opened_at DESC, id DESC LIMIT ?`
	return q, append(w.args, limit(f.Limit))
}

// Incidents lists the incidents f selects, newest opened first.
func (s *Store) Incidents(ctx context.Context, f store.IncidentFilter) ([]promptcanary.Incident, error) {
	q, args := incidentsQuery(f)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list incidents: %w", err)
	}
	defer rows.Close()
	var out []promptcanary.Incident
	for rows.Next() {
		inc, err := scanIncident(rows)
		if err != nil {
			return nil, fmt.Errorf("list incidents: %w", err)
		}
		out = append(out, inc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list incidents: %w", err)
	}
	return out, nil
}

// incidentExists fails with store.ErrNotFound when no incident has id.
func incidentExists(ctx context.Context, tx *sql.Tx, id string) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM incidents WHERE id = ?`, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// AddIncidentEvent appends e to its incident's timeline; the incident must
// be stored.
func (s *Store) AddIncidentEvent(ctx context.Context, e promptcanary.IncidentEvent) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := incidentExists(ctx, tx, e.IncidentID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO incident_events (incident_id, at, type, run_id, severity, summary)
			VALUES (?, ?, ?, ?, ?, ?)`,
			e.IncidentID, formatTime(e.At), string(e.Type), e.RunID, string(e.Severity), e.Summary)
		return err
	})
	if err != nil {
		return fmt.Errorf("add %s event to incident %q: %w", e.Type, e.IncidentID, err)
	}
	return nil
}

// IncidentEvents lists the events of the incident incidentID, oldest
// first; events at the same time in the order they were added.
func (s *Store) IncidentEvents(ctx context.Context, incidentID string) ([]promptcanary.IncidentEvent, error) {
	rows, err := s.db.QueryContext(ctx, eventsQuery, incidentID)
	if err != nil {
		return nil, fmt.Errorf("list events of incident %q: %w", incidentID, err)
	}
	defer rows.Close()
	var out []promptcanary.IncidentEvent
	for rows.Next() {
		var (
			e  promptcanary.IncidentEvent
			at string
		)
		if err := rows.Scan(&e.IncidentID, &at, &e.Type, &e.RunID, &e.Severity, &e.Summary); err != nil {
			return nil, fmt.Errorf("list events of incident %q: %w", incidentID, err)
		}
		if e.At, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("list events of incident %q: %w", incidentID, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list events of incident %q: %w", incidentID, err)
	}
	return out, nil
}

// SaveNotification appends the attempt a; its incident must be stored.
func (s *Store) SaveNotification(ctx context.Context, a promptcanary.NotificationAttempt) error {
	if err := store.CheckNotification(&a); err != nil {
		return fmt.Errorf("save notification: %w", err)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := incidentExists(ctx, tx, a.IncidentID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO notifications
			(id, incident_id, notifier, status, event, attempt, at, ok, code, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.IncidentID, a.Notifier, string(a.Status), string(a.Event), a.Attempt, formatTime(a.At), a.OK, a.Code, a.Error)
		return err
	})
	if err != nil {
		return fmt.Errorf("save notification %q attempt %d of incident %q: %w", a.ID, a.Attempt, a.IncidentID, err)
	}
	return nil
}

// notificationsQuery returns the query of Notifications, newest first,
// and its arguments.
func notificationsQuery(incidentID string, n int) (string, []any) {
	var w where
	if incidentID != "" {
		w.add("incident_id = ?", incidentID)
	}
	q := `SELECT id, incident_id, notifier, status, event, attempt, at, ok, code, error
		FROM notifications` + w.String() + ` ORDER BY at DESC, seq DESC LIMIT ?`
	return q, append(w.args, limit(n))
}

// eventsQuery is the query of IncidentEvents.
const eventsQuery = `SELECT incident_id, at, type, run_id, severity, summary
		FROM incident_events WHERE incident_id = ? ORDER BY at, seq`

// Notifications lists the attempts of the notifications of incidentID (""
// all), oldest first: the newest n when n is positive.
func (s *Store) Notifications(ctx context.Context, incidentID string, n int) ([]promptcanary.NotificationAttempt, error) {
	q, args := notificationsQuery(incidentID, n)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	defer rows.Close()
	var out []promptcanary.NotificationAttempt
	for rows.Next() {
		var (
			a  promptcanary.NotificationAttempt
			at string
		)
		if err := rows.Scan(&a.ID, &a.IncidentID, &a.Notifier, &a.Status, &a.Event, &a.Attempt, &at, &a.OK, &a.Code, &a.Error); err != nil {
			return nil, fmt.Errorf("list notifications: %w", err)
		}
		if a.At, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("list notifications: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}
