package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// untrusted holds what PostgreSQL text cannot: NUL bytes and invalid
// UTF-8, as a model's answer or a server's error may.
const untrusted = "before\x00after \xff\xfe bytes \x00"

// TestNULInAnswer stores answers, details and metadata with NUL bytes:
// a run is a document (bytea), so they come back as they went in.
func TestNULInAnswer(t *testing.T) {
	t.Parallel()
	s := openFresh(t)
	ctx := context.Background()
	r := storetest.NewRun("nul-run", "s", "m", t0)
	r.Samples = 1 // one sample: raw responses are kept too
	r.LLMResponses = r.LLMResponses[:1]
	r.ProbeResults = r.ProbeResults[:3]
	r.LLMResponses[0].Content = "the answer is \x00\x00 and more\x00"
	r.LLMResponses[0].RawResponse = []byte(`{"content":"\u0000 raw"}`)
	r.ProbeResults[0].Details = "found \x00 in the answer"
	r.ProbeResults[0].Metadata = map[string]any{"k\x00ey": "v\x00alue"}
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatalf("save run: %v", err)
	}
	got, err := s.Run(ctx, "nul-run")
	if err != nil {
		t.Fatal(err)
	}
	if got.LLMResponses[0].Content != r.LLMResponses[0].Content {
		t.Errorf("content: got %q, want %q", got.LLMResponses[0].Content, r.LLMResponses[0].Content)
	}
	if got.ProbeResults[0].Details != r.ProbeResults[0].Details {
		t.Errorf("details: got %q, want %q", got.ProbeResults[0].Details, r.ProbeResults[0].Details)
	}
	if v := got.ProbeResults[0].Metadata["k\x00ey"]; v != "v\x00alue" {
		t.Errorf("metadata: got %q, want %q", v, "v\x00alue")
	}
	if string(got.LLMResponses[0].RawResponse) != `{"content":"\u0000 raw"}` {
		t.Errorf("raw response: got %s", got.LLMResponses[0].RawResponse)
	}
	// The baseline of it too.
	b, err := s.Promote(ctx, "nul-run", "note \x00")
	if err != nil {
		t.Fatalf("promote: %v", err)
	}
	latest, err := s.LatestBaseline(ctx, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	if latest.SnapshotID != b.SnapshotID || latest.RunResult.LLMResponses[0].Content != r.LLMResponses[0].Content || latest.Note != "note \x00" {
		t.Errorf("baseline: got %s %q %q, want %s with the answer and note", latest.SnapshotID,
			latest.RunResult.LLMResponses[0].Content, latest.Note, b.SnapshotID)
	}
}

// TestFreeTextRoundTrip stores NUL bytes and invalid UTF-8 in every free
// text field (bytea): each comes back byte for byte, as in SQLite.
func TestFreeTextRoundTrip(t *testing.T) {
	t.Parallel()
	s := openFresh(t)
	ctx := context.Background()

	r := storetest.NewRun("text-run", "s", "m", t0)
	p := store.Pending(store.NewBaseline(r, untrusted, t0), "dir/"+untrusted)
	if err := s.SaveRunPending(ctx, r, p); err != nil {
		t.Fatal(err)
	}
	pending, err := s.PendingBaselines(ctx)
	if err != nil || len(pending) != 1 || pending[0].Note != untrusted || pending[0].Dir != "dir/"+untrusted {
		t.Errorf("pending baseline: got %+v, %v, want note and dir as saved", pending, err)
	}
	if _, err := s.SaveBaseline(ctx, storetest.NewBaseline("text-snap", r, t0, untrusted)); err != nil {
		t.Fatal(err)
	}
	if infos, err := s.Baselines(ctx, ""); err != nil || len(infos) != 1 || infos[0].Note != untrusted {
		t.Errorf("baselines: got %+v, %v, want the note as saved", infos, err)
	}

	d := storetest.NewDrift("text-report", r, "text-snap", t0, promptcanary.SeverityLow, 1)
	d.Summary = untrusted
	if err := s.SaveDrift(ctx, d); err != nil {
		t.Fatal(err)
	}
	if sums, err := s.Drifts(ctx, "", "", 0); err != nil || len(sums) != 1 || sums[0].Summary != untrusted {
		t.Errorf("drifts: got %+v, %v, want the summary as saved", sums, err)
	}

	cr := storetest.NewCheckRun("text-cr", "c", "p", t0)
	cr.Reason = "provider: 500 " + untrusted
	if err := s.SaveCheckRun(ctx, cr); err != nil {
		t.Fatal(err)
	}
	if got, err := s.CheckRuns(ctx, "c", "p", 0); err != nil || len(got) != 1 || got[0].Reason != cr.Reason {
		t.Errorf("check runs: got %+v, %v, want the reason as saved", got, err)
	}

	inc := storetest.NewIncident("text-inc", "fp", t0)
	inc.Summary, inc.AcknowledgedBy = untrusted, "ops "+untrusted
	inc.Units[0].Name = "unit " + untrusted
	inc.NotifiedTo = []string{"hook " + untrusted}
	if err := s.SaveIncident(ctx, inc); err != nil {
		t.Fatal(err)
	}
	got, err := s.Incident(ctx, "text-inc")
	if err != nil {
		t.Fatal(err)
	}
	if got.Summary != inc.Summary || got.AcknowledgedBy != inc.AcknowledgedBy {
		t.Errorf("incident: got summary %q, acknowledged by %q, want %q, %q", got.Summary, got.AcknowledgedBy, inc.Summary, inc.AcknowledgedBy)
	}
	// Units and notifiers are JSON, whose encoder writes invalid UTF-8 as
	// U+FFFD (in SQLite as here); NUL bytes survive.
	if !strings.Contains(got.Units[0].Name, "before\x00after") || !strings.Contains(got.NotifiedTo[0], "before\x00after") {
		t.Errorf("incident: got unit %q, notified %q, want their NUL bytes kept", got.Units[0].Name, got.NotifiedTo)
	}

	e := promptcanary.IncidentEvent{IncidentID: "text-inc", At: t0, Type: promptcanary.EventOpened, Summary: untrusted}
	if err := s.AddIncidentEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	if events, err := s.IncidentEvents(ctx, "text-inc"); err != nil || len(events) != 1 || events[0].Summary != untrusted {
		t.Errorf("events: got %+v, %v, want the summary as saved", events, err)
	}
	a := promptcanary.NotificationAttempt{ID: "n-1", IncidentID: "text-inc", Notifier: "hook", Attempt: 1, At: t0, Error: "webhook: 502 " + untrusted}
	if err := s.SaveNotification(ctx, a); err != nil {
		t.Fatal(err)
	}
	if attempts, err := s.Notifications(ctx, "text-inc", 0); err != nil || len(attempts) != 1 || attempts[0].Error != a.Error {
		t.Errorf("notifications: got %+v, %v, want the error as saved", attempts, err)
	}
}

// TestTextPostgreSQLCannotHold saves names PostgreSQL text cannot hold: each
// save fails naming the field, stores nothing, and a filter on such a name
// matches nothing.
func TestTextPostgreSQLCannotHold(t *testing.T) {
	t.Parallel()
	s := openFresh(t)
	ctx := context.Background()
	run := func(suite, model string) *promptcanary.Run { return storetest.NewRun("bad-run", suite, model, t0) }
	tests := []struct {
		name string
		save func() error
		want string
	}{
		{"suite with NUL", func() error { return s.SaveRun(ctx, run("s\x00", "m")) },
			`save run "bad-run": suite "s\x00": PostgreSQL text cannot hold a NUL byte`},
		{"model not UTF-8", func() error { return s.SaveRun(ctx, run("s", "m\xff")) },
			`save run "bad-run": model "m\xff": not valid UTF-8, which PostgreSQL text cannot hold`},
		{"probe id with NUL", func() error {
			r := run("s", "m")
			r.ProbeResults[0].ProbeID = "p\x00"
			return s.SaveRun(ctx, r)
		}, `save run "bad-run": probe id "p\x00": PostgreSQL text cannot hold a NUL byte`},
		{"baseline of a run with a bad suite", func() error {
			_, err := s.SaveBaseline(ctx, storetest.NewBaseline("bad-snap", run("s\x00", "m"), t0, ""))
			return err
		}, `save baseline "bad-snap": suite "s\x00": PostgreSQL text cannot hold a NUL byte`},
		{"drift severity", func() error {
			return s.SaveDrift(ctx, storetest.NewDrift("bad-report", run("s", "m"), "snap", t0, "hi\x00gh", 1))
		}, `save drift report "bad-report": severity "hi\x00gh": PostgreSQL text cannot hold a NUL byte`},
		{"check name", func() error { return s.SaveCheckRun(ctx, storetest.NewCheckRun("bad-cr", "c\x00", "p", t0)) },
			`save check run "bad-cr": check "c\x00": PostgreSQL text cannot hold a NUL byte`},
		{"fingerprint", func() error { return s.SaveIncident(ctx, storetest.NewIncident("bad-inc", "fp\xc3", t0)) },
			`save incident "bad-inc": fingerprint "fp\xc3": not valid UTF-8, which PostgreSQL text cannot hold`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.save()
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	if runs, err := s.Runs(ctx, store.RunFilter{}); err != nil || len(runs) != 0 {
		t.Errorf("runs: got %d, %v, want none stored", len(runs), err)
	}
	if got, err := s.Incidents(ctx, store.IncidentFilter{}); err != nil || len(got) != 0 {
		t.Errorf("incidents: got %d, %v, want none stored", len(got), err)
	}

	// Filters on such names match nothing, without an error.
	if err := s.SaveRun(ctx, run("s", "m")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Runs(ctx, store.RunFilter{Suite: "s\x00"}); err != nil || len(got) != 0 {
		t.Errorf("runs of a suite with NUL: got %d, %v, want none", len(got), err)
	}
	if _, err := s.LatestBaseline(ctx, "s", "m\xff"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("latest baseline of a model not UTF-8: got %v, want ErrNotFound", err)
	}
	if got, err := s.ProbeScores(ctx, "s\x00", "", 0); err != nil || len(got) != 0 {
		t.Errorf("probe scores: got %d, %v, want none", len(got), err)
	}
	if got, err := s.CheckRuns(ctx, "c\x00", "", 0); err != nil || len(got) != 0 {
		t.Errorf("check runs: got %d, %v, want none", len(got), err)
	}
	err := s.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: "inc\x00", At: t0, Type: promptcanary.EventOpened})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("event of an incident id with NUL: got %v, want ErrNotFound", err)
	}
}
