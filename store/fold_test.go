package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

// collect is a Folder that keeps copies of what it is given.
type collect struct {
	grown int
	got   []promptcanary.ProbeResult
}

func (c *collect) Grow(n int) { c.grown += n }

func (c *collect) Fold(chunk []promptcanary.ProbeResult) error {
	c.got = append(c.got, chunk...)
	return nil
}

// count is a Folder that keeps nothing but the number of results.
type count struct{ n int }

func (c *count) Grow(int) {}

func (c *count) Fold(chunk []promptcanary.ProbeResult) error {
	c.n += len(chunk)
	return nil
}

// statisticalRun is a run of prompts × probes × samples probe results,
// without responses, as the runner orders them.
func statisticalRun(prompts, probes, samples int) *promptcanary.Run {
	r := &promptcanary.Run{RunID: "run-1", SuiteName: "s", Samples: samples}
	meta := map[string]any{"words": 12.0}
	for p := range prompts {
		for s := range samples {
			for q := range probes {
				probe := fmt.Sprintf("probe-%d", q)
				r.ProbeResults = append(r.ProbeResults, promptcanary.ProbeResult{ProbeID: probe, ProbeType: "length", ProbeName: probe,
					Category: promptcanary.CategoryFormat, PromptID: fmt.Sprintf("prompt-%d", p), Sample: s,
					Passed: (p+s+q)%4 > 0, Score: float64((p+s+q)%4) / 3, Details: fmt.Sprintf("%d words", (p+s+q)%4), Metadata: meta})
			}
		}
	}
	return r
}

// TestDecodeFolding: a run or a baseline decoded with a Folding, in
// either layout, hands its Folder every probe result DecodeDocument would
// have put in the run, in order, and the run holds none; a side-by-side
// report's runs keep theirs.
func TestDecodeFolding(t *testing.T) {
	run := statisticalRun(3, 2, 4)
	eachDocument(t, run, func(t *testing.T, l Layout, data []byte, whole *Document) {
		f := &Folding{New: func() Folder { return &collect{} }}
		doc, err := DecodeDocumentFolding(data, f)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Run.ProbeResults != nil {
			t.Errorf("the folded run holds %d probe results, want none", len(doc.Run.ProbeResults))
		}
		fo, ok := f.Take(doc.Run).(*collect)
		if !ok {
			t.Fatal("no folder for the decoded run")
		}
		if !reflect.DeepEqual(fo.got, whole.Run.ProbeResults) {
			t.Errorf("folded %d results, want the %d decoded whole, equal", len(fo.got), len(whole.Run.ProbeResults))
		}
		if l == LayoutCompact && fo.grown != len(fo.got) {
			t.Errorf("told to grow by %d, got %d results", fo.grown, len(fo.got))
		}
		if f.Take(doc.Run) != nil {
			t.Error("Take gave the folder twice")
		}
	})
	b, err := UnmarshalBaselineContext(context.Background(), mustMarshalBaseline(t, run))
	if err != nil || len(b.RunResult.ProbeResults) != len(run.ProbeResults) {
		t.Errorf("without a Folding in the context: got %v results, %v; want them all", len(b.RunResult.ProbeResults), err)
	}
	f := &Folding{New: func() Folder { return &collect{} }}
	b, err = UnmarshalBaselineContext(WithFolding(context.Background(), f), mustMarshalBaseline(t, run))
	if err != nil || b.RunResult.ProbeResults != nil || len(f.Take(&b.RunResult).(*collect).got) != len(run.ProbeResults) {
		t.Errorf("with a Folding in the context: got %d results in the baseline (%v), want them all folded", len(b.RunResult.ProbeResults), err)
	}
}

// eachDocument runs check in a subtest on run written as a run and as a
// baseline, in each layout: data is what was written, whole what
// DecodeDocument reads of it.
func eachDocument(t *testing.T, run *promptcanary.Run, check func(t *testing.T, l Layout, data []byte, whole *Document)) {
	t.Helper()
	for _, l := range []Layout{LayoutPlain, LayoutCompact} {
		for _, kind := range []string{"run", "baseline"} {
			t.Run(kind+map[Layout]string{LayoutPlain: " plain", LayoutCompact: " compact"}[l], func(t *testing.T) {
				var data []byte
				var err error
				if kind == "run" {
					data, err = MarshalRun(run, l)
				} else {
					data, err = MarshalBaseline(&promptcanary.Baseline{SnapshotID: "snap", SuiteName: "s", RunResult: *run}, l)
				}
				if err != nil {
					t.Fatal(err)
				}
				whole, err := DecodeDocument(data)
				if err != nil {
					t.Fatal(err)
				}
				check(t, l, data, whole)
			})
		}
	}
}

func mustMarshalBaseline(t *testing.T, run *promptcanary.Run) []byte {
	t.Helper()
	data, err := MarshalBaseline(&promptcanary.Baseline{SnapshotID: "snap", SuiteName: "s", RunResult: *run}, LayoutCompact)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDecodeFoldingMemory: decoding a compact statistical run with a
// Folding allocates at most 40 bytes a probe result (its rows of indexes
// and a chunk at a time), where decoding it whole allocates the 128 of
// each promptcanary.ProbeResult on top. Counted in bytes, not time.
func TestDecodeFoldingMemory(t *testing.T) {
	run := statisticalRun(200, 10, 30)
	data, err := MarshalRun(run, LayoutCompact)
	if err != nil {
		t.Fatal(err)
	}
	n := len(run.ProbeResults)
	run = nil
	perResult := func(f *Folding) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		doc, err := DecodeDocumentFolding(data, f)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if f != nil && f.Take(doc.Run).(*count).n != n {
			t.Fatalf("folded fewer than the %d results", n)
		}
		return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
	}
	whole := perResult(nil)
	folded := perResult(&Folding{New: func() Folder { return &count{} }})
	t.Logf("bytes allocated a result: %.1f whole, %.1f folded", whole, folded)
	if folded > 40 {
		t.Errorf("decoding with a Folding allocated %.1f bytes a result, want at most 40 (whole: %.1f)", folded, whole)
	}
}

// collectAll is a ResponseFolder that keeps copies of what it is given.
type collectAll struct {
	collect
	responses []promptcanary.Response
}

func (c *collectAll) FoldResponses(chunk []promptcanary.Response) error {
	c.responses = append(c.responses, chunk...)
	return nil
}

// TestDecodeFoldingResponses: a run or a baseline decoded with a Folding
// whose Folder is a ResponseFolder, in either layout, hands it every
// response DecodeDocument would have put in the run (tool calls, cuts and
// times included), in order, a chunk at a time, and the run holds none; a
// plain Folder leaves the responses in the run.
func TestDecodeFoldingResponses(t *testing.T) {
	run := statisticalRun(3, 2, 4)
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	for i := range 2*foldChunk + 5 {
		r := promptcanary.Response{PromptID: fmt.Sprintf("prompt-%d", i%3), Sample: i / 3, Content: fmt.Sprintf("answer %d", i%7),
			FinishReason: "stop", CompletionTokens: i % 11, PromptTokens: 5, TotalTokens: 5 + i%11, ServedModel: "m", Attempts: 1,
			Timestamp: at.Add(time.Duration(i) * time.Millisecond), LatencyMS: float64(i)}
		if i%5 == 0 {
			r.ToolCalls = []promptcanary.ToolCall{{ID: "call-1", Name: "lookup", Arguments: json.RawMessage(`{"q":1}`)}}
		}
		if i%9 == 0 {
			r.Truncated, r.OriginalBytes = true, 1<<20
		}
		run.LLMResponses = append(run.LLMResponses, r)
	}
	eachDocument(t, run, func(t *testing.T, l Layout, data []byte, whole *Document) {
		if len(whole.Run.LLMResponses) != len(run.LLMResponses) {
			t.Fatalf("decoded %d responses whole, want %d", len(whole.Run.LLMResponses), len(run.LLMResponses))
		}
		f := &Folding{New: func() Folder { return &collectAll{} }}
		doc, err := DecodeDocumentFolding(data, f)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Run.LLMResponses != nil || doc.Run.ProbeResults != nil {
			t.Errorf("the folded run holds %d responses and %d probe results, want none", len(doc.Run.LLMResponses), len(doc.Run.ProbeResults))
		}
		fo := f.Take(doc.Run).(*collectAll)
		if !reflect.DeepEqual(fo.responses, whole.Run.LLMResponses) {
			t.Errorf("folded %d responses, want the %d decoded whole, equal", len(fo.responses), len(whole.Run.LLMResponses))
		}
		plain := &Folding{New: func() Folder { return &collect{} }}
		if doc, err = DecodeDocumentFolding(data, plain); err != nil || len(doc.Run.LLMResponses) != len(run.LLMResponses) {
			t.Errorf("a Folder that takes no responses: the run holds %d (%v), want all %d", len(doc.Run.LLMResponses), err, len(run.LLMResponses))
		}
	})
}
