package check

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

func TestSplitSamples(t *testing.T) {
	for _, tc := range []struct {
		samples, runs int
		want          []int
	}{
		{30, 6, []int{5, 5, 5, 5, 5, 5}},
		{30, 4, []int{8, 8, 7, 7}},
		{7, 7, []int{1, 1, 1, 1, 1, 1, 1}},
		{6, 1, []int{6}},
	} {
		got, err := SplitSamples(tc.samples, tc.runs)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitSamples(%d, %d) = %v, %v; want %v", tc.samples, tc.runs, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		samples, runs int
		field         string
	}{
		{3, 0, "runs"},
		{3, -1, "runs"},
		{2, 3, "samples"},
		{promptcanary.MaxSamples + 1, 3, "samples"},
	} {
		_, err := SplitSamples(tc.samples, tc.runs)
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("SplitSamples(%d, %d): got %v, want an error naming %s", tc.samples, tc.runs, err, tc.field)
		}
	}
}

// poolRun is a run of samples samples of two prompts, one probe result
// and one answer per prompt and sample, the last sample of prompt b failed.
func poolRun(id string, samples int, start time.Time) *promptcanary.Run {
	r := &promptcanary.Run{RunID: id, SuiteName: "s", Provider: promptcanary.ProviderConfig{ModelID: "sim/stable"},
		StartedAt: start, FinishedAt: start.Add(time.Minute), Samples: samples, ConfigHash: "h-" + id}
	for s := range samples {
		for _, p := range []string{"a", "b"} {
			if p == "b" && s == samples-1 {
				r.Errors = append(r.Errors, promptcanary.CallError{PromptID: p, Sample: s, Message: "boom"})
				continue
			}
			r.ProbeResults = append(r.ProbeResults, promptcanary.ProbeResult{ProbeID: "x", PromptID: p, Sample: s, Passed: true, Score: 1})
			r.LLMResponses = append(r.LLMResponses, promptcanary.Response{PromptID: p, Sample: s, Content: fmt.Sprintf("%s %s %d", id, p, s)})
		}
	}
	return r
}

func TestPoolBaseline(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cost := 0.5
	runs := []*promptcanary.Run{poolRun("r1", 3, t0), poolRun("r2", 2, t0.Add(time.Hour)), poolRun("r3", 2, t0.Add(2*time.Hour))}
	for _, r := range runs {
		r.CostUSD = &cost
	}
	before := *runs[1]
	now := t0.Add(3 * time.Hour)
	b, err := PoolBaseline(runs, now)
	if err != nil {
		t.Fatal(err)
	}
	wantRuns := []promptcanary.BaselineRun{
		{RunID: "r1", StartedAt: t0, FinishedAt: t0.Add(time.Minute), FirstSample: 0, Samples: 3},
		{RunID: "r2", StartedAt: t0.Add(time.Hour), FinishedAt: t0.Add(time.Hour + time.Minute), FirstSample: 3, Samples: 2},
		{RunID: "r3", StartedAt: t0.Add(2 * time.Hour), FinishedAt: t0.Add(2*time.Hour + time.Minute), FirstSample: 5, Samples: 2},
	}
	if !reflect.DeepEqual(b.Runs, wantRuns) {
		t.Errorf("runs record: got %+v, want %+v", b.Runs, wantRuns)
	}
	r := &b.RunResult
	if r.RunID != "r3" || r.ConfigHash != "h-r3" || r.Samples != 7 || !r.StartedAt.Equal(t0) || !r.FinishedAt.Equal(runs[2].FinishedAt) || !b.CreatedAt.Equal(now) {
		t.Errorf("pooled run: got id %s hash %s samples %d %v–%v created %v", r.RunID, r.ConfigHash, r.Samples, r.StartedAt, r.FinishedAt, b.CreatedAt)
	}
	if r.CostUSD == nil || *r.CostUSD != 1.5 {
		t.Errorf("pooled cost: got %v, want 1.5", r.CostUSD)
	}
	// Every (probe, prompt, sample) once, samples 0..6, each answer with
	// its own run's content at its shifted index.
	seen := map[string]bool{}
	for _, pr := range r.ProbeResults {
		k := fmt.Sprintf("%s/%s/%d", pr.ProbeID, pr.PromptID, pr.Sample)
		if seen[k] {
			t.Errorf("probe result %s twice", k)
		}
		seen[k] = true
	}
	if len(seen) != 11 || len(r.LLMResponses) != 11 || len(r.Errors) != 3 {
		t.Errorf("got %d distinct results, %d answers, %d errors; want 11, 11, 3", len(seen), len(r.LLMResponses), len(r.Errors))
	}
	if got := r.LLMResponses[7]; got.Sample != 4 || got.Content != "r2 a 1" {
		t.Errorf("answer 7: got sample %d %q, want sample 4 \"r2 a 1\"", got.Sample, got.Content)
	}
	if got := r.Errors[2]; got.Sample != 6 || got.PromptID != "b" {
		t.Errorf("last error: got %+v, want prompt b sample 6", got)
	}
	if r.SamplesPerPrompt() != 7 {
		t.Errorf("samples per prompt: got %d, want 7", r.SamplesPerPrompt())
	}
	if !reflect.DeepEqual(&before, runs[1]) {
		t.Errorf("pooling changed run r2: got %+v, was %+v", runs[1], &before)
	}
}

func TestPoolBaselineRefusesMixedRuns(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	other := poolRun("r2", 1, t0)
	other.Provider.ModelID = "sim/drifted"
	if _, err := PoolBaseline([]*promptcanary.Run{poolRun("r1", 1, t0), other}, t0); err == nil || !strings.Contains(err.Error(), "sim/drifted") {
		t.Errorf("got %v, want an error naming the other model", err)
	}
	if _, err := PoolBaseline(nil, t0); err == nil {
		t.Error("pooling no runs: got no error")
	}
}

// TestPoolBaselineCompares runs a suite three times, pools the runs and
// compares a later run against the pooled baseline: the pooled baseline is
// an ordinary one.
func TestPoolBaselineCompares(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	targets, _ := mustResolve(t, st, Settings{})
	var runs []*promptcanary.Run
	for _, n := range []int{2, 2, 2} {
		out, err := Run(context.Background(), RunRequest{Suite: st, Targets: targets, Samples: n})
		if err != nil || len(out.Problems) > 0 {
			t.Fatalf("run: %v %v", err, out.Problems)
		}
		runs = append(runs, out.Runs[0])
	}
	b, err := PoolBaseline(runs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if b.RunResult.SamplesPerPrompt() != 6 {
		t.Fatalf("pooled samples per prompt: got %d, want 6", b.RunResult.SamplesPerPrompt())
	}
	out, err := Compare(context.Background(), CompareRequest{Suite: st, Targets: targets, Samples: 6, Baseline: b})
	if err != nil {
		t.Fatal(err)
	}
	if d := out.Pairs[0].Report; d.Severity != promptcanary.SeverityNone || d.Compared() == 0 {
		t.Errorf("compare against the pooled baseline: severity %s, %d pairs compared; want none, some", d.Severity, d.Compared())
	}
}

// TestSameRunRefusesPooledRuns checks that a saved run pooled into a
// baseline is refused as that baseline's own run, as its last run is, and
// that a baseline of one run keeps no runs record.
func TestSameRunRefusesPooledRuns(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	runs := []*promptcanary.Run{poolRun("r1", 2, t0), poolRun("r2", 2, t0.Add(time.Hour))}
	b, err := PoolBaseline(runs, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if err := sameRun(r, b); err == nil {
			t.Errorf("run %s, pooled into the baseline: compared without complaint", r.RunID)
		}
	}
	if err := sameRun(poolRun("r3", 2, t0), b); err != nil {
		t.Errorf("a later run: %v", err)
	}
	if one, _ := PoolBaseline(runs[:1], t0); one.Runs != nil {
		t.Errorf("a baseline of one run: got runs %+v, want none", one.Runs)
	}
}
