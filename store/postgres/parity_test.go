package postgres

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/store/sqlstore"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// backend is what both stores implement.
type backend interface {
	store.Store
	store.Monitor
	store.Journal
}

// TestSameAsSQLite writes the same records, with the edge cases of times
// (zero, a nanosecond apart, ties) and floats (NaN, infinities), to this
// store and to SQLite: every listing reads back the same, in the same
// order.
func TestSameAsSQLite(t *testing.T) {
	t.Parallel()
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	pg := openFresh(t)
	ctx := context.Background()
	for _, s := range []backend{lite, pg} {
		fillHistory(t, s)
		fillMonitor(t, s)
	}
	ns := time.Nanosecond

	opts := []cmp.Option{cmpopts.EquateNaNs(), cmpopts.EquateEmpty()}
	compare := func(what string, read func(s backend) (any, error)) {
		t.Helper()
		want, err := read(lite)
		if err != nil {
			t.Fatalf("%s from SQLite: %v", what, err)
		}
		got, err := read(pg)
		if err != nil {
			t.Fatalf("%s from PostgreSQL: %v", what, err)
		}
		if diff := cmp.Diff(want, got, opts...); diff != "" {
			t.Errorf("%s (-SQLite +PostgreSQL):\n%s", what, diff)
		}
	}
	compare("runs", func(s backend) (any, error) { return s.Runs(ctx, store.RunFilter{}) })
	compare("runs since", func(s backend) (any, error) { return s.Runs(ctx, store.RunFilter{Since: t0.Add(ns)}) })
	compare("runs since long ago", func(s backend) (any, error) {
		return s.Runs(ctx, store.RunFilter{Since: time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)})
	})
	compare("probe scores", func(s backend) (any, error) { return s.ProbeScores(ctx, "", "", 0) })
	compare("baselines", func(s backend) (any, error) { return s.Baselines(ctx, "") })
	compare("latest baseline", func(s backend) (any, error) { return s.LatestBaseline(ctx, "s", "m") })
	compare("drifts", func(s backend) (any, error) { return s.Drifts(ctx, "", "", 0) })
	compare("pending", func(s backend) (any, error) { return s.PendingBaselines(ctx) })
	compare("check runs", func(s backend) (any, error) { return s.CheckRuns(ctx, "", "", 0) })
	compare("incidents", func(s backend) (any, error) { return s.Incidents(ctx, store.IncidentFilter{}) })
	compare("events", func(s backend) (any, error) { return s.IncidentEvents(ctx, "inc-ns") })
	compare("notifications", func(s backend) (any, error) { return s.Notifications(ctx, "", 0) })
	compare("newest notifications", func(s backend) (any, error) { return s.Notifications(ctx, "inc-ns", 2) })
	compare("zero run", func(s backend) (any, error) { return s.Run(ctx, "r-zero") })
}

// mustOf returns a check that fails t with the error of s's write.
func mustOf(t *testing.T, s backend) func(error) {
	return func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%T: %v", s, err)
		}
	}
}

// fillHistory writes TestSameAsSQLite's runs, baselines and reports to s.
func fillHistory(t *testing.T, s backend) {
	t.Helper()
	ctx, ns, must := context.Background(), time.Nanosecond, mustOf(t, s)
	zero := storetest.NewRun("r-zero", "s", "m", time.Time{})
	zero.FinishedAt = time.Time{}
	must(s.SaveRun(ctx, zero))
	for _, r := range []*promptcanary.Run{
		storetest.NewRun("r-ns1", "s", "m", t0.Add(ns)),
		storetest.NewRun("r-ns2", "s", "m", t0.Add(2*ns)),
		storetest.NewRun("r-tie-b", "s", "m", t0),
		storetest.NewRun("r-tie-a", "s", "m", t0),
	} {
		r.ProbeResults[0].Score = math.Inf(1)
		must(s.SaveRun(ctx, r))
	}
	must(s.SaveRunPending(ctx, storetest.NewRun("r-pending", "s", "m", t0.Add(3*ns)),
		store.PendingBaseline{RunID: "r-pending", SnapshotID: "snap-pending", CreatedAt: t0.Add(ns)}))
	must(s.SaveRunPending(ctx, storetest.NewRun("r-pending0", "s", "m", t0.Add(3*ns)),
		store.PendingBaseline{RunID: "r-pending0", SnapshotID: "snap-pending0"}))
	_, err := s.SaveBaseline(ctx, storetest.NewBaseline("snap-zero", zero, time.Time{}, "zero"))
	must(err)
	_, err = s.SaveBaseline(ctx, storetest.NewBaseline("snap-ns", zero, t0.Add(ns), "ns"))
	must(err)
	must(s.SaveDrift(ctx, storetest.NewDrift("rep-zero", zero, "snap-zero", time.Time{}, promptcanary.SeverityLow, 1)))
	must(s.SaveDrift(ctx, storetest.NewDrift("rep-ns", zero, "snap-zero", t0.Add(ns), promptcanary.SeverityHigh, 2)))
}

// fillMonitor writes TestSameAsSQLite's check runs, incidents, events and
// notification attempts to s.
func fillMonitor(t *testing.T, s backend) {
	t.Helper()
	ctx, ns, must := context.Background(), time.Nanosecond, mustOf(t, s)
	crZero := storetest.NewCheckRun("cr-zero", "c", "p", time.Time{})
	crZero.StartedAt, crZero.FinishedAt = time.Time{}, time.Time{}
	crNaN := storetest.NewCheckRun("cr-nan", "c", "p", t0.Add(ns))
	crNaN.PassRate, crNaN.Score, crNaN.CostUSD = math.NaN(), math.Inf(-1), math.NaN()
	for _, cr := range []*promptcanary.CheckRun{crZero, crNaN, storetest.NewCheckRun("cr-ns", "c", "p", t0.Add(2*ns)),
		storetest.NewCheckRun("cr-tie", "c", "p", t0.Add(2*ns))} {
		must(s.SaveCheckRun(ctx, cr))
	}
	incZero := storetest.NewIncident("inc-zero", "fp-zero", time.Time{})
	incZero.UpdatedAt, incZero.AcknowledgedAt, incZero.NotifiedAt = time.Time{}, time.Time{}, time.Time{}
	must(s.SaveIncident(ctx, incZero))
	must(s.SaveIncident(ctx, storetest.NewIncident("inc-ns", "fp-ns", t0.Add(ns))))
	must(s.SaveIncident(ctx, storetest.NewIncident("inc-ns2", "fp-ns2", t0.Add(2*ns))))
	for _, e := range []promptcanary.IncidentEvent{
		{IncidentID: "inc-ns", At: t0.Add(2 * ns), Type: promptcanary.EventUpdated},
		{IncidentID: "inc-ns", At: time.Time{}, Type: promptcanary.EventOpened},
		{IncidentID: "inc-ns", At: t0.Add(ns), Type: promptcanary.EventRepeated},
	} {
		must(s.AddIncidentEvent(ctx, e))
	}
	for i, at := range []time.Time{t0.Add(2 * ns), {}, t0.Add(ns), t0.Add(ns)} {
		must(s.SaveNotification(ctx, promptcanary.NotificationAttempt{ID: "n", IncidentID: "inc-ns", Notifier: "hook",
			Attempt: i + 1, At: at, Status: promptcanary.NotificationFiring}))
	}
}

// TestTimesOutOfRange saves times a bigint of nanoseconds cannot hold:
// refused, naming the field, rather than stored wrong.
func TestTimesOutOfRange(t *testing.T) {
	t.Parallel()
	s := openFresh(t)
	ctx := context.Background()
	far := time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)
	err := s.SaveRun(ctx, storetest.NewRun("far-run", "s", "m", far))
	want := `save run "far-run": started_at: time 2300-01-01T00:00:00Z is outside what the store holds (1677-09-21 to 2262-04-11)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	err = s.SaveCheckRun(ctx, storetest.NewCheckRun("old-cr", "c", "p", time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)))
	if err == nil || !strings.Contains(err.Error(), `save check run "old-cr": slot: time 1500-01-01T00:00:00Z is outside`) {
		t.Errorf("got %v, want the slot refused", err)
	}
}

func TestNanos(t *testing.T) {
	tests := []struct {
		name string
		t    time.Time
		want *int64
		ok   bool
	}{
		{"zero is NULL", time.Time{}, nil, true},
		{"epoch", time.Unix(0, 0), ptr(int64(0)), true},
		{"nanoseconds in another zone", time.Date(2025, 3, 1, 13, 0, 0, 7, time.FixedZone("", 3600)), ptr(time.Date(2025, 3, 1, 12, 0, 0, 7, time.UTC).UnixNano()), true},
		{"first", minTime, ptr(int64(math.MinInt64)), true},
		{"last", maxTime, ptr(int64(math.MaxInt64)), true},
		{"before the first", minTime.Add(-1), nil, false},
		{"after the last", maxTime.Add(1), nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := nanos(tc.t)
			if (err == nil) != tc.ok {
				t.Fatalf("got error %v, want ok %v", err, tc.ok)
			}
			if !cmp.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", deref(got), deref(tc.want))
			}
			if tc.ok {
				var back time.Time
				var src any
				if got != nil {
					src = *got
				}
				if err := sqlstore.At(&back).Scan(src); err != nil {
					t.Fatal(err)
				}
				if !back.Equal(tc.t) || (got != nil && back.Location() != time.UTC) {
					t.Errorf("read back: got %v, want %v in UTC", back, tc.t)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
