package drift

import (
	"fmt"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"runtime"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestCompareFoldedResults: a comparison of runs whose probe results were
// folded by NewResults and then released reads the same report as one of
// the whole runs, in both methods, with added, removed, stale and
// unmeasured pairs, and a run that measured nothing.
func TestCompareFoldedResults(t *testing.T) {
	var base, cur []res
	for _, prompt := range []string{"ok", "down", "half", "stale", "gone"} {
		base = append(base, binarySamples("p", prompt, 25, 30)...)
		base = append(base, scoreSamples("q", prompt, 0.9, 0.8, 0.95, 0.7, 0.85)...)
	}
	for _, prompt := range []string{"ok", "half", "stale", "new"} {
		cur = append(cur, binarySamples("p", prompt, 12, 20)...)
		cur = append(cur, scoreSamples("q", prompt, 0.5, 0.6, 0.4, 0.9, 0.3)...)
	}
	errs := []promptcanary.CallError{{PromptID: "down", Sample: 0, Message: "503"}, {PromptID: "half", Sample: 25, Message: "timeout"}}
	for _, tc := range []struct {
		name      string
		base, cur []res
		method    string
	}{
		{"statistical", base, cur, MethodAuto},
		{"single", base, cur, MethodSingleSample},
		{"nothing measured", base, nil, MethodAuto},
		{"empty baseline", nil, cur, MethodAuto},
	} {
		t.Run(tc.name, func(t *testing.T) {
			compare := func(folded bool) *promptcanary.DriftReport {
				t.Helper()
				b, run := makeBaseline("s", tc.base), makeRun("s", tc.cur)
				run.Errors = errs
				opts := fixedOpts()
				opts.Method, opts.StalePrompts = tc.method, map[string]bool{"stale": true}
				if folded {
					var err error
					if opts.BaselineResults, err = NewResults(b.RunResult.ProbeResults); err != nil {
						t.Fatal(err)
					}
					if opts.CurrentResults, err = NewResults(run.ProbeResults); err != nil {
						t.Fatal(err)
					}
					b.RunResult.ProbeResults, run.ProbeResults = nil, nil
				}
				rep, err := Compare(b, &run, opts)
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			whole, folded := compare(false), compare(true)
			// NaN overall scores (nothing compared) are equal here.
			if diff := cmp.Diff(whole, folded, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("folded results differ from whole ones (-whole +folded):\n%s", diff)
			}
		})
	}
}

// TestNewResultsMemory: folding a statistical run allocates at most 40
// bytes a result, 17 for its values and the rest for its pairs (a
// promptcanary.ProbeResult takes 128), so that a
// compare of two large runs can release each run's probe results as soon
// as they are read. Counted in bytes allocated, not time.
func TestNewResultsMemory(t *testing.T) {
	const prompts, probes, samples = 200, 10, 30
	prs := make([]promptcanary.ProbeResult, 0, prompts*probes*samples)
	for p := range prompts {
		prompt := fmt.Sprintf("prompt-%d", p)
		for s := range samples {
			for q := range probes {
				probe := fmt.Sprintf("probe-%d", q)
				prs = append(prs, promptcanary.ProbeResult{ProbeID: probe, ProbeName: probe, Category: promptcanary.CategoryFormat,
					PromptID: prompt, Sample: s, Score: float64(s%3) / 2, Passed: s%3 > 0, Details: "ok"})
			}
		}
	}
	var r *Results
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := NewResults(prs)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != len(prs) {
		t.Fatalf("got %d results folded, want %d", r.Len(), len(prs))
	}
	if perResult := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(prs)); perResult > 40 {
		t.Errorf("folding allocated %.1f bytes a result, want at most 40", perResult)
	}
}
