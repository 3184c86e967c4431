package cli

import "github.com/promptcanary/promptcanary/check"

// economicsFlagged reports whether the economic section of any compared
// pair flagged a measure (tokens, latency or cost moved), for
// compare --fail-on-economic.
func economicsFlagged(pairs []check.Pair) bool {
	for _, p := range pairs {
		if p.Report.Economics.Flagged() {
			return true
		}
	}
	return false
}
