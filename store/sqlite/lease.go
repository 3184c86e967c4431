package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// Several monitors on one SQLite file, on one machine, share its work as
// they would on PostgreSQL: every claim below is one immediate
// transaction, which SQLite runs one at a time across processes (WAL mode,
// file locks), so of monitors racing for a slot or a delivery exactly one
// wins; a monitor killed mid-transaction leaves nothing (the lock dies
// with the process, the journal rolls back). The monitors' clocks are the
// machine's one clock. A file on a network file system is not safe: its
// locks are not.

var (
	_ store.Leases = (*Store)(nil)
	_ store.Outbox = (*Store)(nil)
)

// leaseColumns are the columns scanLease reads, in its order.
const leaseColumns = `check_name, provider, slot, state, owner, claimed_at, expires_at, takeovers,
	previous_owner, check_run_id, finished_at`

// scanLease reads one row of leaseColumns.
func scanLease(sc interface{ Scan(...any) error }) (store.SlotLease, error) {
	var (
		l                      store.SlotLease
		slot, claimed, expires string
		finished               sql.NullString
		err                    error
	)
	if err := sc.Scan(&l.Check, &l.Provider, &slot, &l.State, &l.Owner, &claimed, &expires, &l.Takeovers,
		&l.PreviousOwner, &l.CheckRunID, &finished); err != nil {
		return l, err
	}
	for _, t := range []struct {
		dst *time.Time
		src string
	}{{&l.Slot, slot}, {&l.ClaimedAt, claimed}, {&l.ExpiresAt, expires}} {
		if *t.dst, err = parseTime(t.src); err != nil {
			return l, err
		}
	}
	if l.FinishedAt, err = parseNullTime(finished); err != nil {
		return l, err
	}
	return l, nil
}

// leaseTx reads the lease of key in tx; sql.ErrNoRows when there is none.
func leaseTx(ctx context.Context, tx *sql.Tx, key store.SlotKey) (store.SlotLease, error) {
	return scanLease(tx.QueryRowContext(ctx, `SELECT `+leaseColumns+` FROM slot_leases
		WHERE check_name = ? AND provider = ? AND slot = ?`, key.Check, key.Provider, formatTime(key.Slot)))
}

// ClaimSlot claims key for owner until now+ttl, when it is free or its
// holder's lease expired.
func (s *Store) ClaimSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, ttl time.Duration) (store.SlotClaim, error) {
	if err := store.CheckSlot(key, owner); err != nil {
		return store.SlotClaim{}, fmt.Errorf("claim slot: %w", err)
	}
	var c store.SlotClaim
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		c = store.SlotClaim{}
		slot, at, until := formatTime(key.Slot), formatTime(now), formatTime(now.Add(ttl))
		res, err := tx.ExecContext(ctx, `INSERT INTO slot_leases (check_name, provider, slot, state, owner, claimed_at, expires_at)
			VALUES (?, ?, ?, 'running', ?, ?, ?) ON CONFLICT DO NOTHING`, key.Check, key.Provider, slot, owner, at, until)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 1 {
			c.Claimed = true
		} else {
			res, err := tx.ExecContext(ctx, `UPDATE slot_leases
				SET previous_owner = owner, owner = ?, claimed_at = ?, expires_at = ?, takeovers = takeovers + 1
				WHERE check_name = ? AND provider = ? AND slot = ? AND state = 'running' AND expires_at < ?`,
				owner, at, until, key.Check, key.Provider, slot, at)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			c.Claimed, c.TakenOver = n == 1, n == 1
		}
		if c.Lease, err = leaseTx(ctx, tx, key); err != nil {
			return err
		}
		if !c.Claimed {
			return nil
		}
		busy, err := scanLease(tx.QueryRowContext(ctx, `SELECT `+leaseColumns+` FROM slot_leases
			WHERE check_name = ? AND provider = ? AND slot < ? AND state = 'running' ORDER BY slot LIMIT 1`,
			key.Check, key.Provider, slot))
		switch {
		case err == nil:
			c.Busy = &busy
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		return nil
	})
	if err != nil {
		return store.SlotClaim{}, fmt.Errorf("claim %s: %w", key, err)
	}
	return c, nil
}

// lost returns the store.ErrLeaseLost of owner's lease of key, naming the
// lease as it is now.
func lost(ctx context.Context, tx *sql.Tx, key store.SlotKey, owner string) error {
	l, err := leaseTx(ctx, tx, key)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: %s has no lease", store.ErrLeaseLost, owner)
	case err != nil:
		return err
	case l.State == store.LeaseDone:
		return fmt.Errorf("%w: done by %s", store.ErrLeaseLost, l.Owner)
	}
	return fmt.Errorf("%w: held by %s, not %s", store.ErrLeaseLost, l.Owner, owner)
}

// ExtendSlot moves the expiry of owner's running lease of key to until.
func (s *Store) ExtendSlot(ctx context.Context, key store.SlotKey, owner string, until time.Time) error {
	if err := store.CheckSlot(key, owner); err != nil {
		return fmt.Errorf("extend slot: %w", err)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE slot_leases SET expires_at = ?
			WHERE check_name = ? AND provider = ? AND slot = ? AND owner = ? AND state = 'running'`,
			formatTime(until), key.Check, key.Provider, formatTime(key.Slot), owner)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		return lost(ctx, tx, key, owner)
	})
	if err != nil {
		return fmt.Errorf("extend the lease of %s: %w", key, err)
	}
	return nil
}

// FinishSlot records cr and marks key done by owner, in one transaction.
func (s *Store) FinishSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, cr *promptcanary.CheckRun) error {
	if err := store.CheckSlot(key, owner); err != nil {
		return fmt.Errorf("finish slot: %w", err)
	}
	if err := store.CheckSlotRun(key, cr); err != nil {
		return fmt.Errorf("finish %s: %w", key, err)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE slot_leases SET state = 'done', check_run_id = ?, finished_at = ?
			WHERE check_name = ? AND provider = ? AND slot = ? AND owner = ? AND state = 'running'`,
			cr.ID, formatTime(now), key.Check, key.Provider, formatTime(key.Slot), owner)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n != 1 {
			return lost(ctx, tx, key, owner)
		}
		return upsertCheckRun(ctx, tx, cr)
	})
	if err != nil {
		return fmt.Errorf("finish %s: %w", key, err)
	}
	return nil
}

// upsertCheckRun writes cr in tx, as SaveCheckRun does.
func upsertCheckRun(ctx context.Context, tx *sql.Tx, cr *promptcanary.CheckRun) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO check_runs
		(id, check_name, provider, suite, slot, started_at, finished_at, outcome, run_id, report_id,
		 confirm_run_id, confirm_report_id, baseline_id, confirmed, pass_rate, score, baseline_pass_rate,
		 severity, cost_usd, reason)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
			check_name = excluded.check_name, provider = excluded.provider, suite = excluded.suite,
			slot = excluded.slot, started_at = excluded.started_at, finished_at = excluded.finished_at,
			outcome = excluded.outcome, run_id = excluded.run_id, report_id = excluded.report_id,
			confirm_run_id = excluded.confirm_run_id, confirm_report_id = excluded.confirm_report_id,
			baseline_id = excluded.baseline_id, confirmed = excluded.confirmed, pass_rate = excluded.pass_rate,
			score = excluded.score, baseline_pass_rate = excluded.baseline_pass_rate,
			severity = excluded.severity, cost_usd = excluded.cost_usd, reason = excluded.reason`,
		cr.ID, cr.Check, cr.Provider, cr.Suite, formatTime(cr.Slot), formatTime(cr.StartedAt), formatTime(cr.FinishedAt),
		string(cr.Outcome), cr.RunID, cr.ReportID, cr.ConfirmRunID, cr.ConfirmReportID, cr.BaselineID, cr.Confirmed,
		finite(cr.PassRate), finite(cr.Score), finite(cr.BaselinePassRate), string(cr.Severity), finite(cr.CostUSD), cr.Reason)
	return err
}

// queryLeases runs a query of leaseColumns.
func (s *Store) queryLeases(ctx context.Context, q string, args ...any) ([]store.SlotLease, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.SlotLease
	for rows.Next() {
		l, err := scanLease(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// ExpiredSlots lists the running leases that expired before now, oldest
// slot first.
func (s *Store) ExpiredSlots(ctx context.Context, now time.Time, n int) ([]store.SlotLease, error) {
	out, err := s.queryLeases(ctx, `SELECT `+leaseColumns+` FROM slot_leases
		WHERE state = 'running' AND expires_at < ? ORDER BY slot, check_name, provider LIMIT ?`, formatTime(now), limit(n))
	if err != nil {
		return nil, fmt.Errorf("list expired slot leases: %w", err)
	}
	return out, nil
}

// SlotLeases lists the leases of check and provider ("" any), newest slot
// first.
func (s *Store) SlotLeases(ctx context.Context, check, provider string, n int) ([]store.SlotLease, error) {
	var w where
	if check != "" {
		w.add("check_name = ?", check)
	}
	if provider != "" {
		w.add("provider = ?", provider)
	}
	out, err := s.queryLeases(ctx, `SELECT `+leaseColumns+` FROM slot_leases`+w.String()+
		` ORDER BY slot DESC, check_name, provider LIMIT ?`, append(w.args, limit(n))...)
	if err != nil {
		return nil, fmt.Errorf("list slot leases: %w", err)
	}
	return out, nil
}

// PruneLeases deletes finished leases and deliveries from before before,
// and running leases that expired before it.
func (s *Store) PruneLeases(ctx context.Context, before time.Time) (int, error) {
	var total int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		total = 0
		b := formatTime(before)
		for _, q := range []string{
			`DELETE FROM slot_leases WHERE (state = 'done' AND finished_at < ?1) OR (state = 'running' AND expires_at < ?1)`,
			`DELETE FROM outbox WHERE state <> 'pending' AND done_at < ?1`,
		} {
			res, err := tx.ExecContext(ctx, q, b)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			total += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune leases: %w", err)
	}
	return int(total), nil
}

// RecordStep stores an incident, its event and its deliveries in one
// transaction.
func (s *Store) RecordStep(ctx context.Context, step store.IncidentStep) error {
	if err := store.CheckStep(step); err != nil {
		return fmt.Errorf("record incident step: %w", err)
	}
	inc := step.Incident
	snapshot, err := store.MarshalIncident(inc)
	if err != nil {
		return fmt.Errorf("record incident %q: %w", inc.ID, err)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := upsertIncident(ctx, tx, inc); err != nil {
			return err
		}
		e := step.Event
		if _, err := tx.ExecContext(ctx, `INSERT INTO incident_events (incident_id, at, type, run_id, severity, summary)
			VALUES (?, ?, ?, ?, ?, ?)`,
			e.IncidentID, formatTime(e.At), string(e.Type), e.RunID, string(e.Severity), e.Summary); err != nil {
			return err
		}
		for _, d := range step.Deliveries {
			if _, err := tx.ExecContext(ctx, `INSERT INTO outbox
				(id, incident_id, notifier, status, event, incident, state, created_at, next_attempt_at)
				VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
				d.ID, d.IncidentID, d.Notifier, string(d.Status), string(d.Event), string(snapshot),
				formatTime(d.CreatedAt), formatTime(d.CreatedAt)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record %s of incident %q: %w", step.Event.Type, inc.ID, err)
	}
	return nil
}

// deliveryColumns are the columns scanDelivery reads, in its order.
const deliveryColumns = `id, incident_id, notifier, status, event, incident, state, attempts, rounds,
	created_at, next_attempt_at, claimed_by, claim_expires_at, done_by, done_at, last_error`

// scanDelivery reads one row of deliveryColumns.
func scanDelivery(sc interface{ Scan(...any) error }) (store.Delivery, error) {
	var (
		d                  store.Delivery
		snapshot           string
		created, next      string
		claimExpires, done sql.NullString
		err                error
	)
	if err := sc.Scan(&d.ID, &d.IncidentID, &d.Notifier, &d.Status, &d.Event, &snapshot, &d.State, &d.Attempts, &d.Rounds,
		&created, &next, &d.ClaimedBy, &claimExpires, &d.DoneBy, &done, &d.LastError); err != nil {
		return d, err
	}
	if d.Incident, err = store.UnmarshalIncident([]byte(snapshot)); err != nil {
		return d, fmt.Errorf("delivery %q: %w", d.ID, err)
	}
	if d.CreatedAt, err = parseTime(created); err != nil {
		return d, err
	}
	if d.NextAttemptAt, err = parseTime(next); err != nil {
		return d, err
	}
	if d.ClaimExpiresAt, err = parseNullTime(claimExpires); err != nil {
		return d, err
	}
	if d.DoneAt, err = parseNullTime(done); err != nil {
		return d, err
	}
	return d, nil
}

// queryDeliveries runs a query of deliveryColumns on q, the database or
// a transaction.
func queryDeliveries(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]store.Delivery, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Delivery
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// ClaimDeliveries claims for owner the due deliveries first in their
// lane, oldest first.
func (s *Store) ClaimDeliveries(ctx context.Context, owner string, notifiers []string, now time.Time, ttl time.Duration, n int) ([]store.Delivery, error) {
	if owner == "" {
		return nil, errors.New("claim deliveries: no owner")
	}
	if len(notifiers) == 0 {
		return nil, nil
	}
	var out []store.Delivery
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		at := formatTime(now)
		args := []any{at, at}
		for _, name := range notifiers {
			args = append(args, name)
		}
		args = append(args, limit(n))
		rows, err := tx.QueryContext(ctx, `SELECT o.seq FROM outbox o
			WHERE o.state = 'pending' AND o.next_attempt_at <= ? AND (o.claimed_by = '' OR o.claim_expires_at < ?)
				AND o.notifier IN (?`+strings.Repeat(", ?", len(notifiers)-1)+`)
				AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.incident_id = o.incident_id AND p.notifier = o.notifier
					AND p.state = 'pending' AND p.seq < o.seq)
			ORDER BY o.seq LIMIT ?`, args...)
		if err != nil {
			return err
		}
		var seqs []any
		for rows.Next() {
			var seq int64
			if err := rows.Scan(&seq); err != nil {
				rows.Close()
				return err
			}
			seqs = append(seqs, seq)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(seqs) == 0 {
			out = nil
			return nil
		}
		in := `(?` + strings.Repeat(", ?", len(seqs)-1) + `)`
		if _, err := tx.ExecContext(ctx, `UPDATE outbox SET claimed_by = ?, claim_expires_at = ? WHERE seq IN `+in,
			append([]any{owner, formatTime(now.Add(ttl))}, seqs...)...); err != nil {
			return err
		}
		out, err = queryDeliveries(ctx, tx, `SELECT `+deliveryColumns+` FROM outbox WHERE seq IN `+in+` ORDER BY seq`, seqs...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return out, nil
}

// deliveryLost returns the store.ErrLeaseLost of owner's claim on the
// delivery id.
func deliveryLost(ctx context.Context, tx *sql.Tx, id, owner string) error {
	var state, by string
	err := tx.QueryRowContext(ctx, `SELECT state, claimed_by FROM outbox WHERE id = ?`, id).Scan(&state, &by)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("delivery %q: %w", id, store.ErrNotFound)
	case err != nil:
		return err
	case state != string(store.DeliveryPending):
		return fmt.Errorf("%w: delivery %q is %s", store.ErrLeaseLost, id, state)
	case by == "":
		return fmt.Errorf("%w: delivery %q is not claimed", store.ErrLeaseLost, id)
	}
	return fmt.Errorf("%w: delivery %q is claimed by %s, not %s", store.ErrLeaseLost, id, by, owner)
}

// ExtendDelivery moves the expiry of owner's claim on the delivery id to
// until.
func (s *Store) ExtendDelivery(ctx context.Context, id, owner string, until time.Time) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE outbox SET claim_expires_at = ? WHERE id = ? AND claimed_by = ? AND state = 'pending'`,
			formatTime(until), id, owner)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		return deliveryLost(ctx, tx, id, owner)
	})
	if err != nil {
		return fmt.Errorf("extend the claim on delivery %q: %w", id, err)
	}
	return nil
}

// FinishDelivery ends owner's claim on d.ID and stores its outcome.
func (s *Store) FinishDelivery(ctx context.Context, d store.Delivery, owner string) error {
	if !slices.Contains([]store.DeliveryState{store.DeliveryPending, store.DeliverySent, store.DeliveryFailed}, d.State) {
		return fmt.Errorf("finish delivery %q: unknown state %q", d.ID, d.State)
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE outbox SET state = ?, attempts = ?, rounds = ?, next_attempt_at = ?,
				done_by = ?, done_at = ?, last_error = ?, claimed_by = '', claim_expires_at = NULL
			WHERE id = ? AND claimed_by = ? AND state = 'pending'`,
			string(d.State), d.Attempts, d.Rounds, formatTime(d.NextAttemptAt), d.DoneBy, nullTime(d.DoneAt), d.LastError, d.ID, owner)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		return deliveryLost(ctx, tx, d.ID, owner)
	})
	if err != nil {
		return fmt.Errorf("finish delivery %q: %w", d.ID, err)
	}
	return nil
}

// Deliveries lists the deliveries of incidentID ("" all), oldest first,
// the newest n when n is positive.
func (s *Store) Deliveries(ctx context.Context, incidentID string, n int) ([]store.Delivery, error) {
	var w where
	if incidentID != "" {
		w.add("incident_id = ?", incidentID)
	}
	out, err := queryDeliveries(ctx, s.db, `SELECT `+deliveryColumns+` FROM outbox`+w.String()+` ORDER BY seq DESC LIMIT ?`,
		append(w.args, limit(n))...)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}
