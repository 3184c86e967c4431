package reasoning

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// TestFixtures runs the probes on realistic responses in testdata.
func TestFixtures(t *testing.T) {
	tests := []struct {
		file   string
		id     string
		raw    map[string]any
		passed bool
		score  float64
	}{
		{"chain_of_thought.txt", "step_by_step", nil, true, 1},
		{"chain_of_thought.txt", "step_by_step", map[string]any{"expect_steps": false}, false, 0},
		{"chain_of_thought.txt", "direct_answer", nil, true, 1},
		{"direct.txt", "step_by_step", nil, false, 0},
		{"direct.txt", "step_by_step", map[string]any{"expect_steps": false}, true, 1},
		{"direct.txt", "verbosity", map[string]any{"expected_words": 5}, true, 1},
		{"direct.txt", "confidence_language", nil, true, 1},
		{"direct.txt", "direct_answer", nil, true, 1},
		{"direct.txt", "sentiment", map[string]any{"expect_positive": false}, true, 1},
		{"preamble_hedged.txt", "direct_answer", nil, false, 0},
		{"preamble_hedged.txt", "direct_answer", map[string]any{"expect_direct": false}, true, 1},
		{"preamble_hedged.txt", "confidence_language", nil, false, 0},
		{"preamble_hedged.txt", "confidence_language", map[string]any{"expect_hedging": true}, true, 1},
		{"enthusiastic.txt", "direct_answer", nil, false, 0},
		{"enthusiastic.txt", "sentiment", map[string]any{"expect_positive": true}, true, 1},
		{"enthusiastic.txt", "sentiment", map[string]any{"expect_positive": false}, false, 0.4},
		{"long_answer.txt", "step_by_step", nil, true, 1},
		{"long_answer.txt", "verbosity", map[string]any{"expected_words": 400, "tolerance": 0.1}, true, 1},
		{"long_answer.txt", "verbosity", map[string]any{"max_words": 300}, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.id, func(t *testing.T) {
			checkVerdict(t, run(t, tc.id, tc.raw, probetest.Testdata(t, tc.file)), tc.passed, tc.score)
		})
	}
}
