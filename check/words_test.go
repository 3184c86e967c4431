package check

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// A problem names the settings it is about by field name (the monitor's
// words: monitor.yaml's max_errors), and Words names them as a caller
// does, found from the end so that a file or model named like a setting
// is left alone.
func TestProblemWords(t *testing.T) {
	flag := func(f string) string { return "--" + strings.ReplaceAll(f, "_", "-") }
	failed := &promptcanary.Run{Provider: promptcanary.ProviderConfig{ModelID: "sim/stable"},
		LLMResponses: []promptcanary.Response{{Content: "ok"}}, ProbeResults: []promptcanary.ProbeResult{{Passed: true}},
		Errors: []promptcanary.CallError{{Message: "rate limited past --max-retry-wait"}}}
	tests := []struct {
		name           string
		p              Problem
		reason, worded string
	}{
		{"too many errors", unmeasured([]*promptcanary.Run{failed}, nil, nil, 0)[0],
			"1 of 2 calls failed after retries; max_errors 0 allows none, so the run has no verdict (1 of them ran out of the retry budget: raise it with max_retry_wait)",
			"1 of 2 calls failed after retries; --max-errors 0 allows none, so the run has no verdict (1 of them ran out of the retry budget: raise it with --max-retry-wait)"},
		{"a file named like the setting", Problem{Reason: `2 prompt(s) of the suite have no answer in "max_errors.jsonl" (max_errors 0): the run could not be measured`, Settings: []string{"max_errors"}},
			`2 prompt(s) of the suite have no answer in "max_errors.jsonl" (max_errors 0): the run could not be measured`,
			`2 prompt(s) of the suite have no answer in "max_errors.jsonl" (--max-errors 0): the run could not be measured`},
		{"no settings", Problem{Reason: "nothing was measured: all 3 call(s) failed"},
			"nothing was measured: all 3 call(s) failed", "nothing was measured: all 3 call(s) failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.p.Reason != tc.reason {
				t.Errorf("got reason %q, want %q", tc.p.Reason, tc.reason)
			}
			if got := tc.p.Words(flag); got != tc.worded {
				t.Errorf("got %q, want %q", got, tc.worded)
			}
		})
	}
}
