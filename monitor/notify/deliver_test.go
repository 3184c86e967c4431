package notify_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
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

func TestDeliverBackoff(t *testing.T) {
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

func TestDeliverRetriesOnlyRetryableStatuses(t *testing.T) {
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
			out := deliver(t, &r, r.options(), []notify.Notifier{f}, firing(), "f")[0]
			attempts, _ := r.got()
			want := 1
			if tc.retry {
				want = 2
			}
			if len(attempts) != want || attempts[0].Code != tc.code || attempts[0].OK {
				t.Errorf("attempts %+v, want %d with the first failed with %d", attempts, want, tc.code)
			}
			// Refused at once, or sent on the retry.
			if want := (notify.Outcome{Attempts: want, OK: tc.retry, Refused: !tc.retry, LastError: attempts[0].Error}); out != want {
				t.Errorf("outcome %+v, want %+v", out, want)
			}
		})
	}
}

// A delivery whose retryable attempts run out is given up, not refused.
func TestDeliverGaveUpAfterTheLastAttempt(t *testing.T) {
	f := &fake{name: "f", replies: failing(3, 503)}
	var r recorder
	o := r.options()
	o.Backoff.Attempts = 3
	out := deliver(t, &r, o, []notify.Notifier{f}, firing(), "f")[0]
	attempts, _ := r.got()
	if want := (notify.Outcome{Attempts: 3, LastError: "post: HTTP 503"}); out != want || len(attempts) != 3 || attempts[2].Code != 503 {
		t.Errorf("outcome %+v after %+v, want %+v", out, attempts, want)
	}
}

func TestDeliverMinSeverity(t *testing.T) {
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

func TestDeliverInterrupted(t *testing.T) {
	f := &fake{name: "f", gate: make(chan struct{}), started: make(chan struct{}, 1)}
	var r recorder
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan notify.Outcome)
	go func() { done <- notify.Deliver(ctx, f, firing(), r.options()) }()
	<-f.started
	cancel() // the attempt in flight is interrupted
	if out := <-done; out.Attempts != 1 || out.OK || out.Refused {
		t.Errorf("outcome %+v, want one attempt, neither sent nor refused", out)
	}
	// A delivery whose context ended before it starts is abandoned.
	if out := notify.Deliver(ctx, f, resolved(), r.options()); out.Attempts != 1 || out.OK {
		t.Errorf("outcome %+v, want one attempt, not sent", out)
	}
	attempts, _ := r.got()
	if len(attempts) != 2 {
		t.Fatalf("attempts %+v, want 2", attempts)
	}
	if a := attempts[0]; a.OK || a.Attempt != 1 || !strings.Contains(a.Error, "context canceled") || a.Status != promptcanary.NotificationFiring {
		t.Errorf("interrupted attempt %+v", a)
	}
	if a := attempts[1]; a.OK || a.Attempt != 1 || a.Status != promptcanary.NotificationResolved || a.Error != "not sent: the delivery was stopped before the first attempt" {
		t.Errorf("abandoned delivery %+v", a)
	}
	if len(f.messages()) != 1 {
		t.Errorf("sent %d messages, want the interrupted one only", len(f.messages()))
	}
}

func TestDeliverStopDuringBackoff(t *testing.T) {
	f := &fake{name: "f", replies: failing(1, 503)}
	var r recorder
	o := r.options()
	sleeping := make(chan struct{})
	o.Sleep = func(ctx context.Context, d time.Duration) error {
		close(sleeping)
		<-ctx.Done()
		return ctx.Err()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan notify.Outcome)
	go func() { done <- notify.Deliver(ctx, f, firing(), o) }()
	<-sleeping
	cancel()
	if out := <-done; out.Attempts != 2 || out.LastError != "not sent: the delivery was stopped after attempt 1" {
		t.Errorf("outcome %+v, want 2 attempts, the last the abandonment", out)
	}
	attempts, _ := r.got()
	if len(attempts) != 2 || attempts[0].Code != 503 || attempts[1].Attempt != 2 || attempts[1].Error != "not sent: the delivery was stopped after attempt 1" || attempts[1].ID != attempts[0].ID {
		t.Errorf("attempts %+v, want the 503 then the abandonment", attempts)
	}
}

func TestDeliverErrorText(t *testing.T) {
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
