package web

import (
	"strings"
	"testing"
)

// TestRunPageShowsEconomics checks that a run's page, which shows its
// drift report, shows the economic drift section of that report: the
// drifted fixture model answers with 50% more completion tokens.
func TestRunPageShowsEconomics(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	resp, body := get(t, srv, RunPath(f.driftRun))
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", RunPath(f.driftRun), resp.StatusCode)
	}
	if !strings.Contains(body, `<span class="badge warn">economics</span> Economic drift: answers are 52% longer`) {
		t.Errorf("the run page does not show the economic section:\n%s", body)
	}
}
