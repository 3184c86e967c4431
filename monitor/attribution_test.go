package monitor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
)

// attributing wraps m's compare so that every report it returns names
// the attribution a, as check.Compare's own derivation would.
func attributing(m *Monitor, a promptcanary.Attribution) {
	compare := m.compare
	m.compare = func(ctx context.Context, req check.CompareRequest) (*check.CompareOutcome, error) {
		out, err := compare(ctx, req)
		if out != nil {
			for _, p := range out.Pairs {
				if p.Report != nil {
					c := a
					p.Report.Attribution = &c
				}
			}
		}
		return out, err
	}
}

// A confirmed drift opens an incident with the likely cause of the report
// that confirmed it, stored scrubbed of secrets.
func TestIncidentCarriesAttribution(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(10)
	m := f.monitor(f.config("1h", 5))
	attributing(m, promptcanary.Attribution{Cause: promptcanary.CauseProvider,
		Evidence: []string{"served model changed: flip-1 → flip-2", "the answer quoted the key " + providerKey}})
	f.flip.set("bad-p1")
	if cr := f.once(m); !cr.Confirmed {
		t.Fatalf("one prompt wrong: got %+v, want a confirmed drift", cr)
	}
	open := f.incidents(true)
	if len(open) != 1 || open[0].Attribution == nil {
		t.Fatalf("got %+v, want one incident with an attribution", open)
	}
	a := open[0].Attribution
	if a.Cause != promptcanary.CauseProvider || len(a.Evidence) != 2 || a.Evidence[0] != "served model changed: flip-1 → flip-2" {
		t.Errorf("attribution %+v, want the report's", a)
	}
	if strings.Contains(a.Evidence[1], providerKey) {
		t.Errorf("evidence %q holds the provider's key", a.Evidence[1])
	}
	if err := m.outbox.Drain(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	got := f.hook.got()
	if len(got) != 1 || got[0].Attribution == nil || got[0].Attribution.Cause != promptcanary.CauseProvider || len(got[0].Attribution.Evidence) != 2 {
		t.Fatalf("webhook bodies %+v, want one carrying the provider cause", got)
	}
	if strings.Contains(got[0].Attribution.Evidence[1], providerKey) {
		t.Errorf("webhook evidence %q holds the provider's key", got[0].Attribution.Evidence[1])
	}
}
