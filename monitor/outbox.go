package monitor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/monitor/notify"
	"github.com/promptcanary/promptcanary/store"
)

// Notifications go through the store's outbox: each step of an incident
// is recorded with one delivery per notifier in one transaction, and
// whichever monitor claims a delivery makes it, with the notify package's
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

// maxFlights bounds the deliveries one monitor makes at once.
const maxFlights = 16

// A delivery whose round of attempts failed is due again after
// redeliverBase, doubling with each round up to redeliverMax.
const (
	redeliverBase = 5 * time.Minute
	redeliverMax  = time.Hour
)

// refusedPrefix starts the LastError of a delivery the notifier refused
// for good: the dashboard and the API show it as is.
const refusedPrefix = "refused by the notifier, not retried: "

// outbox is the monitor's side of the store's outbox.
type outbox struct {
	poke chan struct{} // wakes the loop; buffered
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

// initOutbox prepares the outbox: deliveries can start (Once) before
// Start.
func (m *Monitor) initOutbox() {
	m.ob.poke = make(chan struct{}, 1)
	m.ob.ctx, m.ob.cancel = context.WithCancel(context.Background())
	m.ob.flights = map[string]*flight{}
	m.ob.changed = make(chan struct{})
}

// wake asks the outbox's loop to claim what is due; it never blocks.
func (m *Monitor) wake() {
	select {
	case m.ob.poke <- struct{}{}:
	default:
	}
}

// startOutbox runs the loop that claims the due deliveries whenever it is
// woken: by a new step, by a delivery that ends, by the ticker.
func (m *Monitor) startOutbox() {
	m.ob.done = make(chan struct{})
	go func() {
		defer close(m.ob.done)
		for {
			select {
			case <-m.ob.ctx.Done():
				return
			case <-m.ob.poke:
			}
			m.pump()
		}
	}()
}

// stopOutbox delivers what is due within grace (or until ctx ends), then
// ends the deliveries in flight: each records its interrupted attempt and
// goes back to the outbox, due at once for the next monitor.
func (m *Monitor) stopOutbox(ctx context.Context, grace time.Duration) {
	if grace > 0 {
		if err := m.drain(ctx, grace); err != nil {
			m.log.Warn("notifications given up at shutdown: the next monitor resumes them", logErr, err)
		}
	}
	m.ob.mu.Lock()
	m.ob.stopped = true
	m.ob.mu.Unlock()
	m.ob.cancel()
	if m.ob.done != nil {
		<-m.ob.done
	}
	m.ob.wg.Wait()
}

// drain delivers the due notifications and waits for them until none is
// due or in flight, ctx ends or grace passes. A delivery whose round
// failed is not waited for: it is due again later.
func (m *Monitor) drain(ctx context.Context, grace time.Duration) error {
	dctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	for {
		started := m.pump()
		m.ob.mu.Lock()
		n, changed := len(m.ob.flights), m.ob.changed
		m.ob.mu.Unlock()
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
func (m *Monitor) pump() int {
	m.ob.mu.Lock()
	room := maxFlights - len(m.ob.flights)
	stopped := m.ob.stopped
	m.ob.mu.Unlock()
	if room <= 0 || stopped || len(m.notifiers) == 0 {
		return 0
	}
	ds, err := m.box.ClaimDeliveries(m.ob.ctx, m.owner, m.notifierNames, m.now(), m.ttl, room)
	if err != nil {
		if m.ob.ctx.Err() == nil {
			m.log.Warn("claim the due notifications", logErr, err)
		}
		return 0
	}
	for _, d := range ds {
		m.fly(d)
	}
	return len(ds)
}

// fly starts the delivery d, unless it is in flight already (its claim
// expired on this monitor's clock and was claimed again: the heartbeat
// was late).
func (m *Monitor) fly(d store.Delivery) {
	m.ob.mu.Lock()
	defer m.ob.mu.Unlock()
	if _, ok := m.ob.flights[d.ID]; ok || m.ob.stopped {
		return
	}
	ctx, cancel := context.WithCancel(m.ob.ctx)
	f := &flight{d: d, cancel: cancel}
	m.ob.flights[d.ID] = f
	m.ob.wg.Go(func() {
		defer cancel()
		m.deliver(ctx, f)
		m.ob.mu.Lock()
		delete(m.ob.flights, d.ID)
		close(m.ob.changed)
		m.ob.changed = make(chan struct{})
		m.ob.mu.Unlock()
		m.wake() // the next delivery of its lane is due
	})
}

// deliver makes one round of attempts at f's delivery through a
// dispatcher of its own (the notify package's retries and backoff) and
// stores the outcome.
func (m *Monitor) deliver(ctx context.Context, f *flight) {
	d := f.d
	if d.Status == promptcanary.NotificationResolved && !m.openSent(ctx, d) {
		d.State, d.DoneBy, d.DoneAt = store.DeliveryFailed, m.owner, m.now().UTC()
		d.LastError = "not sent: the notifier was never sent a firing of this incident"
		m.log.Info("resolve not sent: its open never reached the notifier", logIncident, d.IncidentID, logNotifier, d.Notifier)
		m.finish(f, d)
		return
	}
	var (
		mu       sync.Mutex
		attempts int
		ok       bool
		refused  bool
		lastErr  string
	)
	o := m.dispOpts
	o.Record = func(a promptcanary.NotificationAttempt) {
		n := a.Attempt
		a.ID, a.Attempt = d.ID, d.Attempts+a.Attempt
		m.recordAttempt(a)
		mu.Lock()
		attempts = max(attempts, n)
		ok = ok || a.OK
		if !a.OK {
			lastErr = a.Error
		}
		mu.Unlock()
	}
	o.GaveUp = func(_ promptcanary.NotificationAttempt, r bool) {
		mu.Lock()
		refused = r
		mu.Unlock()
	}
	disp := notify.NewDispatcher([]notify.Notifier{m.notifierByName[d.Notifier]}, o)
	rctx, stop := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		disp.Run(rctx)
	}()
	disp.Enqueue(notify.Message{Status: d.Status, Event: d.Event, Incident: d.Incident, ReportURL: m.reportURL(d.IncidentID)}, []string{d.Notifier})
	_ = disp.Drain(ctx) // until the round ends, or ctx does (Stop, a lost claim)
	stop()
	<-ran

	mu.Lock()
	d.Attempts += attempts
	d.LastError = lastErr
	r := round{ok: ok, refused: refused, attempts: attempts}
	mu.Unlock()
	m.conclude(ctx, f, d, r)
}

// round is what one round of attempts at a delivery came to.
type round struct {
	ok, refused bool
	attempts    int
}

// conclude stores the outcome of a round of attempts at f's delivery d
// (Attempts and LastError updated): sent, failed for good, or due again
// later; nothing when another monitor claimed it meanwhile.
func (m *Monitor) conclude(ctx context.Context, f *flight, d store.Delivery, r round) {
	now := m.now().UTC()
	switch {
	case r.ok:
		d.State, d.DoneBy, d.DoneAt, d.LastError = store.DeliverySent, m.owner, now, ""
	case f.lost.Load():
		return // another monitor delivers it
	case ctx.Err() != nil:
		// Stopping: back to the outbox, due at once for the next monitor.
		d.NextAttemptAt = now
	case r.refused:
		// Retrying an answer such as a revoked token for the whole repeat
		// interval would only hide it: the delivery fails at once.
		d.State, d.DoneBy, d.DoneAt = store.DeliveryFailed, m.owner, now
		d.LastError = refusedPrefix + d.LastError
		m.metrics.observeGiveUp(d.Notifier, giveUpRefused)
		m.log.Error("notification failed for good: the notifier refused it, fix its configuration", logIncident, d.IncidentID,
			logNotifier, d.Notifier, logEvent, string(d.Event), logDelivery, d.ID, logReason, d.LastError)
	case r.attempts == 0:
		d.State, d.DoneBy, d.DoneAt = store.DeliveryFailed, m.owner, now
		d.LastError = "not sent: below the notifier's min_severity"
	default:
		d.Rounds++
		if now.Sub(d.CreatedAt) >= m.repeat {
			d.State, d.DoneBy, d.DoneAt = store.DeliveryFailed, m.owner, now
			m.metrics.observeGiveUp(d.Notifier, giveUpExpired)
			m.log.Error("notification given up: it failed for the whole repeat interval", logIncident, d.IncidentID, logNotifier, d.Notifier,
				logEvent, string(d.Event), logDelivery, d.ID, logReason, d.LastError)
		} else {
			d.NextAttemptAt = now.Add(redeliverDelay(d.Rounds))
			m.log.Warn("notification failed: retried later", logIncident, d.IncidentID, logNotifier, d.Notifier,
				logEvent, string(d.Event), logDelivery, d.ID, logSlot, d.NextAttemptAt, logReason, d.LastError)
		}
	}
	m.finish(f, d)
}

// redeliverDelay is the wait after the rounds-th failed round.
func redeliverDelay(rounds int) time.Duration {
	d := redeliverBase
	for i := 1; i < rounds && d < redeliverMax; i++ {
		d *= 2
	}
	return min(d, redeliverMax)
}

// openSent reports whether d's notifier accepted a firing of d's
// incident (the attempts of the notifications table, which also hold
// those made before the outbox existed). When the store cannot tell, it
// says yes: a resolve too many beats a page left open.
func (m *Monitor) openSent(ctx context.Context, d store.Delivery) bool {
	attempts, err := m.state.Notifications(ctx, d.IncidentID, 0)
	if err != nil {
		m.log.Warn("read the incident's notifications", logIncident, d.IncidentID, logErr, err)
		return true
	}
	return slices.ContainsFunc(attempts, func(a promptcanary.NotificationAttempt) bool {
		return a.OK && a.Notifier == d.Notifier && a.Status == promptcanary.NotificationFiring
	})
}

// finish stores d, the outcome of f, a delivery this monitor claimed.
func (m *Monitor) finish(f *flight, d store.Delivery) {
	f.finishing.Store(true)
	err := m.box.FinishDelivery(context.Background(), d, m.owner)
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		m.log.Warn("delivery taken over by another monitor", logIncident, d.IncidentID, logNotifier, d.Notifier, logDelivery, d.ID, logErr, err)
	case err != nil:
		m.log.Error("record the delivery", logIncident, d.IncidentID, logNotifier, d.Notifier, logDelivery, d.ID, logErr, err)
	}
}

// extendDeliveries extends this monitor's claims on the deliveries in
// flight to until; a delivery another monitor claimed meanwhile is
// abandoned here.
func (m *Monitor) extendDeliveries(ctx context.Context, until time.Time) {
	m.ob.mu.Lock()
	flights := make([]*flight, 0, len(m.ob.flights))
	for _, f := range m.ob.flights {
		flights = append(flights, f)
	}
	m.ob.mu.Unlock()
	for _, f := range flights {
		err := m.box.ExtendDelivery(ctx, f.d.ID, m.owner, until)
		switch {
		case errors.Is(err, store.ErrLeaseLost) && f.finishing.Load():
			// Finished by this monitor, or claimed by another: finish says which.
		case errors.Is(err, store.ErrLeaseLost):
			if f.lost.CompareAndSwap(false, true) {
				m.log.Warn("delivery claimed by another monitor: abandoned here", logIncident, f.d.IncidentID, logNotifier, f.d.Notifier, logErr, err)
				f.cancel()
			}
		case err != nil && ctx.Err() == nil:
			m.log.Warn("extend the claim on a delivery", logIncident, f.d.IncidentID, logNotifier, f.d.Notifier, logErr, err)
		}
	}
}

// step returns the step of inc's lifecycle t (a notification of status
// for each notifier in to that this monitor knows), with its event. A
// notifier it does not know is recorded as a failed attempt by noteUnknown
// once the step is stored.
func (m *Monitor) step(inc *promptcanary.Incident, t promptcanary.IncidentEventType, runID, summary string,
	status promptcanary.NotificationStatus, to []string) (store.IncidentStep, []string) {
	now := m.now().UTC()
	st := store.IncidentStep{
		Incident: inc,
		Event:    promptcanary.IncidentEvent{IncidentID: inc.ID, At: now, Type: t, RunID: runID, Severity: inc.Severity, Summary: m.line(summary)},
	}
	var unknown []string
	for _, name := range to {
		if m.notifierByName[name] == nil {
			unknown = append(unknown, name)
			continue
		}
		st.Deliveries = append(st.Deliveries, store.Delivery{ID: promptcanary.NewID(), IncidentID: inc.ID, Notifier: name,
			Status: status, Event: t, CreatedAt: now})
	}
	return st, unknown
}

// noteUnknown records a failed attempt for each notifier of a stored
// step that this monitor does not know (removed from monitor.yaml since
// the incident opened).
func (m *Monitor) noteUnknown(st store.IncidentStep, status promptcanary.NotificationStatus, unknown []string) {
	for _, name := range unknown {
		m.recordAttempt(promptcanary.NotificationAttempt{
			ID: promptcanary.NewID(), IncidentID: st.Incident.ID, Notifier: name, Status: status, Event: st.Event.Type,
			Attempt: 1, At: st.Event.At, Error: fmt.Sprintf("unknown notifier %q%s", name, suggest.Hint(name, m.notifierNames)),
		})
	}
}
