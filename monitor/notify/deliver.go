package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
)

// The defaults of a Policy.
const (
	DefaultInitialBackoff = time.Second
	DefaultMaxBackoff     = 5 * time.Minute
	DefaultAttempts       = 8
	DefaultTimeout        = 10 * time.Second
)

// maxErrorText bounds the error text of a recorded attempt, in bytes.
const maxErrorText = 500

// Log keys of Deliver's records.
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

// Policy is how Deliver makes the attempts of one delivery. Every field
// is optional.
type Policy struct {
	// Record is called with every attempt, in order, from Deliver's
	// goroutine.
	Record  func(promptcanary.NotificationAttempt)
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

// withDefaults returns p with its zero fields set to the defaults.
func (p Policy) withDefaults() Policy {
	if p.Backoff.Initial <= 0 {
		p.Backoff.Initial = DefaultInitialBackoff
	}
	if p.Backoff.Max <= 0 {
		p.Backoff.Max = DefaultMaxBackoff
	}
	p.Backoff.Max = max(p.Backoff.Max, p.Backoff.Initial)
	if p.Backoff.Attempts <= 0 {
		p.Backoff.Attempts = DefaultAttempts
	}
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	if p.Scrub == nil {
		p.Scrub = func(s string) string { return s }
	}
	if p.Logger == nil {
		p.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return p
}

// Outcome is what the attempts of one delivery came to.
type Outcome struct {
	// Attempts counts the attempts recorded, the one that records an
	// interruption included; 0 when the notifier does not want the
	// message.
	Attempts int
	// OK is set when an attempt succeeded.
	OK bool
	// Refused is set when the notifier refused the message for good (an
	// answer not worth retrying: a 4xx other than 408 and 429, such as a
	// revoked token); clear when the attempts ran out or ctx ended.
	Refused bool
	// LastError is the error text of the last failed attempt.
	LastError string
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

// Deliver sends m to n, retrying with p's backoff, until an attempt
// succeeds, one fails for good, the attempts run out or ctx ends; every
// attempt goes to p.Record, and so does an interruption by ctx, as one
// more attempt that reached nobody. A firing message below n's
// MinSeverity is not sent (no attempt). Deliver returns when it is done.
func Deliver(ctx context.Context, n Notifier, m Message, p Policy) Outcome {
	p = p.withDefaults()
	var out Outcome
	if !Wants(n, m) {
		p.Logger.Debug("notification below the notifier's min_severity", logNotifier, n.Name(), logIncident, m.Incident.ID)
		return out
	}
	id := promptcanary.NewID()
	record := func(a promptcanary.NotificationAttempt) {
		out.Attempts = a.Attempt
		out.OK = out.OK || a.OK
		if !a.OK {
			out.LastError = a.Error
		}
		if p.Record != nil {
			p.Record(a)
		}
	}
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			record(abandoned(p, id, n, m, attempt-1))
			return out
		}
		a, code, timedOut, err := try(ctx, p, id, n, m, attempt)
		record(a)
		if err == nil || ctx.Err() != nil {
			// Sent, or interrupted by ctx: this attempt is recorded, and
			// no other is made.
			return out
		}
		retry, after := retryable(code, err)
		retry = retry || timedOut
		if !retry || attempt >= p.Backoff.Attempts {
			reason := "not retryable"
			if retry {
				reason = "attempts exhausted"
			}
			p.Logger.Warn("notification failed: "+reason, logNotifier, n.Name(), logIncident, a.IncidentID, logEvent, a.Event, logAttempt, a.Attempt, logCode, code, logError, a.Error)
			out.Refused = !retry
			return out
		}
		delay := p.delay(attempt, after)
		p.Logger.Info("notification failed, retrying", logNotifier, n.Name(), logIncident, a.IncidentID, logAttempt, a.Attempt, logCode, code, logError, a.Error, logDelay, delay)
		if p.Sleep(ctx, delay) != nil || ctx.Err() != nil {
			record(abandoned(p, id, n, m, attempt))
			return out
		}
	}
}

// try makes attempt number attempt at sending m to n, bounded by
// p.Timeout, and returns it as recorded with the notifier's answer.
func try(ctx context.Context, p Policy, id string, n Notifier, m Message, attempt int) (a promptcanary.NotificationAttempt, code int, timedOut bool, err error) {
	at := p.Now()
	actx, cancel := context.WithTimeout(ctx, p.Timeout)
	code, err = n.Send(actx, m)
	timedOut = err != nil && errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	a = promptcanary.NotificationAttempt{
		ID: id, IncidentID: m.Incident.ID, Notifier: n.Name(), Status: m.Status,
		Event: m.Event, Attempt: attempt, At: at, OK: err == nil, Code: code,
	}
	if err != nil {
		msg := err.Error()
		if timedOut {
			msg = fmt.Sprintf("timed out after %s: %s", p.Timeout, msg)
		}
		a.Error = p.errorText(msg)
		return a, code, timedOut, err
	}
	p.Logger.Debug("notification sent", logNotifier, n.Name(), logIncident, a.IncidentID, logEvent, a.Event, logAttempt, a.Attempt)
	return a, code, false, nil
}

// abandoned is the attempt that records a delivery interrupted by its
// context after made attempts, as one more attempt that reached nobody.
func abandoned(p Policy, id string, n Notifier, m Message, made int) promptcanary.NotificationAttempt {
	msg := "not sent: the delivery was stopped before the first attempt"
	if made > 0 {
		msg = fmt.Sprintf("not sent: the delivery was stopped after attempt %d", made)
	}
	p.Logger.Warn("notification abandoned", logNotifier, n.Name(), logIncident, m.Incident.ID, logError, msg)
	return promptcanary.NotificationAttempt{
		ID: id, IncidentID: m.Incident.ID, Notifier: n.Name(), Status: m.Status,
		Event: m.Event, Attempt: made + 1, At: p.Now(), Error: msg,
	}
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
func (p Policy) delay(n int, after time.Duration) time.Duration {
	b := p.Backoff
	if after > 0 {
		return min(after, b.Max)
	}
	base := b.Initial
	for i := 1; i < n && base < b.Max; i++ {
		base *= 2
	}
	base = min(base, b.Max)
	jittered := time.Duration(float64(base) * (0.8 + 0.4*p.Rand()))
	return min(jittered, b.Max)
}

// errorText makes an error fit for the store: scrubbed, one line, bounded.
func (p Policy) errorText(msg string) string {
	msg = p.Scrub(msg)
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
