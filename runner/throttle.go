package runner

import (
	"context"
	"fmt"
	"sync"
)

// How the concurrency adapts to rate limits (see throttle).
const (
	// limitedWeight is the weight of each answer in the running share of
	// rate-limited answers: about the last 16 answers count.
	limitedWeight = 1.0 / 16
	// limitedShare is the share of rate-limited answers above which the
	// concurrency is halved: isolated 429s are retried, not a reason to
	// slow the whole run down.
	limitedShare = 0.5
)

// throttle adapts the calls a provider's run keeps in flight to the
// provider's rate limits, additive increase and multiplicative decrease
// as TCP does: when most recent answers turn calls away (429, 529,
// overloaded), the limit halves, at most once per round of calls in
// flight (an answer to an attempt sent before the last cut does not cut
// again), never below 1; after each limit's worth of answers that went
// through while rate limits are rare, it grows by one, never above the
// configured concurrency. A nil throttle lets every attempt through. Once
// rate limits outlast the run's retry budget, it sends no more calls.
type throttle struct {
	spec string
	mu   sync.Mutex
	// changed is closed and replaced when a slot frees or the limit grows.
	changed chan struct{}
	// max is the configured concurrency, limit the calls now allowed in
	// flight, inflight those in flight, low the lowest limit reached.
	max, limit, inflight, low int
	// cuts counts the times the limit was halved.
	cuts int
	// share is the running share of rate-limited answers; gain counts the
	// answers that went through since the limit last changed.
	share float64
	gain  int
	// limited counts the rate-limited answers, retried those retried and
	// notSent the calls refused after stop.
	limited, retried, notSent int
	// stopped, once set, refuses every new attempt.
	stopped error
}

// newThrottle returns the throttle of spec's calls at concurrency conc.
func newThrottle(spec string, conc int) *throttle {
	conc = max(conc, 1)
	return &throttle{spec: spec, changed: make(chan struct{}), max: conc, limit: conc, low: conc}
}

// ticket is an attempt's slot: the number of cuts when it was sent.
type ticket int

// acquire waits for a slot under the limit for a call's first attempt
// (first) or a retry. It fails when ctx ends, or when the throttle was
// stopped: the call is then not sent, or not retried.
func (t *throttle) acquire(ctx context.Context, first bool) (ticket, error) {
	if t == nil {
		return 0, nil
	}
	for {
		t.mu.Lock()
		if t.stopped != nil {
			err := fmt.Errorf("not retried: %w", t.stopped)
			if first {
				t.notSent++
				err = fmt.Errorf("not sent: %w", t.stopped)
			}
			t.mu.Unlock()
			return 0, err
		}
		if t.inflight < t.limit {
			t.inflight++
			tk := ticket(t.cuts)
			t.mu.Unlock()
			return tk, nil
		}
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// change is a change of the limit, from → to; none when they are equal.
type change struct{ from, to int }

// release frees tk's slot after the attempt's answer: ok when it went
// through, limited when it was a rate limit. It returns the change of the
// limit that the answer caused.
func (t *throttle) release(tk ticket, ok, limited bool) change {
	if t == nil {
		return change{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inflight--
	c := change{t.limit, t.limit}
	switch {
	case limited:
		t.limited++
		t.share += limitedWeight * (1 - t.share)
		if int(tk) == t.cuts && t.share > limitedShare && t.limit > 1 {
			t.limit = max(1, t.limit/2)
			t.low = min(t.low, t.limit)
			t.cuts++
			t.gain = 0
		}
	case ok:
		t.share -= limitedWeight * t.share
		t.gain++
		if t.limit < t.max && t.share <= limitedShare && t.gain >= t.limit {
			t.limit++
			t.gain = 0
		}
	}
	c.to = t.limit
	close(t.changed)
	t.changed = make(chan struct{})
	return c
}

// now returns the current limit.
func (t *throttle) now() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limit
}

// pressed reports whether rate limits repeat: most recent answers of the
// provider turned calls away. Without a throttle, it is whether the call
// was turned away more than freeLimits times (k).
func (t *throttle) pressed(k int) bool {
	if t == nil {
		return k > freeLimits
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.share > limitedShare
}

// most returns the configured concurrency, 0 for a nil throttle.
func (t *throttle) most() int {
	if t == nil {
		return 0
	}
	return t.max
}

// retrying counts a rate-limited answer that is retried.
func (t *throttle) retrying() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.retried++
	t.mu.Unlock()
}

// stop makes every later attempt fail with err, unsent; the first err
// stays.
func (t *throttle) stop(err error) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped == nil {
		t.stopped = err
		close(t.changed)
		t.changed = make(chan struct{})
	}
}

// summary sums up the rate limits the throttle met, with the budget's
// figures; ok is false when it met none.
func (t *throttle) summary(b *budget) (RateLimits, bool) {
	if t == nil {
		return RateLimits{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.limited == 0 {
		return RateLimits{}, false
	}
	spent, total := b.used()
	return RateLimits{
		Provider: t.spec, Answers: t.limited, Retried: t.retried, NotSent: t.notSent,
		Concurrency: t.max, Lowest: t.low, Final: t.limit,
		Waited: spent, Budget: total,
	}, true
}
