package monitor

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/delivery"
	"github.com/promptcanary/promptcanary/store"
)

// deliveries lists the outbox, oldest first.
func (f *fixture) deliveries() []store.Delivery {
	f.t.Helper()
	ds, err := f.store.Deliveries(context.Background(), "", 0)
	noErr(f.t, err)
	return ds
}

// A notification still undelivered when its monitor stops stays in the
// outbox, and the next monitor on the store sends it: it is neither lost
// nor sent twice.
func TestPendingNotificationIsResumedAfterARestart(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	cfg := f.config("1h", 5)
	cfg.ShutdownGrace = 50 * time.Millisecond
	o := f.options()
	o.NotifyTimeout = time.Hour
	o.Owner = "first"
	m, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	f.hook.hang.Store(true)
	f.flip.set("bad")
	if cr := f.once(m); !cr.Confirmed {
		t.Fatalf("got %+v, want a confirmed drift", cr)
	}
	if err := m.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	ds := f.deliveries()
	if len(ds) != 1 || ds[0].State != store.DeliveryPending || ds[0].ClaimedBy != "" || ds[0].Attempts != 1 || ds[0].Event != promptcanary.EventOpened {
		t.Fatalf("after the stop: got deliveries %+v, want the open pending, unclaimed, after 1 attempt", ds)
	}
	if got := f.hook.got(); len(got) != 0 {
		t.Fatalf("got %d notifications delivered, want 0", len(got))
	}

	f.hook.hang.Store(false)
	o = f.options()
	o.Owner = "second"
	m2, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := m2.outbox.Drain(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	got := f.hook.got()
	if len(got) != 1 || got[0].Status != promptcanary.NotificationFiring || got[0].IncidentID != ds[0].IncidentID {
		t.Fatalf("after the restart: got notifications %+v, want the firing once", got)
	}
	ds = f.deliveries()
	if len(ds) != 1 || ds[0].State != store.DeliverySent || ds[0].DoneBy != "second" || ds[0].Attempts != 2 {
		t.Errorf("got deliveries %+v, want sent by the second monitor at attempt 2", ds)
	}
	attempts := f.attempts()
	if len(attempts) != 2 || attempts[0].OK || !attempts[1].OK || attempts[1].Attempt != 2 || attempts[0].ID != ds[0].ID || attempts[1].ID != ds[0].ID {
		t.Errorf("got attempts %+v, want the interrupted one and the sent one, of the delivery", attempts)
	}
	if err := m2.outbox.Drain(context.Background(), time.Second); err != nil || len(f.hook.got()) != 1 {
		t.Errorf("a second drain: %v, %d notifications, want nothing more sent", err, len(f.hook.got()))
	}
}

// A round of attempts that fails leaves the notification in the outbox,
// due again later; a resolve waits behind its open, so the receiver gets
// the open, then the resolve, never the resolve alone.
func TestFailedNotificationIsRetriedLaterInOrder(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	m := f.monitor(f.config("1h", 5))
	f.hook.fail.Store(4) // one round: the fixture makes 4 attempts
	f.flip.set("fail")
	f.once(m)
	f.clock.Advance(time.Minute)
	f.once(m) // opens the unmeasured incident; its round fails
	opened := f.clock.Now()
	ds := f.deliveries()
	if len(ds) != 1 || ds[0].State != store.DeliveryPending || ds[0].Rounds != 1 || ds[0].Attempts != 4 ||
		!ds[0].NextAttemptAt.Equal(opened.Add(delivery.RedeliverBase)) || !strings.Contains(ds[0].LastError, "500") {
		t.Fatalf("after a failed round: got %+v, want it pending, due in %s, with its error", ds, delivery.RedeliverBase)
	}
	f.flip.set("good")
	for range 2 { // two clean runs resolve the incident
		f.clock.Advance(time.Minute)
		f.once(m)
	}
	if open := f.incidents(true); len(open) != 0 {
		t.Fatalf("got open incidents %+v, want the incident resolved", open)
	}
	if got := f.hook.got(); len(got) != 0 {
		t.Fatalf("got notifications %+v before the open is due again, want none: no resolve before its open", got)
	}
	f.clock.Set(opened.Add(delivery.RedeliverBase))
	if err := m.outbox.Drain(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	got := f.hook.got()
	if len(got) != 2 || got[0].Status != promptcanary.NotificationFiring || got[1].Status != promptcanary.NotificationResolved {
		t.Fatalf("got notifications %+v, want the firing then the resolve", got)
	}
	for _, d := range f.deliveries() {
		if d.State != store.DeliverySent {
			t.Errorf("delivery %+v, want sent", d)
		}
	}
}

// A notification that fails for the whole repeat interval is given up,
// and the resolve of an incident whose open never reached the notifier is
// not sent.
func TestNotificationGivenUpAndItsResolveNotSent(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	cfg := f.config("1h", 5)
	cfg.Incidents.RepeatInterval = 12 * time.Minute
	m := f.monitor(cfg)
	f.hook.fail.Store(1 << 20)
	f.flip.set("fail")
	f.once(m)
	f.clock.Advance(time.Second)
	f.once(m) // opens the unmeasured incident
	// Rounds at 0, 5m and 15m (5m, then 10m later): the third is past
	// the repeat interval and gives up.
	for _, d := range []time.Duration{delivery.RedeliverBase, 2 * delivery.RedeliverBase} {
		f.clock.Advance(d)
		if err := m.outbox.Drain(context.Background(), 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	ds := f.deliveries()
	if len(ds) != 1 || ds[0].State != store.DeliveryFailed || ds[0].Rounds != 3 || ds[0].Attempts != 12 || ds[0].DoneBy == "" {
		t.Fatalf("got deliveries %+v, want the open given up after 3 rounds of 4 attempts", ds)
	}
	f.hook.fail.Store(0)
	f.flip.set("good")
	for range 2 { // resolves the incident
		f.clock.Advance(time.Second)
		f.once(m)
	}
	if got := f.hook.got(); len(got) != 0 {
		t.Fatalf("got notifications %+v, want none: the resolve of an open never received", got)
	}
	ds = f.deliveries()
	if len(ds) != 2 || ds[1].Event != promptcanary.EventResolved || ds[1].State != store.DeliveryFailed || !strings.Contains(ds[1].LastError, "never sent a firing") {
		t.Errorf("got deliveries %+v, want the resolve failed, not sent", ds)
	}
	if !strings.Contains(f.logs.String(), "notification given up") {
		t.Errorf("the log does not say the notification was given up")
	}
}

// A notification the notifier refuses for good (401 to a revoked token:
// notify.Deliver calls it not retryable) is failed at once, after one
// attempt, not retried for the repeat interval; its reason, scrubbed,
// shows on the incident's page, and /metrics counts it.
func TestRefusedNotificationFailsAtOnce(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	m := f.monitor(f.config("1h", 5))
	f.hook.refuse.Store(true)
	f.flip.set("bad")
	if cr := f.once(m); !cr.Confirmed {
		t.Fatalf("got %+v, want a confirmed drift", cr)
	}
	ds := f.deliveries()
	if len(ds) != 1 || ds[0].State != store.DeliveryFailed || ds[0].Attempts != 1 || ds[0].Rounds != 0 || ds[0].DoneBy == "" {
		t.Fatalf("got deliveries %+v, want the open failed after 1 attempt", ds)
	}
	if want := delivery.RefusedPrefix + "post webhook: HTTP 401"; !strings.HasPrefix(ds[0].LastError, want) {
		t.Errorf("got reason %q, want it to start with %q", ds[0].LastError, want)
	}
	if strings.Contains(ds[0].LastError, hookSecret) {
		t.Errorf("the reason %q holds the webhook secret", ds[0].LastError)
	}
	// Nothing is due later: an hour on, the outbox makes no attempt.
	f.clock.Advance(time.Hour)
	if err := m.outbox.Drain(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if ds := f.deliveries(); ds[0].Attempts != 1 {
		t.Errorf("got %d attempts an hour later, want 1", ds[0].Attempts)
	}
	fams := scrape(t, m)
	if got := value(t, fams, "promptcanary_notifications_failed_total", map[string]string{"notifier": "hook", "reason": "refused"}); got != 1 {
		t.Errorf("notifications_failed_total{refused} = %v, want 1", got)
	}
	if got := value(t, fams, "promptcanary_notifications_failed_total", map[string]string{"notifier": "hook", "reason": "expired"}); got != 0 {
		t.Errorf("notifications_failed_total{expired} = %v, want 0", got)
	}
	code, page := get(t, m.Handler(), "/incidents/"+ds[0].IncidentID)
	if code != http.StatusOK {
		t.Fatalf("GET the incident page: %d", code)
	}
	_, row, ok := strings.Cut(page, `<tr class="delivery-failed">`)
	row, _, _ = strings.Cut(row, "</tr>")
	if !ok {
		t.Fatalf("the incident page shows no failed delivery:\n%s", page)
	}
	for _, want := range []string{">hook<", `<span class="badge failed">failed</span>`, "refused by the notifier, not retried", "401"} {
		if !strings.Contains(row, want) {
			t.Errorf("the delivery's row lacks %q:\n%s", want, row)
		}
	}
	if strings.Contains(page, hookSecret) {
		t.Error("the incident page shows the webhook secret")
	}
}
