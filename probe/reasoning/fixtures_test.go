package reasoning

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// TestFixtures runs the probes on realistic responses in testdata.
func TestFixtures(t *testing.T) {
	probetest.CheckFixtures(t, []probetest.Fixture{
		{File: "chain_of_thought.txt", ID: "step_by_step", Passed: true, Score: 1},
		{File: "chain_of_thought.txt", ID: "step_by_step", Raw: map[string]any{"expect_steps": false}, Passed: false, Score: 0},
		{File: "chain_of_thought.txt", ID: "direct_answer", Passed: true, Score: 1},
		{File: "direct.txt", ID: "step_by_step", Passed: false, Score: 0},
		{File: "direct.txt", ID: "step_by_step", Raw: map[string]any{"expect_steps": false}, Passed: true, Score: 1},
		{File: "direct.txt", ID: "verbosity", Raw: map[string]any{"expected_words": 5}, Passed: true, Score: 1},
		{File: "direct.txt", ID: "confidence_language", Passed: true, Score: 1},
		{File: "direct.txt", ID: "direct_answer", Passed: true, Score: 1},
		{File: "direct.txt", ID: "sentiment", Raw: map[string]any{"expect_positive": false}, Passed: true, Score: 1},
		{File: "preamble_hedged.txt", ID: "direct_answer", Passed: false, Score: 0},
		{File: "preamble_hedged.txt", ID: "direct_answer", Raw: map[string]any{"expect_direct": false}, Passed: true, Score: 1},
		{File: "preamble_hedged.txt", ID: "confidence_language", Passed: false, Score: 0},
		{File: "preamble_hedged.txt", ID: "confidence_language", Raw: map[string]any{"expect_hedging": true}, Passed: true, Score: 1},
		{File: "enthusiastic.txt", ID: "direct_answer", Passed: false, Score: 0},
		{File: "enthusiastic.txt", ID: "sentiment", Raw: map[string]any{"expect_positive": true}, Passed: true, Score: 1},
		{File: "enthusiastic.txt", ID: "sentiment", Raw: map[string]any{"expect_positive": false}, Passed: false, Score: 0.4},
		{File: "long_answer.txt", ID: "step_by_step", Passed: true, Score: 1},
		{File: "long_answer.txt", ID: "verbosity", Raw: map[string]any{"expected_words": 400, "tolerance": 0.1}, Passed: true, Score: 1},
		{File: "long_answer.txt", ID: "verbosity", Raw: map[string]any{"max_words": 300}, Passed: false, Score: 0},
	})
}
