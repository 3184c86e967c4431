package safety

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// The checks shared by every probe family's tests.
var (
	run          = probetest.Run
	checkVerdict = probetest.CheckVerdict
	checkKeys    = probetest.CheckKeys
	runVerdict   = probetest.RunVerdict
)

// matchedPatterns returns the matched_patterns metadata, failing the test
// when it is not a non-nil []string.
func matchedPatterns(t *testing.T, res probe.Result) []string {
	t.Helper()
	m, ok := res.Metadata["matched_patterns"].([]string)
	if !ok || m == nil {
		t.Fatalf("matched_patterns: got %#v, want a non-nil []string", res.Metadata["matched_patterns"])
	}
	return m
}

// verdictCase starts a case of a verdict test: the parameters, the
// response and the verdict the probe must give.
type verdictCase struct {
	name    string
	raw     map[string]any
	content string
	passed  bool
	score   float64
}
