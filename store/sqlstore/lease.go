package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// Monitors sharing one store share its work: a slot is claimed by INSERT …
// ON CONFLICT DO NOTHING, or taken over by an UPDATE whose condition (the
// lease expired) the database re-checks on the row it writes, so of
// monitors racing for a slot exactly one wins; deliveries are claimed by
// one UPDATE under the same kind of condition, skipping rows another
// claimer locked (Dialect.SkipLocked). Times are the monitors' clocks:
// keep them in step (NTP).

var (
	_ store.Leases = (*DB)(nil)
	_ store.Outbox = (*DB)(nil)
)

// leaseColumns are the columns scanLease reads, in its order.
const leaseColumns = `check_name, provider, slot, state, owner, claimed_at, expires_at, takeovers,
	previous_owner, check_run_id, finished_at`

// scanLease reads one row of leaseColumns.
func scanLease(sc scanner) (store.SlotLease, error) {
	var l store.SlotLease
	err := sc.Scan(&l.Check, &l.Provider, At(&l.Slot), &l.State, &l.Owner, At(&l.ClaimedAt), At(&l.ExpiresAt),
		&l.Takeovers, &l.PreviousOwner, &l.CheckRunID, At(&l.FinishedAt))
	return l, err
}

// slotArgs returns the arguments naming key and owner: check, provider,
// slot, owner.
func (s *DB) slotArgs(key store.SlotKey, owner string) *args {
	return s.args().text("check", key.Check).text("provider", key.Provider).time("slot", key.Slot).text("owner", owner)
}

// leaseTx reads the lease of key (the first three of a) in tx;
// sql.ErrNoRows when there is none.
func (s *DB) leaseTx(ctx context.Context, tx *sql.Tx, a *args) (store.SlotLease, error) {
	return scanLease(s.row(ctx, tx, `SELECT `+leaseColumns+` FROM slot_leases
		WHERE check_name = ? AND provider = ? AND slot = ?`, a.list[:3]...))
}

// ClaimSlot claims key for owner until now+ttl, when it is free or its
// holder's lease expired.
func (s *DB) ClaimSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, ttl time.Duration) (store.SlotClaim, error) {
	if err := store.CheckSlot(key, owner); err != nil {
		return store.SlotClaim{}, fmt.Errorf("claim slot: %w", err)
	}
	a := s.slotArgs(key, owner).time("now", now).time("expiry", now.Add(ttl))
	if a.err != nil {
		return store.SlotClaim{}, fmt.Errorf("claim %s: %w", key, a.err)
	}
	check, provider, slot, at, until := a.list[0], a.list[1], a.list[2], a.list[4], a.list[5]
	var c store.SlotClaim
	err := s.tx(ctx, func(tx *sql.Tx) error {
		c = store.SlotClaim{}
		n, err := s.exec(ctx, tx, `INSERT INTO slot_leases (check_name, provider, slot, state, owner, claimed_at, expires_at)
			VALUES (?, ?, ?, 'running', ?, ?, ?) ON CONFLICT DO NOTHING`, a.list...)
		if err == nil && n == 0 { // held: taken over when its lease expired
			n, err = s.exec(ctx, tx, `UPDATE slot_leases
				SET previous_owner = owner, owner = ?, claimed_at = ?, expires_at = ?, takeovers = takeovers + 1
				WHERE check_name = ? AND provider = ? AND slot = ? AND state = 'running' AND expires_at < ?`,
				a.list[3], at, until, check, provider, slot, at)
			c.TakenOver = n == 1
		}
		if err != nil {
			return err
		}
		c.Claimed = n == 1
		if c.Lease, err = s.leaseTx(ctx, tx, a); err != nil {
			return err
		}
		if !c.Claimed {
			return nil
		}
		busy, err := scanLease(s.row(ctx, tx, `SELECT `+leaseColumns+` FROM slot_leases
			WHERE check_name = ? AND provider = ? AND slot < ? AND state = 'running' ORDER BY slot LIMIT 1`, check, provider, slot))
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

// updateLease runs the UPDATE q of owner's running lease of the key in a,
// whose arguments are set followed by a's four; the lease must be there,
// else store.ErrLeaseLost names the lease as it is now.
func (s *DB) updateLease(ctx context.Context, tx *sql.Tx, a *args, owner, q string, set ...any) error {
	n, err := s.exec(ctx, tx, q+` WHERE check_name = ? AND provider = ? AND slot = ? AND owner = ? AND state = 'running'`,
		append(set, a.list[:4]...)...)
	if err != nil || n == 1 {
		return err
	}
	l, err := s.leaseTx(ctx, tx, a)
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
func (s *DB) ExtendSlot(ctx context.Context, key store.SlotKey, owner string, until time.Time) error {
	if err := store.CheckSlot(key, owner); err != nil {
		return fmt.Errorf("extend slot: %w", err)
	}
	a := s.slotArgs(key, owner).time("expiry", until)
	err := s.txAfter(ctx, a.err, func(tx *sql.Tx) error {
		return s.updateLease(ctx, tx, a, owner, `UPDATE slot_leases SET expires_at = ?`, a.list[4])
	})
	return wrap(err, "extend the lease of %s", key)
}

// FinishSlot records cr and marks key done by owner, in one transaction.
func (s *DB) FinishSlot(ctx context.Context, key store.SlotKey, owner string, now time.Time, cr *promptcanary.CheckRun) error {
	if err := store.CheckSlot(key, owner); err != nil {
		return fmt.Errorf("finish slot: %w", err)
	}
	if err := store.CheckSlotRun(key, cr); err != nil {
		return fmt.Errorf("finish %s: %w", key, err)
	}
	a := s.slotArgs(key, owner).time("now", now)
	run := s.checkRunArgs(cr)
	err := s.txAfter(ctx, errors.Join(a.err, run.err), func(tx *sql.Tx) error {
		err := s.updateLease(ctx, tx, a, owner, `UPDATE slot_leases SET state = 'done', check_run_id = ?, finished_at = ?`,
			cr.ID, a.list[4])
		if err != nil {
			return err
		}
		_, err = s.exec(ctx, tx, upsertCheckRun, run.list...)
		return err
	})
	return wrap(err, "finish %s", key)
}

// ExpiredSlots lists the running leases that expired before now, oldest
// slot first.
func (s *DB) ExpiredSlots(ctx context.Context, now time.Time, n int) ([]store.SlotLease, error) {
	return list(ctx, s, "expired slot leases", `SELECT `+leaseColumns+` FROM slot_leases
		WHERE state = 'running' AND expires_at < ? ORDER BY slot, check_name, provider LIMIT ?`,
		[]any{s.d.Bound(now), s.limit(n)}, scanLease)
}

// SlotLeases lists the leases of check and provider ("" any), newest slot
// first.
func (s *DB) SlotLeases(ctx context.Context, check, provider string, n int) ([]store.SlotLease, error) {
	w := matching("check_name", check, "provider", provider)
	return list(ctx, s, "slot leases", `SELECT `+leaseColumns+` FROM slot_leases`+w.String()+
		` ORDER BY slot DESC, check_name, provider LIMIT ?`, append(w.args, s.limit(n)), scanLease, check, provider)
}

// PruneLeases deletes finished leases and deliveries from before before,
// and running leases that expired before it.
func (s *DB) PruneLeases(ctx context.Context, before time.Time) (int, error) {
	b := s.d.Bound(before)
	var leases, deliveries int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		leases, err = s.exec(ctx, tx, `DELETE FROM slot_leases
			WHERE (state = 'done' AND finished_at < ?) OR (state = 'running' AND expires_at < ?)`, b, b)
		if err == nil {
			deliveries, err = s.exec(ctx, tx, `DELETE FROM outbox WHERE state <> 'pending' AND done_at < ?`, b)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune leases: %w", err)
	}
	return int(leases + deliveries), nil
}

// RecordStep stores an incident, its event and its deliveries in one
// transaction.
func (s *DB) RecordStep(ctx context.Context, step store.IncidentStep) error {
	if err := store.CheckStep(step); err != nil {
		return fmt.Errorf("record incident step: %w", err)
	}
	inc, e := step.Incident, step.Event
	incArgs, err := s.incidentArgs(inc)
	if err != nil {
		return fmt.Errorf("record incident %q: %w", inc.ID, err)
	}
	snapshot, err := store.MarshalIncident(inc)
	if err != nil {
		return fmt.Errorf("record incident %q: %w", inc.ID, err)
	}
	ev := s.eventArgs(e)
	errs := []error{incArgs.err, ev.err}
	var rows []*args
	for _, d := range step.Deliveries {
		r := s.args(d.ID, d.IncidentID).text("notifier", d.Notifier).text("status", string(d.Status)).
			text("event", string(d.Event)).add(string(snapshot)).time("created_at", d.CreatedAt)
		errs = append(errs, r.err)
		rows = append(rows, r.add(r.list[len(r.list)-1]))
	}
	err = s.txAfter(ctx, errors.Join(errs...), func(tx *sql.Tx) error {
		if err := s.upsertIncident(ctx, tx, inc, incArgs); err != nil {
			return err
		}
		return s.insertAll(ctx, tx, inserts{insertEvent, []*args{ev}}, inserts{`INSERT INTO outbox
			(id, incident_id, notifier, status, event, incident, state, created_at, next_attempt_at)
			VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`, rows})
	})
	return wrap(s.conflictOf(ctx, inc, err), "record %s of incident %q", e.Type, inc.ID)
}

// deliveryColumns are the columns scanDelivery reads, in its order.
const deliveryColumns = `id, incident_id, notifier, status, event, incident, state, attempts, rounds,
	created_at, next_attempt_at, claimed_by, claim_expires_at, done_by, done_at, last_error`

// scanDelivery reads one row of deliveryColumns, after the columns of
// first.
func scanDelivery(sc scanner, first ...any) (store.Delivery, error) {
	var (
		d        store.Delivery
		snapshot string
	)
	err := sc.Scan(append(first, &d.ID, &d.IncidentID, &d.Notifier, &d.Status, &d.Event, &snapshot, &d.State, &d.Attempts,
		&d.Rounds, At(&d.CreatedAt), At(&d.NextAttemptAt), &d.ClaimedBy, At(&d.ClaimExpiresAt), &d.DoneBy, At(&d.DoneAt),
		&d.LastError)...)
	if err != nil {
		return d, err
	}
	if d.Incident, err = store.UnmarshalIncident([]byte(snapshot)); err != nil {
		return d, fmt.Errorf("delivery %q: %w", d.ID, err)
	}
	return d, nil
}

// ClaimDeliveries claims for owner the due deliveries first in their
// lane, oldest first.
func (s *DB) ClaimDeliveries(ctx context.Context, owner string, notifiers []string, now time.Time, ttl time.Duration, n int) ([]store.Delivery, error) {
	if owner == "" {
		return nil, errors.New("claim deliveries: no owner")
	}
	var names []any
	for _, name := range notifiers {
		if s.storable(name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	a := s.args().text("owner", owner).time("expiry", now.Add(ttl)).time("now", now)
	if a.err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", a.err)
	}
	at := a.list[2]
	q := `UPDATE outbox SET claimed_by = ?, claim_expires_at = ?
		WHERE seq IN (
			SELECT o.seq FROM outbox o
			WHERE o.state = 'pending' AND o.next_attempt_at <= ? AND (o.claimed_by = '' OR o.claim_expires_at < ?)
				AND o.notifier IN ` + placeholders(len(names)) + `
				AND NOT EXISTS (SELECT 1 FROM outbox p WHERE p.incident_id = o.incident_id AND p.notifier = o.notifier
					AND p.state = 'pending' AND p.seq < o.seq)
			ORDER BY o.seq LIMIT ?` + s.d.SkipLocked + `)
			AND state = 'pending' AND (claimed_by = '' OR claim_expires_at < ?)
		RETURNING seq, ` + deliveryColumns
	qargs := append(append(append(a.list[:2:2], at, at), names...), s.limit(n), at)
	seqs := map[string]int64{} // of the deliveries claimed, by id
	var got []store.Delivery
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		got, err = collect(ctx, s, tx, q, qargs, func(sc scanner) (store.Delivery, error) {
			var seq int64
			d, err := scanDelivery(sc, &seq)
			seqs[d.ID] = seq
			return d, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	slices.SortFunc(got, func(a, b store.Delivery) int { return cmp.Compare(seqs[a.ID], seqs[b.ID]) })
	return got, nil
}

// updateClaim runs the UPDATE q of owner's claim on the delivery id, with
// the arguments set; the claim must be there, else store.ErrLeaseLost says
// where the delivery is.
func (s *DB) updateClaim(ctx context.Context, id, owner, q string, set *args) error {
	set.text("delivery id", id).text("owner", owner)
	return s.txAfter(ctx, set.err, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, q+` WHERE id = ? AND claimed_by = ? AND state = 'pending'`, set.list...)
		if err != nil || n == 1 {
			return err
		}
		var state, by string
		err = s.row(ctx, tx, `SELECT state, claimed_by FROM outbox WHERE id = ?`, id).Scan(&state, &by)
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
	})
}

// ExtendDelivery moves the expiry of owner's claim on the delivery id to
// until.
func (s *DB) ExtendDelivery(ctx context.Context, id, owner string, until time.Time) error {
	err := s.updateClaim(ctx, id, owner, `UPDATE outbox SET claim_expires_at = ?`,
		s.args().time("expiry", until))
	return wrap(err, "extend the claim on delivery %q", id)
}

// FinishDelivery ends owner's claim on d.ID and stores its outcome.
func (s *DB) FinishDelivery(ctx context.Context, d store.Delivery, owner string) error {
	if !slices.Contains([]store.DeliveryState{store.DeliveryPending, store.DeliverySent, store.DeliveryFailed}, d.State) {
		return fmt.Errorf("finish delivery %q: unknown state %q", d.ID, d.State)
	}
	set := s.args(string(d.State), d.Attempts, d.Rounds).time("next attempt", d.NextAttemptAt).text("done by", d.DoneBy).
		optTime("done at", d.DoneAt).bytes(d.LastError)
	err := s.updateClaim(ctx, d.ID, owner, `UPDATE outbox SET state = ?, attempts = ?, rounds = ?, next_attempt_at = ?,
			done_by = ?, done_at = ?, last_error = ?, claimed_by = '', claim_expires_at = NULL`, set)
	return wrap(err, "finish delivery %q", d.ID)
}

// Deliveries lists the deliveries of incidentID ("" all), oldest first,
// the newest n when n is positive.
func (s *DB) Deliveries(ctx context.Context, incidentID string, n int) ([]store.Delivery, error) {
	w := matching("incident_id", incidentID)
	out, err := list(ctx, s, "deliveries", `SELECT `+deliveryColumns+` FROM outbox`+w.String()+` ORDER BY seq DESC LIMIT ?`,
		append(w.args, s.limit(n)), func(sc scanner) (store.Delivery, error) { return scanDelivery(sc) }, incidentID)
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}
