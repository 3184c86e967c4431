package store

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
)

func TestSummarize(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	res := func(probe string, sample int, passed bool, score float64) promptcanary.ProbeResult {
		return promptcanary.ProbeResult{ProbeID: probe, PromptID: "p", Sample: sample, Passed: passed, Score: score}
	}
	tests := []struct {
		name string
		run  promptcanary.Run
		want RunSummary
	}{
		{"empty run", promptcanary.Run{RunID: "r", StartedAt: t0},
			RunSummary{RunID: "r", StartedAt: t0, Samples: 1, Score: math.NaN(), PassRate: math.NaN()}},
		{"every call failed", promptcanary.Run{RunID: "r", Errors: []promptcanary.CallError{{PromptID: "p"}, {PromptID: "q"}}},
			RunSummary{RunID: "r", Samples: 1, Errors: 2, Score: math.NaN(), PassRate: math.NaN()}},
		{"samples from results", promptcanary.Run{RunID: "r", SuiteName: "s", Provider: promptcanary.ProviderConfig{ModelID: "m"},
			ProbeResults: []promptcanary.ProbeResult{res("a", 0, true, 1), res("a", 2, false, 0.5)},
			Errors:       []promptcanary.CallError{{PromptID: "p"}}},
			RunSummary{RunID: "r", Suite: "s", Model: "m", Samples: 3, Results: 2, Passed: 1, Errors: 1, Score: 0.75, PassRate: 0.5}},
		{"requested samples win", promptcanary.Run{RunID: "r", Samples: 5, Interrupted: true, ProbeResults: []promptcanary.ProbeResult{res("a", 0, true, 1)}},
			RunSummary{RunID: "r", Samples: 5, Results: 1, Passed: 1, Score: 1, PassRate: 1, Interrupted: true}},
		{"infinite score is NaN", promptcanary.Run{RunID: "r", ProbeResults: []promptcanary.ProbeResult{res("a", 0, true, math.Inf(1))}},
			RunSummary{RunID: "r", Samples: 1, Results: 1, Passed: 1, Score: math.NaN(), PassRate: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Summarize(&tc.run)
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })); diff != "" {
				t.Errorf("summary mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProbeScoresOf(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	r := &promptcanary.Run{RunID: "r", StartedAt: t0, ProbeResults: []promptcanary.ProbeResult{
		{ProbeID: "zeta", PromptID: "p1", Passed: true, Score: 1},
		{ProbeID: "alpha", PromptID: "p1", Passed: false, Score: 0.2},
		{ProbeID: "zeta", PromptID: "p2", Passed: false, Score: 0.4},
		{ProbeID: "alpha", PromptID: "p2", Sample: 1, Passed: true, Score: 0.6},
		{ProbeID: "alpha", PromptID: "p3", Passed: true, Score: 1},
	}}
	want := []ProbeScore{
		{RunID: "r", StartedAt: t0, ProbeID: "alpha", Mean: 0.6, PassRate: 2.0 / 3, N: 3},
		{RunID: "r", StartedAt: t0, ProbeID: "zeta", Mean: 0.7, PassRate: 0.5, N: 2},
	}
	got := ProbeScoresOf(r)
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })); diff != "" {
		t.Errorf("probe scores mismatch (-want +got):\n%s", diff)
	}
	if got := ProbeScoresOf(&promptcanary.Run{RunID: "empty"}); len(got) != 0 {
		t.Errorf("empty run: got %v, want none", got)
	}
}

func TestNewBaseline(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.FixedZone("", 3600))
	r := &promptcanary.Run{RunID: "r", SuiteName: "s", Provider: promptcanary.ProviderConfig{ModelID: "m"}}
	b := NewBaseline(r, "n", now)
	if !uuidV4.MatchString(b.SnapshotID) || b.SuiteName != "s" || b.Provider.ModelID != "m" || b.RunResult.RunID != "r" ||
		b.Note != "n" || b.SchemaVersion != promptcanary.SchemaVersion || !b.CreatedAt.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("got %+v", b)
	}
}

func TestSortTieBreaks(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	runs := []RunSummary{{RunID: "a", StartedAt: t0}, {RunID: "c", StartedAt: t0.Add(-time.Second)}, {RunID: "b", StartedAt: t0}}
	SortRuns(runs)
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.RunID)
	}
	if want := []string{"b", "a", "c"}; !slices.Equal(ids, want) {
		t.Errorf("runs: got %v, want %v", ids, want)
	}
	bs := []BaselineInfo{{SnapshotID: "x", CreatedAt: t0}, {SnapshotID: "y", CreatedAt: t0}, {SnapshotID: "z", CreatedAt: t0.Add(-time.Hour)}}
	SortBaselines(bs)
	if bs[0].SnapshotID != "y" || bs[2].SnapshotID != "z" {
		t.Errorf("baselines: got %v, want y, x, z", bs)
	}
	ds := []DriftSummary{{ReportID: "1", GeneratedAt: t0}, {ReportID: "2", GeneratedAt: t0.Add(time.Hour)}}
	SortDrifts(ds)
	if ds[0].ReportID != "2" {
		t.Errorf("drifts: got %v, want 2 first", ds)
	}
}
