package monitor

import (
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/incident"
)

// schedulingSkip reports whether cr is a slot skipped for the scheduler's
// sake (the check's previous run was still in flight, the monitor was
// stopping): recorded, but no result of the check, so not its last run.
// A run the budget skipped is one.
func schedulingSkip(cr *promptcanary.CheckRun) bool {
	return cr.Outcome == promptcanary.CheckSkipped && !strings.HasPrefix(cr.Reason, incident.ReasonBudget)
}
