package cli

import (
	"context"
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/store"
)

// printGate prints, under a check run of serve --once, the upgrade gate
// its slot made when the check names a candidate: the gate's verdict in
// one line, as its incident words it.
func (a *app) printGate(ctx context.Context, st store.Store, r promptcanary.CheckRun) {
	gs, ok := st.(store.Gates)
	if !ok || r.ID == "" {
		return
	}
	latest, err := gs.Gates(ctx, r.Check, r.Provider, 1)
	if err != nil || len(latest) == 0 || latest[0].CheckRunID != r.ID {
		return
	}
	fmt.Fprintf(a.stdio.Out, "%-10s %s  %s  %s\n", "gate", termtext.Safe(r.Check), termtext.Safe(r.Provider),
		termtext.Safe(incident.GateSummary(&latest[0])))
}
