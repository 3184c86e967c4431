package scheduler

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// TakeoverBatch bounds the expired slots one TakeOver takes over.
const TakeoverBatch = 16

// LeaseKeep is how long finished leases are kept before Prune deletes
// them; PruneEvery how often it does.
const (
	LeaseKeep  = 7 * 24 * time.Hour
	PruneEvery = time.Hour
)

// The keys of the scheduler's log lines that only the scheduler writes.
const logCount = "count"

// Options are what a Scheduler needs.
type Options struct {
	// Leases is the store the slot leases are claimed in.
	Leases store.Leases
	// Owner names this monitor in the leases.
	Owner string
	// TTL is how long a lease stays this monitor's without a heartbeat;
	// DefaultLeaseTTL when zero.
	TTL time.Duration
	// Concurrency bounds the runs holding a run slot (Acquire) at once;
	// at least 1.
	Concurrency int
	// Now is the clock; After waits on it, as time.After does.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	// Log receives the scheduler's log lines.
	Log *slog.Logger
	// Wrote observes the result of every write of a lease (the monitor's
	// health of the store) and returns it.
	Wrote func(error) error
}

// Scheduler is one monitor's share of the schedule: the slot leases it
// claims in the store, holds and extends by heartbeats, the slots of dead
// monitors it takes over, the pruning of finished leases and the bound on
// the runs in flight. What runs in a slot is the caller's. Its methods are
// safe for concurrent use.
type Scheduler struct {
	leases store.Leases
	owner  string
	ttl    time.Duration
	now    func() time.Time
	after  func(time.Duration) <-chan time.Time
	log    *slog.Logger
	wrote  func(error) error
	held   Held
	sem    chan struct{}

	mu       sync.Mutex // guards prunedAt
	prunedAt time.Time  // when the finished leases were last pruned
}

// New returns the scheduler of o.
func New(o Options) *Scheduler {
	return &Scheduler{
		leases: o.Leases,
		owner:  o.Owner,
		ttl:    cmp.Or(o.TTL, DefaultLeaseTTL),
		now:    o.Now,
		after:  o.After,
		log:    o.Log,
		wrote:  o.Wrote,
		sem:    make(chan struct{}, max(o.Concurrency, 1)),
	}
}

// Owner is the name of this monitor in the leases.
func (s *Scheduler) Owner() string { return s.owner }

// TTL is how long a lease stays this monitor's without a heartbeat.
func (s *Scheduler) TTL() time.Duration { return s.ttl }

// Claim claims the slot key for this monitor. When the claim is won, the
// lease is held (heartbeats extend it) until Unhold; cancel (nil for none)
// stops the slot's run when a heartbeat finds the lease lost, and is set
// before the heartbeats can see the lease. The claim is returned either
// way, for the caller to say who holds the slot; the error is the store's
// (observed by Wrote).
func (s *Scheduler) Claim(ctx context.Context, key store.SlotKey, cancel context.CancelFunc) (*Lease, store.SlotClaim, error) {
	c, err := s.leases.ClaimSlot(context.WithoutCancel(ctx), key, s.owner, s.now(), s.ttl)
	if err = s.wrote(err); err != nil || !c.Claimed {
		return nil, c, err
	}
	l := NewLease(key, c, cancel)
	s.held.Add(l)
	return l, c, nil
}

// Unhold stops the heartbeats of l.
func (s *Scheduler) Unhold(l *Lease) { s.held.Remove(l) }

// Finish records the slot of l as done with cr (store.Leases'
// FinishSlot, observed by Wrote), marking l as finishing first (see
// Lease.Finishing). store.ErrLeaseLost means another monitor took the
// slot over: cr is not recorded.
func (s *Scheduler) Finish(ctx context.Context, l *Lease, cr *promptcanary.CheckRun) error {
	l.Finishing()
	return s.wrote(s.leases.FinishSlot(context.WithoutCancel(ctx), l.Key, s.owner, s.now(), cr))
}

// Heartbeat extends every lease held by the TTL (see Held.Extend) and
// returns the time they now run until.
func (s *Scheduler) Heartbeat(ctx context.Context) time.Time {
	until := s.now().Add(s.ttl)
	s.held.Extend(ctx, func(key store.SlotKey) error {
		return s.wrote(s.leases.ExtendSlot(ctx, key, s.owner, until))
	}, s.log)
	return until
}

// Heartbeats calls beat every third of the TTL, on the wall clock, in a
// goroutine of its own, until the stop it returns is called (or ctx
// ends); stop returns once no beat runs any more.
func (s *Scheduler) Heartbeats(ctx context.Context, beat func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				beat(ctx)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// TakeOver finds the slots whose monitor died (their leases expired
// without being finished) and calls run for each that another monitor
// held; run claims the slot again (one monitor wins) and runs it from the
// start. A slot of this monitor whose heartbeat is late (a slow store, a
// paused process) is still its own unless another takes it.
func (s *Scheduler) TakeOver(ctx context.Context, now time.Time, run func(store.SlotLease)) {
	expired, err := s.leases.ExpiredSlots(ctx, now, TakeoverBatch)
	if err != nil {
		s.log.Warn("list the expired slot leases", logErr, err)
		return
	}
	for _, l := range expired {
		if l.Owner != s.owner {
			run(l)
		}
	}
}

// InFlightElsewhere returns the earliest slot of check and provider
// running on another monitor, among the newest n leases; zero for none.
func (s *Scheduler) InFlightElsewhere(ctx context.Context, check, provider string, n int) (time.Time, error) {
	leases, err := s.leases.SlotLeases(ctx, check, provider, n)
	if err != nil {
		return time.Time{}, err
	}
	var remote time.Time
	for _, l := range leases {
		if l.State == store.LeaseRunning && l.Owner != s.owner && (remote.IsZero() || l.Slot.Before(remote)) {
			remote = l.Slot
		}
	}
	return remote, nil
}

// Prune deletes the leases finished more than LeaseKeep ago, at most once
// per PruneEvery.
func (s *Scheduler) Prune(ctx context.Context, now time.Time) {
	s.mu.Lock()
	due := now.Sub(s.prunedAt) >= PruneEvery || now.Before(s.prunedAt)
	if due {
		s.prunedAt = now
	}
	s.mu.Unlock()
	if !due {
		return
	}
	n, err := s.leases.PruneLeases(ctx, now.Add(-LeaseKeep))
	if err != nil {
		s.log.Warn("prune the finished leases", logErr, err)
		return
	}
	if n > 0 {
		s.log.Debug("finished leases pruned", logCount, n)
	}
}

// Acquire takes one of the run slots, unless ctx ends or stop (the
// schedule's context, nil for none) ends first: a run that has not
// started when the monitor stops is not started. Release gives it back.
func (s *Scheduler) Acquire(ctx, stop context.Context) error {
	var stopped <-chan struct{}
	if stop != nil {
		if err := stop.Err(); err != nil {
			return err
		}
		stopped = stop.Done()
	}
	select {
	case s.sem <- struct{}{}:
		// A slot freed as the monitor stops may win the select over the
		// stop: the stop comes first.
		if stop != nil && stop.Err() != nil {
			<-s.sem
			return stop.Err()
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-stopped:
		return stop.Err()
	}
}

// Release gives back a run slot Acquire took.
func (s *Scheduler) Release() { <-s.sem }
