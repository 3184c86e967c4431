package check

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// A saved run decoded with NewFolding hands its responses to the folder,
// not the run; a compare still counts them when it says how many calls
// failed: "1 of N calls", N the run's calls, not 1 of 1.
func TestFoldedRunCountsItsCalls(t *testing.T) {
	st := loadSuite(t, suiteYAML)
	hist := openStore(t)
	targets, samples := mustResolve(t, st, Settings{Samples: ptr(5)})
	ctx := context.Background()
	if _, err := Run(ctx, RunRequest{Suite: st, Targets: targets, Samples: samples, History: hist, SaveBaseline: true, BaselineDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	saved, err := Run(ctx, RunRequest{Suite: st, Targets: targets, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	run := saved.Runs[0]
	answered := len(run.LLMResponses)
	if answered < 2 {
		t.Fatalf("want a run of several calls, got %d", answered)
	}
	run.Errors = append(run.Errors, promptcanary.CallError{PromptID: run.LLMResponses[0].PromptID, Sample: 99, Message: "503"})
	data, err := store.MarshalRun(run, store.LayoutCompact)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFolding()
	doc, err := store.DecodeDocumentFolding(data, f)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Run.LLMResponses != nil {
		t.Fatalf("the folded run holds %d responses, want them folded", len(doc.Run.LLMResponses))
	}
	out, err := Compare(ctx, CompareRequest{Suite: st, Current: []*promptcanary.Run{doc.Run}, Baselines: Baselines{History: hist},
		ReportsOnly: true, Folding: f})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("1 of %d calls failed after retries", answered+1)
	if len(out.Problems) != 1 || !strings.Contains(out.Problems[0].Reason, want) {
		t.Errorf("got problems %+v, want one saying %q", out.Problems, want)
	}
	if len(out.Pairs) != 1 || out.Pairs[0].Report.Comparisons[0].CurrentExample == "" {
		t.Error("the report has no example answers: the folded responses were not compared")
	}
}
