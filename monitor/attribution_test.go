package monitor

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/redact"
)

// attributing wraps m's compare so that every report it returns names
// the attribution a, as check.Compare's own derivation would.
func attributing(m *Monitor, a promptcanary.Attribution) {
	compare := m.compare
	m.compare = func(ctx context.Context, req check.CompareRequest) (*check.CompareOutcome, error) {
		out, err := compare(ctx, req)
		if out != nil {
			for _, p := range out.Pairs {
				if p.Report != nil {
					c := a
					p.Report.Attribution = &c
				}
			}
		}
		return out, err
	}
}

// A confirmed drift opens an incident with the likely cause of the report
// that confirmed it, stored scrubbed of secrets.
func TestIncidentCarriesAttribution(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	m := f.monitor(f.config("1h", 5))
	attributing(m, promptcanary.Attribution{Cause: promptcanary.CauseProvider,
		Evidence: []string{"served model changed: flip-1 → flip-2", "the answer quoted the key " + providerKey}})
	f.flip.set("bad-p1")
	if cr := f.once(m); !cr.Confirmed {
		t.Fatalf("one prompt wrong: got %+v, want a confirmed drift", cr)
	}
	open := f.incidents(true)
	if len(open) != 1 || open[0].Attribution == nil {
		t.Fatalf("got %+v, want one incident with an attribution", open)
	}
	a := open[0].Attribution
	if a.Cause != promptcanary.CauseProvider || len(a.Evidence) != 2 || a.Evidence[0] != "served model changed: flip-1 → flip-2" {
		t.Errorf("attribution %+v, want the report's", a)
	}
	if strings.Contains(a.Evidence[1], providerKey) {
		t.Errorf("evidence %q holds the provider's key", a.Evidence[1])
	}
	if err := m.outbox.Drain(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	got := f.hook.got()
	if len(got) != 1 || got[0].Attribution == nil || got[0].Attribution.Cause != promptcanary.CauseProvider || len(got[0].Attribution.Evidence) != 2 {
		t.Fatalf("webhook bodies %+v, want one carrying the provider cause", got)
	}
	if strings.Contains(got[0].Attribution.Evidence[1], providerKey) {
		t.Errorf("webhook evidence %q holds the provider's key", got[0].Attribution.Evidence[1])
	}
}

// saveControlBaseline saves a baseline of the fixture's suite on spec.
func saveControlBaseline(f *fixture, spec string) {
	f.t.Helper()
	st := f.loadSuite()
	targets, _, err := check.Resolve(st, check.Settings{Providers: []string{spec}, Getenv: f.getenv, Secrets: redact.New()})
	noErr(f.t, err)
	out, err := check.Run(context.Background(), check.RunRequest{Suite: st, Targets: targets, Samples: 5, History: f.store,
		SaveBaseline: true, BaselineDir: filepath.Join(f.dir, "suite", "baselines")})
	noErr(f.t, err)
	if len(out.Baselines) != 1 {
		f.t.Fatalf("got baselines %v, want one of %s", out.Baselines, spec)
	}
}

// controlledMonitor is a monitor of the fixture's hourly check (samples
// per run) with the control sim/stable, both with baselines of
// baseSamples; suiteExtra is added to canary.yaml.
func controlledMonitor(t *testing.T, suiteExtra string, baseSamples, samples int) (*fixture, *Monitor) {
	t.Helper()
	f := newFixture(t, suiteExtra)
	f.saveBaseline(baseSamples)
	saveControlBaseline(f, "sim/stable")
	f.extra = "    control: sim/stable\n"
	return f, f.monitor(f.config("1h", samples))
}

// A check's control: reaches every compare of its runs, the confirmation
// included, as CompareRequest.Control, resolved as the check's provider
// is and with the run's seed; the check's status names it.
func TestControlReachesCompare(t *testing.T) {
	f, m := controlledMonitor(t, "", 10, 5)
	var (
		mu   sync.Mutex
		reqs []check.CompareRequest
	)
	compare := m.compare
	m.compare = func(ctx context.Context, req check.CompareRequest) (*check.CompareOutcome, error) {
		mu.Lock()
		reqs = append(reqs, req)
		mu.Unlock()
		return compare(ctx, req)
	}
	f.flip.set("bad-p1")
	if cr := f.once(m); !cr.Confirmed {
		t.Fatalf("one prompt wrong: got %+v, want a confirmed drift", cr)
	}
	if len(reqs) != 2 {
		t.Fatalf("got %d compares, want the run and its confirmation", len(reqs))
	}
	for i, req := range reqs {
		c := req.Control
		if c == nil || c.Spec != "sim/stable" {
			t.Fatalf("compare %d: control %+v, want sim/stable", i, c)
		}
		if len(req.Targets) != 1 || req.Targets[0].Spec != f.spec {
			t.Errorf("compare %d: targets %+v, want the check's provider only", i, req.Targets)
		}
		if c.Config.Seed == nil || req.Targets[0].Config.Seed == nil || *c.Config.Seed != *req.Targets[0].Config.Seed {
			t.Errorf("compare %d: control seed %v, target seed %v, want the same", i, c.Config.Seed, req.Targets[0].Config.Seed)
		}
	}
	if *reqs[0].Control.Config.Seed == *reqs[1].Control.Config.Seed {
		t.Errorf("the confirmation's control has the run's seed: want fresh samples")
	}
	if st := m.Statuses(); len(st) != 1 || st[0].Control != "sim/stable" {
		t.Errorf("statuses %+v, want the control named", st)
	}
	// Without control:, no control.
	f2 := newFixture(t, "")
	f2.saveBaseline(10)
	m2 := f2.monitor(f2.config("1h", 5))
	var plain []check.CompareRequest
	compare2 := m2.compare
	m2.compare = func(ctx context.Context, req check.CompareRequest) (*check.CompareOutcome, error) {
		plain = append(plain, req)
		return compare2(ctx, req)
	}
	f2.once(m2)
	if len(plain) != 1 || plain[0].Control != nil {
		t.Errorf("a check without control: compared %+v, want no control", plain)
	}
}

// A control without a baseline, or one that cannot be opened, stops the
// monitor from starting, naming the control's line and what to do.
func TestControlNeedsBaseline(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	f.extra = "    control: sim/stable\n"
	_, err := New(f.config("1h", 5), f.options())
	if err == nil {
		t.Fatal("New: no error, want the control's missing baseline")
	}
	msg := err.Error()
	for _, want := range []string{"monitor.yaml:10: checks (canary): control sim/stable: no baseline for suite \"canary\" and the control sim/stable"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	var ce *ConfigError
	if !errors.As(err, &ce) || len(ce.Hints()) == 0 || !strings.Contains(ce.Hints()[0], "promptcanary run --save-baseline -p sim/stable") {
		var hs []string
		if ce != nil {
			hs = ce.Hints()
		}
		t.Errorf("hints %q, want how to save the control's baseline", hs)
	}
	f.extra = "    control: nosuch/model\n"
	if _, err := New(f.config("1h", 5), f.options()); err == nil || !strings.Contains(err.Error(), "monitor.yaml:10: checks (canary): control nosuch/model: ") {
		t.Errorf("unknown control provider: got %v, want an error at its line", err)
	}
}

// The control arm's calls are paid for like the check's own: a run's cost
// (and so the daily budget) counts them. Here only the control is priced.
func TestControlCostCountsInRun(t *testing.T) {
	f, m := controlledMonitor(t, "prices:\n  \"sim/stable\": {input: 10000, output: 10000}\n", 3, 1)
	cr := f.once(m)
	if cr.Outcome != promptcanary.CheckClean || cr.CostUSD <= 0 {
		t.Fatalf("got %+v, want a clean run costing what the priced control cost", cr)
	}
}
