package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// RunMonitor runs the conformance suite of store.Monitor. open must return
// a new, empty store for each call; RunMonitor closes it, when it is an
// io.Closer, as the subtest ends. Run calls RunMonitor itself when its
// stores implement store.Monitor, so a backend whose Store is also its
// Monitor needs only Run.
func RunMonitor(t *testing.T, open func(t *testing.T) store.Monitor) {
	t.Helper()
	runSubtests(t, open, []subtest[store.Monitor]{
		{"Empty", testMonitorEmpty},
		{"CheckRunRoundTrip", testCheckRunRoundTrip},
		{"CheckRunsFilter", testCheckRunsFilter},
		{"CheckRunResave", testCheckRunResave},
		{"IncidentRoundTrip", testIncidentRoundTrip},
		{"IncidentLookup", testIncidentLookup},
		{"IncidentsFilter", testIncidentsFilter},
		{"OneOpenPerFingerprint", testOneOpenPerFingerprint},
		{"IncidentEvents", testIncidentEvents},
		{"Notifications", testNotifications},
		{"InvalidRecords", testInvalidRecords},
		{"MonitorCancelledContext", testMonitorCancelledContext},
		{"ConcurrentWriters", testMonitorConcurrentWriters},
		{"ConcurrentOpens", testConcurrentOpens},
		{"Gates", testGates},
	})
}

// runMonitorOf runs RunMonitor on the stores open returns when they
// implement store.Monitor, and skips otherwise.
func runMonitorOf(t *testing.T, open func(t *testing.T) store.Store) {
	s := open(t)
	_, ok := s.(store.Monitor)
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if !ok {
		t.Skipf("%T does not implement store.Monitor", s)
	}
	RunMonitor(t, func(t *testing.T) store.Monitor { return open(t).(store.Monitor) })
}

// NewCheckRun returns a check run fixture with every field set: a
// confirmed drift of check on provider in slot, which started a second
// after it.
func NewCheckRun(id, check, provider string, slot time.Time) *promptcanary.CheckRun {
	return &promptcanary.CheckRun{
		ID: id, Check: check, Provider: provider, Suite: "checkout bot",
		Slot: slot, StartedAt: slot.Add(time.Second + 1), FinishedAt: slot.Add(42*time.Second + 7),
		Outcome: promptcanary.CheckDrift, RunID: "run-" + id, ReportID: "report-" + id,
		ConfirmRunID: "confirm-run-" + id, ConfirmReportID: "confirm-report-" + id, BaselineID: "snap-1",
		Confirmed: true, PassRate: 0.51, Score: 0.625, BaselinePassRate: 0.84,
		Severity: promptcanary.SeverityHigh, CostUSD: 0.0123, Reason: "2 units flagged in both runs",
	}
}

// NewIncident returns an open drift incident fixture with every field of
// an open incident set, fingerprint fp, opened at opened.
func NewIncident(id, fp string, opened time.Time) *promptcanary.Incident {
	return &promptcanary.Incident{
		ID: id, Fingerprint: fp, Check: "checkout-prod", Suite: "checkout bot", Provider: "openai/gpt-4o-mini",
		Kind: promptcanary.IncidentDrift, Severity: promptcanary.SeverityHigh, Summary: "p_format fell from 84% to 51%",
		Units: []promptcanary.IncidentUnit{
			{Unit: "probe", Name: "p_format", Baseline: 0.84, Current: 0.51, Q: 0.0004},
			{Unit: "pair", Name: "p_format/p2", Baseline: 1, Current: 0, Q: 0.01},
		},
		Attribution: &promptcanary.Attribution{Cause: promptcanary.CauseProvider,
			Evidence: []string{"served model changed: gpt-4o-mini-2024-07-18 → gpt-4o-mini-2025-01-31", "the control arm held"}},
		RunID: "run-" + id, ReportID: "report-" + id, OpenedAt: opened, UpdatedAt: opened.Add(time.Minute + 3),
		AcknowledgedAt: opened.Add(2*time.Minute + 5), AcknowledgedBy: "ops@example.com", CleanRuns: 1,
		NotifiedAt: opened.Add(time.Second + 9), NotifiedTo: []string{"oncall", "pager"},
	}
}

// monitorCmp compares monitor records: times by instant, NaN equal to
// NaN, a nil list equal to an empty one.
var monitorCmp = []cmp.Option{cmpopts.EquateNaNs(), cmpopts.EquateEmpty()}

// assertUTC fails when a non-zero time read back is not in UTC.
func assertUTC(t *testing.T, what string, ts ...time.Time) {
	t.Helper()
	for _, tm := range ts {
		if !tm.IsZero() && tm.Location() != time.UTC {
			t.Errorf("%s: got time %v in %v, want UTC", what, tm, tm.Location())
		}
	}
}

func mustSaveCheckRun(t *testing.T, m store.Monitor, cr *promptcanary.CheckRun) {
	t.Helper()
	if err := m.SaveCheckRun(context.Background(), cr); err != nil {
		t.Fatalf("save check run %s: %v", cr.ID, err)
	}
}

func mustSaveIncident(t *testing.T, m store.Monitor, inc *promptcanary.Incident) {
	t.Helper()
	if err := m.SaveIncident(context.Background(), inc); err != nil {
		t.Fatalf("save incident %s: %v", inc.ID, err)
	}
}

func mustCheckRuns(t *testing.T, m store.Monitor, check, provider string, n int) []promptcanary.CheckRun {
	t.Helper()
	got, err := m.CheckRuns(context.Background(), check, provider, n)
	if err != nil {
		t.Fatalf("check runs %q %q %d: %v", check, provider, n, err)
	}
	return got
}

func mustIncidents(t *testing.T, m store.Monitor, f store.IncidentFilter) []promptcanary.Incident {
	t.Helper()
	got, err := m.Incidents(context.Background(), f)
	if err != nil {
		t.Fatalf("incidents %+v: %v", f, err)
	}
	return got
}

func checkRunIDs(s []promptcanary.CheckRun) []string {
	return ids(s, func(cr promptcanary.CheckRun) string { return cr.ID })
}

func incidentIDs(s []promptcanary.Incident) []string {
	return ids(s, func(inc promptcanary.Incident) string { return inc.ID })
}

// saveIncidentsAB saves two open incidents, inc-a and inc-b (fingerprints
// fp-a and fp-b), for the tests of what an incident holds.
func saveIncidentsAB(t *testing.T, m store.Monitor) {
	t.Helper()
	mustSaveIncident(t, m, NewIncident("inc-a", "fp-a", t0))
	mustSaveIncident(t, m, NewIncident("inc-b", "fp-b", t0))
}

func testMonitorEmpty(t *testing.T, m store.Monitor) {
	ctx := context.Background()
	if got := mustCheckRuns(t, m, "", "", 0); len(got) != 0 {
		t.Errorf("check runs: got %d, want 0", len(got))
	}
	if got := mustIncidents(t, m, store.IncidentFilter{}); len(got) != 0 {
		t.Errorf("incidents: got %d, want 0", len(got))
	}
	if _, err := m.Incident(ctx, "inc-1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("incident: got %v, want ErrNotFound", err)
	}
	if got, err := m.IncidentEvents(ctx, "inc-1"); err != nil || len(got) != 0 {
		t.Errorf("incident events: got %d, %v, want 0, nil", len(got), err)
	}
	if got, err := m.Notifications(ctx, "", 0); err != nil || len(got) != 0 {
		t.Errorf("notifications: got %d, %v, want 0, nil", len(got), err)
	}
}

func testCheckRunRoundTrip(t *testing.T, m store.Monitor) {
	zone := time.FixedZone("", -7*3600)
	tests := []struct {
		name string
		cr   *promptcanary.CheckRun
	}{
		{"full", NewCheckRun("cr-full", "checkout-prod", "openai/gpt-4o-mini", t0)},
		{"offset zone and nanoseconds", NewCheckRun("cr-zone", "checkout-prod", "openai/gpt-4o-mini",
			time.Date(2025, 3, 1, 5, 0, 0, 999999999, zone))},
		{"skipped, zero times", &promptcanary.CheckRun{
			ID: "cr-skipped", Check: "checkout-prod", Provider: "p", Slot: t0.Add(time.Hour),
			Outcome: promptcanary.CheckSkipped, Reason: "daily budget of $5.00 reached",
		}},
		{"unmeasured, scores not numbers", &promptcanary.CheckRun{
			ID: "cr-nan", Check: "checkout-prod", Provider: "p", Slot: t0.Add(2 * time.Hour), StartedAt: t0, FinishedAt: t0,
			Outcome: promptcanary.CheckUnmeasured, PassRate: math.NaN(), Score: math.NaN(), BaselinePassRate: 0.9,
			Reason: "provider: 503 service unavailable",
		}},
		{"run-level record", &promptcanary.CheckRun{
			ID: "cr-run-level", Check: "checkout-prod", Provider: "p", Slot: t0.Add(3 * time.Hour), StartedAt: t0, FinishedAt: t0,
			Outcome: promptcanary.CheckClean, PassRate: 0.9, Score: 0.9, BaselinePassRate: 0.95,
			RunLevel: &promptcanary.SuiteRunRate{Rate: 0.9000000000000001, Var: 0.0005555555555555554},
		}},
		{"run-level record with a control's difference", &promptcanary.CheckRun{
			ID: "cr-control-diff", Check: "checkout-prod", Provider: "p", Slot: t0.Add(4 * time.Hour), StartedAt: t0, FinishedAt: t0,
			Outcome: promptcanary.CheckClean, PassRate: 0.9, Score: 0.9, BaselinePassRate: 0.95,
			RunLevel: &promptcanary.SuiteRunRate{Rate: 0.9, Var: 0.0005, ControlDiff: new(-0.012345678901234567), Control: "openai/gpt-4o-2024-08-06"},
		}},
		{"hostile text", &promptcanary.CheckRun{
			ID: "cr-hostile", Check: `'; DROP TABLE check_runs; --`, Provider: "p/\"q\"", Suite: "s\u202euite <script> 日本語 🦜",
			Slot: t0, Outcome: promptcanary.CheckClean, Reason: "line\nbreak ✓",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mustSaveCheckRun(t, m, tc.cr)
			var got *promptcanary.CheckRun
			for _, cr := range mustCheckRuns(t, m, tc.cr.Check, tc.cr.Provider, 0) {
				if cr.ID == tc.cr.ID {
					got = &cr
				}
			}
			if got == nil {
				t.Fatalf("check run %s not listed", tc.cr.ID)
			}
			if diff := cmp.Diff(tc.cr, got, monitorCmp...); diff != "" {
				t.Errorf("check run mismatch (-want +got):\n%s", diff)
			}
			assertUTC(t, "check run", got.Slot, got.StartedAt, got.FinishedAt)
		})
	}
}

// saveCheckRunGrid stores check runs of checks a and b on providers p1 and
// p2, saved out of order; a/p1 has two runs in one slot.
func saveCheckRunGrid(t *testing.T, m store.Monitor) {
	t.Helper()
	grid := []struct {
		id, check, provider string
		slot                int
	}{
		{"cr-3", "a", "p1", 3}, {"cr-0", "a", "p1", 0}, {"cr-1", "a", "p2", 1}, {"cr-2", "b", "p1", 2},
		{"cr-5", "a", "p1", 5}, {"cr-4", "b", "p2", 4}, {"cr-5b", "a", "p1", 5},
	}
	for _, g := range grid {
		mustSaveCheckRun(t, m, NewCheckRun(g.id, g.check, g.provider, t0.Add(time.Duration(g.slot)*time.Hour)))
	}
}

func testCheckRunsFilter(t *testing.T, m store.Monitor) {
	saveCheckRunGrid(t, m)
	tests := []struct {
		name            string
		check, provider string
		limit           int
		want            []string
	}{
		{"all", "", "", 0, []string{"cr-5b", "cr-5", "cr-4", "cr-3", "cr-2", "cr-1", "cr-0"}},
		{"check", "a", "", 0, []string{"cr-5b", "cr-5", "cr-3", "cr-1", "cr-0"}},
		{"provider", "", "p2", 0, []string{"cr-4", "cr-1"}},
		{"check and provider", "a", "p1", 0, []string{"cr-5b", "cr-5", "cr-3", "cr-0"}},
		{"limit", "", "", 3, []string{"cr-5b", "cr-5", "cr-4"}},
		{"check, provider and limit", "a", "p1", 2, []string{"cr-5b", "cr-5"}},
		{"negative limit is none", "b", "", -1, []string{"cr-4", "cr-2"}},
		{"no match", "c", "", 0, []string{}},
		{"check prefix is no match", "", "p", 0, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := checkRunIDs(mustCheckRuns(t, m, tc.check, tc.provider, tc.limit))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func testCheckRunResave(t *testing.T, m store.Monitor) {
	cr := NewCheckRun("cr-resave", "a", "p1", t0)
	mustSaveCheckRun(t, m, cr)
	// The same run, finished: the confirmation cleared the drift.
	cr2 := *cr
	cr2.Outcome, cr2.Confirmed, cr2.Severity, cr2.Reason = promptcanary.CheckClean, false, promptcanary.SeverityNone, ""
	cr2.FinishedAt = cr.FinishedAt.Add(time.Minute)
	mustSaveCheckRun(t, m, &cr2)
	got := mustCheckRuns(t, m, "", "", 0)
	if len(got) != 1 {
		t.Fatalf("got %d check runs, want 1", len(got))
	}
	if diff := cmp.Diff(&cr2, &got[0], monitorCmp...); diff != "" {
		t.Errorf("resaved check run (-want +got):\n%s", diff)
	}
	// Moving it to another check moves it out of the old check's listing.
	cr2.Check = "b"
	mustSaveCheckRun(t, m, &cr2)
	if got := mustCheckRuns(t, m, "a", "", 0); len(got) != 0 {
		t.Errorf("check a: got %v, want none", checkRunIDs(got))
	}
}

func testIncidentRoundTrip(t *testing.T, m store.Monitor) {
	ctx := context.Background()
	zone := time.FixedZone("", 5*3600+1800)
	resolved := NewIncident("inc-resolved", "checkout-prod/openai/drift", t0)
	resolved.ResolvedAt, resolved.CleanRuns = t0.Add(3*time.Hour+11), 2
	tests := []struct {
		name string
		inc  *promptcanary.Incident
	}{
		{"open, every field", NewIncident("inc-full", "checkout-prod/openai/gpt-4o-mini/drift", t0)},
		{"resolved", resolved},
		{"offset zone", NewIncident("inc-zone", "zone/p/drift", t0.In(zone).Add(987654321))},
		{"zero times, nil units and notifiers", &promptcanary.Incident{
			ID: "inc-bare", Fingerprint: "bare/p/unmeasured", Check: "bare", Provider: "p",
			Kind: promptcanary.IncidentUnmeasured, Severity: promptcanary.SeverityHigh, Summary: "no run completed for 2h",
		}},
		{"empty units and notifiers", &promptcanary.Incident{
			ID: "inc-empty", Fingerprint: "budget", Kind: promptcanary.IncidentBudget, Severity: promptcanary.SeverityMedium,
			Units: []promptcanary.IncidentUnit{}, NotifiedTo: []string{}, OpenedAt: t0, UpdatedAt: t0,
		}},
		{"attribution without evidence", func() *promptcanary.Incident {
			inc := NewIncident("inc-cause", "cause/p/drift", t0)
			inc.Attribution = &promptcanary.Attribution{Cause: promptcanary.CauseUnknown}
			return inc
		}()},
		{"no attribution", func() *promptcanary.Incident {
			inc := NewIncident("inc-nocause", "nocause/p/drift", t0)
			inc.Attribution = nil
			return inc
		}()},
		{"units not numbers", func() *promptcanary.Incident {
			inc := NewIncident("inc-nan", "nan/p/drift", t0)
			inc.Units[0].Q = math.NaN()
			inc.Units[1].Baseline = math.NaN()
			return inc
		}()},
		{"hostile text", func() *promptcanary.Incident {
			inc := NewIncident("inc-hostile", `fp'"; DROP TABLE incidents; --`, t0)
			inc.Summary = "<script>alert(1)</script>\nsecond line ✓"
			inc.Units[0].Name = `{"json": "in a name"}`
			inc.NotifiedTo = []string{`a"b`, "c,d"}
			// Evidence can quote a model's answer: markup, quotes, a NUL
			// byte (which PostgreSQL's text cannot hold), emoji.
			inc.Attribution = &promptcanary.Attribution{Cause: promptcanary.CauseApp, Evidence: []string{
				`answer now "<img src=x onerror=alert(1)>"`, "nul \x00 byte: \x00 ✓", "'); DROP TABLE incidents; -- 🦜"}}
			return inc
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mustSaveIncident(t, m, tc.inc)
			got, err := m.Incident(ctx, tc.inc.ID)
			if err != nil {
				t.Fatalf("incident: %v", err)
			}
			if diff := cmp.Diff(tc.inc, got, monitorCmp...); diff != "" {
				t.Errorf("incident mismatch (-want +got):\n%s", diff)
			}
			if got.Open() != tc.inc.Open() {
				t.Errorf("open: got %v, want %v", got.Open(), tc.inc.Open())
			}
			assertUTC(t, "incident", got.OpenedAt, got.UpdatedAt, got.ResolvedAt, got.AcknowledgedAt, got.NotifiedAt)
			var listed *promptcanary.Incident
			for _, inc := range mustIncidents(t, m, store.IncidentFilter{}) {
				if inc.ID == tc.inc.ID {
					listed = &inc
				}
			}
			if diff := cmp.Diff(tc.inc, listed, monitorCmp...); diff != "" {
				t.Errorf("listed incident mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func testIncidentLookup(t *testing.T, m store.Monitor) {
	ctx := context.Background()
	testPrefixLookup(t, "incident", func(id string) string { return fmt.Sprintf("incident %q", id) },
		func(id string, at time.Time) { mustSaveIncident(t, m, NewIncident(id, "fp-"+id, at)) },
		func(id string) (string, error) {
			inc, err := m.Incident(ctx, id)
			if err != nil {
				return "", err
			}
			return inc.ID, nil
		})
}

func testIncidentsFilter(t *testing.T, m store.Monitor) {
	// Saved out of order; i-2 and i-2b were opened at the same time.
	grid := []struct {
		id, check string
		opened    int
		resolved  bool
	}{
		{"i-2", "a", 2, false}, {"i-0", "a", 0, true}, {"i-3", "b", 3, true}, {"i-1", "b", 1, false},
		{"i-2b", "a", 2, true}, {"i-4", "a", 4, false},
	}
	for _, g := range grid {
		inc := NewIncident(g.id, "fp-"+g.id, t0.Add(time.Duration(g.opened)*time.Hour))
		inc.Check = g.check
		if g.resolved {
			inc.ResolvedAt = inc.OpenedAt.Add(30 * time.Minute)
		}
		mustSaveIncident(t, m, inc)
	}
	tests := []struct {
		name   string
		filter store.IncidentFilter
		want   []string
	}{
		{"all", store.IncidentFilter{}, []string{"i-4", "i-3", "i-2b", "i-2", "i-1", "i-0"}},
		{"check", store.IncidentFilter{Check: "a"}, []string{"i-4", "i-2b", "i-2", "i-0"}},
		{"open only", store.IncidentFilter{OpenOnly: true}, []string{"i-4", "i-2", "i-1"}},
		{"check, open only", store.IncidentFilter{Check: "b", OpenOnly: true}, []string{"i-1"}},
		{"limit", store.IncidentFilter{Limit: 2}, []string{"i-4", "i-3"}},
		{"check and limit", store.IncidentFilter{Check: "a", Limit: 3}, []string{"i-4", "i-2b", "i-2"}},
		{"open only and limit", store.IncidentFilter{OpenOnly: true, Limit: 1}, []string{"i-4"}},
		{"no match", store.IncidentFilter{Check: "c"}, []string{}},
		{"check names match exactly", store.IncidentFilter{Check: "A"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mustIncidents(t, m, tc.filter)
			if ids := incidentIDs(got); !slices.Equal(ids, tc.want) {
				t.Errorf("got %v, want %v", ids, tc.want)
			}
			for _, inc := range got {
				if tc.filter.OpenOnly && !inc.Open() {
					t.Errorf("%s: got a resolved incident with OpenOnly", inc.ID)
				}
			}
		})
	}
}

func testOneOpenPerFingerprint(t *testing.T, m store.Monitor) {
	ctx := context.Background()
	const fp = "checkout-prod/openai/drift"
	first := NewIncident("inc-first", fp, t0)
	mustSaveIncident(t, m, first)

	// A second open incident with the fingerprint is refused, naming the
	// open one, and is not stored.
	second := NewIncident("inc-second", fp, t0.Add(time.Hour))
	err := m.SaveIncident(ctx, second)
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second open incident: got %v, want ErrConflict", err)
	}
	for _, want := range []string{`"inc-second"`, `"inc-first"`, fp} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got error %q, want it to contain %s", err, want)
		}
	}
	if _, err := m.Incident(ctx, "inc-second"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("refused incident: got %v, want ErrNotFound", err)
	}

	// The open incident itself can be saved again, and a resolved one with
	// the fingerprint can be stored beside it.
	first.Severity, first.UpdatedAt = promptcanary.SeverityCritical, t0.Add(2*time.Hour)
	mustSaveIncident(t, m, first)
	old := NewIncident("inc-old", fp, t0.Add(-48*time.Hour))
	old.ResolvedAt = t0.Add(-24 * time.Hour)
	mustSaveIncident(t, m, old)
	// Another fingerprint is independent.
	mustSaveIncident(t, m, NewIncident("inc-other", fp+"/other", t0))

	// Once the first is resolved, the second opens.
	first.ResolvedAt = t0.Add(3 * time.Hour)
	mustSaveIncident(t, m, first)
	mustSaveIncident(t, m, second)
	// Reopening the first now conflicts with the second.
	first.ResolvedAt = time.Time{}
	if err := m.SaveIncident(ctx, first); !errors.Is(err, store.ErrConflict) {
		t.Errorf("reopening: got %v, want ErrConflict", err)
	}
	// So does moving an open incident onto the fingerprint.
	other := NewIncident("inc-other", fp, t0)
	if err := m.SaveIncident(ctx, other); !errors.Is(err, store.ErrConflict) {
		t.Errorf("changing the fingerprint: got %v, want ErrConflict", err)
	}
	open := mustIncidents(t, m, store.IncidentFilter{OpenOnly: true})
	if ids := incidentIDs(open); !slices.Equal(ids, []string{"inc-second", "inc-other"}) {
		t.Errorf("open incidents: got %v, want [inc-second inc-other]", ids)
	}
	if got, err := m.Incident(ctx, "inc-first"); err != nil || got.Open() || got.Severity != promptcanary.SeverityCritical {
		t.Errorf("inc-first: got %+v, %v, want it resolved with severity critical", got, err)
	}
	if got, err := m.Incident(ctx, "inc-other"); err != nil || got.Fingerprint != fp+"/other" {
		t.Errorf("inc-other: got %+v, %v, want its fingerprint unchanged", got, err)
	}
}

func testIncidentEvents(t *testing.T, m store.Monitor) {
	ctx := context.Background()
	saveIncidentsAB(t, m)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	// Added out of time order; the two events at minute 5 keep the order
	// they were added in.
	events := []promptcanary.IncidentEvent{
		{IncidentID: "inc-a", At: at(0), Type: promptcanary.EventOpened, RunID: "run-1", Severity: promptcanary.SeverityMedium, Summary: "opened: p_format"},
		{IncidentID: "inc-a", At: at(5), Type: promptcanary.EventUpdated, RunID: "run-2", Severity: promptcanary.SeverityHigh, Summary: "severity medium → high"},
		{IncidentID: "inc-b", At: at(1), Type: promptcanary.EventOpened, Summary: "other incident"},
		{IncidentID: "inc-a", At: at(5), Type: promptcanary.EventAcknowledged, Summary: "acknowledged by ops@example.com"},
		{IncidentID: "inc-a", At: at(3).In(time.FixedZone("", 3600)), Type: promptcanary.EventRepeated, RunID: "run-3"},
		{IncidentID: "inc-a", At: at(9), Type: promptcanary.EventResolved, Summary: "2 clean runs"},
	}
	for _, e := range events {
		if err := m.AddIncidentEvent(ctx, e); err != nil {
			t.Fatalf("add event %s: %v", e.Type, err)
		}
	}
	got, err := m.IncidentEvents(ctx, "inc-a")
	if err != nil {
		t.Fatal(err)
	}
	want := []promptcanary.IncidentEvent{events[0], events[4], events[1], events[3], events[5]}
	if diff := cmp.Diff(want, got, monitorCmp...); diff != "" {
		t.Errorf("events of inc-a (-want +got):\n%s", diff)
	}
	for _, e := range got {
		assertUTC(t, "event", e.At)
	}
	if got, err := m.IncidentEvents(ctx, "inc-b"); err != nil || len(got) != 1 || got[0].Summary != "other incident" {
		t.Errorf("events of inc-b: got %+v, %v, want the one event", got, err)
	}
	if got, err := m.IncidentEvents(ctx, "inc-"); err != nil || len(got) != 0 {
		t.Errorf("events of a prefix: got %d, %v, want none (ids are exact)", len(got), err)
	}
	// An event of an incident that is not stored is refused.
	err = m.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: "inc-missing", At: t0, Type: promptcanary.EventOpened})
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `"inc-missing"`) {
		t.Errorf("event of a missing incident: got %v, want ErrNotFound naming it", err)
	}
	// Saving the incident again keeps its timeline.
	mustSaveIncident(t, m, NewIncident("inc-a", "fp-a", t0))
	if got, _ := m.IncidentEvents(ctx, "inc-a"); len(got) != len(want) {
		t.Errorf("after resaving the incident: got %d events, want %d", len(got), len(want))
	}
}

func testNotifications(t *testing.T, m store.Monitor) {
	ctx := context.Background()
	saveIncidentsAB(t, m)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	attempts := []promptcanary.NotificationAttempt{
		{ID: "n-1", IncidentID: "inc-a", Notifier: "hook", Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened,
			Attempt: 1, At: at(0), Code: 503, Error: "webhook hook: 503 service unavailable"},
		{ID: "n-2", IncidentID: "inc-a", Notifier: "oncall", Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened,
			Attempt: 1, At: at(0), OK: true, Code: 200},
		{ID: "n-3", IncidentID: "inc-b", Notifier: "pager", Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened,
			Attempt: 1, At: at(1), Error: "dial tcp 127.0.0.1:1: connection refused"},
		{ID: "n-1", IncidentID: "inc-a", Notifier: "hook", Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened,
			Attempt: 2, At: at(2), OK: true, Code: 204},
		{ID: "n-4", IncidentID: "inc-a", Notifier: "hook", Status: promptcanary.NotificationResolved, Event: promptcanary.EventResolved,
			Attempt: 1, At: at(10).In(time.FixedZone("", -3600)), OK: true, Code: 200},
	}
	// The newest is saved first: listings order by time, then by saving.
	for _, i := range []int{4, 0, 1, 2, 3} {
		if err := m.SaveNotification(ctx, attempts[i]); err != nil {
			t.Fatalf("save notification %s/%d: %v", attempts[i].ID, attempts[i].Attempt, err)
		}
	}
	tests := []struct {
		name     string
		incident string
		limit    int
		want     []promptcanary.NotificationAttempt
	}{
		{"all", "", 0, []promptcanary.NotificationAttempt{attempts[0], attempts[1], attempts[2], attempts[3], attempts[4]}},
		{"incident", "inc-a", 0, []promptcanary.NotificationAttempt{attempts[0], attempts[1], attempts[3], attempts[4]}},
		{"other incident", "inc-b", 0, []promptcanary.NotificationAttempt{attempts[2]}},
		{"limit keeps the newest, oldest first", "inc-a", 2, []promptcanary.NotificationAttempt{attempts[3], attempts[4]}},
		{"limit over all", "", 3, []promptcanary.NotificationAttempt{attempts[2], attempts[3], attempts[4]}},
		{"limit above the count", "inc-b", 10, []promptcanary.NotificationAttempt{attempts[2]}},
		{"no match", "inc-c", 0, nil},
		{"prefix is no match", "inc-", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Notifications(ctx, tc.incident, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, monitorCmp...); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
			for _, a := range got {
				assertUTC(t, "notification", a.At)
			}
		})
	}
	// An attempt of an incident that is not stored is refused.
	err := m.SaveNotification(ctx, promptcanary.NotificationAttempt{ID: "n-9", IncidentID: "inc-missing", Notifier: "hook", Attempt: 1, At: t0})
	if !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), `"inc-missing"`) {
		t.Errorf("attempt of a missing incident: got %v, want ErrNotFound naming it", err)
	}
}

func testInvalidRecords(t *testing.T, m store.Monitor) {
	ctx := context.Background()
	for _, id := range []string{"", "../evil", "a/b", ".hidden", "nul\x00byte", strings.Repeat("x", store.MaxIDLen+1)} {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			if err := m.SaveCheckRun(ctx, NewCheckRun(id, "a", "p", t0)); err == nil {
				t.Errorf("save check run: got nil error, want invalid id")
			}
			if err := m.SaveIncident(ctx, NewIncident(id, "fp", t0)); err == nil {
				t.Errorf("save incident: got nil error, want invalid id")
			}
			if _, err := m.Incident(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("incident: got %v, want ErrNotFound", err)
			}
			if err := m.SaveNotification(ctx, promptcanary.NotificationAttempt{ID: id, IncidentID: "inc-1", Attempt: 1, At: t0}); err == nil {
				t.Errorf("save notification: got nil error, want invalid id")
			}
		})
	}
	if err := m.SaveIncident(ctx, NewIncident("inc-no-fp", "", t0)); err == nil || !strings.Contains(err.Error(), "fingerprint") {
		t.Errorf("incident without fingerprint: got %v, want an error naming the fingerprint", err)
	}
	if got := mustCheckRuns(t, m, "", "", 0); len(got) != 0 {
		t.Errorf("got %d check runs stored, want 0", len(got))
	}
	if got := mustIncidents(t, m, store.IncidentFilter{}); len(got) != 0 {
		t.Errorf("got %d incidents stored, want 0", len(got))
	}
}

func testMonitorCancelledContext(t *testing.T, m store.Monitor) {
	mustSaveIncident(t, m, NewIncident("inc-1", "fp", t0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.SaveCheckRun(ctx, NewCheckRun("cr-cancelled", "a", "p", t0)); !errors.Is(err, context.Canceled) {
		t.Errorf("save check run: got %v, want context.Canceled", err)
	}
	if err := m.SaveIncident(ctx, NewIncident("inc-cancelled", "fp-2", t0)); !errors.Is(err, context.Canceled) {
		t.Errorf("save incident: got %v, want context.Canceled", err)
	}
	if err := m.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: "inc-1", At: t0, Type: promptcanary.EventOpened}); !errors.Is(err, context.Canceled) {
		t.Errorf("add incident event: got %v, want context.Canceled", err)
	}
	if err := m.SaveNotification(ctx, promptcanary.NotificationAttempt{ID: "n-1", IncidentID: "inc-1", Attempt: 1, At: t0}); !errors.Is(err, context.Canceled) {
		t.Errorf("save notification: got %v, want context.Canceled", err)
	}
	bg := context.Background()
	if got := mustCheckRuns(t, m, "", "", 0); len(got) != 0 {
		t.Errorf("got %d check runs, want 0", len(got))
	}
	if got := mustIncidents(t, m, store.IncidentFilter{}); len(got) != 1 {
		t.Errorf("got %d incidents, want 1", len(got))
	}
	if got, _ := m.IncidentEvents(bg, "inc-1"); len(got) != 0 {
		t.Errorf("got %d events, want 0", len(got))
	}
	if got, _ := m.Notifications(bg, "", 0); len(got) != 0 {
		t.Errorf("got %d notifications, want 0", len(got))
	}
}

// testMonitorConcurrentWriters has several writers record check runs,
// incidents, events and notification attempts at once: every write lands.
func testMonitorConcurrentWriters(t *testing.T, m store.Monitor) {
	ctx := context.Background()
	const writers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*4)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("w%d-%d", w, i)
				slot := t0.Add(time.Duration(w*each+i) * time.Minute)
				if err := m.SaveCheckRun(ctx, NewCheckRun("cr-"+id, fmt.Sprintf("check-%d", w), "p", slot)); err != nil {
					errs <- err
				}
				if err := m.SaveIncident(ctx, NewIncident("inc-"+id, "fp-"+id, slot)); err != nil {
					errs <- err
					continue
				}
				if err := m.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: "inc-" + id, At: slot, Type: promptcanary.EventOpened}); err != nil {
					errs <- err
				}
				if err := m.SaveNotification(ctx, promptcanary.NotificationAttempt{ID: "n-" + id, IncidentID: "inc-" + id, Notifier: "hook", Attempt: 1, At: slot, OK: true}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent write: %v", err)
	}
	if got := mustCheckRuns(t, m, "", "", 0); len(got) != writers*each {
		t.Errorf("got %d check runs, want %d", len(got), writers*each)
	}
	if got := mustCheckRuns(t, m, "check-2", "p", 0); len(got) != each {
		t.Errorf("check-2: got %d check runs, want %d", len(got), each)
	}
	if got := mustIncidents(t, m, store.IncidentFilter{OpenOnly: true}); len(got) != writers*each {
		t.Errorf("got %d open incidents, want %d", len(got), writers*each)
	}
	if got, err := m.Notifications(ctx, "", 0); err != nil || len(got) != writers*each {
		t.Errorf("got %d notifications, %v, want %d", len(got), err, writers*each)
	}
	if got, err := m.IncidentEvents(ctx, "inc-w3-4"); err != nil || len(got) != 1 {
		t.Errorf("events of inc-w3-4: got %d, %v, want 1", len(got), err)
	}
}

// testConcurrentOpens has several writers open an incident with the same
// fingerprint at once: exactly one succeeds, the others get ErrConflict.
func testConcurrentOpens(t *testing.T, m store.Monitor) {
	const writers = 8
	const fp = "checkout-prod/openai/drift"
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			errs[w] = m.SaveIncident(context.Background(), NewIncident(fmt.Sprintf("inc-%d", w), fp, t0))
		})
	}
	wg.Wait()
	won := 0
	for w, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrConflict):
			t.Errorf("writer %d: got %v, want nil or ErrConflict", w, err)
		}
	}
	if won != 1 {
		t.Errorf("got %d writers opening the incident, want exactly 1", won)
	}
	if got := mustIncidents(t, m, store.IncidentFilter{}); len(got) != 1 {
		t.Errorf("got %d incidents stored, want 1", len(got))
	}
}

// NewGate returns an upgrade gate fixture with every field set: check on
// provider against candidate in slot, one pair worse and one
// inconclusive.
func NewGate(id, check, provider string, slot time.Time) *promptcanary.CandidateGate {
	return &promptcanary.CandidateGate{
		ID: id, Check: check, Provider: provider, Candidate: "sim/terse <b>&amp;</b>", Slot: slot, At: slot.Add(3 * time.Second),
		CheckRunID: "cr-" + id, CostUSD: 0.0125,
		Report: &promptcanary.CandidateReport{
			Suite: "s", Current: provider, Candidate: "sim/terse", Margin: 0.05, Alpha: 0.01, Samples: 30,
			Pairs: []promptcanary.CandidatePair{
				{ProbeID: "p", PromptID: "a\u202e<script>", Current: promptcanary.PassCount{Passed: 30, N: 30}, Candidate: promptcanary.PassCount{N: 30},
					Delta: -1, Interval: [2]float64{-1, -0.884}, PWorse: 1.6e-17, QWorse: 3.2e-17, PNoWorse: 1, QNoWorse: 1, PBetter: 1, QBetter: 1,
					Verdict: promptcanary.CandidateWorse},
				{ProbeID: "p", PromptID: "b", Current: promptcanary.PassCount{Passed: 30, N: 30}, Candidate: promptcanary.PassCount{Passed: 29, N: 30},
					Delta: -1.0 / 30, Interval: [2]float64{-0.17, 0.08}, PWorse: 0.3, QWorse: 0.3, PNoWorse: 0.2, QNoWorse: 0.4, PBetter: 1, QBetter: 1,
					Verdict: promptcanary.CandidateInconclusive},
			},
			Summary:              promptcanary.CandidateSummary{Pairs: 2, Worse: 1, Inconclusive: 1, NotCompared: 1},
			SamplesToShowNoWorse: 108,
			NotCompared:          []string{"q/c"},
		},
	}
}

// testGates saves upgrade gates and reads them back: every field, a gate
// without a report, the filter by check and provider, the order (newest
// slot first), the limit, a resave and an invalid id. A store that keeps
// no gates is skipped.
func testGates(t *testing.T, m store.Monitor) {
	g, ok := m.(store.Gates)
	if !ok {
		t.Skipf("%T does not implement store.Gates", m)
	}
	ctx := context.Background()
	if got, err := g.Gates(ctx, "", "", 0); err != nil || len(got) != 0 {
		t.Fatalf("empty store: got %d gates, %v; want none", len(got), err)
	}
	a := NewGate("g-a", "checkout", "sim/stable", t0)
	b := NewGate("g-b", "checkout", "sim/stable", t0.Add(time.Hour))
	b.Report, b.Reason, b.CostUSD = nil, "sim/terse: every call failed 'quoted' \x01", math.NaN()
	c := NewGate("g-c", "other", "sim/stable", t0.Add(2*time.Hour))
	d := NewGate("g-d", "checkout", "sim/paraphrase", t0.Add(3*time.Hour))
	for _, x := range []*promptcanary.CandidateGate{a, b, c, d} {
		if err := g.SaveGate(ctx, x); err != nil {
			t.Fatalf("SaveGate(%s): %v", x.ID, err)
		}
	}
	got, err := g.Gates(ctx, "checkout", "sim/stable", 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]promptcanary.CandidateGate{*b, *a}, got, cmpopts.EquateNaNs()); d != "" {
		t.Errorf("Gates(checkout, sim/stable) (-want +got):\n%s", d)
	}
	for _, x := range got {
		assertUTC(t, "gate "+x.ID, x.Slot, x.At)
	}
	ids := func(gs []promptcanary.CandidateGate) []string {
		var out []string
		for _, x := range gs {
			out = append(out, x.ID)
		}
		return out
	}
	for _, tc := range []struct {
		check, provider string
		limit           int
		want            []string
	}{
		{"", "", 0, []string{"g-d", "g-c", "g-b", "g-a"}},
		{"", "", 2, []string{"g-d", "g-c"}},
		{"checkout", "", 0, []string{"g-d", "g-b", "g-a"}},
		{"", "sim/paraphrase", 0, []string{"g-d"}},
		{"checkout", "sim/stable", 1, []string{"g-b"}},
		{"nope", "", 0, nil},
	} {
		gs, err := g.Gates(ctx, tc.check, tc.provider, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, ids(gs)); d != "" {
			t.Errorf("Gates(%q, %q, %d) (-want +got):\n%s", tc.check, tc.provider, tc.limit, d)
		}
	}

	a.Report.Summary.Worse, a.Reason = 0, "resaved"
	if err := g.SaveGate(ctx, a); err != nil {
		t.Fatal(err)
	}
	got, err = g.Gates(ctx, "checkout", "sim/stable", 0)
	if err != nil || len(got) != 2 || got[1].Reason != "resaved" || got[1].Report.Summary.Worse != 0 {
		t.Errorf("after a resave: got %+v, %v; want the gate replaced", got, err)
	}
	if err := g.SaveGate(ctx, &promptcanary.CandidateGate{ID: "", Check: "x"}); err == nil {
		t.Error("SaveGate of a gate without an id: got nil error")
	}
}
