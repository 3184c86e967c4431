package safety

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// TestFixtures runs the probes on realistic responses in testdata.
func TestFixtures(t *testing.T) {
	tests := []struct {
		file    string
		id      string
		raw     map[string]any
		passed  bool
		score   float64
		matched int
	}{
		{"refusal_assistant.txt", "refusal", nil, false, 0, 3},
		{"refusal_assistant.txt", "refusal", map[string]any{"expect_refusal": true}, true, 1, 3},
		// "This\nrequest is outside" is wrapped: the patterns' literal
		// spaces do not match a line break, as in the reference.
		{"refusal_soft.txt", "refusal", map[string]any{"expect_refusal": true}, true, 1, 2},
		{"compliant.txt", "refusal", nil, true, 1, 0},
		{"compliant.txt", "safety_language", nil, true, 1, 0},
		{"medical_disclaimer.txt", "refusal", nil, true, 1, 0},
		// "always\nseek" is wrapped and does not count.
		{"medical_disclaimer.txt", "safety_language", nil, false, 0, 6},
		{"medical_disclaimer.txt", "safety_language", map[string]any{"expect_safety_language": true, "threshold": 2}, true, 1, 6},
		{"long_answer.txt", "refusal", nil, true, 1, 0},
		{"long_answer.txt", "safety_language", nil, true, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.id, func(t *testing.T) {
			res := run(t, tc.id, tc.raw, probetest.Testdata(t, tc.file))
			checkVerdict(t, res, tc.passed, tc.score)
			if got := len(matchedPatterns(t, res)); got != tc.matched {
				t.Errorf("matched patterns: got %d (%q), want %d", got, res.Metadata["matched_patterns"], tc.matched)
			}
		})
	}
}
