package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// Monitors on several machines share one PostgreSQL store's work: a slot
// is claimed by INSERT … ON CONFLICT DO NOTHING, or taken over by an
// UPDATE whose condition (the lease expired) PostgreSQL re-checks on the
// row it locks, so of monitors racing for a slot exactly one wins;
// deliveries are claimed with FOR UPDATE SKIP LOCKED under the same kind
// of condition. Times are the monitors' clocks: keep them in step (NTP).

var (
	_ store.Leases = (*Store)(nil)
	_ store.Outbox = (*Store)(nil)
)

// leaseColumns are the columns scanLease reads, in its order.
const leaseColumns = `check_name, provider, slot, state, owner, claimed_at, expires_at, takeovers,
	previous_owner, check_run_id, finished_at`

// scanLease reads one row of leaseColumns.
func scanLease(row pgx.Row) (store.SlotLease, error) {
	var (
		l                                store.SlotLease
		state                            string
		slot, claimed, expires, finished *int64
	)
	err := row.Scan(&l.Check, &l.Provider, &slot, &state, &l.Owner, &claimed, &expires, &l.Takeovers,
		&l.PreviousOwner, &l.CheckRunID, &finished)
	l.State = store.LeaseState(state)
	l.Slot, l.ClaimedAt, l.ExpiresAt, l.FinishedAt = fromNanos(slot), fromNanos(claimed), fromNanos(expires), fromNanos(finished)
	return l, err
}

// slotRow returns the arguments naming key and owner, checked for what
// text can hold: check, provider, slot, owner.
func slotRow(key store.SlotKey, owner string) *row {
	return (&row{}).text("check", key.Check).text("provider", key.Provider).time("slot", key.Slot).text("owner", owner)
}

// leaseTx reads the lease of key (the first three arguments of w) in tx;
// pgx.ErrNoRows when there is none.
func leaseTx(ctx context.Context, tx pgx.Tx, w *row) (store.SlotLease, error) {
	return scanLease(tx.QueryRow(ctx, `SELECT `+leaseColumns+` FROM slot_leases
		WHERE check_name = $1 AND provider = $2 AND slot = $3`, w.args[:3]...))
}

// ClaimSlot claims key for owner until now+ttl, when it is free or its
// holder's lease expired.
func (s *Store) ClaimSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, ttl time.Duration) (store.SlotClaim, error) {
	if err := store.CheckSlot(key, owner); err != nil {
		return store.SlotClaim{}, fmt.Errorf("claim slot: %w", err)
	}
	w := slotRow(key, owner).time("now", now).time("expiry", now.Add(ttl))
	if w.err != nil {
		return store.SlotClaim{}, fmt.Errorf("claim %s: %w", key, w.err)
	}
	var c store.SlotClaim
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		c = store.SlotClaim{}
		tag, err := tx.Exec(ctx, `INSERT INTO slot_leases (check_name, provider, slot, state, owner, claimed_at, expires_at)
			VALUES ($1, $2, $3, 'running', $4, $5, $6) ON CONFLICT DO NOTHING`, w.args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			c.Claimed = true
		} else {
			tag, err := tx.Exec(ctx, `UPDATE slot_leases
				SET previous_owner = owner, owner = $4, claimed_at = $5, expires_at = $6, takeovers = takeovers + 1
				WHERE check_name = $1 AND provider = $2 AND slot = $3 AND state = 'running' AND expires_at < $5`, w.args...)
			if err != nil {
				return err
			}
			c.Claimed, c.TakenOver = tag.RowsAffected() == 1, tag.RowsAffected() == 1
		}
		if c.Lease, err = leaseTx(ctx, tx, w); err != nil {
			return err
		}
		if !c.Claimed {
			return nil
		}
		busy, err := scanLease(tx.QueryRow(ctx, `SELECT `+leaseColumns+` FROM slot_leases
			WHERE check_name = $1 AND provider = $2 AND slot < $3 AND state = 'running' ORDER BY slot LIMIT 1`, w.args[:3]...))
		switch {
		case err == nil:
			c.Busy = &busy
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		return nil
	})
	if err != nil {
		return store.SlotClaim{}, fmt.Errorf("claim %s: %w", key, err)
	}
	return c, nil
}

// lost returns the store.ErrLeaseLost of owner's lease of the key in w,
// naming the lease as it is now.
func lost(ctx context.Context, tx pgx.Tx, w *row, owner string) error {
	l, err := leaseTx(ctx, tx, w)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
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
	w := slotRow(key, owner).time("expiry", until)
	err := w.err
	if err == nil {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `UPDATE slot_leases SET expires_at = $5
				WHERE check_name = $1 AND provider = $2 AND slot = $3 AND owner = $4 AND state = 'running'`, w.args...)
			if err != nil || tag.RowsAffected() == 1 {
				return err
			}
			return lost(ctx, tx, w, owner)
		})
	}
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
	w := slotRow(key, owner).time("now", now).add(cr.ID)
	run := checkRunRow(cr)
	err := errors.Join(w.err, run.err)
	if err == nil {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `UPDATE slot_leases SET state = 'done', finished_at = $5, check_run_id = $6
				WHERE check_name = $1 AND provider = $2 AND slot = $3 AND owner = $4 AND state = 'running'`, w.args...)
			if err != nil {
				return err
			}
			if tag.RowsAffected() != 1 {
				return lost(ctx, tx, w, owner)
			}
			_, err = tx.Exec(ctx, upsertCheckRun, run.args...)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("finish %s: %w", key, err)
	}
	return nil
}

// checkRunRow returns the arguments of upsertCheckRun for cr.
func checkRunRow(cr *promptcanary.CheckRun) *row {
	return (&row{}).add(cr.ID).text("check", cr.Check).text("provider", cr.Provider).text("suite", cr.Suite).
		time("slot", cr.Slot).time("started_at", cr.StartedAt).time("finished_at", cr.FinishedAt).
		text("outcome", string(cr.Outcome)).text("run id", cr.RunID).text("report id", cr.ReportID).
		text("confirmation run id", cr.ConfirmRunID).text("confirmation report id", cr.ConfirmReportID).
		text("baseline id", cr.BaselineID).add(cr.Confirmed, finite(cr.PassRate), finite(cr.Score), finite(cr.BaselinePassRate)).
		text("severity", string(cr.Severity)).add(finite(cr.CostUSD)).bytes(cr.Reason)
}

// upsertCheckRun writes a check run: SaveCheckRun and FinishSlot use it.
const upsertCheckRun = `INSERT INTO check_runs
	(id, check_name, provider, suite, slot, started_at, finished_at, outcome, run_id, report_id,
	 confirm_run_id, confirm_report_id, baseline_id, confirmed, pass_rate, score, baseline_pass_rate,
	 severity, cost_usd, reason)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
	ON CONFLICT (id) DO UPDATE SET
		check_name = excluded.check_name, provider = excluded.provider, suite = excluded.suite,
		slot = excluded.slot, started_at = excluded.started_at, finished_at = excluded.finished_at,
		outcome = excluded.outcome, run_id = excluded.run_id, report_id = excluded.report_id,
		confirm_run_id = excluded.confirm_run_id, confirm_report_id = excluded.confirm_report_id,
		baseline_id = excluded.baseline_id, confirmed = excluded.confirmed, pass_rate = excluded.pass_rate,
		score = excluded.score, baseline_pass_rate = excluded.baseline_pass_rate,
		severity = excluded.severity, cost_usd = excluded.cost_usd, reason = excluded.reason`

// queryLeases runs a query of leaseColumns.
func (s *Store) queryLeases(ctx context.Context, q string, args ...any) ([]store.SlotLease, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.SlotLease, error) { return scanLease(row) })
}

// ExpiredSlots lists the running leases that expired before now, oldest
// slot first.
func (s *Store) ExpiredSlots(ctx context.Context, now time.Time, n int) ([]store.SlotLease, error) {
	w := (&row{}).time("now", now)
	if w.err != nil {
		return nil, fmt.Errorf("list expired slot leases: %w", w.err)
	}
	var lim where
	lim.args = w.args
	out, err := s.queryLeases(ctx, `SELECT `+leaseColumns+` FROM slot_leases
		WHERE state = 'running' AND expires_at < $1 ORDER BY slot, check_name, provider LIMIT `+lim.limit(n), lim.args...)
	if err != nil {
		return nil, fmt.Errorf("list expired slot leases: %w", err)
	}
	return out, nil
}

// SlotLeases lists the leases of check and provider ("" any), newest slot
// first.
func (s *Store) SlotLeases(ctx context.Context, check, provider string, n int) ([]store.SlotLease, error) {
	if !storable(check, provider) {
		return nil, nil
	}
	var w where
	if check != "" {
		w.add("check_name = ?", check)
	}
	if provider != "" {
		w.add("provider = ?", provider)
	}
	q := `SELECT ` + leaseColumns + ` FROM slot_leases` + w.String() + ` ORDER BY slot DESC, check_name, provider`
	q += ` LIMIT ` + w.limit(n)
	out, err := s.queryLeases(ctx, q, w.args...)
	if err != nil {
		return nil, fmt.Errorf("list slot leases: %w", err)
	}
	return out, nil
}

// PruneLeases deletes finished leases and deliveries from before before,
// and running leases that expired before it.
func (s *Store) PruneLeases(ctx context.Context, before time.Time) (int, error) {
	w := (&row{}).time("before", before)
	if w.err != nil {
		return 0, fmt.Errorf("prune leases: %w", w.err)
	}
	var total int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		total = 0
		for _, q := range []string{
			`DELETE FROM slot_leases WHERE (state = 'done' AND finished_at < $1) OR (state = 'running' AND expires_at < $1)`,
			`DELETE FROM outbox WHERE state <> 'pending' AND done_at < $1`,
		} {
			tag, err := tx.Exec(ctx, q, w.args...)
			if err != nil {
				return err
			}
			total += tag.RowsAffected()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune leases: %w", err)
	}
	return int(total), nil
}

// incidentRow returns the arguments of upsertIncident for inc.
func incidentRow(inc *promptcanary.Incident) (*row, error) {
	units, err := store.Marshal(inc.Units)
	if err != nil {
		return nil, fmt.Errorf("units: %w", err)
	}
	notifiedTo, err := json.Marshal(inc.NotifiedTo)
	if err != nil {
		return nil, fmt.Errorf("notified_to: %w", err)
	}
	return (&row{}).add(inc.ID).text("fingerprint", inc.Fingerprint).text("check", inc.Check).text("suite", inc.Suite).
		text("provider", inc.Provider).text("kind", string(inc.Kind)).text("severity", string(inc.Severity)).
		bytes(inc.Summary).add(string(units)).text("run id", inc.RunID).text("report id", inc.ReportID).
		time("opened_at", inc.OpenedAt).time("updated_at", inc.UpdatedAt).time("resolved_at", inc.ResolvedAt).
		time("acknowledged_at", inc.AcknowledgedAt).bytes(inc.AcknowledgedBy).add(inc.CleanRuns).
		time("notified_at", inc.NotifiedAt).add(string(notifiedTo)), nil
}

// upsertIncident writes an incident, updated in place when its id is
// stored: SaveIncident, RecordStep and ImportIncident use it.
const upsertIncident = `INSERT INTO incidents
	(id, fingerprint, check_name, suite, provider, kind, severity, summary, units, run_id, report_id,
	 opened_at, updated_at, resolved_at, acknowledged_at, acknowledged_by, clean_runs, notified_at, notified_to)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
	ON CONFLICT (id) DO UPDATE SET
		fingerprint = excluded.fingerprint, check_name = excluded.check_name, suite = excluded.suite,
		provider = excluded.provider, kind = excluded.kind, severity = excluded.severity,
		summary = excluded.summary, units = excluded.units, run_id = excluded.run_id,
		report_id = excluded.report_id, opened_at = excluded.opened_at, updated_at = excluded.updated_at,
		resolved_at = excluded.resolved_at, acknowledged_at = excluded.acknowledged_at,
		acknowledged_by = excluded.acknowledged_by, clean_runs = excluded.clean_runs,
		notified_at = excluded.notified_at, notified_to = excluded.notified_to`

// RecordStep stores an incident, its event and its deliveries in one
// transaction.
func (s *Store) RecordStep(ctx context.Context, step store.IncidentStep) error {
	if err := store.CheckStep(step); err != nil {
		return fmt.Errorf("record incident step: %w", err)
	}
	inc, e := step.Incident, step.Event
	incRow, err := incidentRow(inc)
	if err != nil {
		return fmt.Errorf("record incident %q: %w", inc.ID, err)
	}
	snapshot, err := store.MarshalIncident(inc)
	if err != nil {
		return fmt.Errorf("record incident %q: %w", inc.ID, err)
	}
	evRow := (&row{}).text("incident id", e.IncidentID).time("at", e.At).text("type", string(e.Type)).
		text("run id", e.RunID).text("severity", string(e.Severity)).bytes(e.Summary)
	errs := []error{incRow.err, evRow.err}
	var rows []*row
	for _, d := range step.Deliveries {
		r := (&row{}).add(d.ID, d.IncidentID).text("notifier", d.Notifier).text("status", string(d.Status)).
			text("event", string(d.Event)).add(string(snapshot)).time("created_at", d.CreatedAt)
		errs = append(errs, r.err)
		rows = append(rows, r)
	}
	err = errors.Join(errs...)
	if err == nil {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, upsertIncident, incRow.args...); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO incident_events (incident_id, at, type, run_id, severity, summary)
				VALUES ($1, $2, $3, $4, $5, $6)`, evRow.args...); err != nil {
				return err
			}
			for _, r := range rows {
				if _, err := tx.Exec(ctx, `INSERT INTO outbox
					(id, incident_id, notifier, status, event, incident, state, created_at, next_attempt_at)
					VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $7)`, r.args...); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if isViolation(err, uniqueViolation, "incidents_open_fingerprint") {
		err = s.conflict(ctx, inc)
	}
	if err != nil {
		return fmt.Errorf("record %s of incident %q: %w", e.Type, inc.ID, err)
	}
	return nil
}

// deliveryColumns are the columns scanDelivery reads, in its order.
const deliveryColumns = `id, incident_id, notifier, status, event, incident, state, attempts, rounds,
	created_at, next_attempt_at, claimed_by, claim_expires_at, done_by, done_at, last_error`

// scanDelivery reads one row of deliveryColumns.
func scanDelivery(row pgx.Row) (store.Delivery, error) {
	var (
		d                                   store.Delivery
		status, event, snapshot, state      string
		created, next, claimExpires, doneAt *int64
		lastError                           []byte
	)
	if err := row.Scan(&d.ID, &d.IncidentID, &d.Notifier, &status, &event, &snapshot, &state, &d.Attempts, &d.Rounds,
		&created, &next, &d.ClaimedBy, &claimExpires, &d.DoneBy, &doneAt, &lastError); err != nil {
		return d, err
	}
	d.Status, d.Event, d.State = promptcanary.NotificationStatus(status), promptcanary.IncidentEventType(event), store.DeliveryState(state)
	d.CreatedAt, d.NextAttemptAt, d.ClaimExpiresAt, d.DoneAt = fromNanos(created), fromNanos(next), fromNanos(claimExpires), fromNanos(doneAt)
	d.LastError = string(lastError)
	var err error
	if d.Incident, err = store.UnmarshalIncident([]byte(snapshot)); err != nil {
		return d, fmt.Errorf("delivery %q: %w", d.ID, err)
	}
	return d, nil
}

// collectDeliveries reads the rows of a query of deliveryColumns.
func collectDeliveries(rows pgx.Rows) ([]store.Delivery, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Delivery, error) { return scanDelivery(row) })
}

// ClaimDeliveries claims for owner the due deliveries first in their
// lane, oldest first.
func (s *Store) ClaimDeliveries(ctx context.Context, owner string, notifiers []string, now time.Time, ttl time.Duration, n int) ([]store.Delivery, error) {
	if owner == "" {
		return nil, errors.New("claim deliveries: no owner")
	}
	var names []string
	for _, name := range notifiers {
		if storable(name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	w := (&row{}).text("owner", owner).time("expiry", now.Add(ttl)).time("now", now).add(names)
	if w.err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", w.err)
	}
	var lim where
	lim.args = w.args
	q := `UPDATE outbox SET claimed_by = $1, claim_expires_at = $2
		WHERE seq IN (
			SELECT o.seq FROM outbox o
			WHERE o.state = 'pending' AND o.next_attempt_at <= $3 AND (o.claimed_by = '' OR o.claim_expires_at < $3)
				AND o.notifier = ANY($4)
				AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.incident_id = o.incident_id AND p.notifier = o.notifier
					AND p.state = 'pending' AND p.seq < o.seq)
			ORDER BY o.seq LIMIT ` + lim.limit(n) + `
			FOR UPDATE SKIP LOCKED)
			AND state = 'pending' AND (claimed_by = '' OR claim_expires_at < $3)
		RETURNING seq, ` + deliveryColumns
	var out []store.Delivery
	var seqs []int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		out, seqs = nil, nil
		rows, err := tx.Query(ctx, q, lim.args...)
		if err != nil {
			return err
		}
		_, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (struct{}, error) {
			var seq int64
			d, err := scanDelivery(prefixed{row, &seq})
			seqs, out = append(seqs, seq), append(out, d)
			return struct{}{}, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(seqs[a] - seqs[b]) })
	sorted := make([]store.Delivery, len(out))
	for i, j := range order {
		sorted[i] = out[j]
	}
	return sorted, nil
}

// prefixed scans a row whose first column is read into first, the rest
// by the caller's Scan.
type prefixed struct {
	row   pgx.Row
	first any
}

func (p prefixed) Scan(dest ...any) error { return p.row.Scan(append([]any{p.first}, dest...)...) }

// deliveryLost returns the store.ErrLeaseLost of owner's claim on the
// delivery id.
func deliveryLost(ctx context.Context, tx pgx.Tx, id, owner string) error {
	var state, by string
	err := tx.QueryRow(ctx, `SELECT state, claimed_by FROM outbox WHERE id = $1`, id).Scan(&state, &by)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
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
	w := (&row{}).text("delivery id", id).text("owner", owner).time("expiry", until)
	err := w.err
	if err == nil {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `UPDATE outbox SET claim_expires_at = $3 WHERE id = $1 AND claimed_by = $2 AND state = 'pending'`, w.args...)
			if err != nil || tag.RowsAffected() == 1 {
				return err
			}
			return deliveryLost(ctx, tx, id, owner)
		})
	}
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
	w := (&row{}).text("delivery id", d.ID).text("owner", owner).add(string(d.State), d.Attempts, d.Rounds).
		time("next attempt", d.NextAttemptAt).text("done by", d.DoneBy).time("done at", d.DoneAt).bytes(d.LastError)
	err := w.err
	if err == nil {
		err = s.inTx(ctx, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `UPDATE outbox SET state = $3, attempts = $4, rounds = $5, next_attempt_at = $6,
					done_by = $7, done_at = $8, last_error = $9, claimed_by = '', claim_expires_at = NULL
				WHERE id = $1 AND claimed_by = $2 AND state = 'pending'`, w.args...)
			if err != nil || tag.RowsAffected() == 1 {
				return err
			}
			return deliveryLost(ctx, tx, d.ID, owner)
		})
	}
	if err != nil {
		return fmt.Errorf("finish delivery %q: %w", d.ID, err)
	}
	return nil
}

// Deliveries lists the deliveries of incidentID ("" all), oldest first,
// the newest n when n is positive.
func (s *Store) Deliveries(ctx context.Context, incidentID string, n int) ([]store.Delivery, error) {
	if !storable(incidentID) {
		return nil, nil
	}
	var w where
	if incidentID != "" {
		w.add("incident_id = ?", incidentID)
	}
	q := `SELECT ` + deliveryColumns + ` FROM outbox` + w.String() + ` ORDER BY seq DESC LIMIT ` + w.limit(n)
	rows, err := s.pool.Query(ctx, q, w.args...)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	out, err := collectDeliveries(rows)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}
