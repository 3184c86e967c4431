package drift

import (
	"math"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

// econPrice prices a call at $2 and $10 per million prompt and
// completion tokens on both sides.
var econPrice = [2]CostFunc{
	func(in, out int) float64 { return (float64(in)*2 + float64(out)*10) / 1e6 },
	func(in, out int) float64 { return (float64(in)*2 + float64(out)*10) / 1e6 },
}

func TestEconomicsWordier(t *testing.T) {
	base := econRun(map[string][]int{"a": repeatInts([]int{90, 100, 110}, 10, 0), "b": repeatInts([]int{190, 200, 210}, 10, 0)})
	cur := econRun(map[string][]int{"a": repeatInts([]int{130, 140, 150}, 4, 0), "b": repeatInts([]int{270, 280, 290}, 4, 0)})
	// A baseline of three runs of 10 samples: latency is tested too.
	bl := &promptcanary.Baseline{CreatedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		Runs: []promptcanary.BaselineRun{{FirstSample: 0, Samples: 10}, {FirstSample: 10, Samples: 10}, {FirstSample: 20, Samples: 10}}}
	e := Economics(NewAnswers(base), NewAnswers(cur), bl, Options{Costs: econPrice, Seed: 7})
	ct := e.Measure(promptcanary.MeasureCompletionTokens)
	if ct.Baseline != 150 || ct.Current != 210 || math.Abs(ct.Change-0.4) > 1e-12 || !ct.Flagged || ct.Test != promptcanary.EconomicTestRuns {
		t.Errorf("completion tokens = %+v, want 150 → 210 (+40%%), flagged by both tests", *ct)
	}
	cost := e.Measure(promptcanary.MeasureCost)
	// 24 calls: 24 × (50·2 + 150·10)/1e6 = $0.0384 at the baseline's
	// means, 24 × (50·2 + 210·10)/1e6 = $0.0528 now.
	if math.Abs(cost.Baseline-0.0384) > 1e-12 || math.Abs(cost.Current-0.0528) > 1e-12 || !cost.Flagged {
		t.Errorf("cost = %+v, want $0.0384 → $0.0528, flagged", *cost)
	}
	if pt := e.Measure(promptcanary.MeasurePromptTokens); pt.Flagged || pt.Test != "" || pt.Untested == "" {
		t.Errorf("prompt tokens = %+v, want untested (unchanged)", *pt)
	}
	// With a one-run baseline latency is shown, not tested, and the
	// sentence leaves it out.
	one := Economics(NewAnswers(base), NewAnswers(cur), &promptcanary.Baseline{}, Options{Costs: econPrice, Seed: 7})
	if lt := one.Measure(promptcanary.MeasureLatency); lt.Flagged || lt.Untested != latencyOneRun || lt.Current != 2100 {
		t.Errorf("latency against one run = %+v, want 2100 ms, untested", *lt)
	}
	if ct := one.Measure(promptcanary.MeasureCompletionTokens); !ct.Flagged || ct.Test != promptcanary.EconomicTestAnswers {
		t.Errorf("completion tokens against one run = %+v, want flagged by the answer test", *ct)
	}
	if want := "answers are 40% longer (150 → 210 completion tokens per answer): the run costs $0.053 instead of $0.038"; one.Summary != want {
		t.Errorf("summary\n got %q\nwant %q", one.Summary, want)
	}
	want := "answers are 40% longer since the baseline of 2026-12-01 (150 → 210 completion tokens per answer), calls take 40% longer (1500 ms → 2100 ms per call): the run costs $0.053 instead of $0.038"
	if e.Summary != want {
		t.Errorf("summary\n got %q\nwant %q", e.Summary, want)
	}
}

func TestStudentTwoSided(t *testing.T) {
	for _, tc := range []struct {
		t, df, want float64
	}{
		{12.706205, 1, 0.05},
		{2.570582, 5, 0.05},
		{2.015048, 5, 0.10},
		{3.4641016, 2, 1 - 3.4641016/math.Sqrt(2+12)}, // df 2: closed form 1 − t/√(2+t²)
		{0, 7, 1},
		{1.959964, 1e7, 0.05},
		{math.Inf(1), 3, 0},
	} {
		if got := studentTwoSided(tc.t, tc.df); math.Abs(got-tc.want) > 1e-5 {
			t.Errorf("studentTwoSided(%g, %g) = %.7f, want %.7f", tc.t, tc.df, got, tc.want)
		}
	}
}

func TestHolmMeasures(t *testing.T) {
	ms := []promptcanary.EconomicMeasure{
		{Test: "x", P: 0.01}, {Test: "x", P: 0.04}, {NA: "tokens not recorded", P: 1}, {Test: "x", P: 0.03},
	}
	holmMeasures(ms)
	for i, want := range []float64{0.03, 0.06, 0, 0.06} {
		if math.Abs(ms[i].Q-want) > 1e-12 {
			t.Errorf("measure %d: q = %g, want %g", i, ms[i].Q, want)
		}
	}
}

// exactAnswerP is answerTest's p-value by enumerating every labelling of
// each prompt's answers: the reference the permutations estimate.
func exactAnswerP(ps []econPrompt) float64 {
	obs := 0.0
	for i := range ps {
		obs += ps[i].w * (mean(ps[i].c) - mean(ps[i].b))
	}
	var stats []float64
	var walk func(k int, s float64)
	walk = func(k int, s float64) {
		if k == len(ps) {
			stats = append(stats, s)
			return
		}
		pool := append(append([]float64{}, ps[k].c...), ps[k].b...)
		n, nc := len(pool), len(ps[k].c)
		for mask := 0; mask < 1<<n; mask++ {
			if popcount(mask) != nc {
				continue
			}
			var sc, sb float64
			for j, v := range pool {
				if mask&(1<<j) != 0 {
					sc += v
				} else {
					sb += v
				}
			}
			walk(k+1, s+ps[k].w*(sc/float64(nc)-sb/float64(n-nc)))
		}
	}
	walk(0, 0)
	hits := 0
	for _, s := range stats {
		if math.Abs(s) >= math.Abs(obs)-1e-9 {
			hits++
		}
	}
	return float64(hits) / float64(len(stats))
}

func TestAnswerTestAgainstEnumeration(t *testing.T) {
	defer func(v int) { economicStopAt = v }(economicStopAt)
	economicStopAt = EconomicPermutations + 1 // every permutation
	for _, tc := range []struct {
		name string
		ps   []econPrompt
	}{
		{"one prompt, longer", []econPrompt{{b: []float64{10, 11, 12, 10}, c: []float64{13, 14, 12}, w: 1}}},
		{"two prompts, mixed", []econPrompt{
			{b: []float64{100, 120, 90}, c: []float64{130, 150, 110}, w: 0.5},
			{b: []float64{5, 6, 7, 5}, c: []float64{5, 7, 6}, w: 0.5},
		}},
		{"no change", []econPrompt{{b: []float64{1, 2, 3}, c: []float64{1, 2, 3}, w: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := exactAnswerP(tc.ps)
			got, drawn := answerTest(tc.ps, newPCG(1, 2))
			// 1000 draws: a Monte Carlo standard error of at most 0.016.
			if drawn != EconomicPermutations || math.Abs(got-want) > 0.05 {
				t.Errorf("p = %.4f after %d permutations, want %.4f (exact)", got, drawn, want)
			}
		})
	}
}

func TestRunTest(t *testing.T) {
	runs := []promptcanary.BaselineRun{{FirstSample: 0, Samples: 2}, {FirstSample: 2, Samples: 2}, {FirstSample: 4, Samples: 2}}
	// Run levels 10, 12 and 14: mean 12, sd 2; the run at 20 gives
	// t = 8 / (2 · √(4/3)) = 3.4641 on 2 degrees of freedom.
	ps := []econPrompt{{b: []float64{9, 11, 12, 12, 14, 14}, samples: []int32{0, 1, 2, 3, 4, 5}, w: 1}}
	if got, want := runTest(ps, runs, 20), 1-3.4641016/math.Sqrt(14); math.Abs(got-want) > 1e-6 {
		t.Errorf("runTest = %.6f, want %.6f", got, want)
	}
	if got := runTest(ps, runs, 12); math.Abs(got-1) > 1e-9 {
		t.Errorf("runTest at the runs' mean = %g, want 1", got)
	}
}

// econRun builds responses: per prompt, completion tokens per sample
// (prompt tokens 50, latency 10 ms per completion token).
func econRun(tokens map[string][]int) []promptcanary.Response {
	var rs []promptcanary.Response
	for id, ts := range tokens {
		for s, n := range ts {
			rs = append(rs, promptcanary.Response{PromptID: id, Sample: s, Content: "an answer",
				PromptTokens: 50, CompletionTokens: n, LatencyMS: float64(10 * n)})
		}
	}
	return rs
}

func repeatInts(base []int, times, add int) []int {
	var out []int
	for range times {
		for _, v := range base {
			out = append(out, v+add)
		}
	}
	return out
}

func TestEconomicsNoChange(t *testing.T) {
	base := econRun(map[string][]int{"a": repeatInts([]int{90, 100, 110}, 10, 0), "b": repeatInts([]int{190, 200, 210}, 10, 0)})
	// The same per prompt, but the run asked the long prompt far more
	// often: a plain mean per call would be 60% higher.
	cur := econRun(map[string][]int{"a": repeatInts([]int{90, 100, 110}, 1, 0), "b": repeatInts([]int{190, 200, 210}, 8, 0)})
	e := Economics(NewAnswers(base), NewAnswers(cur), &promptcanary.Baseline{}, Options{Costs: econPrice, Seed: 7})
	if e.Flagged() || e.Summary != "" {
		t.Errorf("flagged a run with the baseline's values per prompt: %+v", e.Measures)
	}
	if ct := e.Measure(promptcanary.MeasureCompletionTokens); math.Abs(ct.Change) > 1e-12 || ct.P < 0.5 {
		t.Errorf("completion tokens = %+v, want no change and a large p", *ct)
	}
}

func TestEconomicsNotAvailable(t *testing.T) {
	base := econRun(map[string][]int{"a": {90, 100, 110}})
	cur := econRun(map[string][]int{"a": {190, 200, 210}})
	for i := range base {
		base[i].PromptTokens = 0
	}
	e := Economics(NewAnswers(base), NewAnswers(cur), nil, Options{Costs: [2]CostFunc{nil, econPrice[1]}, Seed: 7})
	if m := e.Measure(promptcanary.MeasurePromptTokens); m.NA != "tokens not recorded" {
		t.Errorf("prompt tokens NA = %q, want tokens not recorded", m.NA)
	}
	if m := e.Measure(promptcanary.MeasureCost); m.NA != "no known price for the model; set prices: in canary.yaml" {
		t.Errorf("cost NA = %q, want no known price", m.NA)
	}
	free := [2]CostFunc{func(int, int) float64 { return 0 }, func(int, int) float64 { return 0 }}
	base = econRun(map[string][]int{"a": {90, 100, 110}})
	e = Economics(NewAnswers(base), NewAnswers(cur), nil, Options{Costs: free, Seed: 7})
	if m := e.Measure(promptcanary.MeasureCost); m.NA != "the model is free (price 0)" {
		t.Errorf("cost NA = %q, want the model is free", m.NA)
	}
	one := econRun(map[string][]int{"a": {100}})
	if e := Economics(NewAnswers(one), NewAnswers(one), nil, Options{Costs: econPrice, Seed: 7}); e != nil {
		t.Errorf("one answer per side: %+v, want nil (nothing to test)", e)
	}
}

func TestEconomicsRunSpread(t *testing.T) {
	// Six baseline runs of ten samples whose levels differ by up to 30%
	// (a provider's hours; sd 20); the run 25% above their mean is
	// within that spread: the answer test alone would flag it, the run
	// test holds.
	var tokens []int
	var runs []promptcanary.BaselineRun
	for r, level := range []int{100, 130, 70, 110, 90, 100} {
		tokens = append(tokens, repeatInts([]int{level - 2, level + 2}, 5, 0)...)
		runs = append(runs, promptcanary.BaselineRun{FirstSample: 10 * r, Samples: 10})
	}
	base := econRun(map[string][]int{"a": tokens})
	cur := econRun(map[string][]int{"a": repeatInts([]int{123, 127}, 5, 0)})
	bl := &promptcanary.Baseline{Runs: runs}
	e := Economics(NewAnswers(base), NewAnswers(cur), bl, Options{Costs: econPrice, Seed: 7})
	ct := e.Measure(promptcanary.MeasureCompletionTokens)
	if ct.Test != promptcanary.EconomicTestRuns || ct.PAnswers > 0.01 || ct.PRuns < 0.2 || ct.Flagged || e.BaselineRuns != 6 {
		t.Errorf("completion tokens = %+v, want both tests, the answer test rejecting, the run test not, not flagged", *ct)
	}
	// Far beyond the spread (t = 300 / (20 · √(7/6)) = 13.9 on 5
	// degrees of freedom), both reject.
	cur = econRun(map[string][]int{"a": repeatInts([]int{398, 402}, 5, 0)})
	ct = Economics(NewAnswers(base), NewAnswers(cur), bl, Options{Costs: econPrice, Seed: 7}).Measure(promptcanary.MeasureCompletionTokens)
	if !ct.Flagged || ct.PRuns > 1e-4 {
		t.Errorf("completion tokens = %+v, want flagged by both tests", *ct)
	}
}

// BenchmarkEconomics measures the economic section of a 200-prompt suite
// with 30 answers per prompt and side whose run is 40% wordier: every
// measure's answer test draws all its permutations (no early stop).
func BenchmarkEconomics(b *testing.B) {
	bt, ct := map[string][]int{}, map[string][]int{}
	for p := range 200 {
		id := string(rune('A'+p%26)) + string(rune('a'+p/26))
		bt[id] = repeatInts([]int{90, 100, 110}, 10, p)
		ct[id] = repeatInts([]int{130, 140, 150}, 10, p)
	}
	base, cur := NewAnswers(econRun(bt)), NewAnswers(econRun(ct))
	for range b.N {
		if !Economics(base, cur, nil, Options{Costs: econPrice, Seed: 1}).Flagged() {
			b.Fatal("a 40% wordier run was not flagged")
		}
	}
}
