package monitor

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/store"
)

func storeFilter(openOnly bool) store.IncidentFilter { return store.IncidentFilter{OpenOnly: openOnly} }

// The spec's end-to-end story: drift is confirmed before one incident
// opens and one signed firing is sent; repeated findings and a restart
// send nothing more; resolve_after clean runs resolve it with one
// resolved; a later drift opens a new incident.
func TestDriftConfirmedOpensOneIncidentAndResolves(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	cfg := f.config("1h", 5)
	m := f.monitor(cfg)

	if cr := f.once(m); cr.Outcome != promptcanary.CheckClean || cr.RunID == "" || cr.BaselineID == "" {
		t.Fatalf("good answers: got %+v, want a clean run against the baseline", cr)
	}
	if got := f.hook.got(); len(got) != 0 {
		t.Fatalf("got %d notifications after a clean run, want 0", len(got))
	}

	f.flip.set("bad")
	f.clock.Advance(time.Hour)
	cr := f.once(m)
	if cr.Outcome != promptcanary.CheckDrift || !cr.Confirmed || cr.ConfirmRunID == "" || cr.ConfirmRunID == cr.RunID {
		t.Fatalf("bad answers: got %+v, want a drift confirmed by a second run", cr)
	}
	open := f.incidents(true)
	if len(open) != 1 || open[0].Kind != promptcanary.IncidentDrift || open[0].Check != "canary" || open[0].Provider != f.spec {
		t.Fatalf("got open incidents %+v, want one drift incident of canary", open)
	}
	inc := open[0]
	if inc.Fingerprint != Fingerprint("canary", f.spec, promptcanary.IncidentDrift) || len(inc.Units) == 0 || inc.RunID != cr.ConfirmRunID {
		t.Errorf("got incident %+v, want the check's fingerprint, its units, and the confirmation run", inc)
	}
	got := f.hook.got()
	if len(got) != 1 || got[0].Status != promptcanary.NotificationFiring || got[0].IncidentID != inc.ID || got[0].Kind != promptcanary.IncidentDrift {
		t.Fatalf("got notifications %+v, want one firing of incident %s", got, inc.ID)
	}
	if got[0].Fingerprint != inc.Fingerprint || got[0].Severity != inc.Severity || len(got[0].Units) == 0 || got[0].Check != "canary" {
		t.Errorf("got webhook body %+v, want the incident's fingerprint, severity and units", got[0])
	}

	// The same finding again: no new incident, no new notification.
	f.clock.Advance(time.Hour)
	f.once(m)
	// A restart on the same store carries on: no re-open, no re-notify.
	m2 := f.monitor(cfg)
	f.clock.Advance(time.Hour)
	f.once(m2)
	if open := f.incidents(true); len(open) != 1 || open[0].ID != inc.ID {
		t.Fatalf("after a repeat and a restart: got open incidents %+v, want only %s", open, inc.ID)
	}
	if got := f.hook.got(); len(got) != 1 {
		t.Fatalf("after a repeat and a restart: got %d notifications, want 1", len(got))
	}

	// Recovery: resolved after resolve_after (2) clean runs, notified once.
	f.flip.set("good")
	f.clock.Advance(time.Hour)
	if cr := f.once(m2); cr.Outcome != promptcanary.CheckClean {
		t.Fatalf("recovered: got outcome %s, want clean", cr.Outcome)
	}
	if open := f.incidents(true); len(open) != 1 || open[0].CleanRuns != 1 {
		t.Fatalf("after one clean run: got %+v, want the incident open with 1 clean run", open)
	}
	f.clock.Advance(time.Hour)
	f.once(m2)
	if open := f.incidents(true); len(open) != 0 {
		t.Fatalf("after two clean runs: got open incidents %+v, want none", open)
	}
	got = f.hook.got()
	if len(got) != 2 || got[1].Status != promptcanary.NotificationResolved || got[1].IncidentID != inc.ID || got[1].ResolvedAt == nil {
		t.Fatalf("got notifications %+v, want the firing then one resolved of %s", got, inc.ID)
	}
	if types := f.eventTypes(inc.ID); types != "opened,resolved" {
		t.Errorf("got events %s, want opened,resolved", types)
	}

	// A later finding opens a new incident.
	f.flip.set("bad")
	f.clock.Advance(time.Hour)
	f.once(m2)
	open = f.incidents(true)
	if len(open) != 1 || open[0].ID == inc.ID {
		t.Fatalf("a new drift: got open incidents %+v, want a new one", open)
	}
	if got := f.hook.got(); len(got) != 3 || got[2].IncidentID != open[0].ID || got[2].Status != promptcanary.NotificationFiring {
		t.Fatalf("a new drift: got notifications %+v, want a third, firing the new incident", got)
	}
	attempts := f.attempts()
	if len(attempts) != 3 {
		t.Errorf("got %d notification attempts stored, want 3", len(attempts))
	}
}

// A first run that flags drift whose confirmation does not is recorded,
// and opens nothing.
func TestUnconfirmedDriftOpensNothing(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	m := f.monitor(f.config("1h", 5))
	f.flip.badN.Store(f.flip.calls.Load() + 4*5) // the first run's calls
	f.flip.set("bad-first")
	cr := f.once(m)
	if cr.Outcome != promptcanary.CheckDrift || cr.Confirmed || cr.ConfirmRunID == "" || !strings.Contains(cr.Reason, "confirmation") {
		t.Fatalf("got %+v, want a drift that the confirmation did not confirm", cr)
	}
	if open := f.incidents(false); len(open) != 0 {
		t.Fatalf("got incidents %+v, want none", open)
	}
	if got := f.hook.got(); len(got) != 0 {
		t.Fatalf("got %d notifications, want 0", len(got))
	}
}

// A provider outage is an unmeasured incident after two failed runs, never
// drift; while it is open a drift does not open either (inhibition).
func TestUnmeasuredOpensUnmeasuredAndInhibitsDrift(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	m := f.monitor(f.config("1h", 5))
	f.flip.set("fail")
	if cr := f.once(m); cr.Outcome != promptcanary.CheckUnmeasured || cr.Reason == "" {
		t.Fatalf("failing provider: got %+v, want an unmeasured run with a reason", cr)
	}
	if open := f.incidents(true); len(open) != 0 {
		t.Fatalf("after one failure: got %+v, want no incident yet", open)
	}
	f.clock.Advance(time.Hour)
	f.once(m)
	open := f.incidents(true)
	if len(open) != 1 || open[0].Kind != promptcanary.IncidentUnmeasured || open[0].Severity != incident.SeverityUnmeasured {
		t.Fatalf("after two failures: got %+v, want one unmeasured incident", open)
	}
	if got := f.hook.got(); len(got) != 1 || got[0].Kind != promptcanary.IncidentUnmeasured {
		t.Fatalf("got notifications %+v, want one firing of the unmeasured incident", got)
	}

	// Measured again, but drifted: the unmeasured incident counts one clean
	// run and stays open, so no drift incident opens.
	f.flip.set("bad")
	f.clock.Advance(time.Hour)
	if cr := f.once(m); cr.Outcome != promptcanary.CheckDrift || !cr.Confirmed {
		t.Fatalf("got %+v, want a confirmed drift", cr)
	}
	for _, inc := range f.incidents(false) {
		if inc.Kind == promptcanary.IncidentDrift {
			t.Fatalf("got drift incident %+v while the check is unmeasured, want none", inc)
		}
	}
	// The second measured run resolves the unmeasured incident, and the
	// drift it still finds opens one.
	f.clock.Advance(time.Hour)
	f.once(m)
	open = f.incidents(true)
	if len(open) != 1 || open[0].Kind != promptcanary.IncidentDrift {
		t.Fatalf("got open incidents %+v, want only a drift incident", open)
	}
	// Deliveries of different incidents run concurrently: compare as a set.
	var kinds []string
	for _, b := range f.hook.got() {
		kinds = append(kinds, string(b.Kind)+" "+string(b.Status))
	}
	slices.Sort(kinds)
	if want := "drift firing,unmeasured firing,unmeasured resolved"; strings.Join(kinds, ",") != want {
		t.Fatalf("got notifications %v, want %s", kinds, want)
	}
}

// A notifier that answers 500 is retried until it accepts; every attempt
// is stored; the checks never wait for it.
func TestNotifierErrorsAreRetried(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	m := f.monitor(f.config("1h", 5))
	f.hook.fail.Store(2)
	f.flip.set("fail")
	f.once(m)
	f.clock.Advance(time.Hour)
	f.once(m)
	if got := f.hook.got(); len(got) != 1 {
		t.Fatalf("got %d notifications delivered, want 1 (after two 500s)", len(got))
	}
	attempts := f.attempts()
	if len(attempts) != 3 || attempts[0].OK || attempts[0].Code != 500 || !attempts[2].OK || attempts[2].Attempt != 3 || attempts[0].ID != attempts[2].ID {
		t.Fatalf("got attempts %+v, want two failed with 500 then one OK, of one notification", attempts)
	}
}

// A notifier that hangs holds no check: runs complete and are recorded
// while its delivery is stuck; Once gives up on it after the grace.
func TestHangingNotifierDoesNotBlockChecks(t *testing.T) {
	f := newFixture(t, "")
	m := f.hangingMonitor()
	f.flip.set("fail")
	f.once(m)
	f.clock.Advance(time.Hour)
	f.once(m) // opens the unmeasured incident; its notification hangs
	f.flip.set("good")
	for range 2 {
		f.clock.Advance(time.Hour)
		if cr := f.once(m); cr.Outcome != promptcanary.CheckClean {
			t.Fatalf("got %+v, want a clean run while the notifier hangs", cr)
		}
	}
	if n := len(f.checkRuns()); n != 4 {
		t.Fatalf("got %d check runs recorded, want 4", n)
	}
	if open := f.incidents(true); len(open) != 0 {
		t.Errorf("got open incidents %+v, want the unmeasured one resolved", open)
	}
}

// Every problem of the configuration is reported at once, with its line
// and a hint: here a check without a baseline.
func TestMissingBaselineIsAConfigError(t *testing.T) {
	f := newFixture(t, "")
	cfg := f.config("1h", 5)
	_, err := New(cfg, f.options())
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *ConfigError", err)
	}
	line := cfg.Checks[0].Line
	want := "monitor.yaml:" + strconv.Itoa(line) + ": checks (canary): no baseline for suite \"canary\" and provider " + f.spec
	if !strings.Contains(err.Error(), want) {
		t.Errorf("got %q, want it to contain %q", err, want)
	}
	if h := strings.Join(ce.Hints(), "\n"); !strings.Contains(h, "promptcanary run --save-baseline -p "+f.spec+"' in suite") {
		t.Errorf("got hints %q, want the command that saves a baseline, in the suite's directory", h)
	}
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("got %v, want it to wrap store.ErrNotFound", err)
	}
}

// One check's problems are all reported at once: a control that cannot
// be opened does not hide the check's missing baseline (serve
// --check-config names both, and the user fixes both in one go).
func TestCheckProblemsAreReportedTogether(t *testing.T) {
	f := newFixture(t, "")
	f.extra = "    control: nosuch/model\n"
	_, err := New(f.config("1h", 5), f.options())
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *ConfigError", err)
	}
	for _, want := range []string{
		"checks (canary): control nosuch/model: ",
		"checks (canary): no baseline for suite \"canary\" and provider " + f.spec,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to contain %q", err, want)
		}
	}
}

// A misspelt provider is one problem: no "no baseline" beside it, whose
// hint would say to save a baseline of a provider that does not exist.
func TestUnknownProviderIsOneProblem(t *testing.T) {
	f := newFixture(t, "")
	f.provider = "    provider: nosuch/model\n"
	_, err := New(f.config("1h", 5), f.options())
	if err == nil || !strings.Contains(err.Error(), "unknown provider \"nosuch\"") {
		t.Fatalf("got %v, want the unknown provider named", err)
	}
	if strings.Contains(err.Error(), "no baseline") {
		t.Errorf("got %q, want no baseline problem for an unknown provider", err)
	}
}

// A notification that the notifier never answers does not fail the stop
// (SIGTERM exits 0): Stop gives up on it after the grace and records the
// attempt as not delivered. After Once too, Stop ends the deliveries still
// pending and records them, so that `serve --once` leaves every attempt in
// the store.
func TestStopGivesUpOnHangingNotifier(t *testing.T) {
	for _, started := range []bool{true, false} {
		t.Run(map[bool]string{true: "started", false: "after once"}[started], func(t *testing.T) {
			f := newFixture(t, "")
			m := f.hangingMonitor()
			if started {
				f.started(m)
			}
			f.flip.set("bad")
			if cr := f.once(m); cr.Outcome != promptcanary.CheckDrift || !cr.Confirmed {
				t.Fatalf("got %+v, want a confirmed drift", cr)
			}
			if err := m.Stop(context.Background()); err != nil {
				t.Fatalf("stop with a notification pending: got %v, want nil", err)
			}
			attempts := f.attempts()
			if len(attempts) == 0 || attempts[0].OK || attempts[0].Error == "" || !started && len(attempts) != 1 {
				t.Errorf("got attempts %+v, want the one pending recorded as not delivered", attempts)
			}
		})
	}
}
