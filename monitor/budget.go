package monitor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
)

// admit reports whether e may run now under the daily budget, and if not
// why.
func (m *Monitor) admit(e *entry, now time.Time) (bool, string) {
	if m.incidents.Budget.Limit <= 0 {
		return true, ""
	}
	m.budgetDay(context.Background(), now)
	e.mu.Lock()
	est := e.estimate
	e.mu.Unlock()
	spent := m.incidents.Budget.Today(now)
	if spent+est <= m.incidents.Budget.Limit {
		return true, ""
	}
	return false, fmt.Sprintf(reasonBudget+" of $%.2f reached: $%.2f spent today (UTC), and a run costs about $%.2f", m.incidents.Budget.Limit, spent, est)
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

// overBudget opens (or keeps open) the budget incident
// (incident.Lifecycle.OverBudget).
func (m *Monitor) overBudget(ctx context.Context, now time.Time) { m.incidents.OverBudget(ctx, now) }

// budgetDay resolves the budget incident once its day is over
// (incident.Lifecycle.BudgetDay).
func (m *Monitor) budgetDay(ctx context.Context, now time.Time) { m.incidents.BudgetDay(ctx, now) }
