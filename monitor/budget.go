package monitor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary"
)

// budget is today's (UTC) estimated spend against the daily budget.
type budget struct {
	mu    sync.Mutex
	limit float64 // USD per day; 0 means none
	day   string  // the UTC date spent is of
	spent float64
}

// dayOf is the UTC date of t.
func dayOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// add counts cost spent at t.
func (b *budget) add(cost float64, at time.Time) {
	if cost <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	d := dayOf(at)
	switch {
	case d == b.day:
		b.spent += cost
	case d > b.day:
		b.day, b.spent = d, cost
	}
}

// today returns what was spent on now's day.
func (b *budget) today(now time.Time) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if dayOf(now) != b.day {
		return 0
	}
	return b.spent
}

// admit reports whether e may run now under the daily budget, and if not
// why.
func (m *Monitor) admit(e *entry, now time.Time) (bool, string) {
	if m.budget.limit <= 0 {
		return true, ""
	}
	m.budgetDay(context.Background(), now)
	e.mu.Lock()
	est := e.estimate
	e.mu.Unlock()
	spent := m.budget.today(now)
	if spent+est <= m.budget.limit {
		return true, ""
	}
	return false, fmt.Sprintf(reasonBudget+" of $%.2f reached: $%.2f spent today (UTC), and a run costs about $%.2f", m.budget.limit, spent, est)
}

// reasonBudget begins the reason of a run the daily budget skipped.
const reasonBudget = "daily budget"

// schedulingSkip reports whether cr is a slot skipped for the scheduler's
// sake (the check's previous run was still in flight, the monitor was
// stopping): recorded, but no result of the check, so not its last run.
// A run the budget skipped is one.
func schedulingSkip(cr *promptcanary.CheckRun) bool {
	return cr.Outcome == promptcanary.CheckSkipped && !strings.HasPrefix(cr.Reason, reasonBudget)
}

// overBudget opens (or keeps open) the budget incident.
func (m *Monitor) overBudget(ctx context.Context, now time.Time) {
	m.inc.mu.Lock()
	defer m.inc.mu.Unlock()
	defer m.syncOpen()
	m.fire(context.WithoutCancel(ctx), subject{}, finding{kind: promptcanary.IncidentBudget, severity: severityBudget,
		summary: fmt.Sprintf("daily budget of $%.2f reached ($%.2f spent): checks are skipped until 00:00 UTC", m.budget.limit, m.budget.today(now))})
}

// budgetDay resolves the budget incident once its day is over.
func (m *Monitor) budgetDay(ctx context.Context, now time.Time) {
	m.inc.mu.Lock()
	defer m.inc.mu.Unlock()
	inc := m.inc.get(Fingerprint("", "", promptcanary.IncidentBudget))
	if inc == nil || dayOf(inc.OpenedAt) >= dayOf(now) {
		return
	}
	m.resolve(context.WithoutCancel(ctx), inc, "", "a new day: the budget is available again")
	m.syncOpen()
}
