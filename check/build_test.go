package check

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
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

// cleanRun is poolRun without its failed call, with prompt hashes.
func cleanRun(id string, start time.Time) *promptcanary.Run {
	r := poolRun(id, 2, start)
	r.Errors = nil
	r.PromptHashes = map[string]string{"a": "ha", "b": "hb"}
	return r
}

// poolHistory records, oldest first, runs r0 … r6 of sim/stable an hour
// apart: r0 compared with high drift, r2 interrupted, r3 with a prompt
// changed, r4 with a failed call, r6 of another model; r1 and r5 clean.
func poolHistory(t *testing.T) (store.Store, time.Time) {
	t.Helper()
	ctx := context.Background()
	hist := openStore(t)
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	for i, id := range []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6"} {
		r := cleanRun(id, t0.Add(time.Duration(i)*time.Hour))
		switch id {
		case "r2":
			r.Interrupted = true
		case "r3":
			r.PromptHashes = map[string]string{"a": "ha2", "b": "hb"}
		case "r4":
			r.Errors = []promptcanary.CallError{{PromptID: "b", Sample: 2, Message: "boom"}}
		case "r6":
			r.Provider.ModelID = "sim/noisy"
		}
		if err := hist.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if id == "r0" {
			if err := hist.SaveDrift(ctx, storetest.NewDrift("d0", r, "snap", r.FinishedAt, promptcanary.SeverityHigh, 1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return hist, t0
}

func runIDs(runs []*promptcanary.Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.RunID
	}
	return out
}

func TestCleanRuns(t *testing.T) {
	ctx := context.Background()
	hist, t0 := poolHistory(t)
	p, err := CleanRuns(ctx, PoolRequest{History: hist, Model: "sim/stable", Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := runIDs(p.Runs); !slices.Equal(got, []string{"r1", "r5"}) {
		t.Errorf("pooled runs: got %v, want [r1 r5] (oldest first)", got)
	}
	if p.NotClean != 2 || len(p.PassedOver) != 1 || p.PassedOver[0].RunID != "r3" || !strings.Contains(p.PassedOver[0].Why, "prompt a differs from run r5's") {
		t.Errorf("got %d not clean and passed over %+v; want 2 (r4, r2) and r3 for its prompt a", p.NotClean, p.PassedOver)
	}
	// r0 drifted: a third run is not there.
	p, err = CleanRuns(ctx, PoolRequest{History: hist, Model: "sim/stable", Runs: 3})
	if !errors.Is(err, ErrTooFewRuns) || p == nil || len(p.Runs) != 2 || p.NotClean != 3 {
		t.Errorf("3 runs: got %v, pool %+v; want ErrTooFewRuns with 2 runs and 3 not clean", err, p)
	}
	// --since keeps r5 only.
	p, err = CleanRuns(ctx, PoolRequest{History: hist, Model: "sim/stable", Since: t0.Add(4 * time.Hour), Runs: 2})
	if !errors.Is(err, ErrTooFewRuns) || len(p.Runs) != 1 || p.Runs[0].RunID != "r5" {
		t.Errorf("since r4: got %v, %v; want only r5", err, runIDs(p.Runs))
	}
	if _, err := CleanRuns(ctx, PoolRequest{History: hist, Model: "sim/stable", Runs: 0}); err == nil || !strings.Contains(err.Error(), "runs") {
		t.Errorf("0 runs: got %v, want an error naming runs", err)
	}
}

// TestCleanRunsOfCheck pools the runs a monitor check recorded, judged
// by their check runs: a drift outcome is not clean even when the run is.
func TestCleanRunsOfCheck(t *testing.T) {
	ctx := context.Background()
	hist, t0 := poolHistory(t)
	mon := hist.(store.Monitor)
	for i, tc := range []struct {
		run     string
		outcome promptcanary.CheckOutcome
	}{{"r0", promptcanary.CheckClean}, {"r1", promptcanary.CheckDrift}, {"r4", promptcanary.CheckClean}, {"r5", promptcanary.CheckClean}} {
		cr := storetest.NewCheckRun("cr"+tc.run, "checkout", "sim/stable", t0.Add(time.Duration(i)*time.Hour))
		cr.Suite, cr.Outcome, cr.RunID = "s", tc.outcome, tc.run
		if err := mon.SaveCheckRun(ctx, cr); err != nil {
			t.Fatal(err)
		}
	}
	p, err := CleanRuns(ctx, PoolRequest{History: hist, Check: "checkout", Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	// r0's report drifted but its check run is clean (the monitor's
	// policy flagged nothing); r1's check run drifted; r4 has a failed call.
	if got := runIDs(p.Runs); !slices.Equal(got, []string{"r0", "r5"}) || p.NotClean != 2 {
		t.Errorf("got %v with %d not clean, want [r0 r5] and 2", got, p.NotClean)
	}
	if _, err := CleanRuns(ctx, PoolRequest{History: hist, Check: "nothing", Runs: 1}); !errors.Is(err, ErrTooFewRuns) {
		t.Errorf("unknown check: got %v, want ErrTooFewRuns", err)
	}
}

func TestCompatible(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	ref := cleanRun("ref", t0)
	for _, tc := range []struct {
		name string
		edit func(r *promptcanary.Run)
		want string
	}{
		{"same", func(*promptcanary.Run) {}, ""},
		{"another seed", func(r *promptcanary.Run) { s := int64(7); r.Provider.Seed = &s }, ""},
		{"suite", func(r *promptcanary.Run) { r.SuiteName = "t" }, `suite "t", not "s"`},
		{"model", func(r *promptcanary.Run) { r.Provider.ModelID = "sim/noisy" }, "sim/noisy, not sim/stable"},
		{"prompt missing", func(r *promptcanary.Run) { delete(r.PromptHashes, "b") }, "no prompt b, which run ref has"},
		{"prompt added", func(r *promptcanary.Run) { r.PromptHashes["c"] = "hc" }, "has prompt c, which run ref has not"},
		{"prompt changed", func(r *promptcanary.Run) { r.PromptHashes["b"] = "x" }, "prompt b differs"},
	} {
		r := cleanRun("r", t0)
		tc.edit(r)
		err := Compatible(ref, r)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	// PoolBaseline refuses what Compatible refuses.
	other := cleanRun("r2", t0.Add(time.Hour))
	other.PromptHashes["a"] = "changed"
	if _, err := PoolBaseline([]*promptcanary.Run{cleanRun("r1", t0), other}, t0); err == nil || !strings.Contains(err.Error(), "prompt a differs") {
		t.Errorf("pooling a changed prompt: got %v, want an error naming prompt a", err)
	}
}

// TestBuildRuns finds a build's runs by its id or a prefix: the newest
// measured run of each place, nil where a place has none, and refuses a
// prefix of two builds.
func TestBuildRuns(t *testing.T) {
	ctx := context.Background()
	hist := openStore(t)
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	for i, tc := range []struct {
		id, build string
		place     int
		failed    bool
	}{
		{"old", "aaaa1111", 1, false}, // an older build
		{"p1", "bbbb2222", 1, false},
		{"p2-failed", "bbbb2222", 2, true},
		{"other", "", 0, false}, // a run of no build between
		{"p2", "bbbb2222", 2, false},
		{"p4", "bbbb2222", 4, false},
	} {
		r := cleanRun(tc.id, t0.Add(time.Duration(i)*time.Hour))
		if tc.failed {
			r.Errors = []promptcanary.CallError{{PromptID: "a", Sample: 0, Message: "boom"}}
		}
		if tc.build != "" {
			r.Build = &promptcanary.BuildMark{ID: tc.build + "-0000", Run: tc.place, Runs: 4, Samples: 8, Every: "1h0m0s"}
		}
		if err := hist.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	mark, runs, err := BuildRuns(ctx, hist, "s", "sim/stable", "bbbb", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		id := "-"
		if r != nil {
			id = r.RunID
		}
		got = append(got, id)
	}
	if mark.ID != "bbbb2222-0000" || !slices.Equal(got, []string{"p1", "p2", "-", "p4"}) {
		t.Errorf("got build %s with runs %v, want bbbb2222-0000 with [p1 p2 - p4]", mark.ID, got)
	}
	// With one failed call allowed, the newest attempt at place 2 is kept.
	if _, runs, _ := BuildRuns(ctx, hist, "s", "sim/stable", "bbbb2222-0000", 1); runs[1].RunID != "p2" {
		t.Errorf("place 2: got %s, want the newest, p2", runs[1].RunID)
	}
	if _, _, err := BuildRuns(ctx, hist, "s", "sim/stable", "cccc", 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown build: got %v, want ErrNotFound", err)
	}
	if _, _, err := BuildRuns(ctx, hist, "s", "sim/noisy", "bbbb", 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another model: got %v, want ErrNotFound", err)
	}
	// "a" is too short a prefix to match anything but an exact id.
	if _, _, err := BuildRuns(ctx, hist, "s", "sim/stable", "a", 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("1-character prefix: got %v, want ErrNotFound", err)
	}
}
