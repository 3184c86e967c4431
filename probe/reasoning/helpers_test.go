package reasoning

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// The checks shared by every probe family's tests.
var (
	run        = probetest.Run
	checkKeys  = probetest.CheckKeys
	runVerdict = probetest.RunVerdict
)

// words returns n filler words that match no pattern of this package.
func words(n int) string {
	return strings.TrimSpace(strings.Repeat("alpha ", n))
}

// withWords returns phrase followed by filler up to n words in total,
// counting phrase as phraseWords words.
func withWords(phrase string, phraseWords, n int) string {
	return phrase + " " + words(n-phraseWords)
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

// patternCase is a response and the value a metadata key must have for it.
type patternCase struct {
	name    string
	content string
	want    any
}

// checkPatterns runs probe id with its defaults on each case's content and
// checks the value of metadata key.
func checkPatterns(t *testing.T, id, key string, cases []patternCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, id, nil, tc.content)
			if got := res.Metadata[key]; got != tc.want {
				t.Errorf("%s: got %v, want %v", key, got, tc.want)
			}
		})
	}
}
