// Package memo remembers computed values, bounded and safe for concurrent
// use: a key computed by one goroutine is waited for, not computed again,
// by the others that want it at the same time, and the least recently used
// values make room for new ones. llm_judge keeps its judges' verdicts in
// one, similarity the embeddings of answers.
package memo

import (
	"container/list"
	"context"
	"errors"
	"sync"
)

// Memo maps keys to computed values. The zero value is not usable; call
// New.
type Memo[K comparable, V any] struct {
	mu       sync.Mutex
	max      int
	order    *list.List // of *entry, most recently used first
	stored   map[K]*list.Element
	inflight map[K]*flight[V]
}

type entry[K comparable, V any] struct {
	key K
	val V
}

// flight is a computation in progress; done is closed when it ends.
type flight[V any] struct {
	done chan struct{}
	val  V
	err  error
}

// New returns a memo that keeps at most limit values (at least 1).
func New[K comparable, V any](limit int) *Memo[K, V] {
	return &Memo[K, V]{max: max(limit, 1), order: list.New(), stored: map[K]*list.Element{}, inflight: map[K]*flight[V]{}}
}

// Len returns the number of values stored.
func (m *Memo[K, V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.stored)
}

// Get returns the value stored under k.
func (m *Memo[K, V]) Get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.stored[k]; ok {
		m.order.MoveToFront(el)
		return el.Value.(*entry[K, V]).val, true
	}
	var zero V
	return zero, false
}

// Put stores v under k, evicting the least recently used value when the
// memo is full.
func (m *Memo[K, V]) Put(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.put(k, v)
}

func (m *Memo[K, V]) put(k K, v V) {
	if el, ok := m.stored[k]; ok {
		el.Value.(*entry[K, V]).val = v
		m.order.MoveToFront(el)
		return
	}
	m.stored[k] = m.order.PushFront(&entry[K, V]{key: k, val: v})
	for len(m.stored) > m.max {
		last := m.order.Back()
		m.order.Remove(last)
		delete(m.stored, last.Value.(*entry[K, V]).key)
	}
}

// Slot is what Begin found for a key: a stored value, a computation in
// flight to Wait for, or, when Mine, the caller's duty to compute the
// value and End it.
type Slot[V any] struct {
	// Value is the stored value when Stored.
	Value  V
	Stored bool
	f      *flight[V]
	mine   bool
}

// Mine reports whether the caller must compute the value and call End.
func (s Slot[V]) Mine() bool { return s.mine }

// Wait waits for the computation in flight and returns its outcome, or
// ctx's error when ctx ends first. For a stored slot it returns Value.
func (s Slot[V]) Wait(ctx context.Context) (V, error) {
	if s.Stored || s.f == nil {
		return s.Value, nil
	}
	select {
	case <-s.f.done:
		return s.f.val, s.f.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// Begin looks k up. When it is neither stored nor being computed, the
// slot is Mine: the caller computes the value and must call End(k, …)
// exactly once, or waiters would wait until their context ends.
func (m *Memo[K, V]) Begin(k K) Slot[V] {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.stored[k]; ok {
		m.order.MoveToFront(el)
		return Slot[V]{Value: el.Value.(*entry[K, V]).val, Stored: true}
	}
	if f, ok := m.inflight[k]; ok {
		return Slot[V]{f: f}
	}
	f := &flight[V]{done: make(chan struct{})}
	m.inflight[k] = f
	return Slot[V]{f: f, mine: true}
}

// End ends the computation of k that Begin gave the caller: its waiters
// get v and err, and v is stored when keep is set (a failure is usually
// not kept, so that the next caller tries again).
func (m *Memo[K, V]) End(k K, v V, keep bool, err error) {
	m.mu.Lock()
	f := m.inflight[k]
	delete(m.inflight, k)
	if keep {
		m.put(k, v)
	}
	m.mu.Unlock()
	if f != nil {
		f.val, f.err = v, err
		close(f.done)
	}
}

// Do returns the value stored under k, else the outcome of the
// computation of k another goroutine has in flight, else computes it with
// fn, storing the value when fn says to keep it. shared reports that the
// value was not computed by this call. A waiter whose own ctx is still
// alive when the computation it waited for ended with a context error
// computes the value itself.
func (m *Memo[K, V]) Do(ctx context.Context, k K, fn func() (v V, keep bool, err error)) (v V, shared bool, err error) {
	for {
		s := m.Begin(k)
		if s.Stored {
			return s.Value, true, nil
		}
		if !s.Mine() {
			v, err := s.Wait(ctx)
			if err != nil && ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
				continue
			}
			return v, true, err
		}
		var keep bool
		func() {
			defer func() {
				if r := recover(); r != nil {
					m.End(k, v, false, errors.New("computation panicked"))
					panic(r)
				}
			}()
			v, keep, err = fn()
		}()
		m.End(k, v, keep && err == nil, err)
		return v, false, err
	}
}
