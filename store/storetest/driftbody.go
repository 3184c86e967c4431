package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/store"
)

// MaxStoredDrift is what a store may keep of the drift report of a
// 200-prompt × 10-probe compare at 30 samples (issue 19: 0.5 MB; its
// JSON is about 3 MB).
const MaxStoredDrift = 500_000

// DriftBodies reaches the stored bodies of drift reports of a store, for
// RunDriftBodies: Body returns the bytes a store keeps for report id,
// SetBody replaces them (as an older version of the store wrote them).
type DriftBodies struct {
	Open    func(t *testing.T) store.Store
	Body    func(t *testing.T, s store.Store, id string) []byte
	SetBody func(t *testing.T, s store.Store, id string, body []byte)
}

// RunDriftBodies checks how a store keeps drift reports: the report of a
// statistical compare is stored in at most MaxStoredDrift bytes and
// renders the same bytes in every format before and after the round trip,
// and a report stored as plain JSON, as versions before the compressed
// bodies stored them, still loads.
func RunDriftBodies(t *testing.T, b DriftBodies) {
	t.Helper()
	runSubtests(t, b.Open, []subtest[store.Store]{
		{"StatisticalReport", func(t *testing.T, s store.Store) { testStatisticalDrift(t, b, s) }},
		{"PlainJSONBody", func(t *testing.T, s store.Store) { testPlainJSONDrift(t, b, s) }},
	})
}

// StatisticalDrift returns the drift report of a prompts × probes compare
// at samples samples of two LargeRuns, the current one with other answers
// and scores.
func StatisticalDrift(t *testing.T, prompts, probes, samples int) *promptcanary.DriftReport {
	t.Helper()
	base := LargeRun("large-base", prompts, probes, samples, 7)
	cur := LargeRun("large-current", prompts, probes, samples, 8)
	baseline := &promptcanary.Baseline{SnapshotID: "snap-large", CreatedAt: base.StartedAt, SuiteName: base.SuiteName,
		Provider: base.Provider, SchemaVersion: promptcanary.SchemaVersion, RunResult: *base}
	d, err := drift.Compare(baseline, cur, drift.Options{Seed: 1, NewID: func() string { return "rep-large" },
		Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func testStatisticalDrift(t *testing.T, b DriftBodies, s store.Store) {
	if testing.Short() {
		t.Skip("large report")
	}
	ctx := context.Background()
	d := StatisticalDrift(t, 200, 10, 30)
	if err := s.SaveDrift(ctx, d); err != nil {
		t.Fatal(err)
	}
	n := len(b.Body(t, s, d.ReportID))
	t.Logf("stored drift report of a 200 × 10 × 30 compare: %d bytes", n)
	if n > MaxStoredDrift {
		t.Errorf("the drift report of a 200 × 10 × 30 compare takes %d bytes in the store, want at most %d", n, MaxStoredDrift)
	}
	got, err := s.Drift(ctx, d.ReportID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range report.Formats {
		var want, back bytes.Buffer
		if err := report.Drift(&want, f, d, report.Options{}); err != nil {
			t.Fatal(err)
		}
		if err := report.Drift(&back, f, got, report.Options{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), back.Bytes()) {
			t.Errorf("%s: the stored report renders %d bytes, not the %d of the report saved", f, back.Len(), want.Len())
		}
	}
}

func testPlainJSONDrift(t *testing.T, b DriftBodies, s store.Store) {
	ctx := context.Background()
	d := NewDrift("rep-plain", NewRun("run-plain", "suite", "m", t0), "snap-plain", t0, promptcanary.SeverityHigh, 1)
	if err := s.SaveDrift(ctx, d); err != nil {
		t.Fatal(err)
	}
	plain, err := store.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(b.Body(t, s, d.ReportID), plain) {
		t.Fatal("the store kept the report as plain JSON: nothing to check")
	}
	b.SetBody(t, s, d.ReportID, plain)
	got, err := s.Drift(ctx, d.ReportID)
	if err != nil {
		t.Fatalf("a report stored as plain JSON: %v", err)
	}
	if diff := cmp.Diff(d, got, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("report stored as plain JSON (-want +got):\n%s", diff)
	}
}
