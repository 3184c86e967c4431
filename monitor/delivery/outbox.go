// Package delivery sends the monitor's notifications through the store's
// outbox: each step of an incident
// is recorded with one delivery per notifier in one transaction, and
// whichever monitor claims a delivery makes it, with notify.Deliver's
// retries and backoff (a round of attempts). So a notification is sent by
// one monitor however many share the store, and one that was pending when
// its monitor stopped or died is resumed by the next (after its claim
// expires, for a monitor killed mid-delivery: the receiver may then get it
// twice, and dedups by incident id and event, as PagerDuty's dedup_key and
// GitHub's marker do). A round that fails is retried later with a long
// backoff until the delivery is repeat_interval old, then given up; the
// deliveries of one incident to one notifier go in order, so a resolve
// never overtakes its open, and a resolve whose notifier never got a
// firing of the incident is not sent.
package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/notify"
	"github.com/promptcanary/promptcanary/store"
)

// The keys of the outbox's log lines (the monitor's keys).
const (
	logIncident = "incident"
	logEvent    = "event"
	logNotifier = "notifier"
	logErr      = "err"
	logReason   = "reason"
	logSlot     = "slot"
	logDelivery = "delivery"
)

// maxFlights bounds the deliveries one monitor makes at once.
const maxFlights = 16

// A delivery whose round of attempts failed is due again after
// RedeliverBase, doubling with each round up to RedeliverMax.
const (
	RedeliverBase = 5 * time.Minute
	RedeliverMax  = time.Hour
)

// RefusedPrefix starts the LastError of a delivery the notifier refused
// for good: the dashboard and the API show it as is.
const RefusedPrefix = "refused by the notifier, not retried: "

// The reasons a delivery is given up, as GaveUp and the metric
// promptcanary_notifications_failed_total name them.
const (
	// Refused: the notifier refused it with an answer not worth retrying
	// (a 4xx other than 408 and 429: a revoked token, a wrong URL).
	Refused = "refused"
	// Expired: it failed for the whole repeat interval.
	Expired = "expired"
)

// Attempts reads the notification attempts recorded for an incident
// (store.Monitor's Notifications).
type Attempts interface {
	Notifications(ctx context.Context, incidentID string, limit int) ([]promptcanary.NotificationAttempt, error)
}

// Options are what an Outbox needs. Every function is required.
type Options struct {
	// Box is the store's outbox; State reads the attempts of incidents.
	Box   store.Outbox
	State Attempts
	// Owner names this monitor in the claims; a claim stays its own for
	// TTL without an Extend.
	Owner string
	TTL   time.Duration
	// Notifiers are the notifiers deliveries are made to, by name.
	Notifiers []notify.Notifier
	// Policy is the retry policy of one round of attempts; its Record is
	// replaced by the outbox's.
	Policy notify.Policy
	// Repeat is how old a delivery may grow before a failed round gives it
	// up.
	Repeat time.Duration
	Now    func() time.Time
	Log    *slog.Logger
	// Record stores an attempt (its ID the delivery's, its number counted
	// across rounds) and counts it.
	Record func(promptcanary.NotificationAttempt)
	// GaveUp counts a delivery given up, with the reason (Refused,
	// Expired).
	GaveUp func(notifier, reason string)
	// ReportURL links the dashboard's page of an incident, "" for none.
	ReportURL func(incidentID string) string
}

// Outbox is the monitor's side of the store's outbox: it claims the due
// deliveries, makes them, keeps their claims and stores their outcomes.
// Its methods are safe for concurrent use.
type Outbox struct {
	o      Options
	byName map[string]notify.Notifier
	names  []string
	poke   chan struct{} // wakes the loop; buffered
	// ctx ends the deliveries in flight (Stop); cancel ends it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // deliveries in flight
	done   chan struct{}  // closed when the loop returns; nil before Start

	mu      sync.Mutex
	flights map[string]*flight // by delivery id
	changed chan struct{}      // closed, and replaced, when a flight ends
	stopped bool
}

// flight is one delivery this monitor makes.
type flight struct {
	d store.Delivery
	// lost is set, and cancel called, when a heartbeat finds that another
	// monitor claimed the delivery (this one's claim expired).
	lost   atomic.Bool
	cancel context.CancelFunc
	// finishing is set just before the outcome is stored: from then on a
	// heartbeat told the claim is lost may be seeing the delivery
	// finished by this very monitor, and leaves the verdict to finish.
	finishing atomic.Bool
}

// New returns an outbox: deliveries can be made (Drain) before Start.
func New(o Options) *Outbox {
	b := &Outbox{
		o:       o,
		byName:  map[string]notify.Notifier{},
		poke:    make(chan struct{}, 1),
		flights: map[string]*flight{},
		changed: make(chan struct{}),
	}
	for _, n := range o.Notifiers {
		b.byName[n.Name()] = n
		b.names = append(b.names, n.Name())
	}
	b.ctx, b.cancel = context.WithCancel(context.Background())
	return b
}

// Known reports whether the outbox delivers to the notifier name.
func (b *Outbox) Known(name string) bool { return b.byName[name] != nil }

// Names are the notifiers' names, in configuration order.
func (b *Outbox) Names() []string { return b.names }

// Wake asks the outbox's loop to claim what is due; it never blocks.
func (b *Outbox) Wake() {
	select {
	case b.poke <- struct{}{}:
	default:
	}
}

// Start runs the loop that claims the due deliveries whenever it is
// woken: by a new step, by a delivery that ends, by the ticker.
func (b *Outbox) Start() {
	b.done = make(chan struct{})
	go func() {
		defer close(b.done)
		for {
			select {
			case <-b.ctx.Done():
				return
			case <-b.poke:
			}
			b.pump()
		}
	}()
}

// Stop delivers what is due within grace (or until ctx ends), then
// ends the deliveries in flight: each records its interrupted attempt and
// goes back to the outbox, due at once for the next monitor.
func (b *Outbox) Stop(ctx context.Context, grace time.Duration) {
	if grace > 0 {
		if err := b.Drain(ctx, grace); err != nil {
			b.o.Log.Warn("notifications given up at shutdown: the next monitor resumes them", logErr, err)
		}
	}
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	b.cancel()
	if b.done != nil {
		<-b.done
	}
	b.wg.Wait()
}

// Drain delivers the due notifications and waits for them until none is
// due or in flight, ctx ends or grace passes. A delivery whose round
// failed is not waited for: it is due again later.
func (b *Outbox) Drain(ctx context.Context, grace time.Duration) error {
	dctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	for {
		// changed is read before pump: a delivery pump starts may end
		// before the flights are counted, and then it is closed already.
		b.mu.Lock()
		changed := b.changed
		b.mu.Unlock()
		started := b.pump()
		b.mu.Lock()
		n := len(b.flights)
		b.mu.Unlock()
		if started == 0 && n == 0 {
			return nil
		}
		select {
		case <-changed:
		case <-dctx.Done():
			return fmt.Errorf("deliver the notifications in the queue: %d deliveries pending: %w", n, dctx.Err())
		}
	}
}

// pump claims the deliveries due now, as many as there is room for, and
// starts them; it returns how many it claimed.
func (b *Outbox) pump() int {
	b.mu.Lock()
	room := maxFlights - len(b.flights)
	stopped := b.stopped
	b.mu.Unlock()
	if room <= 0 || stopped || len(b.names) == 0 {
		return 0
	}
	ds, err := b.o.Box.ClaimDeliveries(b.ctx, b.o.Owner, b.names, b.o.Now(), b.o.TTL, room)
	if err != nil {
		if b.ctx.Err() == nil {
			b.o.Log.Warn("claim the due notifications", logErr, err)
		}
		return 0
	}
	for _, d := range ds {
		b.fly(d)
	}
	return len(ds)
}

// fly starts the delivery d, unless it is in flight already (its claim
// expired on this monitor's clock and was claimed again: the heartbeat
// was late).
func (b *Outbox) fly(d store.Delivery) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.flights[d.ID]; ok || b.stopped {
		return
	}
	ctx, cancel := context.WithCancel(b.ctx)
	f := &flight{d: d, cancel: cancel}
	b.flights[d.ID] = f
	b.wg.Go(func() {
		defer cancel()
		b.deliver(ctx, f)
		b.mu.Lock()
		delete(b.flights, d.ID)
		close(b.changed)
		b.changed = make(chan struct{})
		b.mu.Unlock()
		b.Wake() // the next delivery of its lane is due
	})
}

// deliver makes one round of attempts at f's delivery (notify.Deliver's
// retries and backoff) and stores the outcome.
func (b *Outbox) deliver(ctx context.Context, f *flight) {
	d := f.d
	if d.Status == promptcanary.NotificationResolved && !b.openSent(ctx, d) {
		d.State, d.DoneBy, d.DoneAt = store.DeliveryFailed, b.o.Owner, b.o.Now().UTC()
		d.LastError = "not sent: the notifier was never sent a firing of this incident"
		b.o.Log.Info("resolve not sent: its open never reached the notifier", logIncident, d.IncidentID, logNotifier, d.Notifier)
		b.finish(f, d)
		return
	}
	p := b.o.Policy
	p.Record = func(a promptcanary.NotificationAttempt) {
		a.ID, a.Attempt = d.ID, d.Attempts+a.Attempt
		b.o.Record(a)
	}
	m := notify.Message{Status: d.Status, Event: d.Event, Incident: d.Incident, ReportURL: b.o.ReportURL(d.IncidentID)}
	out := notify.Deliver(ctx, b.byName[d.Notifier], m, p) // until the round ends, or ctx does (Stop, a lost claim)
	d.Attempts += out.Attempts
	d.LastError = out.LastError
	b.conclude(ctx, f, d, out)
}

// conclude stores the outcome of a round of attempts at f's delivery d
// (Attempts and LastError updated): sent, failed for good, or due again
// later; nothing when another monitor claimed it meanwhile.
func (b *Outbox) conclude(ctx context.Context, f *flight, d store.Delivery, r notify.Outcome) {
	now := b.o.Now().UTC()
	switch {
	case r.OK:
		d.State, d.DoneBy, d.DoneAt, d.LastError = store.DeliverySent, b.o.Owner, now, ""
	case f.lost.Load():
		return // another monitor delivers it
	case ctx.Err() != nil:
		// Stopping: back to the outbox, due at once for the next monitor.
		d.NextAttemptAt = now
	case r.Refused:
		// Retrying an answer such as a revoked token for the whole repeat
		// interval would only hide it: the delivery fails at once.
		d.State, d.DoneBy, d.DoneAt = store.DeliveryFailed, b.o.Owner, now
		d.LastError = RefusedPrefix + d.LastError
		b.o.GaveUp(d.Notifier, Refused)
		b.o.Log.Error("notification failed for good: the notifier refused it, fix its configuration", logIncident, d.IncidentID,
			logNotifier, d.Notifier, logEvent, string(d.Event), logDelivery, d.ID, logReason, d.LastError)
	case r.Attempts == 0:
		d.State, d.DoneBy, d.DoneAt = store.DeliveryFailed, b.o.Owner, now
		d.LastError = "not sent: below the notifier's min_severity"
	default:
		d.Rounds++
		if now.Sub(d.CreatedAt) >= b.o.Repeat {
			d.State, d.DoneBy, d.DoneAt = store.DeliveryFailed, b.o.Owner, now
			b.o.GaveUp(d.Notifier, Expired)
			b.o.Log.Error("notification given up: it failed for the whole repeat interval", logIncident, d.IncidentID, logNotifier, d.Notifier,
				logEvent, string(d.Event), logDelivery, d.ID, logReason, d.LastError)
		} else {
			d.NextAttemptAt = now.Add(redeliverDelay(d.Rounds))
			b.o.Log.Warn("notification failed: retried later", logIncident, d.IncidentID, logNotifier, d.Notifier,
				logEvent, string(d.Event), logDelivery, d.ID, logSlot, d.NextAttemptAt, logReason, d.LastError)
		}
	}
	b.finish(f, d)
}

// redeliverDelay is the wait after the rounds-th failed round.
func redeliverDelay(rounds int) time.Duration {
	d := RedeliverBase
	for i := 1; i < rounds && d < RedeliverMax; i++ {
		d *= 2
	}
	return min(d, RedeliverMax)
}

// openSent reports whether d's notifier accepted a firing of d's
// incident (the attempts of the notifications table, which also hold
// those made before the outbox existed). When the store cannot tell, it
// says yes: a resolve too many beats a page left open.
func (b *Outbox) openSent(ctx context.Context, d store.Delivery) bool {
	attempts, err := b.o.State.Notifications(ctx, d.IncidentID, 0)
	if err != nil {
		b.o.Log.Warn("read the incident's notifications", logIncident, d.IncidentID, logErr, err)
		return true
	}
	return slices.ContainsFunc(attempts, func(a promptcanary.NotificationAttempt) bool {
		return a.OK && a.Notifier == d.Notifier && a.Status == promptcanary.NotificationFiring
	})
}

// finish stores d, the outcome of f, a delivery this monitor claimed.
func (b *Outbox) finish(f *flight, d store.Delivery) {
	f.finishing.Store(true)
	err := b.o.Box.FinishDelivery(context.Background(), d, b.o.Owner)
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		b.o.Log.Warn("delivery taken over by another monitor", logIncident, d.IncidentID, logNotifier, d.Notifier, logDelivery, d.ID, logErr, err)
	case err != nil:
		b.o.Log.Error("record the delivery", logIncident, d.IncidentID, logNotifier, d.Notifier, logDelivery, d.ID, logErr, err)
	}
}

// Extend extends this monitor's claims on the deliveries in flight to
// until; a delivery another monitor claimed meanwhile is abandoned here.
func (b *Outbox) Extend(ctx context.Context, until time.Time) {
	b.mu.Lock()
	flights := make([]*flight, 0, len(b.flights))
	for _, f := range b.flights {
		flights = append(flights, f)
	}
	b.mu.Unlock()
	for _, f := range flights {
		err := b.o.Box.ExtendDelivery(ctx, f.d.ID, b.o.Owner, until)
		switch {
		case errors.Is(err, store.ErrLeaseLost) && f.finishing.Load():
			// Finished by this monitor, or claimed by another: finish says which.
		case errors.Is(err, store.ErrLeaseLost):
			if f.lost.CompareAndSwap(false, true) {
				b.o.Log.Warn("delivery claimed by another monitor: abandoned here", logIncident, f.d.IncidentID, logNotifier, f.d.Notifier, logErr, err)
				f.cancel()
			}
		case err != nil && ctx.Err() == nil:
			b.o.Log.Warn("extend the claim on a delivery", logIncident, f.d.IncidentID, logNotifier, f.d.Notifier, logErr, err)
		}
	}
}
