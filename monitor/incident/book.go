// Package incident holds the monitor's incidents as nouns: their
// fingerprints, the book of the open ones (the lock that serialises every
// step of their lifecycle, and the copy readers see), the daily budget
// whose exhaustion is an incident of its own, and the Lifecycle that
// keeps them (open, update, repeat, acknowledge, resolve), recording each
// step in the store with its notifications for the outbox. A check's
// Tracker holds what its incidents depend on (failures in a row, the trend
// detector, the baseline, the cost of a run); the monitor measures a run
// and the lifecycle decides what it found (Decide, Stale, Admit) and does
// the rest.
package incident

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/promptcanary/promptcanary"
)

// Fingerprint identifies what an incident is about: a stable hash of the
// check, the provider and the kind, the same in every process and on
// every restart (notifiers use it as their dedup key).
func Fingerprint(check, provider string, kind promptcanary.IncidentKind) string {
	h := sha256.New()
	for _, s := range []string{check, provider, string(kind)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Book holds the open incidents, by fingerprint. Its lock (Lock, Unlock)
// also serialises every lifecycle step, so two runs never race on one
// incident; since a step holds it while it writes to the store (which may
// be locked by another process for a while), readers such as the
// dashboard read the copy published after each step instead (List, Of).
// Its zero value is an empty book.
type Book struct {
	mu   sync.Mutex
	open map[string]*promptcanary.Incident
	// published is a copy of open as List returns it, replaced by
	// Publish; readers never take mu.
	published atomic.Pointer[[]promptcanary.Incident]
}

// Lock takes the book's lock: the methods below that say so need it.
func (b *Book) Lock() { b.mu.Lock() }

// Unlock releases the book's lock.
func (b *Book) Unlock() { b.mu.Unlock() }

// Load replaces the open incidents with open (as a store lists them: of
// two with one fingerprint, the newest opened wins); the caller holds the
// lock.
func (b *Book) Load(open []promptcanary.Incident) {
	b.open = make(map[string]*promptcanary.Incident, len(open))
	for i := range open {
		inc := open[i]
		if prev := b.open[inc.Fingerprint]; prev == nil || inc.OpenedAt.After(prev.OpenedAt) {
			b.open[inc.Fingerprint] = &inc
		}
	}
}

// Get returns the open incident of fp, nil when none; the caller holds
// the lock.
func (b *Book) Get(fp string) *promptcanary.Incident { return b.open[fp] }

// Put makes inc the open incident of fp; the caller holds the lock.
func (b *Book) Put(fp string, inc *promptcanary.Incident) {
	if b.open == nil {
		b.open = map[string]*promptcanary.Incident{}
	}
	b.open[fp] = inc
}

// Delete closes the open incident of fp in the book; the caller holds the
// lock.
func (b *Book) Delete(fp string) { delete(b.open, fp) }

// Publish makes the open incidents as they are now what List and Of
// return, and returns them; the caller holds the lock.
func (b *Book) Publish() []promptcanary.Incident {
	l := b.current()
	b.published.Store(&l)
	return l
}

// List returns copies of the open incidents as last published, newest
// opened first.
func (b *Book) List() []promptcanary.Incident {
	p := b.published.Load()
	if p == nil {
		return nil
	}
	out := make([]promptcanary.Incident, len(*p))
	for i := range *p {
		out[i] = Copy(&(*p)[i])
	}
	return out
}

// current is List for a caller that holds the lock.
func (b *Book) current() []promptcanary.Incident {
	out := make([]promptcanary.Incident, 0, len(b.open))
	for _, inc := range b.open {
		out = append(out, Copy(inc))
	}
	slices.SortFunc(out, func(a, b promptcanary.Incident) int {
		if c := b.OpenedAt.Compare(a.OpenedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Of returns copies of the open incidents of one check and provider, as
// last published.
func (b *Book) Of(check, provider string) []promptcanary.Incident {
	var out []promptcanary.Incident
	for _, inc := range b.List() {
		if inc.Check == check && inc.Provider == provider {
			out = append(out, inc)
		}
	}
	return out
}

// Copy copies inc with its slices.
func Copy(inc *promptcanary.Incident) promptcanary.Incident {
	c := *inc
	c.Units = slices.Clone(inc.Units)
	c.NotifiedTo = slices.Clone(inc.NotifiedTo)
	return c
}
