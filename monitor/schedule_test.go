package monitor

import (
	"context"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/incident"
)

// started starts m and waits until its schedule loop and its staleness
// ticker both wait on the clock.
func (f *fixture) started(m *Monitor) {
	f.t.Helper()
	if err := m.Start(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = m.Stop(context.Background()) })
	f.idle()
}

// idle waits until the schedule loop and the ticker wait on the clock.
func (f *fixture) idle() {
	f.t.Helper()
	eventually(f.t, "the scheduler waits on the clock", func() bool { return f.clock.waiters() == 2 })
}

// settled waits until no run of m is in flight (recorded and decided).
func (f *fixture) settled(m *Monitor) {
	f.t.Helper()
	eventually(f.t, "no run in flight", func() bool {
		for _, s := range m.Statuses() {
			if s.Running {
				return false
			}
		}
		return true
	})
}

// runsWith counts the stored check runs of an outcome.
func (f *fixture) runsWith(o promptcanary.CheckOutcome) int {
	n := 0
	for _, r := range f.checkRuns() {
		if r.Outcome == o {
			n++
		}
	}
	return n
}

// blockFirstSlot starts m with the provider blocking and advances to its
// first slot (10:00), returning once that slot's run has begun (and
// blocks).
func (f *fixture) blockFirstSlot(m *Monitor) {
	f.t.Helper()
	f.flip.set("block")
	f.started(m)
	f.clock.Advance(time.Minute)
	<-f.flip.entered
}

// A slot that comes while the check's previous run is still in flight is
// skipped and recorded as such; the run in flight completes.
func TestOverlappingSlotIsSkipped(t *testing.T) {
	f, m := newOneSample(t, "1m")
	f.blockFirstSlot(m)
	f.idle()
	if s := m.Statuses(); len(s) != 1 || !s[0].Running {
		t.Fatalf("got statuses %+v, want the check running", s)
	}
	f.clock.Advance(time.Minute) // 10:01, while 10:00 runs
	eventually(t, "a skipped run", func() bool { return f.runsWith(promptcanary.CheckSkipped) == 1 })
	skipped := f.checkRuns()[0]
	if !strings.Contains(skipped.Reason, "still in flight") || !skipped.Slot.Equal(epoch.Add(2*time.Minute)) {
		t.Errorf("got skipped run %+v, want slot 10:01 and the reason", skipped)
	}
	close(f.flip.release)
	eventually(t, "the run in flight completes", func() bool { return f.runsWith(promptcanary.CheckClean) == 1 })
	clean := f.checkRuns()
	if got := clean[len(clean)-1]; got.Outcome != promptcanary.CheckClean || !got.Slot.Equal(epoch.Add(time.Minute)) {
		t.Errorf("got first run %+v, want the clean run of slot 10:00", got)
	}
}

// After a jump of the clock (or a long sleep) the missed slots make one
// run, not a burst, and no staleness incident.
func TestClockJumpIsCoalesced(t *testing.T) {
	f, m := newOneSample(t, "1m")
	f.started(m)

	f.clock.Set(epoch.Add(10 * time.Hour)) // 19:59: 600 slots missed
	eventually(t, "one run", func() bool { return len(f.checkRuns()) == 1 })
	f.settled(m)
	f.idle()
	f.clock.Advance(30 * time.Second) // not yet the next slot
	f.idle()
	runs := f.checkRuns()
	if len(runs) != 1 || runs[0].Outcome != promptcanary.CheckClean || !runs[0].Slot.Equal(epoch.Add(10*time.Hour)) {
		t.Fatalf("got runs %+v, want one clean run for the latest slot, 19:59", runs)
	}
	if !strings.Contains(f.logs.String(), "missed slots coalesced") {
		t.Errorf("got logs without the coalescing: %s", f.logs.String())
	}
	if open := f.incidents(true); len(open) != 0 {
		t.Errorf("got incidents %+v after a clock jump, want none", open)
	}
	f.clock.Advance(30 * time.Second) // 20:00
	eventually(t, "the next slot runs", func() bool { return len(f.checkRuns()) == 2 })
}

// A check that does not complete for twice its interval (here a run that
// hangs) gets an unmeasured incident from the ticker, which measured runs
// then resolve.
func TestStaleCheckOpensUnmeasured(t *testing.T) {
	f, m := newOneSample(t, "1m")
	f.blockFirstSlot(m) // the run hangs
	// Step the clock 15s at a time (the ticker's period) past 2m.
	for range 10 {
		f.idle()
		f.clock.Advance(15 * time.Second)
	}
	eventually(t, "an unmeasured incident", func() bool { return len(f.incidents(true)) == 1 })
	inc := f.incidents(true)[0]
	if inc.Kind != promptcanary.IncidentUnmeasured || !strings.Contains(inc.Summary, "no measured run for") {
		t.Fatalf("got %+v, want an unmeasured incident for staleness", inc)
	}
	if s := m.Statuses(); !s[0].Stale {
		t.Errorf("got status %+v, want it stale", s[0])
	}
	f.flip.set("good")
	close(f.flip.release)
	eventually(t, "the hung run completes", func() bool { return f.runsWith(promptcanary.CheckClean) == 1 })
	f.settled(m)
	f.idle()
	f.clock.Advance(time.Minute)
	eventually(t, "the incident resolves", func() bool { return len(f.incidents(true)) == 0 })
	eventually(t, "the resolve is delivered", func() bool { return len(f.hook.got()) == 2 })
	if got := f.hook.got(); len(got) != 2 || got[1].Status != promptcanary.NotificationResolved {
		t.Errorf("got notifications %+v, want firing then resolved", got)
	}
}

// Stop cancels a run still in flight after the grace and records it as
// unmeasured (interrupted), which opens no incident; the listener closes.
func TestStopInterruptsRunsAfterGrace(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	cfg := f.config("1m", 1)
	cfg.ShutdownGrace = 20 * time.Millisecond
	m := f.monitor(cfg)
	f.flip.set("block")
	f.started(m)
	addr := m.Addr()
	f.clock.Advance(time.Minute)
	<-f.flip.entered
	if err := m.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	runs := f.checkRuns()
	if len(runs) != 1 || runs[0].Outcome != promptcanary.CheckUnmeasured || runs[0].Reason != incident.ReasonInterrupted {
		t.Fatalf("got runs %+v, want one unmeasured, interrupted", runs)
	}
	if open := f.incidents(false); len(open) != 0 {
		t.Errorf("got incidents %+v, want none for a stop", open)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("dial %s after Stop: connected, want the listener closed", addr)
	}
}

// The daily budget skips checks once the day's spend would pass it, opens
// one budget incident, and resolves it the next (UTC) day.
func TestBudget(t *testing.T) {
	// 4 calls of 150 tokens at $10,000 per million: $6 a run.
	f := newFixture(t, "prices:\n  \"{SPEC}\": {input: 10000, output: 10000}\n")
	f.top = "budget: {usd_per_day: 10}\n"
	f.saveBaseline(3)
	m := f.monitor(f.config("1h", 1))
	cr := f.once(m)
	if cr.Outcome != promptcanary.CheckClean || cr.CostUSD < 5.99 || cr.CostUSD > 6.01 {
		t.Fatalf("got %+v, want a clean run costing $6", cr)
	}
	f.clock.Advance(time.Hour)
	cr = f.once(m)
	if cr.Outcome != promptcanary.CheckSkipped || !strings.Contains(cr.Reason, "daily budget of $10.00") {
		t.Fatalf("got %+v, want the run skipped for the budget", cr)
	}
	open := f.incidents(true)
	if len(open) != 1 || open[0].Kind != promptcanary.IncidentBudget {
		t.Fatalf("got open incidents %+v, want one budget incident", open)
	}
	f.clock.Advance(time.Hour)
	f.once(m)
	if got := f.hook.got(); len(got) != 1 || got[0].Kind != promptcanary.IncidentBudget {
		t.Fatalf("got notifications %+v, want one firing of the budget incident", got)
	}
	// A new UTC day: the incident resolves and checks run again.
	f.clock.Set(time.Date(2026, time.March, 3, 0, 5, 0, 0, time.UTC))
	if cr := f.once(m); cr.Outcome != promptcanary.CheckClean {
		t.Fatalf("next day: got %+v, want a clean run", cr)
	}
	if open := f.incidents(true); len(open) != 0 {
		t.Fatalf("next day: got open incidents %+v, want none", open)
	}
	if got := f.hook.got(); len(got) != 2 || got[1].Status != promptcanary.NotificationResolved {
		t.Fatalf("got notifications %+v, want the budget's firing and resolved", got)
	}
	// A restart the same day knows the day's spend: $6 of $10, a run $6.
	m2 := f.monitor(f.config("1h", 1))
	if cr := f.once(m2); cr.Outcome != promptcanary.CheckSkipped {
		t.Fatalf("after a restart: got %+v, want skipped (the day's spend is restored)", cr)
	}
}

// A run still in flight is not stale until it has been running for twice
// the interval: a slow run (or a drift and its confirmation) that takes a
// little longer than the interval opens no unmeasured incident, which
// would also inhibit the drift it is about to confirm. A run that hangs is
// still caught.
func TestSlowRunInFlightIsNotStale(t *testing.T) {
	f, m := newOneSample(t, "1m")
	f.started(m)
	f.clock.Advance(time.Minute) // 10:00: a clean run
	eventually(t, "a clean run", func() bool { return f.runsWith(promptcanary.CheckClean) == 1 })
	f.settled(m)
	f.idle()
	f.flip.set("block")
	f.clock.Advance(time.Minute) // 10:01: the run is slow
	<-f.flip.entered
	// Step the clock 15s at a time (the ticker's period) to 10:02:45,
	// more than 2m after the last success but less after the run began.
	for range 7 {
		f.idle()
		f.clock.Advance(15 * time.Second)
	}
	f.idle()
	if open := f.incidents(true); len(open) != 0 {
		t.Fatalf("got incidents %+v while a run of 1m45s is in flight, want none", open)
	}
	if s := m.Statuses(); s[0].Stale {
		t.Errorf("got status %+v, want it not stale", s[0])
	}
	// 10:03:15: the run has been in flight for more than 2m: it hangs.
	for range 2 {
		f.clock.Advance(15 * time.Second)
		f.idle()
	}
	eventually(t, "an unmeasured incident", func() bool { return len(f.incidents(true)) == 1 })
	if inc := f.incidents(true)[0]; inc.Kind != promptcanary.IncidentUnmeasured || !strings.Contains(inc.Summary, "in flight") {
		t.Errorf("got %+v, want an unmeasured incident for the run in flight", inc)
	}
	close(f.flip.release)
	f.settled(m)
}

// After the wall clock is set back (by an hour here), the schedule goes on
// from the new time: the next slot runs within an interval, not an hour
// later, and no check turns stale meanwhile.
func TestClockSetBackKeepsScheduling(t *testing.T) {
	f, m := newOneSample(t, "1m")
	f.started(m)
	f.clock.Advance(time.Minute) // 10:00
	eventually(t, "the first run", func() bool { return f.runsWith(promptcanary.CheckClean) == 1 })
	f.settled(m)
	f.idle()
	f.clock.Jump(epoch.Add(-time.Hour + time.Minute)) // back to 09:00
	for range 12 {                                    // 3 minutes, 15s at a time
		f.clock.Advance(15 * time.Second)
		f.idle()
		f.settled(m)
	}
	eventually(t, "two runs after the clock was set back", func() bool { return f.runsWith(promptcanary.CheckClean) >= 3 })
	f.settled(m)
	if open := f.incidents(true); len(open) != 0 {
		t.Errorf("got incidents %+v after the clock was set back, want none", open)
	}
}

// On Stop, a run that waits for a free run slot (the concurrency bound)
// is not started: it is recorded as skipped, and only the run in flight
// finishes within the grace.
func TestStopStartsNoWaitingRun(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	cfg := f.config("1m", 1)
	second := cfg.Checks[0]
	second.Name = "canary-two"
	cfg.Checks = append(cfg.Checks, second)
	o := f.options()
	o.Concurrency = 1
	m, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	f.flip.set("block")
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the scheduler waits on the clock", func() bool { return f.clock.waiters() == 3 })
	f.clock.Advance(time.Minute) // 10:00: one check runs, the other waits
	<-f.flip.entered
	// Both checks were dispatched (the second waits for the run slot)
	// before the monitor is stopped.
	eventually(t, "both checks dispatched", func() bool {
		for _, e := range m.entries {
			e.mu.Lock()
			running := e.running
			e.mu.Unlock()
			if !running {
				return false
			}
		}
		return true
	})
	stopped := make(chan error, 1)
	go func() { stopped <- m.Stop(context.Background()) }()
	eventually(t, "Stop stops scheduling", func() bool { return m.schedCtx.Err() != nil })
	close(f.flip.release)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	var clean, skipped int
	for _, r := range f.checkRuns() {
		switch {
		case r.Outcome == promptcanary.CheckClean:
			clean++
		case r.Outcome == promptcanary.CheckSkipped && strings.Contains(r.Reason, "stopped before the run could start"):
			skipped++
		}
	}
	if clean != 1 || skipped != 1 {
		t.Errorf("got %d clean and %d skipped runs (%+v), want the run in flight and the waiting one skipped", clean, skipped, f.checkRuns())
	}
}

// A slot skipped because the check's previous run is still in flight is
// recorded, but it is no result of the check: the check's last run (its
// state on the dashboard) stays the last run made, also after a restart.
func TestOverlapSkipIsNotTheLastRun(t *testing.T) {
	f, m := newOneSample(t, "1m")
	f.started(m)
	f.clock.Advance(time.Minute) // 10:00: clean
	eventually(t, "a clean run", func() bool { return f.runsWith(promptcanary.CheckClean) == 1 })
	f.settled(m)
	f.idle()
	f.flip.set("block")
	f.clock.Advance(time.Minute) // 10:01: in flight
	<-f.flip.entered
	f.idle()
	f.clock.Advance(time.Minute) // 10:02: skipped
	eventually(t, "a skipped run", func() bool { return strings.Contains(f.logs.String(), `"outcome":"skipped"`) })
	if last := m.Statuses()[0].Last; last == nil || last.Outcome != promptcanary.CheckClean {
		t.Errorf("got last run %+v, want the clean run of 10:00", last)
	}
	m2 := f.monitor(f.config("1m", 1))
	if last := m2.Statuses()[0].Last; last == nil || last.Outcome != promptcanary.CheckClean {
		t.Errorf("after a restart: got last run %+v, want the clean run of 10:00", last)
	}
	close(f.flip.release)
	f.settled(m)
}

// TestSeedsFitThirtyTwoBits checks that the monitor's seeds leave every
// sample's seed (the seed plus its index, up to 10,000 samples) inside
// the 32-bit seed field of the narrowest API (Gemini's), which refuses
// the call otherwise.
func TestSeedsFitThirtyTwoBits(t *testing.T) {
	e := &entry{c: config.Check{Name: "checkout", Provider: "gemini/gemini-2.0-flash"}, freshSeed: true}
	slot := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	for i := range 5000 {
		for attempt := range 2 {
			s := seed(e, slot.Add(time.Duration(i)*time.Hour), attempt)
			if s == nil || *s < 0 || *s+10000 > math.MaxInt32 {
				t.Fatalf("slot %d attempt %d: seed %v leaves no room for 10,000 samples below 2^31", i, attempt, s)
			}
		}
	}
}
