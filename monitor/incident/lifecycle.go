package incident

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/monitor/notify"
	"github.com/promptcanary/promptcanary/store"
)

// The keys of the lifecycle's log lines (the monitor's own keys).
const (
	logCheck    = "check"
	logProvider = "provider"
	logIncident = "incident"
	logKind     = "kind"
	logEvent    = "event"
	logSeverity = "severity"
	logReason   = "reason"
	logRun      = "run"
	logErr      = "err"
)

// Subject is what an incident is about: a check and provider, or the
// monitor itself (the budget, Check and Provider empty).
type Subject struct {
	Check, Provider, Suite string
	// Notify names the notifiers of the check; the monitor's own
	// incidents go to every notifier.
	Notify []string
}

// Finding is what a run or a rule found, to open or update an incident
// with.
type Finding struct {
	Kind     promptcanary.IncidentKind
	Severity promptcanary.Severity
	Summary  string
	Units    []promptcanary.IncidentUnit
	RunID    string
	ReportID string
	// Attribution is the likely cause, from the drift report of RunID;
	// nil when the finding rests on no such report.
	Attribution *promptcanary.Attribution
}

// Outbox is what the lifecycle needs of the outbox that delivers its
// notifications: which notifiers it knows, and a wake-up once a step with
// notifications is stored.
type Outbox interface {
	Known(name string) bool
	Names() []string
	Wake()
}

// Lifecycle keeps the incidents through their lifecycle (open, update,
// repeat, acknowledge, resolve): it records each step in the store, with
// its notifications in the store's outbox, before the book of open
// incidents shows it. Its fields are set before it is used; its methods
// that say so need the book's lock (Book.Lock).
type Lifecycle struct {
	// Book holds the open incidents.
	Book Book
	// Budget is today's spend against the daily budget, whose exhaustion
	// is an incident of its own.
	Budget Budget

	// Store keeps incidents, their events and notification attempts.
	Store store.Monitor
	// Steps records a step of an incident with its notifications in one
	// transaction.
	Steps interface {
		RecordStep(ctx context.Context, step store.IncidentStep) error
	}
	// Outbox delivers the notifications Steps recorded.
	Outbox Outbox
	// Notifiers are the configured notifiers, for the recipients of an
	// incident.
	Notifiers []notify.Notifier
	// Now is the clock; Log receives the log lines.
	Now func() time.Time
	Log *slog.Logger
	// Repeat is how long an unchanged, unacknowledged incident waits
	// before it is notified again; ResolveAfter is how many clean runs in
	// a row resolve one (at least 1).
	Repeat       time.Duration
	ResolveAfter int
	// Line scrubs secrets from a summary and keeps its first line.
	Line func(string) string
	// Wrote notes the outcome of a write to the store and returns it.
	Wrote func(error) error
	// Attempt records a notification attempt: a failed one for a notifier
	// a step names but the outbox does not know.
	Attempt func(promptcanary.NotificationAttempt)
	// Published receives the open incidents after each step (Sync).
	Published func([]promptcanary.Incident)
}

// Fire opens an incident for f, or updates the open one of the same
// fingerprint. The caller holds the book's lock.
func (l *Lifecycle) Fire(ctx context.Context, sub Subject, f Finding) {
	f.Summary = l.Line(f.Summary)
	f.Attribution = l.attribution(f.Attribution)
	fp := Fingerprint(sub.Check, sub.Provider, f.Kind)
	if inc := l.Book.Get(fp); inc != nil {
		l.update(ctx, sub, inc, f)
		return
	}
	l.open(ctx, sub, fp, f)
}

// open opens a new incident for f and notifies it: the incident, its
// opened event and its notifications are recorded in one step. The
// caller holds the book's lock.
func (l *Lifecycle) open(ctx context.Context, sub Subject, fp string, f Finding) {
	now := l.Now().UTC()
	inc := &promptcanary.Incident{
		ID: promptcanary.NewID(), Fingerprint: fp, Check: sub.Check, Suite: sub.Suite, Provider: sub.Provider,
		Kind: f.Kind, Severity: f.Severity, Summary: f.Summary, Units: f.Units, RunID: f.RunID, ReportID: f.ReportID,
		Attribution: f.Attribution, OpenedAt: now, UpdatedAt: now,
	}
	to := l.recipients(sub, inc)
	if len(to) > 0 {
		inc.NotifiedTo, inc.NotifiedAt = to, now
	}
	st, unknown := l.step(inc, promptcanary.EventOpened, f.RunID, inc.Summary, promptcanary.NotificationFiring, to)
	err := l.Wrote(l.Steps.RecordStep(ctx, st))
	if errors.Is(err, store.ErrConflict) {
		// Another monitor sharing the store opened it first: adopt it.
		if adopted := l.adopt(ctx, sub, fp); adopted != nil {
			l.Book.Put(fp, adopted)
			l.update(ctx, sub, adopted, f)
			return
		}
	}
	if err != nil {
		// Not kept either: an incident only this process knows would be
		// dropped by the next read of the store and invented again with a
		// new id. The next run or tick finds the problem again.
		l.Log.Error("record the incident: not opened, neither stored nor notified", logCheck, sub.Check, logProvider, sub.Provider,
			logKind, string(f.Kind), logErr, err)
		return
	}
	l.Book.Put(fp, inc)
	l.stored(ctx, inc, st, promptcanary.NotificationFiring, unknown)
}

// update applies f to the open incident inc: a change of severity or of
// the flagged units is an update, notified; an unchanged finding is
// notified again after the repeat interval unless acknowledged; either way
// the incident is not clean, and a finding from a run's report becomes
// its latest run with that report's attribution (a new likely cause alone
// is not notified: it is carried by the next notification). The caller
// holds the book's lock.
func (l *Lifecycle) update(ctx context.Context, sub Subject, inc *promptcanary.Incident, f Finding) {
	now := l.Now().UTC()
	inc.CleanRuns = 0
	if f.RunID != "" {
		inc.RunID, inc.ReportID, inc.Attribution = f.RunID, f.ReportID, f.Attribution
	}
	last := inc.NotifiedAt
	if last.IsZero() {
		last = inc.UpdatedAt
	}
	var ev promptcanary.IncidentEventType
	switch {
	case f.Severity != inc.Severity || !SameUnits(f.Units, inc.Units):
		ev = promptcanary.EventUpdated
		inc.Severity, inc.Units, inc.Summary, inc.UpdatedAt = f.Severity, f.Units, f.Summary, now
		// Acknowledging silences repeats until the state changes: it has.
		inc.AcknowledgedAt, inc.AcknowledgedBy = time.Time{}, ""
	case inc.AcknowledgedAt.IsZero() && now.Sub(last) >= l.Repeat:
		ev = promptcanary.EventRepeated
		inc.Summary = f.Summary
	}
	var to []string
	if ev != "" {
		to = l.recipients(sub, inc)
		if len(to) > 0 {
			inc.NotifiedAt = now
			for _, n := range to {
				if !slices.Contains(inc.NotifiedTo, n) {
					inc.NotifiedTo = append(inc.NotifiedTo, n)
				}
			}
		} else if ev == promptcanary.EventRepeated {
			ev = "" // nobody to remind
		}
	}
	if ev == "" {
		l.save(ctx, inc)
		return
	}
	l.recordStep(ctx, inc, ev, f.RunID, inc.Summary, promptcanary.NotificationFiring, to)
}

// save stores inc as it is now, logging a failure.
func (l *Lifecycle) save(ctx context.Context, inc *promptcanary.Incident) {
	if err := l.Wrote(l.Store.SaveIncident(ctx, inc)); err != nil {
		l.Log.Error("record the incident", logIncident, inc.ID, logErr, err)
	}
}

// recordStep records a step of inc's lifecycle with its notifications to
// the notifiers named, logs it, and wakes the outbox.
func (l *Lifecycle) recordStep(ctx context.Context, inc *promptcanary.Incident, t promptcanary.IncidentEventType, runID, summary string,
	status promptcanary.NotificationStatus, to []string) {
	st, unknown := l.step(inc, t, runID, summary, status, to)
	if err := l.Wrote(l.Steps.RecordStep(ctx, st)); err != nil {
		l.Log.Error("record the incident: neither stored nor notified", logIncident, inc.ID, logEvent, string(t), logErr, err)
		return
	}
	l.stored(ctx, inc, st, status, unknown)
}

// stored follows a step of inc stored with its notifications: it logs the
// step, traces it, records the notifiers it did not know and wakes the
// outbox.
func (l *Lifecycle) stored(ctx context.Context, inc *promptcanary.Incident, st store.IncidentStep,
	status promptcanary.NotificationStatus, unknown []string) {
	l.logEvent(inc, st.Event)
	telemetry.From(ctx).Incident(inc, string(st.Event.Type))
	l.noteUnknown(st, status, unknown)
	l.Outbox.Wake()
}

// step returns the step of inc's lifecycle t (a notification of status
// for each notifier in to that the outbox knows), with its event. A
// notifier it does not know is recorded as a failed attempt by noteUnknown
// once the step is stored.
func (l *Lifecycle) step(inc *promptcanary.Incident, t promptcanary.IncidentEventType, runID, summary string,
	status promptcanary.NotificationStatus, to []string) (store.IncidentStep, []string) {
	now := l.Now().UTC()
	st := store.IncidentStep{
		Incident: inc,
		Event:    promptcanary.IncidentEvent{IncidentID: inc.ID, At: now, Type: t, RunID: runID, Severity: inc.Severity, Summary: l.Line(summary)},
	}
	var unknown []string
	for _, name := range to {
		if !l.Outbox.Known(name) {
			unknown = append(unknown, name)
			continue
		}
		st.Deliveries = append(st.Deliveries, store.Delivery{ID: promptcanary.NewID(), IncidentID: inc.ID, Notifier: name,
			Status: status, Event: t, CreatedAt: now})
	}
	return st, unknown
}

// noteUnknown records a failed attempt for each notifier of a stored
// step that the outbox does not know (removed from monitor.yaml since the
// incident opened).
func (l *Lifecycle) noteUnknown(st store.IncidentStep, status promptcanary.NotificationStatus, unknown []string) {
	for _, name := range unknown {
		l.Attempt(promptcanary.NotificationAttempt{
			ID: promptcanary.NewID(), IncidentID: st.Incident.ID, Notifier: name, Status: status, Event: st.Event.Type,
			Attempt: 1, At: st.Event.At, Error: fmt.Sprintf("unknown notifier %q%s", name, suggest.Hint(name, l.Outbox.Names())),
		})
	}
}

// adopt loads the open incident of fp that another writer stored.
func (l *Lifecycle) adopt(ctx context.Context, sub Subject, fp string) *promptcanary.Incident {
	open, err := l.Store.Incidents(ctx, store.IncidentFilter{Check: sub.Check, OpenOnly: true})
	if err != nil {
		l.Log.Error("load the open incidents", logCheck, sub.Check, logErr, err)
		return nil
	}
	for i := range open {
		if open[i].Fingerprint == fp {
			return &open[i]
		}
	}
	return nil
}

// NotClean restarts the count of clean runs of an open incident. The
// caller holds the book's lock.
func (l *Lifecycle) NotClean(ctx context.Context, inc *promptcanary.Incident) {
	if inc.CleanRuns == 0 {
		return
	}
	inc.CleanRuns = 0
	l.save(ctx, inc)
}

// Clean counts the clean run cr for the open incident of fp, and resolves
// it after ResolveAfter of them in a row: the run that resolves it
// becomes its latest run. The caller holds the book's lock.
func (l *Lifecycle) Clean(ctx context.Context, fp string, cr *promptcanary.CheckRun) {
	inc := l.Book.Get(fp)
	if inc == nil {
		return
	}
	inc.CleanRuns++
	if inc.CleanRuns < l.ResolveAfter {
		l.save(ctx, inc)
		return
	}
	if cr.RunID != "" {
		inc.RunID, inc.ReportID = cr.RunID, cr.ReportID
	}
	l.Resolve(ctx, inc, cr.RunID, fmt.Sprintf("resolved after %d clean run(s)", inc.CleanRuns))
}

// Resolve closes inc and tells the notifiers that were sent it. The
// caller holds the book's lock.
func (l *Lifecycle) Resolve(ctx context.Context, inc *promptcanary.Incident, runID, why string) {
	now := l.Now().UTC()
	inc.ResolvedAt, inc.UpdatedAt = now, now
	l.Book.Delete(inc.Fingerprint)
	l.recordStep(ctx, inc, promptcanary.EventResolved, runID, why, promptcanary.NotificationResolved, inc.NotifiedTo)
}

// event records one step of an incident's lifecycle that notifies nobody
// (an acknowledgement) and logs it.
func (l *Lifecycle) event(ctx context.Context, inc *promptcanary.Incident, t promptcanary.IncidentEventType, runID, summary string) {
	ev := promptcanary.IncidentEvent{IncidentID: inc.ID, At: l.Now().UTC(), Type: t, RunID: runID, Severity: inc.Severity, Summary: l.Line(summary)}
	if err := l.Wrote(l.Store.AddIncidentEvent(ctx, ev)); err != nil {
		l.Log.Error("record the incident event", logIncident, inc.ID, logEvent, string(t), logErr, err)
	}
	l.logEvent(inc, ev)
}

// logEvent logs a step of an incident's lifecycle.
func (l *Lifecycle) logEvent(inc *promptcanary.Incident, ev promptcanary.IncidentEvent) {
	l.Log.Info("incident "+string(ev.Type), logIncident, inc.ID, logKind, string(inc.Kind), logCheck, inc.Check,
		logProvider, inc.Provider, logSeverity, string(inc.Severity), logReason, ev.Summary)
}

// recipients are the notifiers of sub that want inc at its severity.
func (l *Lifecycle) recipients(sub Subject, inc *promptcanary.Incident) []string {
	names := sub.Notify
	if sub.Check == "" {
		// The monitor's own incidents go to every notifier.
		names = nil
		for _, n := range l.Notifiers {
			names = append(names, n.Name())
		}
	}
	var to []string
	for _, n := range l.Notifiers {
		if slices.Contains(names, n.Name()) && notify.Wants(n, notify.Message{Status: promptcanary.NotificationFiring, Incident: *inc}) {
			to = append(to, n.Name())
		}
	}
	return to
}

// Sync publishes the open incidents to readers (Book.List) and hands them
// to Published. The caller holds the book's lock.
func (l *Lifecycle) Sync() {
	l.Published(l.Book.Publish())
}

// Acknowledge silences the repeats of an open incident until its state
// changes (see Fire). id may be a unique prefix; by names who
// acknowledged. It takes the book's lock.
func (l *Lifecycle) Acknowledge(ctx context.Context, id, by string) error {
	stored, err := l.Store.Incident(ctx, id)
	if err != nil {
		return fmt.Errorf("acknowledge incident %q: %w", id, err)
	}
	l.Book.Lock()
	defer l.Book.Unlock()
	inc := l.Book.Get(stored.Fingerprint)
	if inc == nil || inc.ID != stored.ID {
		if !stored.Open() {
			return fmt.Errorf("acknowledge incident %s: it was resolved at %s", short(stored.ID), stored.ResolvedAt.UTC().Format(time.RFC3339))
		}
		inc = stored
		l.Book.Put(inc.Fingerprint, inc)
	}
	if !inc.AcknowledgedAt.IsZero() {
		return nil
	}
	by = l.Line(strings.TrimSpace(by))
	if len(by) > 200 {
		by = by[:200]
	}
	inc.AcknowledgedAt, inc.AcknowledgedBy = l.Now().UTC(), by
	err = l.Store.SaveIncident(context.WithoutCancel(ctx), inc)
	l.Sync()
	if err != nil {
		return fmt.Errorf("acknowledge incident %s: %w", short(inc.ID), err)
	}
	summary := "acknowledged"
	if by != "" {
		summary += " by " + by
	}
	l.event(context.WithoutCancel(ctx), inc, promptcanary.EventAcknowledged, "", summary)
	return nil
}

// short is the first 8 characters of an id, as messages name it.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// SameUnits reports whether two unit sets name the same units (their
// rates may differ from run to run).
func SameUnits(a, b []promptcanary.IncidentUnit) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(u promptcanary.IncidentUnit) string { return u.Unit + "\x00" + u.Name }
	ka := make([]string, len(a))
	kb := make([]string, len(b))
	for i := range a {
		ka[i], kb[i] = key(a[i]), key(b[i])
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}

// severityBudget is the severity of the budget incident: a budget that
// stops checks is an operational matter.
const severityBudget = promptcanary.SeverityMedium

// OverBudget opens (or keeps open) the budget incident, the monitor's
// own, which goes to every notifier. It takes the book's lock.
func (l *Lifecycle) OverBudget(ctx context.Context, now time.Time) {
	l.Book.Lock()
	defer l.Book.Unlock()
	defer l.Sync()
	l.Fire(context.WithoutCancel(ctx), Subject{}, Finding{Kind: promptcanary.IncidentBudget, Severity: severityBudget,
		Summary: fmt.Sprintf("daily budget of $%.2f reached ($%.2f spent): checks are skipped until 00:00 UTC", l.Budget.Limit, l.Budget.Today(now))})
}

// BudgetDay resolves the budget incident once its day is over. It takes
// the book's lock.
func (l *Lifecycle) BudgetDay(ctx context.Context, now time.Time) {
	l.Book.Lock()
	defer l.Book.Unlock()
	inc := l.Book.Get(Fingerprint("", "", promptcanary.IncidentBudget))
	if inc == nil || DayOf(inc.OpenedAt) >= DayOf(now) {
		return
	}
	l.Resolve(context.WithoutCancel(ctx), inc, "", "a new day: the budget is available again")
	l.Sync()
}
