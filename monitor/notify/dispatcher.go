package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/suggest"
)

// The dispatcher's defaults.
const (
	DefaultInitialBackoff = time.Second
	DefaultMaxBackoff     = 5 * time.Minute
	DefaultAttempts       = 8
	DefaultTimeout        = 10 * time.Second
)

// maxErrorText bounds the error text of a recorded attempt, in bytes.
const maxErrorText = 500

// Log keys of the dispatcher's records.
const (
	logNotifier = "notifier"
	logIncident = "incident"
	logEvent    = "event"
	logAttempt  = "attempt"
	logCode     = "code"
	logError    = "error"
	logDelay    = "delay"
)

// Backoff is the retry policy of a delivery: the delay before attempt n+1
// is Initial·2^(n-1), at most Max, with ±20% jitter; a Retry-After the
// server sends replaces it (capped at Max too). Zero fields take the
// defaults (1s, 5m, 8 attempts).
type Backoff struct {
	Initial  time.Duration
	Max      time.Duration
	Attempts int
}

// DispatcherOptions configures a Dispatcher. Every field is optional.
type DispatcherOptions struct {
	// Record is called with every attempt, one call at a time (the
	// dispatcher serialises them), from the delivering goroutine.
	Record func(promptcanary.NotificationAttempt)
	// GaveUp, when set, is called once for a delivery whose attempts stop
	// without success (not when Run ends first), with its last attempt;
	// refused is set when the notifier refused it for good (an answer not
	// worth retrying: a 4xx other than 408 and 429, such as a revoked
	// token), clear when the attempts ran out.
	GaveUp  func(last promptcanary.NotificationAttempt, refused bool)
	Backoff Backoff
	// Timeout bounds each attempt (default 10s), so that a server that
	// hangs cannot hold a delivery forever.
	Timeout time.Duration
	// Now stamps attempts (default time.Now).
	Now func() time.Time
	// Sleep waits d between attempts, or less when ctx ends (returning its
	// error); tests replace it so that no test waits for real.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for the jitter (default math/rand).
	Rand func() float64
	// Scrub removes secrets from error texts before they are recorded or
	// logged (typically a redact.Set's String); notifiers scrub their own
	// secrets already.
	Scrub func(string) string
	// Logger logs deliveries that fail or give up (nil: discard).
	Logger *slog.Logger
}

// Dispatcher delivers messages to notifiers in the background. Enqueue
// never blocks: the queue is unbounded (a monitor's incidents are few, and
// a dropped resolve would leave a page open). Deliveries to different
// notifiers, and of different incidents to one notifier, run concurrently,
// so neither a slow notifier nor one incident's backoff delays any other;
// the messages of one incident reach one notifier in the order they were
// enqueued (an open before its resolve).
//
// Deliveries start as soon as they are enqueued; Run bounds their
// lifetime and Drain waits for them.
type Dispatcher struct {
	o         DispatcherOptions
	notifiers map[string]Notifier
	names     []string

	ctx    context.Context // ends when Run's context ends
	cancel context.CancelFunc
	wg     sync.WaitGroup
	recMu  sync.Mutex // serialises o.Record

	mu      sync.Mutex
	lanes   map[laneKey]*lane
	pending int           // deliveries queued or in progress
	idle    chan struct{} // closed when pending drops to 0
	stopped bool
}

// laneKey orders deliveries: one lane per notifier and incident.
type laneKey struct{ notifier, incident string }

// lane is the queue of one notifier and incident; at most one goroutine
// works it.
type lane struct{ queue []*delivery }

// delivery is one message for one notifier; its attempts share id.
type delivery struct {
	id       string
	n        Notifier
	m        Message
	attempts int
}

// NewDispatcher returns a dispatcher over the notifiers ns, keyed by their
// names (a later notifier of the same name replaces an earlier one).
func NewDispatcher(ns []Notifier, o DispatcherOptions) *Dispatcher {
	if o.Backoff.Initial <= 0 {
		o.Backoff.Initial = DefaultInitialBackoff
	}
	if o.Backoff.Max <= 0 {
		o.Backoff.Max = DefaultMaxBackoff
	}
	o.Backoff.Max = max(o.Backoff.Max, o.Backoff.Initial)
	if o.Backoff.Attempts <= 0 {
		o.Backoff.Attempts = DefaultAttempts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Scrub == nil {
		o.Scrub = func(s string) string { return s }
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	d := &Dispatcher{o: o, notifiers: map[string]Notifier{}, lanes: map[laneKey]*lane{}}
	for _, n := range ns {
		d.notifiers[n.Name()] = n
	}
	for name := range d.notifiers {
		d.names = append(d.names, name)
	}
	slices.Sort(d.names)
	d.ctx, d.cancel = context.WithCancel(context.Background())
	return d
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Enqueue queues m for each notifier named in to that Wants it (a firing
// message below a notifier's MinSeverity is skipped), and returns at once.
// An unknown name, or an Enqueue after Run has ended, is recorded as a
// failed attempt: the message is not lost silently.
func (d *Dispatcher) Enqueue(m Message, to []string) {
	for _, name := range to {
		n, ok := d.notifiers[name]
		if !ok {
			d.fail(name, m, fmt.Sprintf("unknown notifier %q%s", name, suggest.Hint(name, d.names)))
			continue
		}
		if !Wants(n, m) {
			d.o.Logger.Debug("notification below the notifier's min_severity", logNotifier, name, logIncident, m.Incident.ID)
			continue
		}
		dl := &delivery{id: promptcanary.NewID(), n: n, m: cloneMessage(m)}
		d.mu.Lock()
		if d.stopped {
			d.mu.Unlock()
			d.fail(name, m, "not sent: the dispatcher has stopped")
			continue
		}
		key := laneKey{name, m.Incident.ID}
		l, working := d.lanes[key]
		if !working {
			l = &lane{}
			d.lanes[key] = l
		}
		l.queue = append(l.queue, dl)
		if d.pending == 0 {
			d.idle = make(chan struct{})
		}
		d.pending++
		if !working {
			d.wg.Add(1)
			go d.work(key, l)
		}
		d.mu.Unlock()
	}
}

// cloneMessage copies m's slices, so that a caller changing its incident
// after Enqueue does not change what is sent.
func cloneMessage(m Message) Message {
	m.Incident.Units = slices.Clone(m.Incident.Units)
	m.Incident.NotifiedTo = slices.Clone(m.Incident.NotifiedTo)
	return m
}

// fail records a message that could not be handed to a notifier.
func (d *Dispatcher) fail(name string, m Message, msg string) {
	d.o.Logger.Warn("notification not sent", logNotifier, name, logIncident, m.Incident.ID, logError, msg)
	d.record(promptcanary.NotificationAttempt{
		ID: promptcanary.NewID(), IncidentID: m.Incident.ID, Notifier: name,
		Status: m.Status, Event: m.Event, Attempt: 1, At: d.o.Now(), Error: msg,
	})
}

// work delivers a lane's messages in order until the lane is empty.
func (d *Dispatcher) work(key laneKey, l *lane) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		if len(l.queue) == 0 {
			delete(d.lanes, key)
			d.mu.Unlock()
			return
		}
		dl := l.queue[0]
		l.queue[0] = nil
		l.queue = l.queue[1:]
		d.mu.Unlock()

		d.deliver(dl)

		d.mu.Lock()
		d.pending--
		if d.pending == 0 {
			close(d.idle)
		}
		d.mu.Unlock()
	}
}

// deliver makes the attempts of one delivery: until one succeeds, one
// fails for good, the attempts run out or Run ends.
func (d *Dispatcher) deliver(dl *delivery) {
	name := dl.n.Name()
	for {
		if d.ctx.Err() != nil {
			d.abandon(dl)
			return
		}
		dl.attempts++
		at := d.o.Now()
		ctx, cancel := context.WithTimeout(d.ctx, d.o.Timeout)
		code, err := dl.n.Send(ctx, dl.m)
		timedOut := err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && d.ctx.Err() == nil
		cancel()
		a := promptcanary.NotificationAttempt{
			ID: dl.id, IncidentID: dl.m.Incident.ID, Notifier: name, Status: dl.m.Status,
			Event: dl.m.Event, Attempt: dl.attempts, At: at, OK: err == nil, Code: code,
		}
		if err != nil {
			msg := err.Error()
			if timedOut {
				msg = fmt.Sprintf("timed out after %s: %s", d.o.Timeout, msg)
			}
			a.Error = d.errorText(msg)
		}
		d.record(a)
		if err == nil {
			d.o.Logger.Debug("notification sent", logNotifier, name, logIncident, a.IncidentID, logEvent, a.Event, logAttempt, a.Attempt)
			return
		}
		if d.ctx.Err() != nil {
			// Interrupted by Run's end: this attempt is recorded, and no
			// other is made.
			return
		}
		retry, after := retryable(code, err)
		retry = retry || timedOut
		if !retry || dl.attempts >= d.o.Backoff.Attempts {
			reason := "not retryable"
			if retry {
				reason = "attempts exhausted"
			}
			d.o.Logger.Warn("notification failed: "+reason, logNotifier, name, logIncident, a.IncidentID, logEvent, a.Event, logAttempt, a.Attempt, logCode, code, logError, a.Error)
			if d.o.GaveUp != nil {
				d.o.GaveUp(a, !retry)
			}
			return
		}
		delay := d.delay(dl.attempts, after)
		d.o.Logger.Info("notification failed, retrying", logNotifier, name, logIncident, a.IncidentID, logAttempt, a.Attempt, logCode, code, logError, a.Error, logDelay, delay)
		if d.o.Sleep(d.ctx, delay) != nil || d.ctx.Err() != nil {
			d.abandon(dl)
			return
		}
	}
}

// abandon records that Run ended before the delivery succeeded, as one
// more attempt that reached nobody.
func (d *Dispatcher) abandon(dl *delivery) {
	msg := "not sent: the dispatcher stopped before the first attempt"
	if dl.attempts > 0 {
		msg = fmt.Sprintf("not sent: the dispatcher stopped after attempt %d", dl.attempts)
	}
	d.o.Logger.Warn("notification abandoned", logNotifier, dl.n.Name(), logIncident, dl.m.Incident.ID, logError, msg)
	d.record(promptcanary.NotificationAttempt{
		ID: dl.id, IncidentID: dl.m.Incident.ID, Notifier: dl.n.Name(), Status: dl.m.Status,
		Event: dl.m.Event, Attempt: dl.attempts + 1, At: d.o.Now(), Error: msg,
	})
}

// retryable tells whether an attempt that failed with code and err is
// worth another, and the delay the server asked for. A notifier's *Error
// says so itself; otherwise no answer, 408, 429 and 5xx are retried and
// other statuses (4xx: a wrong URL, key or payload) are not.
func retryable(code int, err error) (bool, time.Duration) {
	var e *Error
	if errors.As(err, &e) {
		return e.Retryable, e.RetryAfter
	}
	return code == 0 || httpc.RetryableStatus(code), 0
}

// delay is the wait after attempt n: the server's Retry-After when it
// sent one, else the jittered exponential backoff; at most Max.
func (d *Dispatcher) delay(n int, after time.Duration) time.Duration {
	b := d.o.Backoff
	if after > 0 {
		return min(after, b.Max)
	}
	base := b.Initial
	for i := 1; i < n && base < b.Max; i++ {
		base *= 2
	}
	base = min(base, b.Max)
	jittered := time.Duration(float64(base) * (0.8 + 0.4*d.o.Rand()))
	return min(jittered, b.Max)
}

// errorText makes an error fit for the store: scrubbed, one line, bounded.
func (d *Dispatcher) errorText(msg string) string {
	msg = d.o.Scrub(msg)
	msg = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, msg)
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > maxErrorText {
		cut := maxErrorText - len("…")
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// record hands a to o.Record, one call at a time.
func (d *Dispatcher) record(a promptcanary.NotificationAttempt) {
	if d.o.Record == nil {
		return
	}
	d.recMu.Lock()
	defer d.recMu.Unlock()
	d.o.Record(a)
}

// Run returns when ctx ends, and then stops the dispatcher: attempts in
// flight are interrupted, deliveries waiting to be attempted are recorded
// as not sent, and later Enqueues are recorded as failed. Call Drain
// before ending ctx to let queued deliveries finish. Run waits for the
// dispatcher's goroutines to end before it returns.
func (d *Dispatcher) Run(ctx context.Context) {
	<-ctx.Done()
	d.mu.Lock()
	d.stopped = true
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
}

// Drain waits until every delivery enqueued so far has succeeded or failed
// for good (including retries), or until ctx ends, which it reports with
// the number of deliveries still pending.
func (d *Dispatcher) Drain(ctx context.Context) error {
	d.mu.Lock()
	if d.pending == 0 {
		d.mu.Unlock()
		return nil
	}
	idle := d.idle
	d.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		d.mu.Lock()
		n := d.pending
		d.mu.Unlock()
		if n == 0 {
			return nil
		}
		return fmt.Errorf("drain notifications: %d deliveries pending: %w", n, ctx.Err())
	}
}
