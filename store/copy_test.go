package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/store/storetest"
)

func openSQLite(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// historyCounts are the records storetest.SaveHistory saves, per kind.
var historyCounts = map[string]int{
	store.KindRuns: 19, store.KindPending: 1, store.KindBaselines: 2, store.KindDrifts: 6,
	store.KindCheckRuns: 6, store.KindIncidents: 4, store.KindIncidentEvents: 7, store.KindNotifications: 5,
}

var kindOrder = []string{store.KindRuns, store.KindPending, store.KindBaselines, store.KindDrifts,
	store.KindCheckRuns, store.KindIncidents, store.KindIncidentEvents, store.KindNotifications}

// copyPair opens two SQLite stores in a new directory: a holding the
// history of storetest.SaveHistory, b empty.
func copyPair(t *testing.T) (a, b *sqlite.Store) {
	t.Helper()
	dir := t.TempDir()
	a = openSQLite(t, filepath.Join(dir, "a.db"))
	b = openSQLite(t, filepath.Join(dir, "b.db"))
	storetest.SaveHistory(t, a)
	return a, b
}

func mustCopy(t *testing.T, from, to store.Store) *store.CopyReport {
	t.Helper()
	var progress []string
	rep, err := store.Copy(context.Background(), from, to, store.CopyOptions{Progress: func(kind string, n int) { progress = append(progress, kind) }})
	if err != nil {
		t.Fatalf("copy: %v", err)
	}
	if !slices.Equal(progress, kindOrder) {
		t.Errorf("progress: got kinds %v, want %v", progress, kindOrder)
	}
	return rep
}

// mustVerify verifies from against to and fails unless every kind is OK
// with want extra records in the target (per kind, 0 when absent).
func mustVerify(t *testing.T, from, to store.Store, extra map[string]int) []store.KindCheck {
	t.Helper()
	checks, err := store.Verify(context.Background(), from, to)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	var kinds []string
	for _, k := range checks {
		kinds = append(kinds, k.Kind)
		if !k.OK() || k.Extra != extra[k.Kind] || k.SourceSum != k.TargetSum || k.Target != k.Source+k.Extra {
			t.Errorf("verify %s: got %+v, want it OK with %d extra", k.Kind, k, extra[k.Kind])
		}
		if len(k.SourceSum) != 64 {
			t.Errorf("verify %s: got checksum %q, want 64 hex digits", k.Kind, k.SourceSum)
		}
	}
	if !slices.Equal(kinds, kindOrder) {
		t.Errorf("verify: got kinds %v, want %v", kinds, kindOrder)
	}
	return checks
}

func TestCopySQLiteToSQLite(t *testing.T) {
	a, b := copyPair(t)

	rep := mustCopy(t, a, b)
	for _, c := range rep.Copied {
		if c.N != historyCounts[c.Kind] {
			t.Errorf("copied %s: got %d, want %d", c.Kind, c.N, historyCounts[c.Kind])
		}
	}
	if rep.MonitorSkipped != "" {
		t.Errorf("monitor skipped: %s", rep.MonitorSkipped)
	}
	checks := mustVerify(t, a, b, nil)
	for _, k := range checks {
		if k.Source != historyCounts[k.Kind] {
			t.Errorf("verify %s: got %d records, want %d", k.Kind, k.Source, historyCounts[k.Kind])
		}
	}
	storetest.AssertSameHistory(t, a, b)

	// Again: nothing is duplicated (events and notifications are
	// appended by the Monitor interface, replaced by a copy).
	again := mustVerify(t, a, b, nil)
	mustCopy(t, a, b)
	after := mustVerify(t, a, b, nil)
	for i := range after {
		if after[i].TargetSum != again[i].TargetSum {
			t.Errorf("%s: the second copy changed the target's checksum", after[i].Kind)
		}
	}
	storetest.AssertSameHistory(t, a, b)
}

func TestCopyKeepsTheTargetsOwnRecords(t *testing.T) {
	ctx := context.Background()
	a, b := copyPair(t)
	if err := b.SaveRun(ctx, storetest.NewRun("b-own", "s", "m", time.Now())); err != nil {
		t.Fatal(err)
	}
	if err := b.SaveCheckRun(ctx, storetest.NewCheckRun("b-own-cr", "c", "p", time.Now())); err != nil {
		t.Fatal(err)
	}
	mustCopy(t, a, b)
	mustVerify(t, a, b, map[string]int{store.KindRuns: 1, store.KindCheckRuns: 1})
	if _, err := b.Run(ctx, "b-own"); err != nil {
		t.Errorf("the target's own run: %v", err)
	}
}

func TestCopyFollowsTheSource(t *testing.T) {
	ctx := context.Background()
	a, b := copyPair(t)
	mustCopy(t, a, b)

	// Since the first copy: the pending baseline was given up, the open
	// incident resolved and another opened with its fingerprint (an id
	// that sorts first), and a run changed.
	if err := a.ClearPending(ctx, "r-old-pending"); err != nil {
		t.Fatal(err)
	}
	inc, err := a.Incident(ctx, "inc-open")
	if err != nil {
		t.Fatal(err)
	}
	inc.ResolvedAt = time.Now()
	if err := a.SaveIncident(ctx, inc); err != nil {
		t.Fatal(err)
	}
	again := storetest.NewIncident("inc-a-reopened", inc.Fingerprint, time.Now())
	if err := a.SaveIncident(ctx, again); err != nil {
		t.Fatal(err)
	}
	if err := a.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: "inc-open", At: time.Now(), Type: promptcanary.EventResolved}); err != nil {
		t.Fatal(err)
	}
	changed := storetest.NewRun("r-new", "prune-suite", "m", time.Now())
	changed.Tool = "changed since"
	if err := a.SaveRun(ctx, changed); err != nil {
		t.Fatal(err)
	}

	mustCopy(t, a, b)
	mustVerify(t, a, b, nil)
	storetest.AssertSameHistory(t, a, b)
	if ps, err := b.PendingBaselines(ctx); err != nil || len(ps) != 0 {
		t.Errorf("pending baselines of the target: got %v, %v, want none (given up since)", ps, err)
	}
}

func TestCopyConflict(t *testing.T) {
	ctx := context.Background()
	a, b := copyPair(t)
	// The target has an open incident of its own with the fingerprint of
	// the source's open one: merging them would open two.
	if err := b.SaveIncident(ctx, storetest.NewIncident("b-open", "fp-open", time.Now())); err != nil {
		t.Fatal(err)
	}
	_, err := store.Copy(ctx, a, b, store.CopyOptions{})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("got %v, want ErrConflict", err)
	}
	for _, want := range []string{"copy incidents: write the target", `"b-open"`, `"fp-open"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestVerifyFindsDifferences(t *testing.T) {
	ctx := context.Background()
	a, b := copyPair(t)
	mustCopy(t, a, b)

	// One run changed in the target; old records pruned from it; one
	// event more.
	r, err := b.Run(ctx, "r-dash")
	if err != nil {
		t.Fatal(err)
	}
	r.LLMResponses[0].Content = "tampered"
	if err := b.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Prune(ctx, time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC), false); err != nil {
		t.Fatal(err)
	}
	if err := b.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: "inc-open", At: time.Now(), Type: promptcanary.EventAcknowledged}); err != nil {
		t.Fatal(err)
	}
	checks, err := store.Verify(ctx, a, b)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.KindCheck{}
	for _, k := range checks {
		got[k.Kind] = k
	}
	tests := []struct {
		kind                   string
		missing, differ, extra int
		examples               []string
	}{
		{store.KindRuns, 4, 1, 0, []string{"differs r-dash", "missing r-old-dcr", "missing r-old-free", "missing r-old-resolved", "missing r-zero"}},
		{store.KindPending, 0, 0, 0, nil},
		{store.KindBaselines, 0, 0, 0, nil},
		{store.KindDrifts, 2, 0, 0, []string{"missing rep-old-2", "missing rep-old-free"}},
		{store.KindCheckRuns, 2, 0, 0, []string{"missing cr-old-free", "missing cr-zero"}},
		{store.KindIncidents, 1, 0, 0, []string{"missing inc-resolved"}},
		{store.KindIncidentEvents, 2, 0, 1, []string{"missing inc-resolved #1", "missing inc-resolved #2"}},
		{store.KindNotifications, 3, 0, 0, []string{"missing inc-resolved #1", "missing inc-resolved #2", "missing inc-resolved #3"}},
	}
	for _, tc := range tests {
		k := got[tc.kind]
		if k.Missing != tc.missing || k.Differ != tc.differ || k.Extra != tc.extra || !slices.Equal(k.Examples, tc.examples) {
			t.Errorf("%s: got missing %d, differ %d, extra %d, examples %q; want %d, %d, %d, %q", tc.kind,
				k.Missing, k.Differ, k.Extra, k.Examples, tc.missing, tc.differ, tc.extra, tc.examples)
		}
		if ok := tc.missing == 0 && tc.differ == 0; k.OK() != ok || (k.SourceSum == k.TargetSum) != ok {
			t.Errorf("%s: got OK %v and checksums %s / %s, want OK %v", tc.kind, k.OK(), k.SourceSum, k.TargetSum, ok)
		}
	}
}

func TestCopyRefusesTheSameStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.db")
	a := openSQLite(t, path)
	storetest.SaveHistory(t, a)
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{path, filepath.Join(dir, ".", "a.db"), link} {
		b := openSQLite(t, other)
		if _, err := store.Copy(context.Background(), a, b, store.CopyOptions{}); !errors.Is(err, store.ErrSameStore) {
			t.Errorf("copy onto %s: got %v, want ErrSameStore", other, err)
		}
		if _, err := store.Verify(context.Background(), a, b); !errors.Is(err, store.ErrSameStore) {
			t.Errorf("verify against %s: got %v, want ErrSameStore", other, err)
		}
	}
}

func TestCopyStopsWhenCancelled(t *testing.T) {
	a, b := copyPair(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := store.Copy(ctx, a, b, store.CopyOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	runs, err := b.Runs(context.Background(), store.RunFilter{})
	if err != nil || len(runs) != 0 {
		t.Errorf("target after a cancelled copy: got %d runs, %v, want none", len(runs), err)
	}
}
