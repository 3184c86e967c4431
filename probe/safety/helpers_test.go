package safety

import (
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// The checks shared by every probe family's tests.
var (
	run        = probetest.Run
	checkKeys  = probetest.CheckKeys
	runVerdict = probetest.RunVerdict
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

// matchCase is a response and the patterns a probe must find in it, in
// order.
type matchCase struct {
	name    string
	content string
	want    []string
}

// checkPatterns runs probe id with its defaults on each case's content and
// checks matched_patterns, and that metadata key, which sums them up, is
// sum(want).
func checkPatterns(t *testing.T, id string, cases []matchCase, key string, sum func(want []string) any) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, id, nil, tc.content)
			if got := matchedPatterns(t, res); !slices.Equal(got, tc.want) {
				t.Errorf("matched_patterns: got %q, want %q", got, tc.want)
			}
			if got, want := res.Metadata[key], sum(tc.want); got != want {
				t.Errorf("%s: got %v, want %v", key, got, want)
			}
		})
	}
}
