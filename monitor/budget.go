package monitor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/incident"
)

// admit reports whether e may run now under the daily budget, and if not
// why.
func (m *Monitor) admit(e *entry, now time.Time) (bool, string) {
	if m.budget.Limit <= 0 {
		return true, ""
	}
	m.budgetDay(context.Background(), now)
	e.mu.Lock()
	est := e.estimate
	e.mu.Unlock()
	spent := m.budget.Today(now)
	if spent+est <= m.budget.Limit {
		return true, ""
	}
	return false, fmt.Sprintf(reasonBudget+" of $%.2f reached: $%.2f spent today (UTC), and a run costs about $%.2f", m.budget.Limit, spent, est)
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
	m.inc.Lock()
	defer m.inc.Unlock()
	defer m.syncOpen()
	m.fire(context.WithoutCancel(ctx), subject{}, finding{kind: promptcanary.IncidentBudget, severity: severityBudget,
		summary: fmt.Sprintf("daily budget of $%.2f reached ($%.2f spent): checks are skipped until 00:00 UTC", m.budget.Limit, m.budget.Today(now))})
}

// budgetDay resolves the budget incident once its day is over.
func (m *Monitor) budgetDay(ctx context.Context, now time.Time) {
	m.inc.Lock()
	defer m.inc.Unlock()
	inc := m.inc.Get(Fingerprint("", "", promptcanary.IncidentBudget))
	if inc == nil || incident.DayOf(inc.OpenedAt) >= incident.DayOf(now) {
		return
	}
	m.resolve(context.WithoutCancel(ctx), inc, "", "a new day: the budget is available again")
	m.syncOpen()
}
