package delivery

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/notify"
	"github.com/promptcanary/promptcanary/store"
)

var epoch = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

// clock is a clock tests move by hand: nanoseconds after epoch.
type clock struct{ since atomic.Int64 }

func (c *clock) Now() time.Time          { return epoch.Add(time.Duration(c.since.Load())) }
func (c *clock) Advance(d time.Duration) { c.since.Add(int64(d)) }

// fakeBox is a store.Outbox of deliveries in memory that claims as the
// stores do (pending, due, unclaimed or expired, addressed to a notifier
// asked for, first pending of its incident and notifier) and lets only
// the claim's owner extend or finish it. The methods the outbox never
// calls panic.
type fakeBox struct {
	store.Outbox
	clock *clock
	mu    sync.Mutex
	ds    []store.Delivery
	// claims counts the claims of each delivery; finished its outcomes.
	claims    map[string]int
	finished  []store.Delivery
	finishers []string // the owner of every FinishDelivery, stored or not
}

func newBox(c *clock, ds ...store.Delivery) *fakeBox {
	return &fakeBox{clock: c, ds: ds, claims: map[string]int{}}
}

func (b *fakeBox) ClaimDeliveries(_ context.Context, owner string, notifiers []string, now time.Time, ttl time.Duration, limit int) ([]store.Delivery, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []store.Delivery
	lanes := map[[2]string]bool{}
	for i := range b.ds {
		d := &b.ds[i]
		if d.State != store.DeliveryPending {
			continue
		}
		lane := [2]string{d.IncidentID, d.Notifier}
		first := !lanes[lane]
		lanes[lane] = true
		claimed := d.ClaimedBy != "" && now.Before(d.ClaimExpiresAt)
		if !first || claimed || d.NextAttemptAt.After(now) || !slices.Contains(notifiers, d.Notifier) || len(out) == limit {
			continue
		}
		d.ClaimedBy, d.ClaimExpiresAt = owner, now.Add(ttl)
		b.claims[d.ID]++
		out = append(out, *d)
	}
	return out, nil
}

func (b *fakeBox) ExtendDelivery(_ context.Context, id, owner string, until time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := b.find(id)
	if d == nil || d.ClaimedBy != owner {
		return store.ErrLeaseLost
	}
	d.ClaimExpiresAt = until
	return nil
}

func (b *fakeBox) FinishDelivery(_ context.Context, f store.Delivery, owner string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.finishers = append(b.finishers, owner)
	d := b.find(f.ID)
	if d == nil || d.ClaimedBy != owner {
		return store.ErrLeaseLost
	}
	d.State, d.Attempts, d.Rounds, d.NextAttemptAt, d.DoneBy, d.DoneAt, d.LastError = f.State, f.Attempts, f.Rounds, f.NextAttemptAt, f.DoneBy, f.DoneAt, f.LastError
	d.ClaimedBy, d.ClaimExpiresAt = "", time.Time{}
	b.finished = append(b.finished, *d)
	return nil
}

func (b *fakeBox) find(id string) *store.Delivery {
	for i := range b.ds {
		if b.ds[i].ID == id {
			return &b.ds[i]
		}
	}
	return nil
}

// get returns the delivery id as stored now.
func (b *fakeBox) get(id string) store.Delivery {
	b.mu.Lock()
	defer b.mu.Unlock()
	return *b.find(id)
}

// fakeNotifier answers every Send with its answer (nil: 200), and blocks
// while block is open (until Send's context ends).
type fakeNotifier struct {
	name   string
	min    promptcanary.Severity
	answer func(n int) (int, error) // the answer to the n-th Send, from 1
	block  chan struct{}
	mu     sync.Mutex
	sent   []notify.Message
	ended  int // the Sends that returned
}

func (n *fakeNotifier) Name() string                       { return n.name }
func (n *fakeNotifier) MinSeverity() promptcanary.Severity { return n.min }

func (n *fakeNotifier) Send(ctx context.Context, m notify.Message) (int, error) {
	n.mu.Lock()
	n.sent = append(n.sent, m)
	k := len(n.sent)
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		n.ended++
		n.mu.Unlock()
	}()
	if n.block != nil {
		select {
		case <-n.block:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if n.answer == nil {
		return 200, nil
	}
	return n.answer(k)
}

func (n *fakeNotifier) sends() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.sent)
}

func (n *fakeNotifier) returned() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ended
}

// harness is what an outbox under test reports to.
type harness struct {
	mu       sync.Mutex
	attempts []promptcanary.NotificationAttempt
	gaveUp   []string // notifier/reason
	sleeps   []time.Duration
}

func (h *harness) Notifications(_ context.Context, incidentID string, _ int) ([]promptcanary.NotificationAttempt, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(h.attempts), func(a promptcanary.NotificationAttempt) bool { return a.IncidentID != incidentID }), nil
}

// newOutbox returns an outbox of owner over box delivering to n, with the
// clock c, 3 attempts a round from 1s doubling, and no real sleep.
func newOutbox(owner string, box *fakeBox, c *clock, h *harness, n *fakeNotifier) *Outbox {
	return New(Options{
		Box: box, State: h, Owner: owner, TTL: time.Minute,
		Notifiers: []notify.Notifier{n},
		Policy: notify.Policy{
			Backoff: notify.Backoff{Initial: time.Second, Max: time.Minute, Attempts: 3},
			Timeout: time.Hour, // a hung send ends with its context only
			Now:     c.Now,
			Rand:    func() float64 { return 0.5 }, // no jitter
			Sleep: func(_ context.Context, d time.Duration) error {
				h.mu.Lock()
				h.sleeps = append(h.sleeps, d)
				h.mu.Unlock()
				return nil
			},
			Scrub:  func(s string) string { return s },
			Logger: slog.New(slog.DiscardHandler),
		},
		Repeat: time.Hour, Now: c.Now, Log: slog.New(slog.DiscardHandler),
		Record: func(a promptcanary.NotificationAttempt) {
			h.mu.Lock()
			h.attempts = append(h.attempts, a)
			h.mu.Unlock()
		},
		GaveUp: func(notifier, reason string) {
			h.mu.Lock()
			h.gaveUp = append(h.gaveUp, notifier+"/"+reason)
			h.mu.Unlock()
		},
		ReportURL: func(id string) string { return "https://canary.example/incidents/" + id },
	})
}

// pending is a firing delivery to ops, due at epoch.
func pending(id string) store.Delivery {
	return store.Delivery{ID: id, IncidentID: "inc-" + id, Notifier: "ops", Status: promptcanary.NotificationFiring,
		Event: promptcanary.EventOpened, State: store.DeliveryPending, CreatedAt: epoch, NextAttemptAt: epoch,
		Incident: promptcanary.Incident{ID: "inc-" + id, Severity: promptcanary.SeverityHigh}}
}

// eventually waits for cond, failing after a generous while.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 2000 {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// Started and woken, the outbox claims a due delivery, sends it with the
// incident's link, records the attempt under the delivery's id and stores
// it as sent.
func TestOutboxDelivers(t *testing.T) {
	c := &clock{}
	box := newBox(c, pending("d1"))
	h := &harness{}
	n := &fakeNotifier{name: "ops"}
	b := newOutbox("me", box, c, h, n)
	b.Start()
	defer b.Stop(context.Background(), 0)
	b.Wake()
	eventually(t, "the delivery sent", func() bool { return box.get("d1").State == store.DeliverySent })

	d := box.get("d1")
	if d.DoneBy != "me" || d.Attempts != 1 || d.LastError != "" || !d.DoneAt.Equal(epoch) {
		t.Errorf("stored %+v, want sent by me at the first attempt", d)
	}
	if n.sends() != 1 || n.sent[0].ReportURL != "https://canary.example/incidents/inc-d1" || n.sent[0].Incident.ID != "inc-d1" {
		t.Errorf("sent %+v, want the incident once with its link", n.sent)
	}
	if len(h.attempts) != 1 || h.attempts[0].ID != "d1" || h.attempts[0].Attempt != 1 || !h.attempts[0].OK {
		t.Errorf("attempts %+v, want one successful attempt recorded as the delivery's", h.attempts)
	}
}

// Within a round the attempts back off (1s, then 2s); a round that fails
// leaves the delivery pending, due again after RedeliverBase, then twice
// that, and the attempts are numbered across rounds.
func TestOutboxRetriesWithBackoff(t *testing.T) {
	c := &clock{}
	box := newBox(c, pending("d1"))
	h := &harness{}
	n := &fakeNotifier{name: "ops", answer: func(k int) (int, error) {
		if k <= 4 {
			return 503, errors.New("unavailable")
		}
		return 200, nil
	}}
	b := newOutbox("me", box, c, h, n)
	ctx := context.Background()

	if err := b.Drain(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	d := box.get("d1")
	if d.State != store.DeliveryPending || d.Rounds != 1 || d.Attempts != 3 || !d.NextAttemptAt.Equal(epoch.Add(RedeliverBase)) || d.LastError == "" {
		t.Fatalf("after a failed round: %+v, want pending, 1 round of 3 attempts, due after %v", d, RedeliverBase)
	}
	if want := []time.Duration{time.Second, 2 * time.Second}; !slices.Equal(h.sleeps, want) {
		t.Errorf("backoff %v, want %v", h.sleeps, want)
	}
	if err := b.Drain(ctx, 10*time.Second); err != nil || n.sends() != 3 {
		t.Fatalf("not due yet: %d sends (err %v), want still 3", n.sends(), err)
	}

	c.Advance(RedeliverBase)
	if err := b.Drain(ctx, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	// Attempt 4 fails, attempt 5 succeeds.
	if d = box.get("d1"); d.State != store.DeliverySent || d.Attempts != 5 || d.Rounds != 1 {
		t.Fatalf("second round: %+v, want sent at attempt 5", d)
	}
	var numbers []int
	for _, a := range h.attempts {
		numbers = append(numbers, a.Attempt)
	}
	if !slices.Equal(numbers, []int{1, 2, 3, 4, 5}) {
		t.Errorf("attempt numbers %v, want 1 to 5 across the rounds", numbers)
	}
}

// The wait after a failed round doubles up to RedeliverMax.
func TestRedeliverDelay(t *testing.T) {
	for rounds, want := range map[int]time.Duration{1: RedeliverBase, 2: 2 * RedeliverBase, 3: 4 * RedeliverBase, 10: RedeliverMax} {
		if got := redeliverDelay(rounds); got != want {
			t.Errorf("redeliverDelay(%d) = %v, want %v", rounds, got, want)
		}
	}
}

// A delivery is given up, and stays failed, when the notifier refuses it
// for good, when it failed for the whole repeat interval, when it is a
// resolve whose firing never reached the notifier, or when the notifier
// does not want its severity.
func TestOutboxGivesUp(t *testing.T) {
	resolve := pending("d1")
	resolve.Status, resolve.Event = promptcanary.NotificationResolved, promptcanary.EventResolved
	old := pending("d1")
	old.CreatedAt = epoch.Add(-time.Hour)
	low := pending("d1")
	low.Incident.Severity = promptcanary.SeverityLow
	for _, tc := range []struct {
		name      string
		d         store.Delivery
		answer    func(int) (int, error)
		sends     int
		lastError string // its start
		gaveUp    []string
	}{
		{"refused", pending("d1"), func(int) (int, error) { return 404, errors.New("no such hook") }, 1, RefusedPrefix + "no such hook", []string{"ops/" + Refused}},
		{"expired", old, func(int) (int, error) { return 503, errors.New("unavailable") }, 3, "unavailable", []string{"ops/" + Expired}},
		{"resolve of a firing never sent", resolve, nil, 0, "not sent: the notifier was never sent a firing", nil},
		{"below min_severity", low, nil, 0, "not sent: below the notifier's min_severity", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{}
			box := newBox(c, tc.d)
			h := &harness{}
			n := &fakeNotifier{name: "ops", min: promptcanary.SeverityMedium, answer: tc.answer}
			b := newOutbox("me", box, c, h, n)
			if err := b.Drain(context.Background(), 10*time.Second); err != nil {
				t.Fatal(err)
			}
			d := box.get("d1")
			if d.State != store.DeliveryFailed || d.DoneBy != "me" || !strings.HasPrefix(d.LastError, tc.lastError) {
				t.Errorf("stored %s by %q: %q, want failed by me: %q", d.State, d.DoneBy, d.LastError, tc.lastError)
			}
			if n.sends() != tc.sends || !slices.Equal(h.gaveUp, tc.gaveUp) {
				t.Errorf("%d sends, given up %v; want %d, %v", n.sends(), h.gaveUp, tc.sends, tc.gaveUp)
			}
			c.Advance(24 * time.Hour)
			if err := b.Drain(context.Background(), 10*time.Second); err != nil || n.sends() != tc.sends {
				t.Errorf("a day later: %d sends (err %v), want no more", n.sends(), err)
			}
		})
	}
}

// Two monitors draining one outbox at once send each delivery once: the
// one that claims it.
func TestOutboxClaimsEachDeliveryOnce(t *testing.T) {
	c := &clock{}
	var ds []store.Delivery
	for _, id := range []string{"d1", "d2", "d3", "d4", "d5", "d6"} {
		ds = append(ds, pending(id))
	}
	box := newBox(c, ds...)
	n := &fakeNotifier{name: "ops"}
	h := &harness{}
	var wg sync.WaitGroup
	for _, owner := range []string{"a", "b", "c"} {
		b := newOutbox(owner, box, c, h, n)
		wg.Go(func() {
			if err := b.Drain(context.Background(), 10*time.Second); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n.sends() != len(ds) {
		t.Errorf("%d sends, want %d: one per delivery", n.sends(), len(ds))
	}
	for _, d := range ds {
		if got := box.get(d.ID); got.State != store.DeliverySent || box.claims[d.ID] != 1 {
			t.Errorf("%s: %s after %d claims, want sent after one", d.ID, got.State, box.claims[d.ID])
		}
	}
}

// hungSend has a new outbox of owner claim the delivery d1 and send it to
// a notifier that does not answer until its context ends, and waits for
// the send.
func hungSend(t *testing.T, owner string) (*clock, *fakeBox, *harness, *fakeNotifier, *Outbox) {
	t.Helper()
	c := &clock{}
	box := newBox(c, pending("d1"))
	h := &harness{}
	n := &fakeNotifier{name: "ops", block: make(chan struct{})}
	b := newOutbox(owner, box, c, h, n)
	if b.pump() != 1 {
		t.Fatalf("%s claimed nothing", owner)
	}
	eventually(t, owner+"'s send", func() bool { return n.sends() == 1 })
	return c, box, h, n, b
}

// A monitor whose claim expired and was taken by another abandons the
// delivery at its next heartbeat and stores nothing: the other's outcome
// stands.
func TestOutboxAbandonsAClaimLost(t *testing.T) {
	c, box, h, slow, a := hungSend(t, "a")

	c.Advance(2 * time.Minute) // a's claim expires
	fast := &fakeNotifier{name: "ops"}
	if err := newOutbox("b", box, c, h, fast).Drain(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	a.Extend(context.Background(), c.Now().Add(time.Minute))
	eventually(t, "a's send cancelled", func() bool { return slow.returned() == 1 })
	a.Stop(context.Background(), 0)
	d := box.get("d1")
	if d.State != store.DeliverySent || d.DoneBy != "b" || fast.sends() != 1 || !slices.Equal(box.finishers, []string{"b"}) {
		t.Errorf("stored %+v, finished by %v; want sent by b, nothing stored by a", d, box.finishers)
	}
}

// A delivery in flight when its monitor stops goes back to the outbox due
// at once, with its interrupted attempt counted, and the next monitor (or
// the same one restarted) sends it.
func TestOutboxResumesAfterRestart(t *testing.T) {
	c := &clock{}
	box := newBox(c, pending("d1"))
	h := &harness{}
	hung := &fakeNotifier{name: "ops", block: make(chan struct{})}
	first := newOutbox("me", box, c, h, hung)
	first.Start()
	first.Wake()
	eventually(t, "the send in flight", func() bool { return hung.sends() == 1 })
	first.Stop(context.Background(), 0)

	d := box.get("d1")
	if d.State != store.DeliveryPending || d.Attempts != 1 || d.Rounds != 0 || !d.NextAttemptAt.Equal(epoch) || d.ClaimedBy != "" {
		t.Fatalf("after the stop: %+v, want pending, unclaimed, due now, its interrupted attempt counted", d)
	}
	n := &fakeNotifier{name: "ops"}
	if err := newOutbox("me", box, c, h, n).Drain(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if d = box.get("d1"); d.State != store.DeliverySent || d.Attempts != 2 || n.sends() != 1 {
		t.Errorf("after the restart: %+v with %d sends, want sent at attempt 2", d, n.sends())
	}
	if len(h.attempts) != 2 || h.attempts[0].OK || h.attempts[1].Attempt != 2 || !h.attempts[1].OK {
		t.Errorf("attempts %+v, want the interrupted one, then attempt 2 sent", h.attempts)
	}
}

// A delivery this monitor still makes, claimed by it again because its
// claim expired on its clock (a late heartbeat), is not made twice.
func TestOutboxDoesNotFlyADeliveryTwice(t *testing.T) {
	c, box, h, n, b := hungSend(t, "me")
	c.Advance(2 * time.Minute)
	if b.pump() != 1 || box.claims["d1"] != 2 {
		t.Fatalf("the expired claim was not claimed again (%d claims)", box.claims["d1"])
	}
	close(n.block)
	if err := b.Drain(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	b.Stop(context.Background(), 0) // waits for every flight
	if len(h.attempts) != 1 || n.sends() != 1 || box.get("d1").State != store.DeliverySent {
		t.Errorf("%d attempts, %d sends, state %s; want one attempt sent", len(h.attempts), n.sends(), box.get("d1").State)
	}
}
