package tooluse

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// TestConcurrentEvaluate runs one instance of each probe on many responses
// at once (run with -race); every result must equal the sequential one.
func TestConcurrentEvaluate(t *testing.T) {
	probes := fuzzProbes(t)
	responses := []*promptcanary.Response{
		{Content: fixture(t, "openai_tool_calls.json")},
		{Content: fixture(t, "anthropic_xml.txt")},
		{Content: fixture(t, "prose.txt")},
		{ToolCalls: []promptcanary.ToolCall{call("search", `{"q": "x", "n": 1}`)}},
	}
	prompt := &promptcanary.Prompt{ID: "p"}
	want := make([][]probe.Result, len(probes))
	for i, p := range probes {
		for _, r := range responses {
			want[i] = append(want[i], probetest.Eval(p, prompt, r))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 8 {
		wg.Go(func() {
			for i, p := range probes {
				for j, r := range responses {
					if got := probetest.Eval(p, prompt, r); !reflect.DeepEqual(got, want[i][j]) {
						select {
						case errs <- fmt.Sprintf("%T", p):
						default:
						}
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for id := range errs {
		t.Errorf("%s: got a concurrent result different from the sequential one", id)
	}
}
