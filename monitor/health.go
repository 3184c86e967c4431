package monitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/promptcanary/promptcanary/store"
)

// probeEvery is how often the ticker asks the store whether it can be
// written (it takes the write lock for a moment): every failed write of a
// slot's claim or run tells sooner.
const probeEvery = 10 * time.Second

// storeLogEvery is how often the log repeats that the store cannot be
// written while it stays so.
const storeLogEvery = 5 * time.Minute

// writeProbe is how a write reached the store: a real write of the
// monitor's state, or the cheap check of store.WriteChecker, which passes
// on a full disk (only a real write can tell that it has room again).
type writeProbe bool

const (
	realWrite  writeProbe = false
	probeWrite writeProbe = true
)

// storeHealth is whether the store takes the monitor's writes: a monitor
// that cannot record runs or incidents runs blind, and says so on /readyz,
// promptcanary_store_up and in its log rather than inventing incidents it
// cannot keep.
type storeHealth struct {
	// now, log, up (the store_up gauge) and scrub are the monitor's.
	now   func() time.Time
	log   *slog.Logger
	up    prometheus.Gauge
	scrub func(error) error

	mu sync.Mutex
	// err is the last failure, nil while the store is writable.
	err error
	// byProbe is set while every failure since err was first set came
	// from the probe: a passing probe then clears it.
	byProbe bool
	since   time.Time // when the store stopped taking writes
	logged  time.Time // when that was last logged
}

// wrote notes the outcome of a write to the store and returns err: a
// failure marks the store unwritable (logged at once, then every
// storeLogEvery), a success writable again. A lost lease or a conflict is
// the store answering, and a cancelled context says nothing about it.
func (h *storeHealth) wrote(how writeProbe, err error) error {
	switch {
	case errors.Is(err, store.ErrLeaseLost), errors.Is(err, store.ErrConflict):
		h.observe(how, nil)
	case errors.Is(err, context.Canceled):
	default:
		h.observe(how, err)
	}
	return err
}

// observe updates the store's health, its gauge and the log.
func (h *storeHealth) observe(how writeProbe, err error) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if err == nil {
		if h.err == nil || how == probeWrite && !h.byProbe {
			return
		}
		h.log.Info("the store takes writes again: runs and incidents are recorded", logDown, now.Sub(h.since).Round(time.Second))
		h.err = nil
		h.up.Set(1)
		return
	}
	if h.err == nil {
		h.since, h.byProbe, h.logged = now, how == probeWrite, time.Time{}
	} else if how == realWrite {
		h.byProbe = false
	}
	h.err = h.scrub(err)
	h.up.Set(0)
	if h.logged.IsZero() || now.Sub(h.logged) >= storeLogEvery || now.Before(h.logged) {
		h.logged = now
		h.log.Error("the store cannot be written: the monitor runs no check and opens no incident until it can (is the disk full, or the file or database read-only?)",
			logErr, h.err, logDown, now.Sub(h.since).Round(time.Second))
	}
}

// failure returns why the store cannot be written, nil when it can.
func (h *storeHealth) failure() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// probeStore asks the store whether it can be written now and notes the
// answer (see wrote).
func (m *Monitor) probeStore(ctx context.Context) error {
	return m.health.wrote(probeWrite, m.checkWrite(ctx))
}

// checkWrite asks the store whether it can be written now, when it can
// tell (store.WriteChecker).
func (m *Monitor) checkWrite(ctx context.Context) error {
	wc, ok := m.hist.(store.WriteChecker)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return wc.CheckWrite(ctx)
}

// CheckStore reports whether the store can be written now, as serve
// --check-config asks before it says the configuration is fine: nil when
// it can (or cannot tell), else why not. It logs nothing: the caller
// reports the error.
func (m *Monitor) CheckStore(ctx context.Context) error {
	if err := m.checkWrite(ctx); err != nil {
		return fmt.Errorf("the store cannot be written: %w", m.scrub(err))
	}
	return nil
}
