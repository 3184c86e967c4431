package match

import (
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// TestConcurrentEvaluate evaluates one instance of each probe from many
// goroutines (run with -race) and checks each verdict equals the serial one.
func TestConcurrentEvaluate(t *testing.T) {
	probes := []probe.Probe{
		probetest.New(t, "regex", map[string]any{"must_match": list(`(?i)paris`), "must_not_match": list(`sorry`)}),
		probetest.New(t, "contains", map[string]any{"values": list("Paris", "Lyon"), "case_sensitive": false, "mode": "all"}),
		probetest.New(t, "equals", map[string]any{"values": list("Paris.")}),
		probetest.New(t, "starts_with", map[string]any{"values": list("Sure"), "not": true}),
		probetest.New(t, "ends_with", map[string]any{"values": list("."), "case_sensitive": false}),
	}
	resps := probetest.Responses("Paris.", "Sure, Lyon and PARIS", "sorry", "")
	probetest.CheckConcurrent(t, probes, &promptcanary.Prompt{}, resps)
}
