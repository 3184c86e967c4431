package drift

import (
	"fmt"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"math"
	"runtime"
	"slices"
	"testing"
	"unsafe"

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

// TestCompareFoldedResponses: a comparison of runs whose responses were
// folded with their probe results (Results.FoldResponses, a chunk at a
// time) and released reads the same report as one of the whole runs: the
// same examples, distinct answers, change signals (lengths, tokens,
// finish reasons, lexical similarity, served models and fingerprints)
// and prompts measured.
func TestCompareFoldedResponses(t *testing.T) {
	answers := func(run *promptcanary.Run, shift int, model, fingerprint string) {
		for _, prompt := range []string{"a", "b", "c", "down"} {
			for s := range 12 {
				if prompt == "down" && s > 2 {
					continue // failed calls
				}
				r := promptcanary.Response{PromptID: prompt, Sample: s, Content: fmt.Sprintf("answer %s %d", prompt, (s+shift)%(3+shift)),
					CompletionTokens: 10 + (s+shift)%4, FinishReason: []string{"stop", "length"}[(s*shift)%2], ServedModel: model, SystemFingerprint: fingerprint}
				if prompt == "c" && s%3 == 0 {
					r.ToolCalls = []promptcanary.ToolCall{{Name: "lookup", Arguments: []byte(`{"q":"` + prompt + `"}`)}}
				}
				run.LLMResponses = append(run.LLMResponses, r)
			}
		}
	}
	var base, cur []res
	for _, prompt := range []string{"a", "b", "c", "down"} {
		base = append(base, binarySamples("p", prompt, 11, 12)...)
		if prompt != "down" {
			cur = append(cur, binarySamples("p", prompt, 6, 12)...)
		}
	}
	// Of "down", samples 3 to 5 failed and 0 to 2 answered, but only 0
	// and 1 were judged: the answers tell that half its calls succeeded.
	cur = append(cur, binarySamples("p", "down", 1, 2)...)
	compare := func(folded bool) *promptcanary.DriftReport {
		t.Helper()
		b, run := makeBaseline("s", base), makeRun("s", cur)
		answers(&b.RunResult, 0, "m-1", "fp-1")
		answers(&run, 1, "m-2", "fp-2")
		for s := 3; s < 6; s++ {
			run.Errors = append(run.Errors, promptcanary.CallError{PromptID: "down", Sample: s, Message: "503"})
		}
		opts := fixedOpts()
		if folded {
			for _, side := range []struct {
				run *promptcanary.Run
				res **Results
			}{{&b.RunResult, &opts.BaselineResults}, {&run, &opts.CurrentResults}} {
				res, err := NewResults(side.run.ProbeResults)
				if err != nil {
					t.Fatal(err)
				}
				for rs := side.run.LLMResponses; len(rs) > 0; rs = rs[min(3, len(rs)):] {
					chunk := slices.Clone(rs[:min(3, len(rs))])
					if err := res.FoldResponses(chunk); err != nil {
						t.Fatal(err)
					}
					clear(chunk) // the decoder reuses its chunk
				}
				if res.Responses() != len(side.run.LLMResponses) {
					t.Fatalf("folded %d responses, want %d", res.Responses(), len(side.run.LLMResponses))
				}
				*side.res = res
				side.run.ProbeResults, side.run.LLMResponses = nil, nil
			}
		}
		rep, err := Compare(b, &run, opts)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	whole, folded := compare(false), compare(true)
	if whole.Statistics == nil || len(whole.Statistics.Signals) == 0 || findComparison(whole, "p", "c").CurrentExample == "" ||
		findComparison(whole, "p", "down").Status == promptcanary.StatusNotMeasured {
		t.Fatal("want a report with signals, examples and a prompt measured by its answers, so that the comparison says something")
	}
	if diff := cmp.Diff(whole, folded, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("folded responses differ from whole ones (-whole +folded):\n%s", diff)
	}
}

// TestAnswersMemory: what a comparison keeps of a statistical run's
// responses takes at most 64 bytes a response (the contents shared with
// the decoded run), where a promptcanary.Response takes over 200, so that
// a compare of two large runs need not hold their responses. Counted in
// bytes held after a collection, not time; the least of three tries.
func TestAnswersMemory(t *testing.T) {
	contents := []string{"Paris.", "Paris is the capital.", "It is Paris."}
	var rs []promptcanary.Response
	for p := range 1000 {
		for s := range 30 {
			rs = append(rs, promptcanary.Response{PromptID: fmt.Sprintf("prompt-%d", p), Sample: s, Content: contents[(p+s)%3],
				FinishReason: "stop", CompletionTokens: 7, ServedModel: "m", SystemFingerprint: "fp"})
		}
	}
	perResponse := math.MaxFloat64
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		a := NewAnswers(rs)
		runtime.GC()
		runtime.ReadMemStats(&after)
		if a.Len() != len(rs) {
			t.Fatalf("folded %d responses, want %d", a.Len(), len(rs))
		}
		perResponse = min(perResponse, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(len(rs)))
		runtime.KeepAlive(a)
	}
	t.Logf("%.1f bytes a response (a promptcanary.Response: %d)", perResponse, unsafe.Sizeof(promptcanary.Response{}))
	if perResponse > 64 {
		t.Errorf("folded responses hold %.1f bytes a response, want at most 64", perResponse)
	}
}
