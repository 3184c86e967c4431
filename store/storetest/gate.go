package storetest

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

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
