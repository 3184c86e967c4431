package storetest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// SaveHistory fills s, a PruneStore, with a history holding every kind of
// record and their edge cases, for the tests of store.Copy: the history of
// the prune tests (runs with and without baselines, a pending baseline, a
// zero time, drift reports, check runs, open and resolved incidents with
// events and notifications), plus a statistical run stored compactly,
// non-finite floats, and ids whose byte order differs from a
// case-insensitive one.
func SaveHistory(t *testing.T, s store.Store) {
	t.Helper()
	ps, ok := s.(PruneStore)
	if !ok {
		t.Fatalf("%T does not implement storetest.PruneStore", s)
	}
	savePruneFixture(t, ps)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range []string{"R-upper", "r_under", "r.dot", "r-dash", "0-digit"} {
		r := NewRun(id, "order-suite", "m", t0.Add(time.Duration(i)*time.Minute))
		r.ProbeResults[0].Score = math.NaN()
		must(s.SaveRun(ctx, r))
	}
	large := LargeRun("large-run", 6, 4, 5, 7)
	must(s.SaveRun(ctx, large))
	_, err := s.SaveBaseline(ctx, NewBaseline("snap-large", large, t0.Add(time.Hour), "statistical"))
	must(err)
	cr := NewCheckRun("cr-nan", "c", "p", t0.Add(2*time.Hour))
	cr.PassRate, cr.Score, cr.CostUSD = math.NaN(), math.NaN(), math.NaN()
	must(ps.SaveCheckRun(ctx, cr))
	inc := NewIncident("Inc-upper", "fp-upper", t0)
	inc.Units = append(inc.Units, promptcanary.IncidentUnit{Unit: "suite", Name: "suite", Baseline: 0.9, Current: 0.4, Q: math.NaN()})
	must(ps.SaveIncident(ctx, inc))
	for i := range 3 {
		must(ps.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: inc.ID, At: t0, Type: promptcanary.EventUpdated,
			Summary: fmt.Sprintf("same time, order %d", i)}))
	}
}

// AssertSameHistory fails unless got holds exactly the records of want,
// every one read back equal: runs, baselines and drift reports whole and
// in their listings, pending baselines, per-probe scores and, when both
// implement store.Monitor, check runs, incidents, their events (in order)
// and notification attempts.
func AssertSameHistory(t *testing.T, want, got store.Store) {
	t.Helper()
	ctx := context.Background()
	wr, wb, wd := assertSameListings(t, want, got)
	for _, r := range wr {
		sameRecord(t, "run", r.RunID, want, got, func(s store.Store, id string) (any, error) { return s.Run(ctx, id) })
	}
	for _, b := range wb {
		sameRecord(t, "baseline", b.SnapshotID, want, got, func(s store.Store, id string) (any, error) { return s.Baseline(ctx, id) })
	}
	for _, d := range wd {
		sameRecord(t, "drift report", d.ReportID, want, got, func(s store.Store, id string) (any, error) { return s.Drift(ctx, id) })
	}
	wj, ok1 := want.(store.Journal)
	gj, ok2 := got.(store.Journal)
	if ok1 && ok2 {
		w, err := wj.PendingBaselines(ctx)
		if err != nil {
			t.Fatal(err)
		}
		g, err := gj.PendingBaselines(ctx)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "pending baselines", w, g)
	}
	wm, ok1 := want.(store.Monitor)
	gm, ok2 := got.(store.Monitor)
	if ok1 && ok2 {
		assertSameMonitor(t, wm, gm)
	}
}

// same fails when w and g differ, naming what they are.
func same(t *testing.T, what string, w, g any, opts ...cmp.Option) {
	t.Helper()
	if diff := cmp.Diff(w, g, opts...); diff != "" {
		t.Errorf("%s differ (-want +got):\n%s", what, diff)
	}
}

// assertSameListings compares the run, baseline, drift report and probe
// score listings of want and got, and returns want's first three.
func assertSameListings(t *testing.T, want, got store.Store) ([]store.RunSummary, []store.BaselineInfo, []store.DriftSummary) {
	t.Helper()
	ctx := context.Background()
	nan := cmpopts.EquateNaNs()
	list := func(s store.Store) ([]store.RunSummary, []store.BaselineInfo, []store.DriftSummary, []store.ProbeScore) {
		t.Helper()
		runs, err := s.Runs(ctx, store.RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		bs, err := s.Baselines(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		ds, err := s.Drifts(ctx, "", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := s.ProbeScores(ctx, "", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		return runs, bs, ds, ps
	}
	wr, wb, wd, wp := list(want)
	gr, gb, gd, gp := list(got)
	same(t, "run listings", wr, gr, nan)
	same(t, "baseline listings", wb, gb)
	same(t, "drift report listings", wd, gd)
	same(t, "probe scores", wp, gp, nan)
	return wr, wb, wd
}

// sameRecord loads the record id of a kind from want and got and fails
// unless they read back equal; a record got lacks is an error, one want
// lacks is fatal.
func sameRecord(t *testing.T, kind, id string, want, got store.Store, load func(store.Store, string) (any, error)) {
	t.Helper()
	w, err := load(want, id)
	if err != nil {
		t.Fatal(err)
	}
	g, err := load(got, id)
	if err != nil {
		t.Errorf("%s %s: %v", kind, id, err)
		return
	}
	same(t, kind+" "+id, normalize(t, w), normalize(t, g))
}

// assertSameMonitor compares the monitor records of want and got: check
// runs, incidents, their events in order and their notification attempts.
func assertSameMonitor(t *testing.T, wm, gm store.Monitor) {
	t.Helper()
	ctx := context.Background()
	wc, gc := mustCheckRuns(t, wm, "", "", 0), mustCheckRuns(t, gm, "", "", 0)
	same(t, "check runs", wc, gc, monitorCmp...)
	wi, gi := mustIncidents(t, wm, store.IncidentFilter{}), mustIncidents(t, gm, store.IncidentFilter{})
	same(t, "incidents", wi, gi, monitorCmp...)
	for _, inc := range wi {
		we, err := wm.IncidentEvents(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		ge, err := gm.IncidentEvents(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "events of incident "+inc.ID, we, ge, monitorCmp...)
		wn, err := wm.Notifications(ctx, inc.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		gn, err := gm.Notifications(ctx, inc.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "notifications of incident "+inc.ID, wn, gn, monitorCmp...)
	}
}

// ExportStore is what RunExport needs of a store.
type ExportStore interface {
	store.Store
	store.Monitor
	store.Exporter
	store.MonitorExporter
}

// RunExport checks a store's exports: every record, each once, in
// ascending byte order of its id, across several pages (more runs than
// the 256 ids and more check runs than the 500 rows a backend reads at a
// time), with ids whose case-insensitive order differs. open must return
// a new, empty store, which must implement ExportStore; RunExport closes
// it.
func RunExport(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	s := open(t)
	defer s.Close()
	x, ok := s.(ExportStore)
	if !ok {
		t.Fatalf("%T does not implement storetest.ExportStore", s)
	}
	ctx := context.Background()
	var runs, checkRuns []string
	for i := range 300 {
		id := fmt.Sprintf("%c%03d", "aB_-"[i%4], i)
		r := NewRun(id, "s", "m", t0.Add(time.Duration(i)*time.Second))
		r.LLMResponses, r.ProbeResults = r.LLMResponses[:1], r.ProbeResults[:1]
		mustSaveRun(t, x, r)
		runs = append(runs, id)
	}
	for i := range 1100 {
		id := fmt.Sprintf("%c%04d", "Zz0."[i%4], i)
		if id[0] == '.' {
			id = "x" + id // ids do not start with '.'
		}
		mustSaveCheckRun(t, x, NewCheckRun(id, "c", "p", t0.Add(time.Duration(i)*time.Minute)))
		checkRuns = append(checkRuns, id)
	}
	slices.Sort(runs)
	slices.Sort(checkRuns)
	var got []string
	for rec, err := range x.ExportRuns(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec.Run.RunID)
	}
	if !slices.Equal(got, runs) {
		t.Errorf("ExportRuns: got %d ids %v…, want %d in byte order %v…", len(got), head(got), len(runs), head(runs))
	}
	got = got[:0]
	for cr, err := range x.ExportCheckRuns(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, cr.ID)
	}
	if !slices.Equal(got, checkRuns) {
		t.Errorf("ExportCheckRuns: got %d ids %v…, want %d in byte order %v…", len(got), head(got), len(checkRuns), head(checkRuns))
	}
	// An iteration stopped early stops.
	n := 0
	for range x.ExportRuns(ctx) {
		if n++; n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("ExportRuns after break: got %d records, want 3", n)
	}
	// A cancelled context ends an export with an error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	var err error
	for _, err = range x.ExportCheckRuns(cctx) {
		if err != nil {
			break
		}
	}
	if err == nil {
		t.Error("ExportCheckRuns with a cancelled context: got no error")
	}
}

func head(ids []string) []string { return ids[:min(5, len(ids))] }
