package notify_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/notify"
)

// reply is what a fake notifier answers one call.
type reply struct {
	code int
	err  error
}

// fake is a hand-written Notifier: it answers from replies in turn (then
// 200 OK) and, when gate is set, waits for it (or its context) first.
type fake struct {
	name    string
	min     promptcanary.Severity
	gate    chan struct{}
	started chan struct{} // receives once per call, when set

	mu      sync.Mutex
	replies []reply
	sent    []notify.Message
}

func (f *fake) Name() string                       { return f.name }
func (f *fake) MinSeverity() promptcanary.Severity { return f.min }

func (f *fake) Send(ctx context.Context, m notify.Message) (int, error) {
	if f.started != nil {
		f.started <- struct{}{}
	}
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			f.mu.Lock()
			f.sent = append(f.sent, m)
			f.mu.Unlock()
			return 0, fmt.Errorf("send: %w", ctx.Err())
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, m)
	if len(f.replies) == 0 {
		return 200, nil
	}
	r := f.replies[0]
	f.replies = f.replies[1:]
	return r.code, r.err
}

func (f *fake) messages() []notify.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// failing returns n replies of a failure with code.
func failing(n, code int) []reply {
	rs := make([]reply, n)
	for i := range rs {
		rs[i] = reply{code, fmt.Errorf("post: HTTP %d", code)}
	}
	return rs
}

func TestDispatcherBackoff(t *testing.T) {
	tests := []struct {
		name     string
		backoff  notify.Backoff
		rand     float64
		replies  []reply
		attempts int
		delays   []time.Duration
	}{
		{
			name: "defaults", rand: 0.5, replies: failing(20, 500), attempts: 8,
			delays: []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second, 64 * time.Second},
		},
		{
			name: "capped", backoff: notify.Backoff{Initial: time.Minute, Max: 5 * time.Minute, Attempts: 5}, rand: 0.5, replies: failing(20, 503), attempts: 5,
			delays: []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute},
		},
		{
			name: "low jitter", backoff: notify.Backoff{Attempts: 3}, rand: 0, replies: failing(20, 0), attempts: 3,
			delays: []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond},
		},
		{
			name: "high jitter stays under max", backoff: notify.Backoff{Initial: 4 * time.Minute, Attempts: 3}, rand: 0.999, replies: failing(20, 429), attempts: 3,
			delays: []time.Duration{4*time.Minute + 47*time.Second + 904*time.Millisecond, 5 * time.Minute},
		},
		{
			name: "success ends it", rand: 0.5, replies: failing(2, 502), attempts: 3,
			delays: []time.Duration{time.Second, 2 * time.Second},
		},
		{
			name: "retry-after replaces the backoff", rand: 0.5, attempts: 3,
			replies: []reply{
				{429, &notify.Error{Op: "post", Code: 429, Message: "slow down", Retryable: true, RetryAfter: 3 * time.Second}},
				{429, &notify.Error{Op: "post", Code: 429, Message: "slow down", Retryable: true, RetryAfter: time.Hour}},
			},
			delays: []time.Duration{3 * time.Second, 5 * time.Minute},
		},
		{
			name: "an Error that says not retryable", rand: 0.5, attempts: 1,
			replies: []reply{{503, &notify.Error{Op: "post", Code: 503, Message: "x"}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{name: "f", replies: tc.replies}
			var r recorder
			o := r.options()
			o.Backoff = tc.backoff
			o.Rand = func() float64 { return tc.rand }
			deliver(t, &r, o, []notify.Notifier{f}, firing(), "f")
			attempts, delays := r.got()
			if len(attempts) != tc.attempts {
				t.Fatalf("got %d attempts, want %d", len(attempts), tc.attempts)
			}
			for i, a := range attempts {
				if a.Attempt != i+1 || a.ID != attempts[0].ID {
					t.Errorf("attempt %d = %+v, want number %d and the first's id", i, a, i+1)
				}
			}
			if !slices.Equal(delays, tc.delays) {
				t.Errorf("delays %v, want %v", delays, tc.delays)
			}
		})
	}
}

func TestDispatcherRetriesOnlyRetryableStatuses(t *testing.T) {
	for _, tc := range []struct {
		code  int
		retry bool
	}{
		{0, true}, {408, true}, {429, true}, {500, true}, {503, true},
		{400, false}, {401, false}, {403, false}, {404, false}, {410, false}, {422, false},
	} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			f := &fake{name: "f", replies: failing(1, tc.code)}
			var r recorder
			o := r.options()
			var gaveUp []bool
			o.GaveUp = func(_ promptcanary.NotificationAttempt, refused bool) { gaveUp = append(gaveUp, refused) }
			deliver(t, &r, o, []notify.Notifier{f}, firing(), "f")
			attempts, _ := r.got()
			want := 1
			if tc.retry {
				want = 2
			}
			if len(attempts) != want || attempts[0].Code != tc.code || attempts[0].OK {
				t.Errorf("attempts %+v, want %d with the first failed with %d", attempts, want, tc.code)
			}
			// Refused at once, or sent on the retry: never given up otherwise.
			wantRefused := []bool{true}
			if tc.retry {
				wantRefused = nil
			}
			if !slices.Equal(gaveUp, wantRefused) {
				t.Errorf("GaveUp calls (refused) %v, want %v", gaveUp, wantRefused)
			}
		})
	}
}

// A delivery whose retryable attempts run out is given up, not refused.
func TestDispatcherGaveUpAfterTheLastAttempt(t *testing.T) {
	f := &fake{name: "f", replies: failing(3, 503)}
	var r recorder
	o := r.options()
	o.Backoff.Attempts = 3
	var gaveUp []promptcanary.NotificationAttempt
	var refused []bool
	o.GaveUp = func(a promptcanary.NotificationAttempt, r bool) {
		gaveUp, refused = append(gaveUp, a), append(refused, r)
	}
	deliver(t, &r, o, []notify.Notifier{f}, firing(), "f")
	if len(gaveUp) != 1 || refused[0] || gaveUp[0].Attempt != 3 || gaveUp[0].Code != 503 {
		t.Errorf("GaveUp got %+v (refused %v), want once, with attempt 3, not refused", gaveUp, refused)
	}
}

func TestDispatcherSlowNotifierDoesNotDelayOthers(t *testing.T) {
	slow := &fake{name: "slow", gate: make(chan struct{}), started: make(chan struct{}, 1)}
	quick := &fake{name: "quick"}
	quickDone := make(chan struct{})
	var r recorder
	o := r.options()
	o.Record = func(a promptcanary.NotificationAttempt) {
		r.record(a)
		if a.Notifier == "quick" {
			close(quickDone)
		}
	}
	d := notify.NewDispatcher([]notify.Notifier{slow, quick}, o)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go d.Run(ctx)
	d.Enqueue(firing(), []string{"slow", "quick"})
	<-slow.started
	<-quickDone // would hang if quick waited behind slow
	if attempts, _ := r.got(); len(attempts) != 1 || attempts[0].Notifier != "quick" || !attempts[0].OK {
		t.Errorf("attempts %+v, want only quick's success while slow hangs", attempts)
	}
	// Another incident for the slow notifier is not held up by the first.
	other := firing()
	other.Incident.ID = "other-incident"
	close(slow.gate)
	d.Enqueue(other, []string{"slow"})
	if err := d.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if attempts, _ := r.got(); len(attempts) != 3 {
		t.Errorf("attempts %+v, want 3", attempts)
	}
}

func TestDispatcherKeepsOrderPerIncident(t *testing.T) {
	f := &fake{name: "f", replies: failing(2, 500)}
	var r recorder
	d := notify.NewDispatcher([]notify.Notifier{f}, r.options())
	up := firing()
	up.Event = promptcanary.EventUpdated
	d.Enqueue(firing(), []string{"f"})
	d.Enqueue(up, []string{"f"})
	d.Enqueue(resolved(), []string{"f"})
	if err := d.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range f.messages() {
		got = append(got, string(m.Event))
	}
	if want := []string{"opened", "opened", "opened", "updated", "resolved"}; !slices.Equal(got, want) {
		t.Errorf("sent %v, want %v", got, want)
	}
}

func TestDispatcherMinSeverity(t *testing.T) {
	tests := []struct {
		name   string
		status promptcanary.NotificationStatus
		sev    promptcanary.Severity
		sent   bool
	}{
		{"below", promptcanary.NotificationFiring, promptcanary.SeverityMedium, false},
		{"at", promptcanary.NotificationFiring, promptcanary.SeverityHigh, true},
		{"above", promptcanary.NotificationFiring, promptcanary.SeverityCritical, true},
		{"resolve below", promptcanary.NotificationResolved, promptcanary.SeverityLow, true},
		{"unknown severity", promptcanary.NotificationFiring, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{name: "pager", min: promptcanary.SeverityHigh}
			m := firing()
			m.Status = tc.status
			m.Incident.Severity = tc.sev
			if got := notify.Wants(f, m); got != tc.sent {
				t.Errorf("Wants = %v, want %v", got, tc.sent)
			}
			var r recorder
			deliver(t, &r, r.options(), []notify.Notifier{f}, m, "pager")
			if got := len(f.messages()) == 1; got != tc.sent {
				t.Errorf("sent %v, want %v", got, tc.sent)
			}
		})
	}
}

func TestDispatcherUnknownNotifier(t *testing.T) {
	var r recorder
	deliver(t, &r, r.options(), []notify.Notifier{&fake{name: "oncall"}}, firing(), "oncal")
	attempts, _ := r.got()
	if len(attempts) != 1 || attempts[0].OK || attempts[0].Error != `unknown notifier "oncal" (did you mean oncall?)` || attempts[0].Notifier != "oncal" {
		t.Errorf("attempts %+v, want one failure naming the likely notifier", attempts)
	}
}

func TestDispatcherDrainAndStop(t *testing.T) {
	f := &fake{name: "f", gate: make(chan struct{}), started: make(chan struct{}, 1)}
	var r recorder
	d := notify.NewDispatcher([]notify.Notifier{f}, r.options())
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { d.Run(ctx); close(stopped) }()

	if err := d.Drain(context.Background()); err != nil {
		t.Errorf("Drain of an empty queue: %v", err)
	}
	d.Enqueue(firing(), []string{"f"})
	d.Enqueue(resolved(), []string{"f"})
	<-f.started
	dctx, dcancel := context.WithCancel(context.Background())
	dcancel()
	err := d.Drain(dctx)
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "drain notifications: 2 deliveries pending") {
		t.Errorf("Drain = %v, want 2 deliveries pending", err)
	}

	cancel() // the attempt in flight is interrupted, the resolve abandoned
	<-stopped
	d.Enqueue(firing(), []string{"f"})
	attempts, _ := r.got()
	if len(attempts) != 3 {
		t.Fatalf("attempts %+v, want 3", attempts)
	}
	if a := attempts[0]; a.OK || a.Attempt != 1 || !strings.Contains(a.Error, "context canceled") || a.Status != promptcanary.NotificationFiring {
		t.Errorf("interrupted attempt %+v", a)
	}
	if a := attempts[1]; a.OK || a.Attempt != 1 || a.Status != promptcanary.NotificationResolved || a.Error != "not sent: the dispatcher stopped before the first attempt" {
		t.Errorf("abandoned delivery %+v", a)
	}
	if a := attempts[2]; a.OK || a.Error != "not sent: the dispatcher has stopped" {
		t.Errorf("enqueue after stop %+v", a)
	}
	if err := d.Drain(context.Background()); err != nil {
		t.Errorf("Drain after stop: %v", err)
	}
}

func TestDispatcherStopDuringBackoff(t *testing.T) {
	f := &fake{name: "f", replies: failing(1, 503)}
	var r recorder
	o := r.options()
	sleeping := make(chan struct{})
	o.Sleep = func(ctx context.Context, d time.Duration) error {
		close(sleeping)
		<-ctx.Done()
		return ctx.Err()
	}
	d := notify.NewDispatcher([]notify.Notifier{f}, o)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { d.Run(ctx); close(stopped) }()
	d.Enqueue(firing(), []string{"f"})
	<-sleeping
	cancel()
	<-stopped
	attempts, _ := r.got()
	if len(attempts) != 2 || attempts[0].Code != 503 || attempts[1].Attempt != 2 || attempts[1].Error != "not sent: the dispatcher stopped after attempt 1" || attempts[1].ID != attempts[0].ID {
		t.Errorf("attempts %+v, want the 503 then the abandonment", attempts)
	}
}

func TestDispatcherErrorText(t *testing.T) {
	long := strings.Repeat("é", 400)
	f := &fake{name: "f", replies: []reply{{400, errors.New("post: token s3cr3t-t0k3n-value leaked\nsecond line\t" + long)}}}
	var r recorder
	o := r.options()
	o.Scrub = func(s string) string { return strings.ReplaceAll(s, "s3cr3t-t0k3n-value", "[REDACTED]") }
	var logs strings.Builder
	o.Logger = newTextLogger(&logs)
	deliver(t, &r, o, []notify.Notifier{f}, firing(), "f")
	attempts, _ := r.got()
	if len(attempts) != 1 {
		t.Fatalf("attempts %+v", attempts)
	}
	e := attempts[0].Error
	if !strings.HasPrefix(e, "post: token [REDACTED] leaked second line é") || len(e) > 500 || !strings.HasSuffix(e, "…") || strings.ContainsAny(e, "\n\t") {
		t.Errorf("error %q (%d bytes), want scrubbed, one line, at most 500 bytes", e, len(e))
	}
	noSecret(t, "log", logs.String(), "s3cr3t-t0k3n-value")
	if !strings.Contains(logs.String(), "notification failed: not retryable") {
		t.Errorf("log %q lacks the failure", logs.String())
	}
}

func TestDispatcherSerialisesRecord(t *testing.T) {
	var ns []notify.Notifier
	var names []string
	for i := range 8 {
		name := fmt.Sprintf("n%d", i)
		ns = append(ns, &fake{name: name, replies: failing(2, 500)})
		names = append(names, name)
	}
	var inside, overlaps atomic.Int32
	var r recorder
	o := r.options()
	o.Record = func(a promptcanary.NotificationAttempt) {
		if inside.Add(1) > 1 {
			overlaps.Add(1)
		}
		time.Sleep(time.Millisecond) // widen the window an overlap needs
		r.record(a)
		inside.Add(-1)
	}
	d := notify.NewDispatcher(ns, o)
	for i := range 5 {
		m := firing()
		m.Incident.ID = fmt.Sprint("inc-", i)
		d.Enqueue(m, names)
	}
	if err := d.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	attempts, _ := r.got()
	if len(attempts) != 8*5+8*2 || overlaps.Load() != 0 {
		t.Errorf("%d attempts with %d overlapping Record calls, want %d and none", len(attempts), overlaps.Load(), 8*5+8*2)
	}
}
