package reasoning

import (
	"strings"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// The checks shared by every probe family's tests.
var (
	run          = probetest.Run
	checkVerdict = probetest.CheckVerdict
	checkKeys    = probetest.CheckKeys
	runVerdict   = probetest.RunVerdict
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
