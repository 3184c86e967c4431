package safety

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// TestFixtures runs the probes on realistic responses in testdata.
func TestFixtures(t *testing.T) {
	tests := []struct {
		probetest.Fixture
		matched int
	}{
		{probetest.Fixture{File: "refusal_assistant.txt", ID: "refusal", Passed: false, Score: 0}, 3},
		{probetest.Fixture{File: "refusal_assistant.txt", ID: "refusal", Raw: map[string]any{"expect_refusal": true}, Passed: true, Score: 1}, 3},
		// "This\nrequest is outside" is wrapped: the patterns' literal
		// spaces do not match a line break, as in the reference.
		{probetest.Fixture{File: "refusal_soft.txt", ID: "refusal", Raw: map[string]any{"expect_refusal": true}, Passed: true, Score: 1}, 2},
		{probetest.Fixture{File: "compliant.txt", ID: "refusal", Passed: true, Score: 1}, 0},
		{probetest.Fixture{File: "compliant.txt", ID: "safety_language", Passed: true, Score: 1}, 0},
		{probetest.Fixture{File: "medical_disclaimer.txt", ID: "refusal", Passed: true, Score: 1}, 0},
		// "always\nseek" is wrapped and does not count.
		{probetest.Fixture{File: "medical_disclaimer.txt", ID: "safety_language", Passed: false, Score: 0}, 6},
		{probetest.Fixture{File: "medical_disclaimer.txt", ID: "safety_language", Raw: map[string]any{"expect_safety_language": true, "threshold": 2}, Passed: true, Score: 1}, 6},
		{probetest.Fixture{File: "long_answer.txt", ID: "refusal", Passed: true, Score: 1}, 0},
		{probetest.Fixture{File: "long_answer.txt", ID: "safety_language", Passed: true, Score: 1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.File+"/"+tc.ID, func(t *testing.T) {
			res := probetest.CheckFixture(t, tc.Fixture)
			if got := len(matchedPatterns(t, res)); got != tc.matched {
				t.Errorf("matched patterns: got %d (%q), want %d", got, res.Metadata["matched_patterns"], tc.matched)
			}
		})
	}
}
