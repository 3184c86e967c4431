package reasoning

import (
	"context"
	"math"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// fuzzConfigs are the configurations every fuzzed response is judged with.
var fuzzConfigs = []struct {
	id  string
	raw map[string]any
}{
	{"step_by_step", nil},
	{"step_by_step", map[string]any{"expect_steps": false, "min_step_count": 0}},
	{"verbosity", nil},
	{"verbosity", map[string]any{"expected_words": 3, "tolerance": 0, "min_words": 0, "max_words": 50}},
	{"confidence_language", nil},
	{"confidence_language", map[string]any{"expect_hedging": true, "threshold": 1e-9}},
	{"direct_answer", nil},
	{"direct_answer", map[string]any{"expect_direct": false, "max_preamble_chars": 0}},
	{"sentiment", nil},
	{"sentiment", map[string]any{"expect_positive": true, "threshold": -1}},
}

// FuzzProbesNeverPanic checks that no probe panics on any content and that
// every result is well formed. It calls Evaluate directly, without the
// recovery and clamping of probe.Evaluate.
func FuzzProbesNeverPanic(f *testing.F) {
	probes := make([]probe.Probe, len(fuzzConfigs))
	for i, c := range fuzzConfigs {
		p, _, err := probe.New(c.id, c.raw)
		if err != nil {
			f.Fatalf("New(%q): %v", c.id, err)
		}
		probes[i] = p
	}
	probetest.AddTestdata(f, "*.txt", "", " ", "\xff\xfe", "Sure!", "1. a\n2. b", "maybe maybe", "\u00a0\u3000Sure!")
	prompt := &promptcanary.Prompt{ID: "p"}
	f.Fuzz(func(t *testing.T, content string) {
		resp := &promptcanary.Response{PromptID: "p", Content: content}
		for i, p := range probes {
			res := p.Evaluate(context.Background(), probe.Input{Prompt: prompt, Response: resp})
			if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 {
				t.Errorf("%T (config %d): score %v outside [0,1]", p, i, res.Score)
			}
			if res.Details == "" || len(res.Metadata) == 0 {
				t.Errorf("%T (config %d): got details %q, metadata %v, want both", p, i, res.Details, res.Metadata)
			}
			if res.Passed && res.Score == 0 {
				t.Errorf("%T (config %d): passed with score 0", p, i)
			}
		}
	})
}
