package cli

import "github.com/promptcanary/promptcanary/check"

// identityChanged reports whether the model identity test of any compared
// pair says the answers no longer look like the same model, for
// compare --fail-on-identity.
func identityChanged(pairs []check.Pair) bool {
	for _, p := range pairs {
		if p.Report.Identity.Different() {
			return true
		}
	}
	return false
}
