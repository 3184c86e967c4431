package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/promptcanary/promptcanary"
)

// The capabilities below let several monitors (promptcanary serve) share
// one store and split its work: a lease per scheduled slot, so that each
// slot runs once across the fleet, and an outbox of notifications, so that
// each one is sent once and survives a crash. Every time they take is the
// caller's clock: monitors sharing a store must keep their clocks in step
// (NTP) to well within a lease's TTL.

// ErrLeaseLost is returned, wrapped with what was lost, when a monitor
// extends or finishes a slot or a delivery it no longer holds: its claim
// expired and another monitor took it over, or it is already finished.
var ErrLeaseLost = errors.New("lease lost")

// SlotKey names one scheduled slot of one check and provider.
type SlotKey struct {
	Check, Provider string
	Slot            time.Time
}

// String names the slot in errors and logs.
func (k SlotKey) String() string {
	return fmt.Sprintf("%s (%s) slot %s", k.Check, k.Provider, k.Slot.UTC().Format(time.RFC3339Nano))
}

// LeaseState says whether a slot is being run or has been.
type LeaseState string

// The states of a slot lease.
const (
	// LeaseRunning: a monitor holds the slot until ExpiresAt, unless it
	// extends its lease.
	LeaseRunning LeaseState = "running"
	// LeaseDone: the slot's check run is recorded; it never runs again.
	LeaseDone LeaseState = "done"
)

// SlotLease is the stored claim of one slot.
type SlotLease struct {
	SlotKey
	State LeaseState
	// Owner is the monitor that holds the slot (running) or finished it
	// (done); ClaimedAt is when it claimed it.
	Owner     string
	ClaimedAt time.Time
	// ExpiresAt is when a running lease may be taken over by another
	// monitor, unless its owner extends it first.
	ExpiresAt time.Time
	// Takeovers counts the claims made after the holder's lease expired;
	// PreviousOwner is the last holder whose lease expired ("" for none).
	Takeovers     int
	PreviousOwner string
	// CheckRunID is the check run recorded for the slot, and FinishedAt
	// when (done only).
	CheckRunID string
	FinishedAt time.Time
}

// SlotClaim is what ClaimSlot found.
type SlotClaim struct {
	// Claimed is set when the caller now holds the slot: it was free, or
	// its holder's lease had expired (then TakenOver is set too).
	Claimed, TakenOver bool
	// Lease is the slot's lease after the call: the caller's when
	// claimed, else the holder's or the finished one.
	Lease SlotLease
	// Busy is, when the caller claimed the slot, the earliest earlier slot
	// of the same check and provider that is not done (whoever holds it,
	// whether or not its lease expired); nil when there is none.
	Busy *SlotLease
}

// Leases are the slot leases of monitors sharing a store. A store that
// has them implements Leases as well as Store and Monitor; callers find it
// by type assertion. Every method is atomic: of monitors racing for one
// slot, exactly one claims it.
type Leases interface {
	// ClaimSlot claims key for owner until now+ttl: it inserts the lease
	// when the slot has none, or takes over a running lease that expired
	// before now. Otherwise it claims nothing and reports the holder.
	ClaimSlot(ctx context.Context, key SlotKey, owner string, now time.Time, ttl time.Duration) (SlotClaim, error)
	// ExtendSlot moves the expiry of owner's running lease of key to
	// until (a heartbeat); ErrLeaseLost when owner no longer holds it.
	ExtendSlot(ctx context.Context, key SlotKey, owner string, until time.Time) error
	// FinishSlot records cr, the check run of the slot (as SaveCheckRun
	// does), and marks the slot done by owner at now, in one transaction;
	// ErrLeaseLost, recording nothing, when owner no longer holds it. cr
	// must be of key's check, provider and slot.
	FinishSlot(ctx context.Context, key SlotKey, owner string, now time.Time, cr *promptcanary.CheckRun) error
	// ExpiredSlots lists at most limit (all when limit <= 0) running
	// leases that expired before now, oldest slot first.
	ExpiredSlots(ctx context.Context, now time.Time, limit int) ([]SlotLease, error)
	// SlotLeases lists the leases of check and provider ("" any), newest
	// slot first, at most limit when positive.
	SlotLeases(ctx context.Context, check, provider string, limit int) ([]SlotLease, error)
	// PruneLeases deletes the leases done, and the deliveries sent or
	// failed, before before, and running leases that expired before it
	// (slots of a check nobody runs any more). It returns how many rows
	// it deleted.
	PruneLeases(ctx context.Context, before time.Time) (int, error)
}

// DeliveryState says where a notification's delivery stands.
type DeliveryState string

// The states of a delivery.
const (
	// DeliveryPending: to be attempted at NextAttemptAt, by whichever
	// monitor claims it.
	DeliveryPending DeliveryState = "pending"
	// DeliverySent: a notifier accepted it.
	DeliverySent DeliveryState = "sent"
	// DeliveryFailed: given up for good.
	DeliveryFailed DeliveryState = "failed"
)

// Delivery is one notification of an incident to one notifier in the
// outbox: written with the incident's step, then claimed and delivered by
// one monitor. The deliveries of one incident to one notifier (a lane)
// are delivered in the order they were written.
type Delivery struct {
	// ID identifies the delivery; the notification attempts made for it
	// share it (promptcanary.NotificationAttempt.ID).
	ID         string
	IncidentID string
	Notifier   string
	Status     promptcanary.NotificationStatus
	Event      promptcanary.IncidentEventType
	// Incident is the incident as the step left it: what the notification
	// tells, whatever the incident became since.
	Incident promptcanary.Incident
	State    DeliveryState
	// Attempts counts the attempts made; Rounds the rounds of attempts
	// (the notify package's retries) that ended without success.
	Attempts, Rounds int
	CreatedAt        time.Time
	// NextAttemptAt is when a pending delivery is due.
	NextAttemptAt time.Time
	// ClaimedBy is the monitor delivering it now ("" for none), until
	// ClaimExpiresAt unless it extends its claim.
	ClaimedBy      string
	ClaimExpiresAt time.Time
	// DoneBy is the monitor that sent it or gave it up, DoneAt when.
	DoneBy string
	DoneAt time.Time
	// LastError is the last failure, scrubbed, in one line.
	LastError string
}

// IncidentStep is one step of an incident's lifecycle, recorded at once.
type IncidentStep struct {
	Incident *promptcanary.Incident
	Event    promptcanary.IncidentEvent
	// Deliveries are the notifications of the step, one per notifier;
	// RecordStep stores them pending, unclaimed, due at their CreatedAt,
	// with Incident as their snapshot.
	Deliveries []Delivery
}

// Outbox holds the notifications of monitors sharing a store until one of
// them delivers each. A store that has it implements Outbox as well as
// Store and Monitor; callers find it by type assertion.
type Outbox interface {
	// RecordStep stores step in one transaction: the incident (by the
	// rules of Monitor.SaveIncident, store.ErrConflict included), its
	// event and its deliveries; on error, nothing.
	RecordStep(ctx context.Context, step IncidentStep) error
	// ClaimDeliveries claims for owner, until now+ttl, at most limit
	// deliveries, oldest first, that are pending, due at now, unclaimed
	// or whose claim expired, addressed to one of notifiers, and first
	// pending in their lane (so a resolve never overtakes its open).
	ClaimDeliveries(ctx context.Context, owner string, notifiers []string, now time.Time, ttl time.Duration, limit int) ([]Delivery, error)
	// ExtendDelivery moves the expiry of owner's claim on the delivery id
	// to until; ErrLeaseLost when owner no longer holds it.
	ExtendDelivery(ctx context.Context, id, owner string, until time.Time) error
	// FinishDelivery ends owner's claim on d.ID and stores d's State,
	// Attempts, Rounds, NextAttemptAt, DoneBy, DoneAt and LastError;
	// ErrLeaseLost, storing nothing, when owner no longer holds it.
	FinishDelivery(ctx context.Context, d Delivery, owner string) error
	// Deliveries lists the deliveries of an incident ("" all), oldest
	// first, the newest limit when limit is positive.
	Deliveries(ctx context.Context, incidentID string, limit int) ([]Delivery, error)
}

// CheckSlot reports whether a Leases accepts key and owner.
func CheckSlot(key SlotKey, owner string) error {
	switch {
	case key.Check == "":
		return errors.New("slot lease: no check")
	case key.Slot.IsZero():
		return fmt.Errorf("slot lease of %s (%s): no slot", key.Check, key.Provider)
	case owner == "":
		return fmt.Errorf("slot lease of %s: no owner", key)
	}
	return nil
}

// CheckSlotRun reports whether cr is the check run of key.
func CheckSlotRun(key SlotKey, cr *promptcanary.CheckRun) error {
	if err := CheckCheckRun(cr); err != nil {
		return err
	}
	if cr.Check != key.Check || cr.Provider != key.Provider || !cr.Slot.Equal(key.Slot) {
		return fmt.Errorf("check run %q is of %s (%s) slot %s, not of %s", cr.ID, cr.Check, cr.Provider,
			cr.Slot.UTC().Format(time.RFC3339Nano), key)
	}
	return nil
}

// CheckStep reports whether an Outbox accepts step: a valid incident, an
// event of it, and deliveries with ids, of it, to a notifier.
func CheckStep(step IncidentStep) error {
	if step.Incident == nil {
		return errors.New("incident step: no incident")
	}
	if err := CheckIncident(step.Incident); err != nil {
		return err
	}
	if step.Event.IncidentID != step.Incident.ID {
		return fmt.Errorf("incident step: event of incident %q, not %q", step.Event.IncidentID, step.Incident.ID)
	}
	for _, d := range step.Deliveries {
		if err := CheckID("delivery", d.ID); err != nil {
			return err
		}
		if d.IncidentID != step.Incident.ID || d.Notifier == "" {
			return fmt.Errorf("delivery %q: of incident %q to notifier %q, want incident %q and a notifier", d.ID, d.IncidentID, d.Notifier, step.Incident.ID)
		}
	}
	return nil
}

// incidentJSON is an incident as MarshalIncident writes it: a float that
// is not a number is null.
type incidentJSON struct {
	promptcanary.Incident
	Units []unitJSON `json:"units,omitempty"`
}

// unitJSON is an IncidentUnit whose floats may be null.
type unitJSON struct {
	Unit     string   `json:"unit"`
	Name     string   `json:"name"`
	Baseline *float64 `json:"baseline"`
	Current  *float64 `json:"current"`
	Q        *float64 `json:"q"`
}

// MarshalIncident encodes inc as JSON, a float that is not a number as
// null: the snapshot of an incident a Delivery carries.
func MarshalIncident(inc *promptcanary.Incident) ([]byte, error) {
	return Marshal(inc)
}

// UnmarshalIncident decodes what MarshalIncident wrote, null floats as
// NaN.
func UnmarshalIncident(b []byte) (promptcanary.Incident, error) {
	var in incidentJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return promptcanary.Incident{}, fmt.Errorf("incident snapshot: %w", err)
	}
	inc := in.Incident
	inc.Units = units(in.Units)
	return inc, nil
}

// UnmarshalUnits decodes incident units written by Marshal, null floats
// as NaN, a null list as nil.
func UnmarshalUnits(b []byte) ([]promptcanary.IncidentUnit, error) {
	var in []unitJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, err
	}
	return units(in), nil
}

// units returns the IncidentUnits of in, nil for nil.
func units(in []unitJSON) []promptcanary.IncidentUnit {
	if in == nil {
		return nil
	}
	out := make([]promptcanary.IncidentUnit, len(in))
	for i, u := range in {
		out[i] = promptcanary.IncidentUnit{Unit: u.Unit, Name: u.Name, Baseline: nan(u.Baseline), Current: nan(u.Current), Q: nan(u.Q)}
	}
	return out
}

// nan is *f, or NaN for nil.
func nan(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}
