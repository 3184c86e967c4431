package monitor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// waitingConfirmation returns a fixture whose check (every 1h, 5
// samples, jitter 0) answers badly and waits confirm_after: 20m before
// its confirmation run, and its monitor.
func waitingConfirmation(t *testing.T) (*fixture, *Monitor) {
	t.Helper()
	f := newFixture(t, "")
	f.saveBaseline(10)
	f.extra = "    confirm_after: 20m\n"
	cfg := f.config("1h", 5)
	if c := cfg.Checks[0]; c.ConfirmAfter != 20*time.Minute || !c.Confirm {
		t.Fatalf("got confirm %v, confirm_after %s; want a confirmation 20m later", c.Confirm, c.ConfirmAfter)
	}
	f.flip.set("bad")
	return f, f.monitor(cfg)
}

// A run that flags drift starts its confirmation confirm_after later, on
// the monitor's clock: not a call before, then the confirmation confirms
// and the incident opens. serve --once waits the same way.
func TestConfirmationWaitsConfirmAfter(t *testing.T) {
	f, m := waitingConfirmation(t)
	done := make(chan promptcanary.CheckRun, 1)
	go func() { done <- f.once(m) }()
	// Once has no scheduler: the only timer on the clock is the wait.
	eventually(t, "the confirmation waits on the clock", func() bool { return f.clock.waiters() == 1 })
	calls := f.flip.calls.Load()
	if got := m.Statuses()[0].Confirmation; got != "20m after a run that flags drift" {
		t.Errorf("dashboard: got confirmation %q, want 20m after a run that flags drift", got)
	}
	if !strings.Contains(f.logs.String(), "the confirmation run waits for confirm_after") {
		t.Errorf("the log does not say the confirmation waits")
	}
	f.clock.Advance(20*time.Minute - time.Second)
	if n := f.flip.calls.Load(); n != calls || f.clock.waiters() != 1 {
		t.Fatalf("before confirm_after passed: got %d calls (want %d) and %d timers (want 1)", n, calls, f.clock.waiters())
	}
	if runs := f.checkRuns(); len(runs) != 0 {
		t.Fatalf("got check runs %+v while the confirmation waits, want none yet", runs)
	}
	if ls := f.leasesOf(); len(ls) != 1 || ls[0].State != store.LeaseRunning || ls[0].Owner != m.schedule.Owner() {
		t.Fatalf("got leases %+v, want the slot held while the confirmation waits", ls)
	}
	f.clock.Advance(time.Second)
	var cr promptcanary.CheckRun
	select {
	case cr = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the confirmation did not run once confirm_after passed")
	}
	if cr.Outcome != promptcanary.CheckDrift || !cr.Confirmed || cr.ConfirmRunID == "" || cr.ConfirmRunID == cr.RunID {
		t.Fatalf("got %+v, want a drift confirmed by a second run", cr)
	}
	if f.flip.calls.Load() <= calls {
		t.Errorf("no call after the wait: the confirmation did not run")
	}
	if got := cr.FinishedAt.Sub(cr.StartedAt); got < 20*time.Minute {
		t.Errorf("the check run lasted %s on the monitor's clock, want at least confirm_after (20m)", got)
	}
	if open := f.incidents(true); len(open) != 1 || open[0].RunID != cr.ConfirmRunID {
		t.Errorf("got open incidents %+v, want one, linking the confirmation run", open)
	}
}

// A stop while the confirmation waits ends the wait at once, not after
// the shutdown grace; the flagged run is recorded as a drift the
// confirmation did not confirm, and opens nothing. Meanwhile the ticker's
// heartbeats keep the slot's lease held past its TTL.
func TestStopWhileConfirmationWaits(t *testing.T) {
	f, m := waitingConfirmation(t)
	m.grace = time.Hour // a stop that waited for the grace would hang
	f.started(m)
	f.clock.Advance(time.Minute) // 10:00: the run flags drift
	eventually(t, "the confirmation waits on the clock", func() bool {
		return strings.Contains(f.logs.String(), "the confirmation run waits") && f.clock.waiters() == 3
	})
	calls := f.flip.calls.Load()
	// Five minutes of ticks, well past the lease's TTL (1m).
	for range 15 {
		f.clock.Advance(20 * time.Second)
		eventually(t, "the ticker waits again", func() bool { return f.clock.waiters() == 3 })
	}
	eventually(t, "a heartbeat extended the lease", func() bool {
		ls := f.leasesOf()
		return len(ls) == 1 && ls[0].ExpiresAt.After(f.clock.Now())
	})
	if ls := f.leasesOf(); ls[0].State != store.LeaseRunning || ls[0].Owner != m.schedule.Owner() {
		t.Fatalf("got lease %+v, want the slot held by the monitor while the confirmation waits", ls[0])
	}
	if n := f.flip.calls.Load(); n != calls || len(f.checkRuns()) != 0 {
		t.Fatalf("got %d calls (want %d) and %d check runs (want 0) before confirm_after passed", n, calls, len(f.checkRuns()))
	}

	stopped := make(chan error, 1)
	go func() { stopped <- m.Stop(context.Background()) }()
	select {
	case err := <-stopped:
		noErr(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end the wait for the confirmation")
	}
	runs := f.checkRuns()
	if len(runs) != 1 || runs[0].Outcome != promptcanary.CheckDrift || runs[0].Confirmed || runs[0].ConfirmRunID != "" ||
		runs[0].Reason != "the confirmation run could not be measured: "+reasonStoppedWaiting {
		t.Fatalf("got runs %+v, want one drift, unconfirmed, that says the confirmation waited when the monitor stopped", runs)
	}
	if n := f.flip.calls.Load(); n != calls {
		t.Errorf("got %d calls after the stop, want %d: no confirmation", n, calls)
	}
	if open := f.incidents(false); len(open) != 0 {
		t.Errorf("got incidents %+v, want none", open)
	}
	if ls := f.leasesOf(); len(ls) != 1 || ls[0].State != store.LeaseDone {
		t.Errorf("got leases %+v, want the slot done", ls)
	}
}

// serve --once interrupted (its context cancelled) while the confirmation
// waits records the flagged run as unconfirmed, as a stop does.
func TestOnceCancelledWhileConfirmationWaits(t *testing.T) {
	f, m := waitingConfirmation(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Once(ctx)
		done <- err
	}()
	eventually(t, "the confirmation waits on the clock", func() bool { return f.clock.waiters() == 1 })
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("Once: got no error, want the cancellation")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled Once still waits for the confirmation")
	}
	runs := f.checkRuns()
	if len(runs) != 1 || runs[0].Outcome != promptcanary.CheckDrift || runs[0].Confirmed ||
		!strings.Contains(runs[0].Reason, reasonStoppedWaiting) {
		t.Fatalf("got runs %+v, want one drift, unconfirmed, stopped while the confirmation waited", runs)
	}
	if open := f.incidents(false); len(open) != 0 {
		t.Errorf("got incidents %+v, want none", open)
	}
}
