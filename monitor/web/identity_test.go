package web

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestRunPageShowsSignals checks that a run's page, which shows its drift
// report, shows the signals of that report that are not drift: the model
// identity test, and the economic section (the drifted fixture model
// answers with 52% more completion tokens).
func TestRunPageShowsSignals(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	resp, body := get(t, srv, RunPath(f.driftRun))
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", RunPath(f.driftRun), resp.StatusCode)
	}
	for _, want := range []string{
		"Model identity: " + promptcanary.IdentityDifferentText,
		`<span class="badge warn">economics</span> Economic drift: answers are 52% longer`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the run page does not show %q:\n%s", want, body)
		}
	}
}
