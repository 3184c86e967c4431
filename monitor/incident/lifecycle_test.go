package incident

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/notify"
	"github.com/promptcanary/promptcanary/store"
)

// fakeStore keeps what the lifecycle writes; the store.Monitor methods
// the lifecycle does not call are left nil and panic if called.
type fakeStore struct {
	store.Monitor
	steps    []store.IncidentStep
	saved    []promptcanary.Incident
	events   []promptcanary.IncidentEvent
	stepErr  error                   // RecordStep's next answer
	open     []promptcanary.Incident // what Incidents and Incident find
	woken    int
	known    map[string]bool
	attempts []promptcanary.NotificationAttempt
	synced   [][]promptcanary.Incident
	runs     []promptcanary.CheckRun // what CheckRuns finds, newest first
}

func (s *fakeStore) RecordStep(_ context.Context, st store.IncidentStep) error {
	if err := s.stepErr; err != nil {
		s.stepErr = nil
		return err
	}
	s.steps = append(s.steps, st)
	return nil
}

func (s *fakeStore) SaveIncident(_ context.Context, inc *promptcanary.Incident) error {
	s.saved = append(s.saved, *inc)
	return nil
}

func (s *fakeStore) AddIncidentEvent(_ context.Context, e promptcanary.IncidentEvent) error {
	s.events = append(s.events, e)
	return nil
}

func (s *fakeStore) Incidents(context.Context, store.IncidentFilter) ([]promptcanary.Incident, error) {
	return s.open, nil
}

func (s *fakeStore) Incident(_ context.Context, id string) (*promptcanary.Incident, error) {
	for i := range s.open {
		if strings.HasPrefix(s.open[i].ID, id) {
			inc := s.open[i]
			return &inc, nil
		}
	}
	return nil, store.ErrNotFound
}

func (s *fakeStore) Known(name string) bool { return s.known[name] }
func (s *fakeStore) Names() []string        { return []string{"ops"} }
func (s *fakeStore) Wake()                  { s.woken++ }

// fakeNotifier is a notifier that is never sent anything here.
type fakeNotifier struct {
	name string
	min  promptcanary.Severity
}

func (n fakeNotifier) Name() string                       { return n.name }
func (n fakeNotifier) MinSeverity() promptcanary.Severity { return n.min }
func (n fakeNotifier) Send(context.Context, notify.Message) (int, error) {
	panic("the lifecycle never sends")
}

// newLifecycle returns a lifecycle writing to a fake store on a clock
// that stands still at now.
func newLifecycle(now time.Time) (*Lifecycle, *fakeStore) {
	s := &fakeStore{known: map[string]bool{"ops": true}}
	l := &Lifecycle{
		Store: s, Steps: s, Outbox: s,
		Notifiers:    []notify.Notifier{fakeNotifier{name: "ops", min: promptcanary.SeverityLow}},
		Now:          func() time.Time { return now },
		Log:          slog.New(slog.DiscardHandler),
		Repeat:       time.Hour,
		ResolveAfter: 2,
		Line:         func(s string) string { return s },
		Wrote:        func(err error) error { return err },
		Attempt:      func(a promptcanary.NotificationAttempt) { s.attempts = append(s.attempts, a) },
		Published:    func(open []promptcanary.Incident) { s.synced = append(s.synced, open) },
	}
	return l, s
}

var (
	testSubject = Subject{Check: "c", Provider: "p", Suite: "s", Notify: []string{"ops", "gone"}}
	testFinding = Finding{Kind: promptcanary.IncidentDrift, Severity: promptcanary.SeverityHigh, Summary: "fell", RunID: "r1"}
)

// An incident opens with one step that notifies its check's notifiers, is
// not notified again before the repeat interval, and resolves after
// resolve_after clean runs, notifying whom it notified (a failed attempt
// for a notifier the outbox no longer knows).
func TestLifecycleOpensRepeatsNotAndResolves(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l, s := newLifecycle(now)
	l.Book.Lock()
	defer l.Book.Unlock()

	l.Fire(ctx, testSubject, testFinding)
	fp := Fingerprint("c", "p", promptcanary.IncidentDrift)
	inc := l.Book.Get(fp)
	if inc == nil || len(s.steps) != 1 || s.steps[0].Event.Type != promptcanary.EventOpened {
		t.Fatalf("after the first finding: open %v, steps %+v, want one opened incident", inc, s.steps)
	}
	if d := s.steps[0].Deliveries; len(d) != 1 || d[0].Notifier != "ops" || d[0].Status != promptcanary.NotificationFiring {
		t.Errorf("opened step's deliveries = %+v, want one firing to ops", d)
	}
	if s.woken != 1 {
		t.Errorf("outbox woken %d times, want 1", s.woken)
	}

	l.Fire(ctx, testSubject, testFinding)
	if len(s.steps) != 1 || len(s.saved) != 1 {
		t.Errorf("the same finding within the repeat interval: %d steps, %d saves, want 1 and 1", len(s.steps), len(s.saved))
	}

	// A notifier removed from the configuration since it was notified.
	inc.NotifiedTo = append(inc.NotifiedTo, "gone")
	cr := &promptcanary.CheckRun{RunID: "r2", ReportID: "rep2"}
	l.Clean(ctx, fp, cr)
	if l.Book.Get(fp) == nil || inc.CleanRuns != 1 {
		t.Fatalf("after one clean run: open %v, clean runs %d, want open with 1", l.Book.Get(fp), inc.CleanRuns)
	}
	l.Clean(ctx, fp, cr)
	if l.Book.Get(fp) != nil {
		t.Fatal("after resolve_after clean runs the incident is still open")
	}
	last := s.steps[len(s.steps)-1]
	if last.Event.Type != promptcanary.EventResolved || last.Incident.ResolvedAt != now || last.Incident.RunID != "r2" {
		t.Errorf("last step = %+v, want resolved at %s by run r2", last.Event, now)
	}
	if d := last.Deliveries; len(d) != 1 || d[0].Status != promptcanary.NotificationResolved {
		t.Errorf("resolved step's deliveries = %+v, want one resolved to ops", d)
	}
	if len(s.attempts) != 1 || s.attempts[0].Notifier != "gone" || !strings.Contains(s.attempts[0].Error, `unknown notifier "gone"`) {
		t.Errorf("attempts = %+v, want one failed for the unknown notifier", s.attempts)
	}
}

// When another monitor stored the incident first, the lifecycle adopts
// it instead of opening a second one.
func TestLifecycleAdoptsAnIncidentStoredFirst(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l, s := newLifecycle(now)
	fp := Fingerprint("c", "p", promptcanary.IncidentDrift)
	theirs := promptcanary.Incident{ID: "theirs-0001", Fingerprint: fp, Check: "c", Provider: "p", Kind: promptcanary.IncidentDrift,
		Severity: promptcanary.SeverityHigh, OpenedAt: now, UpdatedAt: now, NotifiedAt: now}
	s.open = []promptcanary.Incident{theirs}
	s.stepErr = store.ErrConflict
	l.Book.Lock()
	l.Fire(context.Background(), testSubject, testFinding)
	got := l.Book.Get(fp)
	l.Book.Unlock()
	if got == nil || got.ID != theirs.ID {
		t.Fatalf("open incident = %+v, want the adopted %s", got, theirs.ID)
	}
	if len(s.steps) != 0 {
		t.Errorf("steps = %+v, want none: the adopted incident is unchanged and notified just now", s.steps)
	}
}

// Acknowledging records the event, publishes the open incidents, and is
// refused for a resolved incident.
func TestLifecycleAcknowledge(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l, s := newLifecycle(now)
	fp := Fingerprint("c", "p", promptcanary.IncidentDrift)
	s.open = []promptcanary.Incident{
		{ID: "open-00001", Fingerprint: fp, Kind: promptcanary.IncidentDrift, OpenedAt: now},
		{ID: "done-00001", Fingerprint: fp, Kind: promptcanary.IncidentDrift, OpenedAt: now, ResolvedAt: now},
	}
	if err := l.Acknowledge(ctx, "open", "  ann \n"); err != nil {
		t.Fatal(err)
	}
	if len(s.events) != 1 || s.events[0].Type != promptcanary.EventAcknowledged || s.events[0].Summary != "acknowledged by ann" {
		t.Errorf("events = %+v, want one acknowledgement by ann", s.events)
	}
	if len(s.synced) != 1 || len(s.synced[0]) != 1 || s.synced[0][0].AcknowledgedBy != "ann" {
		t.Errorf("published = %+v, want the acknowledged incident", s.synced)
	}
	err := l.Acknowledge(ctx, "done", "ann")
	if err == nil || !strings.Contains(err.Error(), "acknowledge incident done-000: it was resolved at 2026-01-02T03:04:05Z") {
		t.Errorf("acknowledging a resolved incident: %v", err)
	}
}

// Going over the budget opens the monitor's own incident, sent to every
// notifier; the next day resolves it, and not before.
func TestLifecycleBudgetIncidentLastsTheDay(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 23, 0, 0, 0, time.UTC)
	l, s := newLifecycle(now)
	l.Budget.Limit = 1
	l.Budget.Add(1.5, now)
	l.OverBudget(ctx, now)
	fp := Fingerprint("", "", promptcanary.IncidentBudget)
	if len(s.steps) != 1 || s.steps[0].Incident.Fingerprint != fp || len(s.steps[0].Deliveries) != 1 {
		t.Fatalf("steps = %+v, want the budget incident notified to ops", s.steps)
	}
	if want := "daily budget of $1.00 reached ($1.50 spent): checks are skipped until 00:00 UTC"; s.steps[0].Event.Summary != want {
		t.Errorf("summary = %q, want %q", s.steps[0].Event.Summary, want)
	}
	l.BudgetDay(ctx, now.Add(59*time.Minute))
	if len(s.steps) != 1 {
		t.Errorf("the same day resolved the budget incident: %+v", s.steps[1:])
	}
	l.BudgetDay(ctx, now.Add(time.Hour))
	if len(s.steps) != 2 || s.steps[1].Event.Type != promptcanary.EventResolved {
		t.Errorf("steps = %+v, want the budget incident resolved the next day", s.steps)
	}
	if last := s.synced[len(s.synced)-1]; len(last) != 0 {
		t.Errorf("published after the new day: %+v, want no open incident", last)
	}
}
