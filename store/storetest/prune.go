package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// PruneStore is what RunPrune needs of a store: the history, the
// monitor's state, pending baselines and Prune.
type PruneStore interface {
	store.Store
	store.Monitor
	store.Journal
	store.Pruner
}

// RunPrune runs the conformance suite of store.Pruner. open must return a
// new, empty store for each call, which must implement PruneStore;
// RunPrune closes it when the subtest ends.
func RunPrune(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	openPrune := func(t *testing.T) PruneStore {
		s := open(t)
		ps, ok := s.(PruneStore)
		if !ok {
			closeAtEnd(t, s)
			t.Fatalf("%T does not implement storetest.PruneStore (store.Store, Monitor, Journal and Pruner)", s)
		}
		return ps
	}
	runSubtests(t, openPrune, []subtest[PruneStore]{
		{"Empty", testPruneEmpty},
		{"KeepsWhatIsInUse", testPruneKeepsWhatIsInUse},
		{"DryRun", testPruneDryRun},
		{"Idempotent", testPruneIdempotent},
		{"CancelledContext", testPruneCancelledContext},
		{"ConcurrentWriters", testPruneConcurrentWriters},
		{"Gates", testPruneGates},
	})
}

// pruneCut is the cutoff of the prune tests; old is well before it.
var (
	pruneCut = t0
	old      = t0.Add(-100 * 24 * time.Hour)
)

// pruneFixture is a history in which every rule of store.Pruner decides
// at least one record. Its ids say what becomes of them.
type pruneFixture struct {
	// goneRuns … goneIncidents are deleted by a prune at pruneCut, the
	// others stay.
	goneRuns, goneDrifts, goneCheckRuns, goneIncidents []string
	runs, drifts, checkRuns, incidents                 []string
}

// wantPrune is what a prune of the fixture at pruneCut deletes and keeps.
var wantPrune = store.PruneStats{
	Runs: 4, Drifts: 2, CheckRuns: 2, Incidents: 1, IncidentEvents: 2, Notifications: 3,
	KeptRuns: 7, KeptDrifts: 2, KeptCheckRuns: 1, KeptIncidents: 2,
}

// savePruneFixture fills s with the history of pruneFixture.
func savePruneFixture(t *testing.T, s PruneStore) pruneFixture {
	t.Helper()
	savePruneHistory(t, s)
	savePruneMonitor(t, s)
	return pruneFixture{
		goneRuns:      []string{"r-old-dcr", "r-old-free", "r-old-resolved", "r-zero"},
		goneDrifts:    []string{"rep-old-2", "rep-old-free"},
		goneCheckRuns: []string{"cr-old-free", "cr-zero"},
		goneIncidents: []string{"inc-resolved"},
		runs: []string{"r-at-cutoff", "r-new", "r-old-base", "r-old-cr", "r-old-event", "r-old-inc", "r-old-late",
			"r-old-pending", "r-old-rep"},
		drifts:    []string{"rep-at-cutoff", "rep-new", "rep-old-crc", "rep-old-inc"},
		checkRuns: []string{"cr-at-cutoff", "cr-kept", "cr-new"},
		incidents: []string{"inc-late", "inc-open"},
	}
}

// mustFn returns a function that fails t on an error.
func mustFn(t *testing.T) func(error) {
	return func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// savePruneHistory saves the fixture's runs, baseline and drift reports.
func savePruneHistory(t *testing.T, s PruneStore) {
	t.Helper()
	ctx := context.Background()
	must := mustFn(t)
	run := func(id string, started time.Time) *promptcanary.Run {
		r := NewRun(id, "prune-suite", "m", started)
		must(s.SaveRun(ctx, r))
		return r
	}
	// Runs: four go (unreferenced, referenced only by what goes, zero
	// time); seven old ones stay for what refers to them; two are not old.
	free := run("r-old-free", old)
	run("r-old-resolved", old.Add(time.Hour))
	run("r-old-dcr", old.Add(2*time.Hour))
	zero := NewRun("r-zero", "prune-suite", "m", time.Time{})
	zero.FinishedAt = time.Time{}
	must(s.SaveRun(ctx, zero))
	base := run("r-old-base", old.Add(3*time.Hour))
	must(s.SaveRunPending(ctx, NewRun("r-old-pending", "prune-suite", "m", old.Add(4*time.Hour)),
		store.PendingBaseline{RunID: "r-old-pending", SnapshotID: "snap-pending", CreatedAt: old.Add(4 * time.Hour)}))
	flagged := run("r-old-inc", old.Add(5*time.Hour))
	run("r-old-event", old.Add(6*time.Hour))
	confirmed := run("r-old-cr", old.Add(7*time.Hour))
	compared := run("r-old-rep", old.Add(8*time.Hour))
	run("r-old-late", old.Add(9*time.Hour))
	run("r-at-cutoff", pruneCut)
	fresh := run("r-new", pruneCut.Add(time.Hour))

	_, err := s.SaveBaseline(ctx, NewBaseline("snap-old", base, old.Add(3*time.Hour), "kept forever"))
	must(err)

	// Drift reports: two old ones go (one of a run that stays: a report
	// keeps its run, not the other way round); two old ones stay for an
	// incident and a check run; a new one keeps the old run it compared;
	// one at the cutoff is not older than it.
	must(s.SaveDrift(ctx, NewDrift("rep-old-free", free, "snap-old", old, promptcanary.SeverityLow, 1)))
	must(s.SaveDrift(ctx, NewDrift("rep-old-2", base, "snap-old", old.Add(time.Hour), promptcanary.SeverityLow, 1)))
	must(s.SaveDrift(ctx, NewDrift("rep-old-inc", flagged, "snap-old", old.Add(2*time.Hour), promptcanary.SeverityHigh, 2)))
	must(s.SaveDrift(ctx, NewDrift("rep-old-crc", confirmed, "snap-old", old.Add(3*time.Hour), promptcanary.SeverityHigh, 2)))
	must(s.SaveDrift(ctx, NewDrift("rep-new", compared, "snap-old", pruneCut.Add(time.Hour), promptcanary.SeverityNone, 0)))
	must(s.SaveDrift(ctx, NewDrift("rep-at-cutoff", fresh, "snap-old", pruneCut, promptcanary.SeverityNone, 0)))

}

// savePruneMonitor saves the fixture's check runs, incidents, incident
// events and notification attempts.
func savePruneMonitor(t *testing.T, s PruneStore) {
	t.Helper()
	ctx := context.Background()
	must := mustFn(t)
	day := 24 * time.Hour
	// Check runs: an old one goes with its run, a zero-time one goes; an
	// old one stays as it shares a report with the open incident, and
	// keeps its run and confirmation report; a new one and one at the
	// cutoff stay.
	crGone := NewCheckRun("cr-old-free", "c", "p", old)
	crGone.RunID, crGone.ReportID, crGone.ConfirmRunID, crGone.ConfirmReportID = "r-old-dcr", "", "", ""
	crZero := NewCheckRun("cr-zero", "c", "p", time.Time{})
	crZero.StartedAt, crZero.FinishedAt = time.Time{}, time.Time{}
	crKept := NewCheckRun("cr-kept", "c", "p", old.Add(time.Hour))
	crKept.RunID, crKept.ReportID, crKept.ConfirmRunID, crKept.ConfirmReportID = "r-old-cr", "rep-old-inc", "", "rep-old-crc"
	crNew := NewCheckRun("cr-new", "c", "p", pruneCut.Add(time.Hour))
	crNew.RunID = "r-new"
	crAt := NewCheckRun("cr-at-cutoff", "c", "p", pruneCut)
	for _, cr := range []*promptcanary.CheckRun{crGone, crZero, crKept, crNew, crAt} {
		must(s.SaveCheckRun(ctx, cr))
	}

	// Incidents: the one resolved before the cutoff goes with its events
	// and notifications; the open one and the one resolved at the cutoff
	// stay (both opened long before it).
	gone := NewIncident("inc-resolved", "fp-resolved", old)
	gone.RunID, gone.ReportID, gone.ResolvedAt = "r-old-resolved", "rep-old-free", old.Add(50*day)
	open := NewIncident("inc-open", "fp-open", old)
	open.RunID, open.ReportID = "r-old-inc", "rep-old-inc"
	late := NewIncident("inc-late", "fp-late", old.Add(time.Hour))
	late.RunID, late.ReportID, late.ResolvedAt = "r-old-late", "", pruneCut
	for _, inc := range []*promptcanary.Incident{gone, open, late} {
		must(s.SaveIncident(ctx, inc))
	}
	for i, e := range []promptcanary.IncidentEvent{
		{IncidentID: "inc-resolved", At: old, Type: promptcanary.EventOpened, RunID: "r-old-resolved", Summary: "opened"},
		{IncidentID: "inc-resolved", At: old.Add(50 * day), Type: promptcanary.EventResolved, Summary: "resolved"},
		{IncidentID: "inc-open", At: old, Type: promptcanary.EventOpened, RunID: "r-old-event", Summary: "opened"},
		{IncidentID: "inc-late", At: pruneCut, Type: promptcanary.EventResolved, Summary: "resolved"},
	} {
		if err := s.AddIncidentEvent(ctx, e); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	for i, inc := range []string{"inc-resolved", "inc-resolved", "inc-resolved", "inc-open", "inc-open"} {
		a := promptcanary.NotificationAttempt{ID: fmt.Sprintf("n-%d", i), IncidentID: inc, Notifier: "oncall",
			Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened, Attempt: 1, At: old.Add(time.Duration(i) * time.Minute), OK: true, Code: 200}
		must(s.SaveNotification(ctx, a))
	}
}

// pruneState is every id of each kind a store holds, sorted, and the
// counts of the incidents' events and notifications.
type pruneState struct {
	Runs, Drifts, CheckRuns, Incidents, Baselines, Pending []string
	Events, Notifications                                  map[string]int
	ProbeScoreRuns                                         []string
}

func statePrune(t *testing.T, s PruneStore) pruneState {
	t.Helper()
	ctx := context.Background()
	runs, errRuns := s.Runs(ctx, store.RunFilter{})
	drifts, errDrifts := s.Drifts(ctx, "", "", 0)
	crs, errCheckRuns := s.CheckRuns(ctx, "", "", 0)
	incs, errIncidents := s.Incidents(ctx, store.IncidentFilter{})
	bs, errBaselines := s.Baselines(ctx, "")
	ps, errPending := s.PendingBaselines(ctx)
	scores, errScores := s.ProbeScores(ctx, "", "", 0)
	if err := errors.Join(errRuns, errDrifts, errCheckRuns, errIncidents, errBaselines, errPending, errScores); err != nil {
		t.Fatal(err)
	}
	st := pruneState{
		Runs:          runIDs(runs),
		Drifts:        ids(drifts, func(d store.DriftSummary) string { return d.ReportID }),
		CheckRuns:     checkRunIDs(crs),
		Incidents:     incidentIDs(incs),
		Baselines:     ids(bs, func(b store.BaselineInfo) string { return b.SnapshotID }),
		Pending:       ids(ps, func(p store.PendingBaseline) string { return p.RunID }),
		Events:        map[string]int{},
		Notifications: map[string]int{},
	}
	for _, id := range append(slices.Clone(st.Incidents), "inc-resolved") {
		es, err := s.IncidentEvents(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		ns, err := s.Notifications(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) > 0 {
			st.Events[id] = len(es)
		}
		if len(ns) > 0 {
			st.Notifications[id] = len(ns)
		}
	}
	for _, p := range scores {
		if !slices.Contains(st.ProbeScoreRuns, p.RunID) {
			st.ProbeScoreRuns = append(st.ProbeScoreRuns, p.RunID)
		}
	}
	for _, ids := range [][]string{st.Runs, st.Drifts, st.CheckRuns, st.Incidents, st.Baselines, st.Pending, st.ProbeScoreRuns} {
		slices.Sort(ids)
	}
	return st
}

func mustPrune(t *testing.T, s PruneStore, cutoff time.Time, dryRun bool) store.PruneStats {
	t.Helper()
	st, err := s.Prune(context.Background(), cutoff, dryRun)
	if err != nil {
		t.Fatalf("prune at %v (dry run %v): %v", cutoff, dryRun, err)
	}
	return st
}

// pruneCounts drops the fields of PruneStats that backends fill as they
// can.
func pruneCounts(st store.PruneStats) store.PruneStats {
	st.FreeBytes = 0
	return st
}

func testPruneEmpty(t *testing.T, s PruneStore) {
	for _, dry := range []bool{true, false} {
		if got := pruneCounts(mustPrune(t, s, pruneCut, dry)); got != (store.PruneStats{}) {
			t.Errorf("dry run %v: got %+v, want nothing deleted or kept", dry, got)
		}
	}
}

func testPruneKeepsWhatIsInUse(t *testing.T, s PruneStore) {
	fx := savePruneFixture(t, s)
	before := statePrune(t, s)
	got := pruneCounts(mustPrune(t, s, pruneCut, false))
	if got != wantPrune {
		t.Errorf("stats: got %+v, want %+v", got, wantPrune)
	}
	after := statePrune(t, s)
	want := pruneState{
		Runs: fx.runs, Drifts: fx.drifts, CheckRuns: fx.checkRuns, Incidents: fx.incidents,
		Baselines: before.Baselines, Pending: before.Pending,
		Events: map[string]int{"inc-open": 1, "inc-late": 1}, Notifications: map[string]int{"inc-open": 2},
		ProbeScoreRuns: fx.runs,
	}
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("after the prune (-want +got):\n%s", diff)
	}
	if len(before.Baselines) != 1 || len(before.Pending) != 1 {
		t.Errorf("fixture: got baselines %v and pending %v, want one of each", before.Baselines, before.Pending)
	}
	ctx := context.Background()
	for _, id := range fx.goneRuns {
		if _, err := s.Run(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("run %s: got %v, want ErrNotFound", id, err)
		}
	}
	for _, id := range fx.goneIncidents {
		if _, err := s.Incident(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("incident %s: got %v, want ErrNotFound", id, err)
		}
	}
	// What stays is whole: the baseline still loads, and so does its run.
	b, err := s.LatestBaseline(ctx, "prune-suite", "m")
	if err != nil || b.SnapshotID != "snap-old" {
		t.Fatalf("latest baseline: got %v, %v, want snap-old", b, err)
	}
	if _, err := s.Run(ctx, b.RunResult.RunID); err != nil {
		t.Errorf("run of the baseline: %v", err)
	}
	// The monitor's view of the open incident is unchanged.
	if inc, err := s.Incident(ctx, "inc-open"); err != nil || !inc.Open() {
		t.Errorf("open incident: got %v, %v", inc, err)
	}
}

func testPruneDryRun(t *testing.T, s PruneStore) {
	savePruneFixture(t, s)
	before := statePrune(t, s)
	got := pruneCounts(mustPrune(t, s, pruneCut, true))
	if got != wantPrune {
		t.Errorf("dry run: got %+v, want %+v", got, wantPrune)
	}
	if diff := cmp.Diff(before, statePrune(t, s)); diff != "" {
		t.Errorf("a dry run changed the store (-before +after):\n%s", diff)
	}
	// What the dry run announced is what the prune does.
	if got := pruneCounts(mustPrune(t, s, pruneCut, false)); got != wantPrune {
		t.Errorf("prune after the dry run: got %+v, want %+v", got, wantPrune)
	}
}

func testPruneIdempotent(t *testing.T, s PruneStore) {
	savePruneFixture(t, s)
	mustPrune(t, s, pruneCut, false)
	before := statePrune(t, s)
	want := store.PruneStats{KeptRuns: wantPrune.KeptRuns, KeptDrifts: wantPrune.KeptDrifts,
		KeptCheckRuns: wantPrune.KeptCheckRuns, KeptIncidents: wantPrune.KeptIncidents}
	if got := pruneCounts(mustPrune(t, s, pruneCut, false)); got != want {
		t.Errorf("second prune: got %+v, want %+v", got, want)
	}
	if diff := cmp.Diff(before, statePrune(t, s)); diff != "" {
		t.Errorf("a second prune changed the store (-before +after):\n%s", diff)
	}
	// An earlier cutoff deletes nothing more; the zero time is before
	// every cutoff.
	if got := pruneCounts(mustPrune(t, s, old.Add(-time.Hour), false)); got.Deleted() != 0 {
		t.Errorf("prune at an earlier cutoff: got %+v, want nothing deleted", got)
	}
}

func testPruneCancelledContext(t *testing.T, s PruneStore) {
	savePruneFixture(t, s)
	before := statePrune(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Prune(ctx, pruneCut, false); err == nil {
		t.Error("prune with a cancelled context: got no error")
	}
	if diff := cmp.Diff(before, statePrune(t, s)); diff != "" {
		t.Errorf("a cancelled prune changed the store (-before +after):\n%s", diff)
	}
}

// testPruneConcurrentWriters prunes while writers save new runs, check
// runs and incidents, as a monitor does: every write succeeds, every new
// record stays and every old one goes.
func testPruneConcurrentWriters(t *testing.T, s PruneStore) {
	ctx := context.Background()
	const oldRuns, writers, each = 30, 3, 10
	for i := range oldRuns {
		mustSaveRun(t, s, NewRun(fmt.Sprintf("old-%02d", i), "s", "m", old.Add(time.Duration(i)*time.Minute)))
		mustSaveCheckRun(t, s, NewCheckRun(fmt.Sprintf("old-cr-%02d", i), "c", "p", old.Add(time.Duration(i)*time.Minute)))
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*3+1)
	start := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			<-start
			for i := range each {
				at := pruneCut.Add(time.Duration(w*each+i+1) * time.Minute)
				id := fmt.Sprintf("new-%d-%02d", w, i)
				if err := s.SaveRun(ctx, NewRun(id, "s", "m", at)); err != nil {
					errs <- err
				}
				if err := s.SaveCheckRun(ctx, NewCheckRun("cr-"+id, "c", "p", at)); err != nil {
					errs <- err
				}
				inc := NewIncident("inc-"+id, "fp-"+id, at)
				inc.ResolvedAt = at.Add(time.Second)
				if err := s.SaveIncident(ctx, inc); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() {
		<-start
		st, err := s.Prune(ctx, pruneCut, false)
		if err == nil && (st.Runs != oldRuns || st.CheckRuns != oldRuns) {
			err = fmt.Errorf("prune: got %+v, want %d runs and %d check runs deleted", st, oldRuns, oldRuns)
		}
		if err != nil {
			errs <- err
		}
	})
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got := statePrune(t, s)
	if len(got.Runs) != writers*each || len(got.CheckRuns) != writers*each || len(got.Incidents) != writers*each {
		t.Errorf("got %d runs, %d check runs and %d incidents, want the %d new of each", len(got.Runs), len(got.CheckRuns),
			len(got.Incidents), writers*each)
	}
	for _, id := range got.Runs {
		if len(id) < 4 || id[:4] != "new-" {
			t.Errorf("run %s stayed", id)
		}
	}
}

// testPruneGates checks that a prune deletes the upgrade gates of slots
// before the cutoff, and a dry run counts them without deleting.
func testPruneGates(t *testing.T, s PruneStore) {
	g, ok := s.(store.Gates)
	if !ok {
		t.Skipf("%T does not implement store.Gates", s)
	}
	ctx := context.Background()
	for _, x := range []*promptcanary.CandidateGate{
		NewGate("gate-old", "c", "p", old), NewGate("gate-new", "c", "p", pruneCut.Add(time.Hour)),
	} {
		if err := g.SaveGate(ctx, x); err != nil {
			t.Fatalf("SaveGate(%s): %v", x.ID, err)
		}
	}
	ids := func() []string {
		gs, err := g.Gates(ctx, "", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range gs {
			out = append(out, x.ID)
		}
		return out
	}
	if got := mustPrune(t, s, pruneCut, true); got.Gates != 1 || len(ids()) != 2 {
		t.Errorf("dry run: got %d gates to delete and %v left, want 1 and both", got.Gates, ids())
	}
	if got := mustPrune(t, s, pruneCut, false); got.Gates != 1 {
		t.Errorf("prune: got %d gates deleted, want 1", got.Gates)
	}
	if got := ids(); !slices.Equal(got, []string{"gate-new"}) {
		t.Errorf("after the prune: got gates %v, want [gate-new]", got)
	}
}
