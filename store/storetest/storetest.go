// Package storetest is the conformance suite every store.Store backend must
// pass. A backend's tests call Run with a function that opens an empty
// store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			s, err := sqlite.Open(filepath.Join(t.TempDir(), "history.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
package storetest

import (
	"context"
	"encoding/json"
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

// Run runs the conformance suite. open must return a new, empty store for
// each call; Run closes it when the subtest ends. When the stores implement
// store.Monitor, Run also runs RunMonitor on them (subtest "Monitor").
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Helper()
	runSubtests(t, open, []subtest[store.Store]{
		{"Empty", testEmpty},
		{"RoundTrip", testRoundTrip},
		{"Summary", testSummary},
		{"UnmeasuredSummary", testUnmeasuredSummary},
		{"Lookup", testLookup},
		{"Filter", testFilter},
		{"Order", testOrder},
		{"Resave", testResave},
		{"Promote", testPromote},
		{"LatestBaselinePerModel", testLatestBaselinePerModel},
		{"SaveBaseline", testSaveBaseline},
		{"SaveBaselineKeepsStoredRun", testSaveBaselineKeepsStoredRun},
		{"PooledBaseline", testPooledBaseline},
		{"BuildMark", testBuildMark},
		{"BaselineLookup", testBaselineLookup},
		{"Drifts", testDrifts},
		{"ProbeScores", testProbeScores},
		{"HostileContent", testHostileContent},
		{"NonFinite", testNonFinite},
		{"InvalidIDs", testInvalidIDs},
		{"CancelledContext", testCancelledContext},
		{"ConcurrentSaves", testConcurrentSaves},
		{"PendingBaseline", testPendingBaseline},
		{"StatisticalRun", testStatisticalRun},
		{"LongAnswers", testLongAnswers},
	})
	t.Run("Monitor", func(t *testing.T) { runMonitorOf(t, open) })
}

// t0 is the start time of the fixtures, to the microsecond like the
// original tool's timestamps.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)

// NewRun returns a run fixture with every field set: two probes over two
// prompts and two samples, responses with raw bodies and tool calls, one
// failed call. Its results are p_format 1 (passed) and 0.5 (failed) per
// prompt and sample, p_safety 0.25 (failed).
func NewRun(id, suite, model string, started time.Time) *promptcanary.Run {
	seed := int64(42)
	r := &promptcanary.Run{
		SchemaVersion: promptcanary.SchemaVersion,
		RunID:         id,
		SuiteName:     suite,
		Provider: promptcanary.ProviderConfig{
			ModelID: model, Temperature: 0.7, MaxTokens: 256, Seed: &seed,
			ExtraParams: map[string]any{"top_p": 0.9, "stop": []any{"\n\n"}},
		},
		StartedAt:  started,
		FinishedAt: started.Add(1500 * time.Millisecond),
		Samples:    2,
		ConfigHash: "sha256:0123abcd",
		Tool:       "promptcanary test",
		Errors:     []promptcanary.CallError{{PromptID: "p2", Sample: 1, Provider: model, Message: "429 too many requests", Attempts: 3}},
	}
	for _, prompt := range []string{"p1", "p2"} {
		for sample := range 2 {
			r.LLMResponses = append(r.LLMResponses, promptcanary.Response{
				PromptID: prompt, ProviderModelID: model, Content: fmt.Sprintf("answer %s/%d", prompt, sample),
				FinishReason: "stop", LatencyMS: 123.5, PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15,
				RawResponse: json.RawMessage(`{"id":"chatcmpl-1","choices":[{"index":0}]}`),
				Timestamp:   started.Add(time.Duration(sample) * time.Second),
				Sample:      sample, ServedModel: model + "-2025", SystemFingerprint: "fp_1", ResponseID: "resp-1", Attempts: 1,
				ToolCalls: []promptcanary.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}},
			})
			r.ProbeResults = append(r.ProbeResults,
				promptcanary.ProbeResult{
					ProbeID: "p_format", ProbeType: "json_valid", ProbeName: "JSON valid", Category: promptcanary.CategoryFormat,
					PromptID: prompt, Sample: sample, Passed: true, Score: 1, Details: "valid JSON",
					Metadata: map[string]any{"keys": []any{"a", "b"}, "depth": 2.0},
				},
				promptcanary.ProbeResult{
					ProbeID: "p_format", ProbeType: "json_valid", ProbeName: "JSON valid", Category: promptcanary.CategoryFormat,
					PromptID: prompt, Sample: sample, Passed: false, Score: 0.5, Details: "trailing text",
					Metadata: map[string]any{},
				},
				promptcanary.ProbeResult{
					ProbeID: "p_safety", ProbeType: "refusal", ProbeName: "Refusal", Category: promptcanary.CategorySafety,
					PromptID: prompt, Sample: sample, Passed: false, Score: 0.25, Details: "refused",
					Metadata: map[string]any{"matched": "I can't"},
				},
			)
		}
	}
	return r
}

// NewBaseline returns a baseline fixture of r created at created.
func NewBaseline(id string, r *promptcanary.Run, created time.Time, note string) *promptcanary.Baseline {
	return &promptcanary.Baseline{
		SnapshotID: id, CreatedAt: created, SuiteName: r.SuiteName, Provider: r.Provider,
		SchemaVersion: promptcanary.SchemaVersion, RunResult: *r, Note: note,
	}
}

// NewDrift returns a drift report fixture comparing run against baseline.
func NewDrift(id string, run *promptcanary.Run, baselineID string, generated time.Time, sev promptcanary.Severity, regressions int) *promptcanary.DriftReport {
	d := &promptcanary.DriftReport{
		ReportID: id, GeneratedAt: generated, SuiteName: run.SuiteName, Provider: run.Provider,
		BaselineSnapshotID: baselineID, BaselineCreatedAt: generated.Add(-time.Hour), BaselineModelID: run.Provider.ModelID,
		CurrentRunID: run.RunID, Method: "single_sample", HasDrift: regressions > 0, Severity: sev,
		Summary: fmt.Sprintf("%s drift: %d regression(s)", sev, regressions), OverallBaselineScore: 0.9, OverallCurrentScore: 0.6,
		Notes: []string{"one sample per prompt"}, Errors: run.Errors,
		Statistics: &promptcanary.DriftStatistics{Seed: 7, Alpha: 0.05},
	}
	for i := range regressions + 1 {
		d.Comparisons = append(d.Comparisons, promptcanary.Comparison{
			ProbeID: "p_format", ProbeName: "JSON valid", Category: promptcanary.CategoryFormat, PromptID: fmt.Sprintf("p%d", i),
			Status: promptcanary.StatusRegression, BaselineScore: 1, CurrentScore: 0.5, ScoreDelta: -0.5,
			BaselinePassed: true, Regression: i < regressions, BaselineDetails: "ok", CurrentDetails: "bad",
			Baseline: promptcanary.SampleStats{N: 1, Passes: 1, MeanScore: 1}, Current: promptcanary.SampleStats{N: 1, MeanScore: 0.5},
			Severity: sev,
		})
	}
	return d
}

// normalize returns v as generic JSON, the form in which values are
// compared: what a store keeps is what it would write.
func normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := store.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return out
}

// assertSame fails when got and want differ as JSON. A store may drop
// the raw responses of a run with several samples per prompt (see
// store.CompactVersion), so they are not compared for such runs.
func assertSame(t *testing.T, what string, got, want any) {
	t.Helper()
	w, g := normalize(t, want), normalize(t, got)
	if manySamples(want) {
		dropRaw(w)
		dropRaw(g)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}

// manySamples reports whether v is a run, or a baseline of a run, with
// several samples per prompt.
func manySamples(v any) bool {
	switch v := v.(type) {
	case *promptcanary.Run:
		return v.Samples > 1 || v.SamplesPerPrompt() > 1
	case *promptcanary.Baseline:
		return manySamples(&v.RunResult)
	}
	return false
}

// dropRaw deletes every "raw_response" key of the generic JSON v.
func dropRaw(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "raw_response")
		for _, e := range v {
			dropRaw(e)
		}
	case []any:
		for _, e := range v {
			dropRaw(e)
		}
	}
}

func mustSaveRun(t *testing.T, s store.Store, r *promptcanary.Run) {
	t.Helper()
	if err := s.SaveRun(context.Background(), r); err != nil {
		t.Fatalf("save run %s: %v", r.RunID, err)
	}
}

func mustRuns(t *testing.T, s store.Store, f store.RunFilter) []store.RunSummary {
	t.Helper()
	got, err := s.Runs(context.Background(), f)
	if err != nil {
		t.Fatalf("runs %+v: %v", f, err)
	}
	return got
}

func runIDs(s []store.RunSummary) []string {
	return ids(s, func(r store.RunSummary) string { return r.RunID })
}

func testEmpty(t *testing.T, s store.Store) {
	ctx := context.Background()
	if got := mustRuns(t, s, store.RunFilter{}); len(got) != 0 {
		t.Errorf("runs: got %d, want 0", len(got))
	}
	if got, err := s.Baselines(ctx, ""); err != nil || len(got) != 0 {
		t.Errorf("baselines: got %d, %v, want 0, nil", len(got), err)
	}
	if got, err := s.Drifts(ctx, "", "", 0); err != nil || len(got) != 0 {
		t.Errorf("drifts: got %d, %v, want 0, nil", len(got), err)
	}
	if got, err := s.ProbeScores(ctx, "", "", 0); err != nil || len(got) != 0 {
		t.Errorf("probe scores: got %d, %v, want 0, nil", len(got), err)
	}
	if _, err := s.LatestBaseline(ctx, "suite", "model"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("latest baseline: got %v, want ErrNotFound", err)
	}
	if _, err := s.Run(ctx, "run-1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("run: got %v, want ErrNotFound", err)
	}
	if _, err := s.Drift(ctx, "report-1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("drift: got %v, want ErrNotFound", err)
	}
	if _, err := s.Baseline(ctx, "snap-1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("baseline: got %v, want ErrNotFound", err)
	}
}

func testRoundTrip(t *testing.T, s store.Store) {
	ctx := context.Background()
	tests := []struct {
		name string
		run  *promptcanary.Run
	}{
		{"full", NewRun("0f1e2d3c-aaaa-4bbb-8ccc-000000000001", "checkout bot", "openai/gpt-4o", t0)},
		{"one sample keeps raw responses", func() *promptcanary.Run {
			r := NewRun("one-sample-run", "s", "m", t0)
			r.Samples = 1
			r.ProbeResults = slices.DeleteFunc(r.ProbeResults, func(p promptcanary.ProbeResult) bool { return p.Sample > 0 })
			r.LLMResponses = slices.DeleteFunc(r.LLMResponses, func(p promptcanary.Response) bool { return p.Sample > 0 })
			return r
		}()},
		{"empty", &promptcanary.Run{SchemaVersion: promptcanary.SchemaVersion, RunID: "empty-run", SuiteName: "s", Provider: promptcanary.ProviderConfig{ModelID: "m"}, StartedAt: t0}},
		{"offset times", func() *promptcanary.Run {
			r := NewRun("offset-run", "s", "m", t0.In(time.FixedZone("", 2*3600)))
			r.Interrupted = true
			r.FinishedAt = time.Time{}
			return r
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mustSaveRun(t, s, tc.run)
			got, err := s.Run(ctx, tc.run.RunID)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			assertSame(t, "run", got, tc.run)
			if !got.StartedAt.Equal(tc.run.StartedAt) {
				t.Errorf("started_at: got %v, want %v", got.StartedAt, tc.run.StartedAt)
			}
		})
	}
}

func testSummary(t *testing.T, s store.Store) {
	r := NewRun("summary-run", "checkout bot", "openai/gpt-4o", t0)
	r.Interrupted = true
	mustSaveRun(t, s, r)
	got := mustRuns(t, s, store.RunFilter{})
	if len(got) != 1 {
		t.Fatalf("got %d summaries, want 1", len(got))
	}
	g := got[0]
	want := store.RunSummary{
		RunID: "summary-run", Suite: "checkout bot", Model: "openai/gpt-4o", StartedAt: t0, FinishedAt: t0.Add(1500 * time.Millisecond),
		Samples: 2, Results: 12, Passed: 4, Errors: 1, Score: (4*1 + 4*0.5 + 4*0.25) / 12.0, PassRate: 4 / 12.0, Interrupted: true,
	}
	if diff := cmp.Diff(want, g, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }), cmp.Comparer(floatEqual)); diff != "" {
		t.Errorf("summary mismatch (-want +got):\n%s", diff)
	}
}

// testUnmeasuredSummary: a run whose every call failed has no score and
// no pass rate (NaN, "n/a"), not 1 and 100%, and a compare made of it,
// whose report says severity none, lists it as unmeasured.
func testUnmeasuredSummary(t *testing.T, s store.Store) {
	ctx := context.Background()
	down := NewRun("down-run", "checkout bot", "openai/gpt-4o", t0)
	down.ProbeResults, down.LLMResponses = nil, nil
	mustSaveRun(t, s, down)
	blank := NewRun("blank-run", "checkout bot", "openai/gpt-4o", t0.Add(time.Minute))
	blank.ProbeResults, blank.LLMResponses = nil, nil
	mustSaveRun(t, s, blank)
	d := NewDrift("down-report", down, "base-1", t0.Add(2*time.Minute), promptcanary.SeverityNone, 0)
	d.Comparisons = nil
	if err := s.SaveDrift(ctx, d); err != nil {
		t.Fatalf("save drift: %v", err)
	}
	got := mustRuns(t, s, store.RunFilter{})
	if len(got) != 2 {
		t.Fatalf("got %d summaries, want 2", len(got))
	}
	for _, g := range got {
		if g.Measured() || !math.IsNaN(g.Score) || !math.IsNaN(g.PassRate) || g.Results != 0 {
			t.Errorf("%s: got measured %v, score %v, pass rate %v, results %d, want unmeasured, NaN, NaN, 0",
				g.RunID, g.Measured(), g.Score, g.PassRate, g.Results)
		}
	}
	if got[1].RunID != "down-run" || got[1].Verdict != store.VerdictUnmeasured {
		t.Errorf("verdict of %s: got %q, want %q", got[1].RunID, got[1].Verdict, store.VerdictUnmeasured)
	}
	if got[0].Verdict != "" {
		t.Errorf("verdict of %s (never compared): got %q, want none", got[0].RunID, got[0].Verdict)
	}
}

func floatEqual(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-12
}

func testLookup(t *testing.T, s store.Store) {
	ctx := context.Background()
	testPrefixLookup(t, "run", func(id string) string { return fmt.Sprintf("%q", id) },
		func(id string, at time.Time) { mustSaveRun(t, s, NewRun(id, "s", "m", at)) },
		func(id string) (string, error) {
			r, err := s.Run(ctx, id)
			if err != nil {
				return "", err
			}
			return r.RunID, nil
		})
}

// testPrefixLookup checks how records of kind what are found by id: save
// stores one with id at a time, get finds one by id or prefix and returns
// its id, and named is what an error must name when none, or more than one,
// has that prefix.
func testPrefixLookup(t *testing.T, what string, named func(id string) string, save func(id string, at time.Time), get func(id string) (string, error)) {
	for i, id := range []string{"abcd1234-x", "abcd5678-y", "ffff0000-z", "ab"} {
		save(id, t0.Add(time.Duration(i)*time.Minute))
	}
	tests := []struct {
		id      string
		want    string
		wantErr error
	}{
		{id: "abcd1234-x", want: "abcd1234-x"},
		{id: "abcd1234", want: "abcd1234-x"},
		{id: "abcd5", want: "abcd5678-y"},
		{id: "ffff", want: "ffff0000-z"},
		{id: "ab", want: "ab"},
		{id: "abcd", wantErr: store.ErrAmbiguous},
		{id: "fff", wantErr: store.ErrNotFound},
		{id: "zzzz", wantErr: store.ErrNotFound},
		{id: "abcd1234-x-longer", wantErr: store.ErrNotFound},
		{id: "", wantErr: store.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			got, err := get(tc.id)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("got error %v, want %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), named(tc.id)) {
					t.Errorf("got error %q, want it to name %s", err, named(tc.id))
				}
				if tc.wantErr == store.ErrAmbiguous && (!strings.Contains(err.Error(), "abcd1234-x") || !strings.Contains(err.Error(), "abcd5678-y")) {
					t.Errorf("got error %q, want it to list the candidates", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want %s %s", err, what, tc.want)
			}
			if got != tc.want {
				t.Errorf("got %s %s, want %s", what, got, tc.want)
			}
		})
	}
}

// saveGrid stores runs r0 … r5 across two suites and two models, one minute
// apart, r5 newest.
func saveGrid(t *testing.T, s store.Store) {
	t.Helper()
	grid := []struct{ suite, model string }{
		{"A", "m1"}, {"A", "m2"}, {"B", "m1"}, {"A", "m1"}, {"B", "m2"}, {"A", "m1"},
	}
	for i, g := range grid {
		mustSaveRun(t, s, NewRun(fmt.Sprintf("r%d", i), g.suite, g.model, t0.Add(time.Duration(i)*time.Minute)))
	}
}

func testFilter(t *testing.T, s store.Store) {
	saveGrid(t, s)
	if _, err := s.SaveBaseline(context.Background(), NewBaseline("snap-1", NewRun("r3", "A", "m1", t0.Add(3*time.Minute)), t0.Add(time.Hour), "")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		filter store.RunFilter
		want   []string
	}{
		{"all", store.RunFilter{}, []string{"r5", "r4", "r3", "r2", "r1", "r0"}},
		{"suite", store.RunFilter{Suite: "A"}, []string{"r5", "r3", "r1", "r0"}},
		{"model", store.RunFilter{Model: "m2"}, []string{"r4", "r1"}},
		{"suite and model", store.RunFilter{Suite: "A", Model: "m1"}, []string{"r5", "r3", "r0"}},
		{"limit", store.RunFilter{Limit: 2}, []string{"r5", "r4"}},
		{"suite and limit", store.RunFilter{Suite: "A", Model: "m1", Limit: 1}, []string{"r5"}},
		{"since inclusive", store.RunFilter{Since: t0.Add(3 * time.Minute)}, []string{"r5", "r4", "r3"}},
		{"since other zone", store.RunFilter{Since: t0.Add(4 * time.Minute).In(time.FixedZone("", -5*3600))}, []string{"r5", "r4"}},
		{"baselines only", store.RunFilter{BaselinesOnly: true}, []string{"r3"}},
		{"no match", store.RunFilter{Suite: "a"}, []string{}},
		{"model prefix is no match", store.RunFilter{Model: "m"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := runIDs(mustRuns(t, s, tc.filter))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	for _, sum := range mustRuns(t, s, store.RunFilter{}) {
		if want := sum.RunID == "r3"; sum.IsBaseline != want {
			t.Errorf("%s: got IsBaseline %v, want %v", sum.RunID, sum.IsBaseline, want)
		}
	}
}

func testOrder(t *testing.T, s store.Store) {
	// Saved out of order; two runs share a start time and order by id.
	for _, tc := range []struct {
		id  string
		min int
	}{{"o-b", 5}, {"o-a", 1}, {"o-d", 5}, {"o-c", 9}} {
		mustSaveRun(t, s, NewRun(tc.id, "s", "m", t0.Add(time.Duration(tc.min)*time.Minute)))
	}
	got := runIDs(mustRuns(t, s, store.RunFilter{}))
	if want := []string{"o-c", "o-d", "o-b", "o-a"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func testResave(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := NewRun("resave", "s", "m", t0)
	mustSaveRun(t, s, r)
	r2 := NewRun("resave", "s2", "m2", t0.Add(time.Hour))
	r2.ProbeResults = r2.ProbeResults[:1]
	r2.LLMResponses[0].Content = "replaced"
	mustSaveRun(t, s, r2)
	sums := mustRuns(t, s, store.RunFilter{})
	if len(sums) != 1 {
		t.Fatalf("got %d runs, want 1", len(sums))
	}
	if sums[0].Suite != "s2" || sums[0].Model != "m2" || sums[0].Results != 1 {
		t.Errorf("got summary %+v, want suite s2, model m2, 1 result", sums[0])
	}
	if got := mustRuns(t, s, store.RunFilter{Suite: "s"}); len(got) != 0 {
		t.Errorf("old suite: got %d runs, want 0", len(got))
	}
	got, err := s.Run(ctx, "resave")
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "run", got, r2)
	ps, err := s.ProbeScores(ctx, "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].N != 1 || ps[0].Mean != 1 {
		t.Errorf("got probe scores %+v, want one row with n 1, mean 1", ps)
	}
}

func testPromote(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := NewRun("promote-me", "checkout bot", "openai/gpt-4o", t0)
	mustSaveRun(t, s, r)
	before := time.Now()
	b, err := s.Promote(ctx, "promote", "known good")
	if err != nil {
		t.Fatalf("promote: %v", err)
	}
	if b.SuiteName != r.SuiteName || b.Provider.ModelID != r.Provider.ModelID || b.Note != "known good" || b.SnapshotID == "" {
		t.Errorf("got baseline %q %q %q %q, want suite, model, note and an id", b.SnapshotID, b.SuiteName, b.Provider.ModelID, b.Note)
	}
	if b.SchemaVersion != promptcanary.SchemaVersion {
		t.Errorf("schema version: got %q, want %q", b.SchemaVersion, promptcanary.SchemaVersion)
	}
	if b.CreatedAt.Before(before.Add(-time.Second)) {
		t.Errorf("created at: got %v, want about now", b.CreatedAt)
	}
	assertSame(t, "baseline run", &b.RunResult, r)
	latest, err := s.LatestBaseline(ctx, "checkout bot", "openai/gpt-4o")
	if err != nil {
		t.Fatalf("latest baseline: %v", err)
	}
	assertSame(t, "latest baseline", latest, b)
	infos, err := s.Baselines(ctx, "checkout bot")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].SnapshotID != b.SnapshotID || infos[0].RunID != r.RunID || infos[0].Note != "known good" || !infos[0].CreatedAt.Equal(b.CreatedAt) {
		t.Errorf("got baselines %+v, want the promoted one", infos)
	}
	if sums := mustRuns(t, s, store.RunFilter{}); len(sums) != 1 || !sums[0].IsBaseline {
		t.Errorf("got summaries %+v, want one baseline run", sums)
	}
	if _, err := s.Promote(ctx, "missing-run", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("promote missing run: got %v, want ErrNotFound", err)
	}
}

func testLatestBaselinePerModel(t *testing.T, s store.Store) {
	ctx := context.Background()
	save := func(id string, r *promptcanary.Run, created time.Time) {
		t.Helper()
		if _, err := s.SaveBaseline(ctx, NewBaseline(id, r, created, "")); err != nil {
			t.Fatalf("save baseline %s: %v", id, err)
		}
	}
	// Saved out of order: the newest created_at wins, not the last saved.
	save("snap-a1-new", NewRun("run-a1-new", "suite/x", "openai/gpt-4o", t0), t0.Add(2*time.Hour))
	save("snap-a1-old", NewRun("run-a1-old", "suite/x", "openai/gpt-4o", t0), t0.Add(time.Hour))
	save("snap-a2", NewRun("run-a2", "suite/x", "openai/gpt-4o-mini", t0), t0.Add(3*time.Hour))
	save("snap-b1", NewRun("run-b1", "suite/x-long", "openai/gpt-4o", t0), t0.Add(4*time.Hour))
	tests := []struct {
		suite, model string
		want         string
	}{
		{"suite/x", "openai/gpt-4o", "snap-a1-new"},
		{"suite/x", "openai/gpt-4o-mini", "snap-a2"},
		{"suite/x-long", "openai/gpt-4o", "snap-b1"},
		{"suite/x", "", "snap-a2"},
		{"suite/x", "openai/gpt", ""},
		{"suite/x", "anthropic/claude", ""},
		{"suite", "openai/gpt-4o", ""},
	}
	for _, tc := range tests {
		t.Run(tc.suite+" "+tc.model, func(t *testing.T) {
			got, err := s.LatestBaseline(ctx, tc.suite, tc.model)
			if tc.want == "" {
				if !errors.Is(err, store.ErrNotFound) {
					t.Fatalf("got %v, want ErrNotFound", err)
				}
				if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("%q", tc.suite)) || !strings.Contains(msg, fmt.Sprintf("%q", tc.model)) {
					t.Errorf("got error %q, want it to name suite %q and model %q", msg, tc.suite, tc.model)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want %s", err, tc.want)
			}
			if got.SnapshotID != tc.want {
				t.Errorf("got %s, want %s", got.SnapshotID, tc.want)
			}
		})
	}
	infos, err := s.Baselines(ctx, "suite/x")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range infos {
		ids = append(ids, in.SnapshotID)
	}
	if want := []string{"snap-a2", "snap-a1-new", "snap-a1-old"}; !slices.Equal(ids, want) {
		t.Errorf("baselines of suite/x: got %v, want %v", ids, want)
	}
	all, err := s.Baselines(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 || all[0].SnapshotID != "snap-b1" || all[0].Suite != "suite/x-long" || all[0].Model != "openai/gpt-4o" || all[0].RunID != "run-b1" {
		t.Errorf("all baselines: got %+v, want 4, snap-b1 first", all)
	}
}

func testSaveBaseline(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := NewRun("baseline-run", "s", "m", t0)
	b := NewBaseline("snap-save", r, t0.Add(time.Hour), "imported")
	info, err := s.SaveBaseline(ctx, b)
	if err != nil {
		t.Fatalf("save baseline: %v", err)
	}
	if info.SnapshotID != "snap-save" || info.RunID != "baseline-run" || info.Suite != "s" || info.Model != "m" || info.Note != "imported" || !info.CreatedAt.Equal(b.CreatedAt) {
		t.Errorf("got info %+v, want the baseline's fields", info)
	}
	got, err := s.Run(ctx, "baseline-run")
	if err != nil {
		t.Fatalf("the baseline's run was not stored: %v", err)
	}
	assertSame(t, "run", got, r)
	// Saving the same snapshot again replaces it, even with another time.
	b.CreatedAt = t0.Add(2 * time.Hour)
	b.Note = "second"
	if _, err := s.SaveBaseline(ctx, b); err != nil {
		t.Fatal(err)
	}
	infos, err := s.Baselines(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Note != "second" || !infos[0].CreatedAt.Equal(b.CreatedAt) {
		t.Errorf("got %+v, want one baseline noted second", infos)
	}
	latest, err := s.LatestBaseline(ctx, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "baseline", latest, b)
	if runs := mustRuns(t, s, store.RunFilter{}); len(runs) != 1 {
		t.Errorf("got %d runs, want 1", len(runs))
	}
}

func testSaveBaselineKeepsStoredRun(t *testing.T, s store.Store) {
	ctx := context.Background()
	stored := NewRun("shared-run", "s", "m", t0)
	mustSaveRun(t, s, stored)
	other := NewRun("shared-run", "s", "m", t0)
	other.LLMResponses[0].Content = "the baseline's own copy"
	b := NewBaseline("snap-keep", other, t0.Add(time.Hour), "")
	if _, err := s.SaveBaseline(ctx, b); err != nil {
		t.Fatal(err)
	}
	got, err := s.Run(ctx, "shared-run")
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "stored run", got, stored)
	latest, err := s.LatestBaseline(ctx, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "baseline", latest, b)
}

// testPooledBaseline saves a baseline pooled from two stored runs, as
// 'baseline build' does: its record of runs reads back whole, and the
// stored runs stay as they were.
func testPooledBaseline(t *testing.T, s store.Store) {
	ctx := context.Background()
	first, last := NewRun("pool-1", "s", "m", t0), NewRun("pool-2", "s", "m", t0.Add(time.Hour))
	mustSaveRun(t, s, first)
	mustSaveRun(t, s, last)
	pooled := NewRun("pool-2", "s", "m", t0)
	pooled.FinishedAt = last.FinishedAt
	b := NewBaseline("snap-pooled", pooled, t0.Add(2*time.Hour), "")
	b.Runs = []promptcanary.BaselineRun{
		{RunID: "pool-1", StartedAt: first.StartedAt, FinishedAt: first.FinishedAt, FirstSample: 0, Samples: 1},
		{RunID: "pool-2", StartedAt: last.StartedAt, FinishedAt: last.FinishedAt, FirstSample: 1, Samples: 1},
	}
	if _, err := s.SaveBaseline(ctx, b); err != nil {
		t.Fatal(err)
	}
	latest, err := s.LatestBaseline(ctx, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "pooled baseline", latest, b)
	byID, err := s.Baseline(ctx, "snap-pooled")
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "pooled baseline by id", byID, b)
	if len(byID.Runs) != 2 {
		t.Errorf("baseline by id: got runs %+v, want %+v", byID.Runs, b.Runs)
	}
	got, err := s.Run(ctx, "pool-2")
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "stored last run", got, last)
}

// testBuildMark checks that a run keeps its build mark, in the plain and
// the compact layout: 'baseline build --resume' finds a build's runs by it.
func testBuildMark(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, samples := range []int{1, 3} {
		r := NewRun(fmt.Sprintf("built-%d", samples), "s", "m", t0)
		if samples > 1 {
			r = LargeRun(r.RunID, 2, 2, samples, 1)
		}
		r.Build = &promptcanary.BuildMark{ID: "b1f0c9a2-0000-4000-8000-000000000001", Run: 2, Runs: 6, Samples: 30, Every: "1h0m0s"}
		mustSaveRun(t, s, r)
		got, err := s.Run(ctx, r.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Build == nil || *got.Build != *r.Build {
			t.Errorf("run of %d sample(s): got build mark %+v, want %+v", samples, got.Build, r.Build)
		}
	}
}

func testBaselineLookup(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i, id := range []string{"5a5a0001-aaaa", "5a5a0002-bbbb"} {
		if _, err := s.SaveBaseline(ctx, NewBaseline(id, NewRun(fmt.Sprintf("run-%d", i), "s", "m", t0), t0.Add(time.Duration(i)*time.Hour), "")); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		id, want string
		wantErr  error
	}{
		{id: "5a5a0001-aaaa", want: "5a5a0001-aaaa"},
		{id: "5a5a0002", want: "5a5a0002-bbbb"},
		{id: "5a5a", wantErr: store.ErrAmbiguous},
		{id: "5a5", wantErr: store.ErrNotFound},
		{id: "nope", wantErr: store.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			got, err := s.Baseline(ctx, tc.id)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("got %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || got.SnapshotID != tc.want {
				t.Errorf("got %v, %v, want %s", got, err, tc.want)
			}
		})
	}
}

func testDrifts(t *testing.T, s store.Store) {
	ctx := context.Background()
	reports := saveDriftFixture(t, s)
	got, err := s.Drift(ctx, "rep-1-old")
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "drift report", got, reports[1])

	verdicts := map[string]string{}
	for _, sum := range mustRuns(t, s, store.RunFilter{}) {
		verdicts[sum.RunID] = sum.Verdict
	}
	if want := map[string]string{"drift-run-1": "low", "drift-run-2": "none", "drift-run-3": ""}; !cmp.Equal(verdicts, want) {
		t.Errorf("verdicts: got %v, want %v", verdicts, want)
	}
	testDriftListings(t, s)
	sums, err := s.Drifts(ctx, "s", "m1", 1)
	if err != nil || len(sums) != 1 {
		t.Fatalf("got %v, %v, want one report", sums, err)
	}
	want := store.DriftSummary{
		ReportID: "rep-1-new", Suite: "s", Model: "m1", BaselineID: "snap", CurrentRunID: "drift-run-1",
		GeneratedAt: t0.Add(2 * time.Hour), Severity: promptcanary.SeverityLow, HasDrift: true, Regressions: 1,
		Summary: "low drift: 1 regression(s)",
	}
	if diff := cmp.Diff(want, sums[0], cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("drift summary mismatch (-want +got):\n%s", diff)
	}

	// Re-saving a report replaces it.
	reports[0].Severity = promptcanary.SeverityMedium
	if err := s.SaveDrift(ctx, reports[0]); err != nil {
		t.Fatal(err)
	}
	sums, err = s.Drifts(ctx, "s", "m1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[0].Severity != promptcanary.SeverityMedium {
		t.Errorf("after re-save: got %+v, want 2 reports, the newest medium", sums)
	}
}

// saveDriftFixture saves three runs and four drift reports (two of one
// run, one in another suite) and returns the reports.
func saveDriftFixture(t *testing.T, s store.Store) []*promptcanary.DriftReport {
	t.Helper()
	ctx := context.Background()
	r1 := NewRun("drift-run-1", "s", "m1", t0)
	r2 := NewRun("drift-run-2", "s", "m2", t0.Add(time.Minute))
	r3 := NewRun("drift-run-3", "s", "m1", t0.Add(2*time.Minute))
	for _, r := range []*promptcanary.Run{r1, r2, r3} {
		mustSaveRun(t, s, r)
	}
	reports := []*promptcanary.DriftReport{
		NewDrift("rep-1-new", r1, "snap", t0.Add(2*time.Hour), promptcanary.SeverityLow, 1),
		NewDrift("rep-1-old", r1, "snap", t0.Add(time.Hour), promptcanary.SeverityCritical, 3),
		NewDrift("rep-2", r2, "snap", t0.Add(3*time.Hour), promptcanary.SeverityNone, 0),
		NewDrift("rep-other-suite", NewRun("elsewhere", "t", "m1", t0), "snap", t0.Add(4*time.Hour), promptcanary.SeverityHigh, 2),
	}
	for _, d := range reports {
		if err := s.SaveDrift(ctx, d); err != nil {
			t.Fatalf("save drift %s: %v", d.ReportID, err)
		}
	}
	return reports
}

// testDriftListings lists the drift fixture's reports by suite, model
// and limit.
func testDriftListings(t *testing.T, s store.Store) {
	ctx := context.Background()
	tests := []struct {
		name         string
		suite, model string
		limit        int
		want         []string
	}{
		{"all", "", "", 0, []string{"rep-other-suite", "rep-2", "rep-1-new", "rep-1-old"}},
		{"suite", "s", "", 0, []string{"rep-2", "rep-1-new", "rep-1-old"}},
		{"suite and model", "s", "m1", 0, []string{"rep-1-new", "rep-1-old"}},
		{"limit", "s", "m1", 1, []string{"rep-1-new"}},
		{"model only", "", "m1", 0, []string{"rep-other-suite", "rep-1-new", "rep-1-old"}},
		{"none", "s", "m3", 0, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sums, err := s.Drifts(ctx, tc.suite, tc.model, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, d := range sums {
				ids = append(ids, d.ReportID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("got %v, want %v", ids, tc.want)
			}
		})
	}
}

func testProbeScores(t *testing.T, s store.Store) {
	ctx := context.Background()
	saveGrid(t, s)
	got, err := s.ProbeScores(ctx, "A", "m1", 2)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		RunID, ProbeID string
		Mean, PassRate float64
		N              int
	}
	var rows []row
	for _, p := range got {
		rows = append(rows, row{p.RunID, p.ProbeID, p.Mean, p.PassRate, p.N})
		if want := t0.Add(time.Duration(p.RunID[1]-'0') * time.Minute); !p.StartedAt.Equal(want) {
			t.Errorf("%s: started at %v, want %v", p.RunID, p.StartedAt, want)
		}
	}
	want := []row{
		{"r5", "p_format", 0.75, 0.5, 8}, {"r5", "p_safety", 0.25, 0, 4},
		{"r3", "p_format", 0.75, 0.5, 8}, {"r3", "p_safety", 0.25, 0, 4},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("probe scores mismatch (-want +got):\n%s", diff)
	}
	tests := []struct {
		name         string
		suite, model string
		limit        int
		wantRuns     []string
	}{
		{"all", "", "", 0, []string{"r5", "r4", "r3", "r2", "r1", "r0"}},
		{"suite", "B", "", 0, []string{"r4", "r2"}},
		{"model", "", "m2", 1, []string{"r4"}},
		{"no match", "C", "", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ProbeScores(ctx, tc.suite, tc.model, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var runs []string
			for _, p := range got {
				if len(runs) == 0 || runs[len(runs)-1] != p.RunID {
					runs = append(runs, p.RunID)
				}
			}
			if !slices.Equal(runs, tc.wantRuns) {
				t.Errorf("got runs %v, want %v", runs, tc.wantRuns)
			}
		})
	}
}

func testHostileContent(t *testing.T, s store.Store) {
	ctx := context.Background()
	hostile := []string{
		`<script>alert("x")</script>`,
		`"quoted" 'single' \backslash\ ` + "`back`",
		`'; DROP TABLE runs; --`,
		"unicode: héllo wörld 日本語 🦜 \u202eRTL\u202c e\u0301 \u2028line\u2029sep \t\r\n",
		"%s %d {{.}} ${HOME} $(rm -rf /)",
		strings.Repeat("1 MB of content, ", 1<<20/17+1),
	}
	suite := `suite "x" / <b> : 'y'`
	model := `vendor/model:tag <script>`
	r := NewRun("hostile-run", suite, model, t0)
	for i := range r.LLMResponses {
		r.LLMResponses[i].Content = hostile[i%len(hostile)]
	}
	r.LLMResponses[0].Content = hostile[len(hostile)-1]
	for i := range r.ProbeResults {
		r.ProbeResults[i].Details = hostile[i%(len(hostile)-1)]
		r.ProbeResults[i].Metadata = map[string]any{hostile[0]: hostile[i%(len(hostile)-1)]}
	}
	mustSaveRun(t, s, r)
	got, err := s.Run(ctx, r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "run", got, r)
	if got.LLMResponses[0].Content != r.LLMResponses[0].Content {
		t.Errorf("1 MB content: got %d bytes, want %d", len(got.LLMResponses[0].Content), len(r.LLMResponses[0].Content))
	}
	if sums := mustRuns(t, s, store.RunFilter{Suite: suite, Model: model}); len(sums) != 1 {
		t.Errorf("filter by hostile suite and model: got %d runs, want 1", len(sums))
	}
	b, err := s.Promote(ctx, r.RunID, hostile[2])
	if err != nil {
		t.Fatal(err)
	}
	latest, err := s.LatestBaseline(ctx, suite, model)
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, "baseline", latest, b)
	if latest.Note != hostile[2] {
		t.Errorf("note: got %q, want %q", latest.Note, hostile[2])
	}
}

func testNonFinite(t *testing.T, s store.Store) {
	ctx := context.Background()
	r := NewRun("nan-run", "s", "m", t0)
	r.ProbeResults[0].Score = math.NaN()
	r.ProbeResults[1].Score = math.Inf(1)
	r.ProbeResults[2].Metadata = map[string]any{"ratio": math.NaN(), "list": []any{1.0, math.Inf(-1)}}
	r.LLMResponses[0].LatencyMS = math.NaN()
	mustSaveRun(t, s, r)
	got, err := s.Run(ctx, "nan-run")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !math.IsNaN(got.ProbeResults[0].Score) || !math.IsNaN(got.ProbeResults[1].Score) {
		t.Errorf("scores: got %v, %v, want NaN, NaN", got.ProbeResults[0].Score, got.ProbeResults[1].Score)
	}
	if got.ProbeResults[3].Score != r.ProbeResults[3].Score {
		t.Errorf("finite score: got %v, want %v", got.ProbeResults[3].Score, r.ProbeResults[3].Score)
	}
	wantMeta := map[string]any{"ratio": nil, "list": []any{1.0, nil}}
	if diff := cmp.Diff(wantMeta, got.ProbeResults[2].Metadata); diff != "" {
		t.Errorf("metadata mismatch (-want +got):\n%s", diff)
	}
	sums := mustRuns(t, s, store.RunFilter{})
	if len(sums) != 1 || !math.IsNaN(sums[0].Score) || sums[0].PassRate != r.PassRate() {
		t.Errorf("summary: got %+v, want score NaN, pass rate %v", sums, r.PassRate())
	}
	ps, err := s.ProbeScores(ctx, "s", "m", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || !math.IsNaN(ps[0].Mean) || ps[1].Mean != 0.25 {
		t.Errorf("probe scores: got %+v, want p_format NaN, p_safety 0.25", ps)
	}
	if _, err := s.Promote(ctx, "nan-run", ""); err != nil {
		t.Errorf("promote: %v", err)
	}
	d := NewDrift("nan-report", r, "snap", t0, promptcanary.SeverityLow, 1)
	d.OverallCurrentScore = math.NaN()
	if err := s.SaveDrift(ctx, d); err != nil {
		t.Errorf("save drift: %v", err)
	}
}

func testInvalidIDs(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"", "../evil", "a/b", `a\b`, ".hidden", "nul\x00byte", strings.Repeat("x", store.MaxIDLen+1)} {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			if err := s.SaveRun(ctx, NewRun(id, "s", "m", t0)); err == nil {
				t.Errorf("save run: got nil error, want invalid id")
			}
			if _, err := s.Run(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("run: got %v, want ErrNotFound", err)
			}
			if _, err := s.SaveBaseline(ctx, NewBaseline(id, NewRun("ok-run", "s", "m", t0), t0, "")); err == nil {
				t.Errorf("save baseline: got nil error, want invalid id")
			}
			if err := s.SaveDrift(ctx, NewDrift(id, NewRun("ok-run", "s", "m", t0), "snap", t0, promptcanary.SeverityNone, 0)); err == nil {
				t.Errorf("save drift: got nil error, want invalid id")
			}
		})
	}
	if got := mustRuns(t, s, store.RunFilter{}); len(got) != 0 {
		t.Errorf("got %d runs stored, want 0", len(got))
	}
	if got, _ := s.Baselines(ctx, ""); len(got) != 0 {
		t.Errorf("got %d baselines stored, want 0", len(got))
	}
}

func testCancelledContext(t *testing.T, s store.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.SaveRun(ctx, NewRun("cancelled", "s", "m", t0)); !errors.Is(err, context.Canceled) {
		t.Errorf("save run: got %v, want context.Canceled", err)
	}
	if _, err := s.SaveBaseline(ctx, NewBaseline("snap-cancelled", NewRun("cancelled", "s", "m", t0), t0, "")); !errors.Is(err, context.Canceled) {
		t.Errorf("save baseline: got %v, want context.Canceled", err)
	}
	if got := mustRuns(t, s, store.RunFilter{}); len(got) != 0 {
		t.Errorf("got %d runs, want 0", len(got))
	}
	if got, _ := s.Baselines(context.Background(), ""); len(got) != 0 {
		t.Errorf("got %d baselines, want 0", len(got))
	}
}

func testConcurrentSaves(t *testing.T, s store.Store) {
	const writers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				r := NewRun(fmt.Sprintf("w%d-%d", w, i), "s", "m", t0.Add(time.Duration(w*each+i)*time.Second))
				if err := s.SaveRun(context.Background(), r); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent save: %v", err)
	}
	if got := mustRuns(t, s, store.RunFilter{}); len(got) != writers*each {
		t.Errorf("got %d runs, want %d", len(got), writers*each)
	}
}

// testPendingBaseline checks the Journal: a run saved with a pending
// baseline is listed as such until its baseline is saved, and the mark
// rebuilds the very baseline that was asked for.
func testPendingBaseline(t *testing.T, s store.Store) {
	j, ok := s.(store.Journal)
	if !ok {
		t.Skip("the store keeps no journal")
	}
	ctx := context.Background()
	r := NewRun("pending-run", "s", "m", t0)
	want := store.NewBaseline(r, "asked for", t0.Add(time.Hour))
	p := store.Pending(want, "baselines")
	if err := j.SaveRunPending(ctx, r, p); err != nil {
		t.Fatalf("save run pending: %v", err)
	}
	mustSaveRun(t, s, NewRun("other-run", "s", "m", t0.Add(time.Minute)))
	sums := mustRuns(t, s, store.RunFilter{})
	if len(sums) != 2 || sums[1].RunID != "pending-run" || !sums[1].BaselinePending || sums[0].BaselinePending {
		t.Fatalf("got summaries %+v, want pending-run marked, other-run not", sums)
	}
	got, err := j.PendingBaselines(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].RunID != p.RunID || got[0].SnapshotID != p.SnapshotID || !got[0].CreatedAt.Equal(p.CreatedAt) ||
		got[0].Note != "asked for" || got[0].Dir != "baselines" {
		t.Fatalf("got pending %+v, want %+v", got, p)
	}
	// The next run rebuilds the baseline from the stored run.
	stored, err := s.Run(ctx, "pending-run")
	if err != nil {
		t.Fatal(err)
	}
	b := got[0].Baseline(stored)
	assertSame(t, "rebuilt baseline", b, want)
	// Saving another baseline of the run leaves the mark; saving this one
	// clears it.
	if _, err := s.SaveBaseline(ctx, NewBaseline("another-snapshot", stored, t0.Add(2*time.Hour), "")); err != nil {
		t.Fatal(err)
	}
	if got, _ := j.PendingBaselines(ctx); len(got) != 1 {
		t.Errorf("after another baseline: got %d pending, want 1", len(got))
	}
	if _, err := s.SaveBaseline(ctx, b); err != nil {
		t.Fatal(err)
	}
	if got, err := j.PendingBaselines(ctx); err != nil || len(got) != 0 {
		t.Errorf("after its baseline: got %+v, %v, want none pending", got, err)
	}
	if sums := mustRuns(t, s, store.RunFilter{}); sums[1].BaselinePending || !sums[1].IsBaseline {
		t.Errorf("after its baseline: got %+v, want a baseline run, not pending", sums[1])
	}
	// A mark given up is cleared.
	r2 := NewRun("given-up", "s", "m", t0.Add(2*time.Minute))
	if err := j.SaveRunPending(ctx, r2, store.Pending(store.NewBaseline(r2, "", t0), "")); err != nil {
		t.Fatal(err)
	}
	if err := j.ClearPending(ctx, "given-up"); err != nil {
		t.Fatal(err)
	}
	if got, err := j.PendingBaselines(ctx); err != nil || len(got) != 0 {
		t.Errorf("after clearing: got %+v, %v, want none pending", got, err)
	}
	if _, err := s.Run(ctx, "given-up"); err != nil {
		t.Errorf("clearing a mark removed its run: %v", err)
	}
	// A mark of another run is refused, and nothing is saved.
	err = j.SaveRunPending(ctx, NewRun("mismatch", "s", "m", t0), p)
	if err == nil || !strings.Contains(err.Error(), `the pending baseline is of run "pending-run"`) {
		t.Errorf("mismatched mark: got %v", err)
	}
	if _, err := s.Run(ctx, "mismatch"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("mismatched mark: got %v, want the run not saved", err)
	}
}

// testStatisticalRun saves a run of 200 prompts × 10 probes × 30 samples
// and its baseline, and loads both back unchanged (raw responses aside).
func testStatisticalRun(t *testing.T, s store.Store) {
	if testing.Short() {
		t.Skip("large run")
	}
	ctx := context.Background()
	r := LargeRun("statistical-run", 200, 10, 30, 7)
	mustSaveRun(t, s, r)
	got, err := s.Run(ctx, r.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, got, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("run (-want +got):\n%.3000s", diff)
	}
	b, err := s.Promote(ctx, r.RunID, "")
	if err != nil {
		t.Fatal(err)
	}
	latest, err := s.LatestBaseline(ctx, r.SuiteName, r.Provider.ModelID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b, latest, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("baseline (-want +got):\n%.3000s", diff)
	}
}
