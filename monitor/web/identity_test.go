package web

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestRunPageShowsIdentity checks that a run's page, which shows its drift
// report, shows the model identity test of that report.
func TestRunPageShowsIdentity(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	resp, body := get(t, srv, RunPath(f.driftRun))
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", RunPath(f.driftRun), resp.StatusCode)
	}
	if !strings.Contains(body, "Model identity: "+promptcanary.IdentityDifferentText) {
		t.Errorf("the run page does not show the identity test:\n%s", body)
	}
}
