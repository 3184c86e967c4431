// Package scheduler holds the monitor's schedule as nouns: the
// Scheduler (a monitor's share of the schedule: it claims slot leases,
// extends them by heartbeats, takes over the slots of monitors that died,
// prunes finished leases and bounds the runs in flight), the slot leases
// it holds (abandoned when another monitor took them over), the owner
// names in them, and the jitter that spreads the slots of one schedule.
// Each scheduled slot of a check is run by the one monitor that claims its
// lease (store.Leases); what runs in a slot is the monitor's, passed in
// as a callback.
package scheduler

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptcanary/promptcanary/store"
)

// DefaultLeaseTTL is how long a slot or a notification a monitor claimed
// stays its own without a heartbeat. Heartbeats (every third of it) keep a
// long run's lease however long it takes, so the TTL only bounds how long
// the slot of a monitor that died waits before another takes it over.
const DefaultLeaseTTL = time.Minute

// The keys of the scheduler's log lines (the monitor's keys).
const (
	logCheck    = "check"
	logProvider = "provider"
	logSlot     = "slot"
	logErr      = "err"
)

// NewOwner returns the id of this process in leases and claims: the host,
// the process id and random bytes, so that two processes (or two
// monitors in one process) never share one.
func NewOwner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "monitor"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Lease is a slot this monitor holds: heartbeats extend it until the
// slot's check run is recorded.
type Lease struct {
	// Key is the slot.
	Key store.SlotKey
	// TakenOver is set when the slot was claimed from a monitor whose
	// lease expired (Previous names it).
	TakenOver bool
	Previous  string
	// Busy is the earlier slot of the check still running, nil if none.
	Busy *store.SlotLease
	// lost is set, and cancel called, when a heartbeat finds that another
	// monitor holds the slot now: the run is abandoned, nothing recorded.
	lost   atomic.Bool
	cancel context.CancelFunc
	// finishing is set just before the run is recorded (FinishSlot): a
	// heartbeat told the lease is lost from then on may be seeing the
	// slot done by this very monitor, and leaves the verdict to record,
	// which learns from the store whether another monitor took it over.
	finishing atomic.Bool
}

// NewLease is the lease of key that the claim c won; cancel (nil for
// none) stops the slot's run when a heartbeat finds the lease lost.
func NewLease(key store.SlotKey, c store.SlotClaim, cancel context.CancelFunc) *Lease {
	return &Lease{Key: key, TakenOver: c.TakenOver, Previous: c.Lease.PreviousOwner, Busy: c.Busy, cancel: cancel}
}

// Finishing marks the lease as being recorded: heartbeats leave it alone
// from now on.
func (l *Lease) Finishing() { l.finishing.Store(true) }

// BusyReason says why a slot is skipped while busy, an earlier one of the
// check, is not done; self is this monitor's owner name.
func BusyReason(busy *store.SlotLease, self string) string {
	at := busy.Slot.UTC().Format(time.RFC3339)
	if busy.Owner == self {
		return fmt.Sprintf("the run of the slot %s is still in flight", at)
	}
	return fmt.Sprintf("the run of the slot %s is still in flight on monitor %s", at, busy.Owner)
}

// Held are the slots a monitor holds. Its zero value holds none; its
// methods are safe for concurrent use.
type Held struct {
	mu    sync.Mutex
	slots map[store.SlotKey]*Lease
}

// Add holds l.
func (h *Held) Add(l *Lease) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.slots == nil {
		h.slots = map[store.SlotKey]*Lease{}
	}
	h.slots[l.Key] = l
}

// Remove stops holding l: no heartbeat extends it any more.
func (h *Held) Remove(l *Lease) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.slots, l.Key)
}

// List returns the leases held, in no order.
func (h *Held) List() []*Lease {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*Lease, 0, len(h.slots))
	for _, l := range h.slots {
		out = append(out, l)
	}
	return out
}

// Extend extends every lease held by owner to until through extend
// (store.Leases' ExtendSlot, as the caller observes it). A lease another
// monitor took over meanwhile (this process was paused, or the store
// unreachable, for longer than the TTL) is given up: its run is cancelled
// and records nothing, since the other monitor runs the slot. A lease
// whose run is being recorded is left alone: the store refuses to extend
// a slot done, and the record tells a takeover from its own finish.
func (h *Held) Extend(ctx context.Context, extend func(store.SlotKey) error, log *slog.Logger) {
	for _, l := range h.List() {
		err := extend(l.Key)
		switch {
		case errors.Is(err, store.ErrLeaseLost) && l.finishing.Load():
			// Done by this monitor, or taken over: record says which.
		case errors.Is(err, store.ErrLeaseLost):
			if l.lost.CompareAndSwap(false, true) {
				log.Warn("lease lost: another monitor runs the slot now; this run is abandoned", logCheck, l.Key.Check,
					logProvider, l.Key.Provider, logSlot, l.Key.Slot, logErr, err)
				if l.cancel != nil {
					l.cancel()
				}
			}
		case err != nil && ctx.Err() == nil:
			log.Warn("extend the lease of a slot", logCheck, l.Key.Check, logProvider, l.Key.Provider, logSlot, l.Key.Slot, logErr, err)
		}
	}
}

// Jitter is the delay of slot for a check and provider: a deterministic
// fraction (a hash of the check, the provider and the slot) of frac × the
// interval, so that checks on the same schedule spread out, and every
// restart (and every monitor sharing a store) agrees on it.
func Jitter(check, provider string, frac float64, interval time.Duration, slot time.Time) time.Duration {
	if frac <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(check))
	h.Write([]byte{0})
	h.Write([]byte(provider))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(slot.UnixNano()))
	h.Write(b[:])
	f := float64(h.Sum64()>>11) / (1 << 53)
	return time.Duration(f * frac * float64(interval))
}
