package incident

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
)

// A confirmed drift's incident carries the attribution of the report that
// confirmed it, in its step (what the outbox sends) and in the book; a
// later confirmed drift's report replaces it, as the latest run does.
func TestDecideCarriesAttribution(t *testing.T) {
	ctx := context.Background()
	l, s := newLifecycle(decideNow)
	tr := NewTracker(testSubject, "base")
	units := []promptcanary.IncidentUnit{{Unit: promptcanary.UnitPair, Name: "p/q", Baseline: 1, Current: 0}}
	first := &promptcanary.Attribution{Cause: promptcanary.CauseProvider, Evidence: []string{"served model changed: gpt-4o-2024-08-06 → gpt-4o-2024-11-20"}}
	drift := run("d", promptcanary.CheckDrift)
	drift.Confirmed, drift.Severity, drift.ConfirmRunID, drift.ConfirmReportID = true, promptcanary.SeverityHigh, "confirm-run", "confirm-report"

	l.Decide(ctx, tr, drift, &Evidence{RunID: "confirm-run", Units: units, Attribution: first})
	if len(s.steps) != 1 {
		t.Fatalf("steps %+v, want the opened one", s.steps)
	}
	if diff := cmp.Diff(first, s.steps[0].Incident.Attribution); diff != "" {
		t.Errorf("opened incident's attribution (-want +got):\n%s", diff)
	}
	if first.Evidence[0] = "changed by the caller"; s.steps[0].Incident.Attribution.Evidence[0] == first.Evidence[0] {
		t.Errorf("the incident shares the report's attribution: it must keep a copy")
	}

	second := &promptcanary.Attribution{Cause: promptcanary.CauseProviderWide, Evidence: []string{"the control moved too"}}
	again := run("e", promptcanary.CheckDrift)
	again.Confirmed, again.Severity, again.ConfirmRunID, again.ConfirmReportID = true, promptcanary.SeverityHigh, "confirm-2", "report-2"
	l.Decide(ctx, tr, again, &Evidence{RunID: "confirm-2", Units: units, Attribution: second})
	inc := l.Book.Get(Fingerprint("c", "p", promptcanary.IncidentDrift))
	if inc == nil || inc.ReportID != "report-2" {
		t.Fatalf("open incident %+v, want the drift updated by report-2", inc)
	}
	if diff := cmp.Diff(second, inc.Attribution); diff != "" {
		t.Errorf("updated incident's attribution (-want +got):\n%s", diff)
	}
	if n := len(s.saved); n == 0 || s.saved[n-1].Attribution == nil || s.saved[n-1].Attribution.Cause != promptcanary.CauseProviderWide {
		t.Errorf("saved %+v, want the new attribution stored", s.saved)
	}
}

// The attribution an incident keeps is scrubbed (Line), one line per
// fact, each cut to MaxEvidenceRunes, at most MaxEvidence facts and a
// count of the rest; an attribution without a cause is none.
func TestAttributionBounded(t *testing.T) {
	l, _ := newLifecycle(decideNow)
	l.Line = func(s string) string {
		s = strings.ReplaceAll(s, "sk-secret", "[REDACTED]")
		first, _, _ := strings.Cut(s, "\n")
		return first
	}
	ev := []string{"answer quoted: sk-secret in it\nsecond line", strings.Repeat("é", 5000)}
	for i := range 12 {
		ev = append(ev, fmt.Sprintf("fact %d", i))
	}
	got := l.attribution(&promptcanary.Attribution{Cause: promptcanary.CauseApp, Evidence: ev})
	if got.Cause != promptcanary.CauseApp {
		t.Errorf("cause %q, want app", got.Cause)
	}
	if len(got.Evidence) != MaxEvidence+1 {
		t.Fatalf("got %d facts, want %d and the count of the rest", len(got.Evidence), MaxEvidence+1)
	}
	if got.Evidence[0] != "answer quoted: [REDACTED] in it" {
		t.Errorf("first fact %q, want it scrubbed, one line", got.Evidence[0])
	}
	if n := utf8.RuneCountInString(got.Evidence[1]); n != MaxEvidenceRunes+1 || !strings.HasSuffix(got.Evidence[1], "…") {
		t.Errorf("long fact: %d runes, want %d with an ellipsis", n, MaxEvidenceRunes+1)
	}
	if want := "6 more in the drift report"; got.Evidence[MaxEvidence] != want {
		t.Errorf("last fact %q, want %q", got.Evidence[MaxEvidence], want)
	}
	if got := l.attribution(&promptcanary.Attribution{Evidence: []string{"x"}}); got != nil {
		t.Errorf("no cause: got %+v, want nil", got)
	}
}
