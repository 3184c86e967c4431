package monitor

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/monitor/policy"
	"github.com/promptcanary/promptcanary/monitor/web"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
)

// A change of the flagged units updates the open incident and notifies;
// the events say opened then updated.
func TestChangedFindingUpdatesIncident(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	m := f.monitor(f.config("1h", 5))
	f.flip.set("bad-p1")
	if cr := f.once(m); !cr.Confirmed {
		t.Fatalf("one prompt wrong: got %+v, want a confirmed drift", cr)
	}
	first := f.incidents(true)
	if len(first) != 1 {
		t.Fatalf("got %+v, want one incident", first)
	}
	f.flip.set("bad")
	f.clock.Advance(time.Hour)
	f.once(m)
	open := f.incidents(true)
	if len(open) != 1 || open[0].ID != first[0].ID || incident.SameUnits(open[0].Units, first[0].Units) {
		t.Fatalf("got %+v, want the same incident with other units", open)
	}
	if err := m.outbox.Drain(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := f.hook.got(); len(got) != 2 || got[1].Status != promptcanary.NotificationFiring || len(got[1].Units) <= len(got[0].Units) {
		t.Fatalf("got %+v, want a second firing with more units", got)
	}
	events, _ := f.store.IncidentEvents(context.Background(), open[0].ID)
	if len(events) != 2 || events[1].Type != promptcanary.EventUpdated {
		t.Errorf("got events %+v, want opened, updated", events)
	}
}

// A restart keeps the count of failures in a row: one failure before and
// one after open the unmeasured incident.
func TestRestartKeepsFailuresInARow(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	cfg := f.config("1h", 1)
	f.flip.set("fail")
	f.once(f.monitor(cfg))
	f.clock.Advance(time.Hour)
	f.once(f.monitor(cfg))
	if open := f.incidents(true); len(open) != 1 || open[0].Kind != promptcanary.IncidentUnmeasured {
		t.Fatalf("got %+v, want the unmeasured incident after two failures across a restart", open)
	}
}

// The trend detector turns a slow decline of clean runs into one drift
// incident, "gradual decline", held open while the decline lasts.
func TestGradualDeclineOpensDriftIncident(t *testing.T) {
	f, m := newOneSample(t, "1h")
	e := m.entries[0]
	e.track.Trend = policy.Trend{Warmup: 5}
	rate := 0.95
	for i := range 40 {
		if i >= 5 {
			rate -= 0.01
		}
		f.clock.Advance(time.Hour)
		cr := promptcanary.CheckRun{ID: promptcanary.NewID(), Check: "canary", Provider: f.spec, Outcome: promptcanary.CheckClean,
			PassRate: rate + 0.01*float64(i%2), BaselinePassRate: 0.95, BaselineID: e.track.Baseline(), FinishedAt: f.clock.Now()}
		m.incidents.Decide(context.Background(), e.track, &cr, nil)
	}
	incs := f.incidents(false)
	if len(incs) != 1 || incs[0].Kind != promptcanary.IncidentDrift || !strings.HasPrefix(incs[0].Summary, "gradual decline") || !incs[0].Open() {
		t.Fatalf("got incidents %+v, want one open drift incident of a gradual decline", incs)
	}
	if u := incs[0].Units; len(u) != 1 || u[0].Unit != promptcanary.UnitSuite {
		t.Errorf("got units %+v, want the suite", u)
	}
}

// Jitter is deterministic, within Jitter × the interval, and differs
// between slots and checks.
func TestJitter(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	cfg := f.config("1h", 1)
	cfg.Checks[0].Jitter = 0.5
	m := f.monitor(cfg)
	e := m.entries[0]
	seen := map[time.Duration]bool{}
	for i := range 50 {
		slot := epoch.Add(time.Duration(i) * time.Hour)
		p := plan(e)
		j := p.Delay(slot)
		if j < 0 || j >= 30*time.Minute || j != p.Delay(slot) {
			t.Fatalf("slot %d: jitter %v, want a stable value in [0, 30m)", i, j)
		}
		seen[j] = true
	}
	if len(seen) < 45 {
		t.Errorf("got %d distinct jitters of 50 slots, want them spread", len(seen))
	}
}

// The log scrubber removes secrets from the message and from attributes
// of every kind.
func TestScrubber(t *testing.T) {
	var b syncBuffer
	secret := "s3cr3t-value-0123"
	l := slog.New(newScrubber(slog.NewTextHandler(&b, nil), redact.New(secret)))
	l = l.With("bound", "x"+secret)
	l.Info("message "+secret, "str", secret, "err", errorString("failed: "+secret),
		slog.Group("g", "inner", secret), "any", []string{secret}, "n", 3)
	if out := b.String(); strings.Contains(out, secret) || strings.Count(out, redact.Placeholder) != 6 || !strings.Contains(out, "n=3") {
		t.Errorf("got %q, want 6 placeholders and no secret", out)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// The version label of build_info is the Tool string without the
// program's name, whichever name the command line records runs under.
func TestVersionLabel(t *testing.T) {
	for _, tc := range []struct{ tool, want string }{
		{"promptcanary 1.2.0", "1.2.0"},
		{"promptcanary-go v1.2.0", "v1.2.0"},
		{"promptcanary-go (devel)", "(devel)"},
		{"", "unknown"},
		{"promptcanary", "unknown"},
	} {
		if got := version(tc.tool); got != tc.want {
			t.Errorf("version(%q): got %q, want %q", tc.tool, got, tc.want)
		}
	}
}

// slowStore is a store whose incident writes wait until released, as a
// SQLite store does while another process holds its write lock.
type slowStore struct {
	*sqlite.Store
	entered chan struct{}
	release chan struct{}
}

func (s *slowStore) SaveIncident(ctx context.Context, inc *promptcanary.Incident) error {
	s.entered <- struct{}{}
	<-s.release
	return s.Store.SaveIncident(ctx, inc)
}

func (s *slowStore) RecordStep(ctx context.Context, st store.IncidentStep) error {
	s.entered <- struct{}{}
	<-s.release
	return s.Store.RecordStep(ctx, st)
}

// The dashboard's statuses do not wait for the store: while an incident
// write waits for a locked store, Statuses still answers.
func TestStatusesDoNotWaitForALockedStore(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	slow := &slowStore{Store: f.store, entered: make(chan struct{}, 10), release: make(chan struct{})}
	o := f.options()
	o.Store = slow
	m, err := New(f.config("1h", 5), o)
	if err != nil {
		t.Fatal(err)
	}
	f.flip.set("bad")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = m.Once(context.Background())
	}()
	<-slow.entered // the incident's write waits for the store
	answered := make(chan []web.CheckStatus, 1)
	go func() { answered <- m.Statuses() }()
	var got []web.CheckStatus
	eventually(t, "Statuses answers while the store is locked", func() bool {
		select {
		case got = <-answered:
			return true
		default:
			return false
		}
	})
	close(slow.release)
	<-done
	if len(got) != 1 || got[0].Last == nil || got[0].Last.Outcome != promptcanary.CheckDrift {
		t.Errorf("got statuses %+v, want the drift run", got)
	}
	if s := m.Statuses(); len(s[0].Open) != 1 || s[0].Open[0].Kind != promptcanary.IncidentDrift {
		t.Errorf("after the write: got open %+v, want the drift incident", s[0].Open)
	}
}

// TestDriftSummaryOneMeasure: the summary of a drift incident, its webhook
// and its units say one thing: the pass rate of the run the incident names
// (the run its page shows, over the pairs compared with the baseline),
// named with that run's id and formatted as the dashboard formats it, and
// the flagged units with the pair that broke first, never cut off behind
// broader units.
func TestDriftSummaryOneMeasure(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	m := f.monitor(f.config("1h", 10))
	f.once(m)
	f.flip.set("bad-p1")
	f.clock.Advance(time.Hour)
	f.once(m)
	eventually(t, "the notification", func() bool { return len(f.hook.got()) == 1 })
	incs := f.incidents(true)
	if len(incs) != 1 || incs[0].Kind != promptcanary.IncidentDrift {
		t.Fatalf("got incidents %+v, want one drift incident", incs)
	}
	inc := incs[0]
	run, err := f.store.Run(context.Background(), inc.RunID)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("pass rate %.1f%% against the baseline's 100.0%% in run %s; fell: pair ", 100*run.PassRate(), inc.RunID[:8])
	if !strings.HasPrefix(inc.Summary, want) {
		t.Errorf("summary %q, want it to start with %q", inc.Summary, want)
	}
	if body := f.hook.got()[0]; body.Summary != inc.Summary || len(body.Units) != len(inc.Units) {
		t.Errorf("webhook summary %q with %d units, want the incident's %q with %d", body.Summary, len(body.Units), inc.Summary, len(inc.Units))
	}
	if len(inc.Units) == 0 || inc.Units[0].Unit != promptcanary.UnitPair || !strings.Contains(inc.Units[0].Name, "p1") {
		t.Fatalf("units %+v, want the broken pair (p1) first", inc.Units)
	}
	if pair := fmt.Sprintf("pair %s 100.0%% → 0.0%%", inc.Units[0].Name); !strings.Contains(inc.Summary, pair) {
		t.Errorf("summary %q does not name %q", inc.Summary, pair)
	}
}

// TestResolvedIncidentNamesResolvingRun: a resolved incident's latest run
// (on its page, in the resolve notification) is the clean run that
// resolved it, not the drifting run it was opened for.
func TestResolvedIncidentNamesResolvingRun(t *testing.T) {
	f, m := newOneSample(t, "1h")
	f.once(m)
	f.flip.set("bad")
	f.clock.Advance(time.Hour)
	drifted := f.once(m)
	f.flip.set("good")
	var last promptcanary.CheckRun
	for range 2 {
		f.clock.Advance(time.Hour)
		last = f.once(m)
	}
	eventually(t, "the resolve notification", func() bool { return len(f.hook.got()) == 2 })
	incs := f.incidents(false)
	if len(incs) != 1 || incs[0].Open() {
		t.Fatalf("got incidents %+v, want one resolved", incs)
	}
	inc := incs[0]
	if inc.RunID != last.RunID || inc.ReportID != last.ReportID || last.RunID == "" {
		t.Errorf("resolved incident names run %s (report %s), want the resolving run %s (report %s); the drift was run %s",
			inc.RunID, inc.ReportID, last.RunID, last.ReportID, drifted.RunID)
	}
	if body := f.hook.got()[1]; body.Status != promptcanary.NotificationResolved || body.RunID != last.RunID {
		t.Errorf("resolve notification %s names run %s, want %s", body.Status, body.RunID, last.RunID)
	}
}
