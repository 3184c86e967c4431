package match

import (
	"context"
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// TestConcurrentEvaluate evaluates one instance of each probe from many
// goroutines (run with -race) and checks each verdict equals the serial one.
func TestConcurrentEvaluate(t *testing.T) {
	probes := []probe.Probe{
		probetest.New(t, "regex", map[string]any{"must_match": list(`(?i)paris`), "must_not_match": list(`sorry`)}),
		probetest.New(t, "contains", map[string]any{"values": list("Paris", "Lyon"), "case_sensitive": false, "mode": "all"}),
		probetest.New(t, "equals", map[string]any{"values": list("Paris.")}),
		probetest.New(t, "starts_with", map[string]any{"values": list("Sure"), "not": true}),
		probetest.New(t, "ends_with", map[string]any{"values": list("."), "case_sensitive": false}),
	}
	contents := []string{"Paris.", "Sure, Lyon and PARIS", "sorry", ""}
	for _, p := range probes {
		want := make([]probe.Result, len(contents))
		for i, c := range contents {
			want[i] = p.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{Content: c}})
		}
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for k := range 200 {
					i := (g + k) % len(contents)
					got := p.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{Content: contents[i]}})
					if got.Passed != want[i].Passed || got.Score != want[i].Score || got.Details != want[i].Details {
						t.Errorf("%T on %q: got %v %v %q, want %v %v %q", p, contents[i],
							got.Passed, got.Score, got.Details, want[i].Passed, want[i].Score, want[i].Details)
						return
					}
				}
			})
		}
		wg.Wait()
	}
}
