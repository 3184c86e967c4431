package monitor

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// newCandidate registers a second flip provider, the candidate of the
// fixture's check, and configures the check's gate with extra settings.
func newCandidate(t *testing.T, f *fixture, extra string) *flip {
	t.Helper()
	c := &flip{entered: make(chan struct{}, 1000), release: make(chan struct{})}
	c.mode.Store("good")
	model := strings.TrimPrefix(f.spec, "flip/") + "-candidate"
	flips.Store(model, c)
	t.Cleanup(func() { flips.Delete(model) })
	f.extra = "    candidate: flip/" + model + "\n" + extra
	return c
}

// A check with candidate: makes an upgrade gate every slot beside its
// own run and records it; a candidate worse on every pair opens one
// candidate incident, notified once (the same finding again is not
// notified before the repeat interval); a candidate no worse resolves it
// after resolve_after gates in a row, notified "ready to upgrade". The check's own
// runs stay clean, and the metrics follow the latest gate.
func TestCandidateGate(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	cand := newCandidate(t, f, "    samples: 30\n    margin: 20\n")
	m := f.monitor(f.config("1h", 10))
	cand.set("bad")
	ctx := context.Background()

	var crs []promptcanary.CheckRun
	for i := range 2 {
		if i > 0 {
			f.clock.Advance(time.Hour)
		}
		cr := f.once(m)
		if cr.Outcome != promptcanary.CheckClean {
			t.Fatalf("run %d: got outcome %s (%s), want clean: the gate does not judge the check's own provider", i, cr.Outcome, cr.Reason)
		}
		crs = append(crs, cr)
	}
	gates, err := f.store.Gates(ctx, "canary", f.spec, 0)
	noErr(t, err)
	if len(gates) != 2 {
		t.Fatalf("got %d gates, want one per slot (2)", len(gates))
	}
	g := gates[0]
	if g.CheckRunID != crs[1].ID || g.Candidate != "flip/"+strings.TrimPrefix(f.spec, "flip/")+"-candidate" || g.Report == nil {
		t.Fatalf("latest gate: got %+v, want the second slot's, with its report", g)
	}
	if s := g.Report.Summary; s.Pairs != 4 || s.Worse != 4 || g.Report.Samples != 30 || g.Report.Margin != 0.2 {
		t.Fatalf("gate of a candidate wrong on every answer: got %+v (samples %d, margin %v), want worse on all 4 pairs, 30 samples, margin 0.2",
			s, g.Report.Samples, g.Report.Margin)
	}
	open := f.incidents(true)
	if len(open) != 1 || open[0].Kind != promptcanary.IncidentCandidate || len(open[0].Units) != 4 ||
		!strings.Contains(open[0].Summary, "is worse than "+f.spec+" on 4 of 4 pairs (margin 20 pts)") {
		t.Fatalf("got open incidents %+v, want one candidate incident naming the 4 pairs", open)
	}
	noErr(t, m.outbox.Drain(ctx, 5*time.Second))
	if got := f.hook.got(); len(got) != 1 || got[0].Kind != promptcanary.IncidentCandidate || got[0].Event != promptcanary.EventOpened {
		t.Fatalf("got notifications %+v, want the candidate incident opened, once", got)
	}
	fams := scrape(t, m)
	labels := func(v string) map[string]string {
		return map[string]string{"check": "canary", "provider": f.spec, "candidate": g.Candidate, "verdict": v}
	}
	if w, b := value(t, fams, "promptcanary_candidate_pairs", labels("worse")), value(t, fams, "promptcanary_candidate_pairs", labels("no_worse")); w != 4 || b != 0 {
		t.Errorf("candidate_pairs: worse %v, no_worse %v; want 4 and 0", w, b)
	}

	// A gate without a verdict between two good ones starts the count of
	// clean gates again: good, unmeasured, good leave it open.
	for _, mode := range []string{"good", "fail", "good"} {
		cand.set(mode)
		f.clock.Advance(time.Hour)
		f.once(m)
	}
	if open := f.incidents(true); len(open) != 1 || open[0].CleanRuns != 1 {
		t.Fatalf("after good, unmeasured, good: got %+v, want the incident open with 1 clean gate", open)
	}
	f.clock.Advance(time.Hour)
	f.once(m)
	if open := f.incidents(true); len(open) != 0 {
		t.Fatalf("got open incidents %+v, want the candidate incident resolved after 2 gates with no pair worse", open)
	}
	noErr(t, m.outbox.Drain(ctx, 5*time.Second))
	got := f.hook.got()
	if len(got) != 2 || got[1].Status != promptcanary.NotificationResolved ||
		!strings.Contains(got[1].Summary, "is no worse than "+f.spec+" on all 4 pairs (margin 20 pts): ready to upgrade") {
		t.Fatalf("got notifications %+v, want the resolve saying the candidate is ready", got)
	}
	fams = scrape(t, m)
	if w, b := value(t, fams, "promptcanary_candidate_pairs", labels("worse")), value(t, fams, "promptcanary_candidate_pairs", labels("no_worse")); w != 0 || b != 4 {
		t.Errorf("candidate_pairs after a good gate: worse %v, no_worse %v; want 0 and 4", w, b)
	}
	if up := value(t, fams, "promptcanary_candidate_up", map[string]string{"check": "canary", "provider": f.spec, "candidate": g.Candidate}); up != 1 {
		t.Errorf("candidate_up: got %v, want 1", up)
	}
}

// A candidate that cannot be measured records a gate without a report,
// with the reason, opens nothing, and sets candidate_up to 0; a restart
// reads the latest gate back into the metrics.
func TestCandidateGateUnmeasured(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	cand := newCandidate(t, f, "")
	cfg := f.config("1h", 10)
	m := f.monitor(cfg)
	labels := map[string]string{"check": "canary", "provider": f.spec, "candidate": cfg.Checks[0].Candidate.Provider}
	if v := value(t, scrape(t, m), "promptcanary_candidate_pairs", map[string]string{"check": "canary", "provider": f.spec,
		"candidate": labels["candidate"], "verdict": "worse"}); !math.IsNaN(v) {
		t.Errorf("candidate_pairs before the first gate: got %v, want NaN", v)
	}
	cand.set("fail")
	f.once(m)
	gates, err := f.store.Gates(context.Background(), "", "", 0)
	noErr(t, err)
	if len(gates) != 1 || gates[0].Report != nil || !strings.Contains(gates[0].Reason, labels["candidate"]) {
		t.Fatalf("got gates %+v, want one without a report saying the candidate failed", gates)
	}
	if strings.Contains(gates[0].Reason, providerKey) {
		t.Errorf("the gate's reason holds the API key: %q", gates[0].Reason)
	}
	if open := f.incidents(true); len(open) != 0 {
		t.Errorf("got open incidents %+v, want none", open)
	}
	if up := value(t, scrape(t, m), "promptcanary_candidate_up", labels); up != 0 {
		t.Errorf("candidate_up: got %v, want 0", up)
	}

	cand.set("good")
	f.clock.Advance(time.Hour)
	f.once(m)
	m2 := f.monitor(cfg)
	if v := value(t, scrape(t, m2), "promptcanary_candidate_up", labels); v != 1 {
		t.Errorf("candidate_up after a restart: got %v, want 1 (the latest gate, read back)", v)
	}
	var _ store.Gates = f.store
}
