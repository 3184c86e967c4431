package web

import (
	"cmp"
	"slices"

	"github.com/promptcanary/promptcanary"
)

// State is the one-word state of a check and provider, shown on the
// overview and in /api/v1/checks.
type State string

// The states of a check, most urgent first.
const (
	// StateDrift: a drift incident is open, or the last run flagged drift.
	StateDrift State = "drift"
	// StateUnmeasured: an unmeasured incident is open, or the last run
	// could not measure.
	StateUnmeasured State = "unmeasured"
	// StateStale: no run has completed for twice the check's interval.
	StateStale State = "stale"
	// StateNoBaseline: there is no baseline to compare against.
	StateNoBaseline State = "no_baseline"
	// StateSkipped: the last run was skipped (the daily budget).
	StateSkipped State = "skipped"
	// StateClean: the last run was measured and found no drift.
	StateClean State = "clean"
	// StatePending: the check has not run yet.
	StatePending State = "pending"
)

// Label is the state as the pages show it.
func (s State) Label() string {
	switch s {
	case StateNoBaseline:
		return "no baseline"
	case StatePending:
		return "not run yet"
	}
	return string(s)
}

// Class is the CSS class of the state's badge.
func (s State) Class() string { return "state-" + string(s) }

// stateOf decides the state of st: an open incident first (drift over
// unmeasured over budget), then staleness, a missing baseline and the last
// run's outcome.
func stateOf(st *CheckStatus) State {
	kinds := map[promptcanary.IncidentKind]bool{}
	for i := range st.Open {
		kinds[st.Open[i].Kind] = true
	}
	switch {
	case kinds[promptcanary.IncidentDrift]:
		return StateDrift
	case kinds[promptcanary.IncidentUnmeasured]:
		return StateUnmeasured
	case st.Stale:
		return StateStale
	case st.Baseline == "" && (st.Last == nil || st.Last.BaselineID == ""):
		return StateNoBaseline
	case st.Last == nil:
		return StatePending
	}
	switch st.Last.Outcome {
	case promptcanary.CheckDrift:
		return StateDrift
	case promptcanary.CheckUnmeasured:
		return StateUnmeasured
	case promptcanary.CheckSkipped:
		return StateSkipped
	}
	return StateClean
}

// worstIncident returns the open incident to show first: the most severe,
// then the newest; nil when none is open.
func worstIncident(open []promptcanary.Incident) *promptcanary.Incident {
	if len(open) == 0 {
		return nil
	}
	sorted := slices.Clone(open)
	slices.SortStableFunc(sorted, func(a, b promptcanary.Incident) int {
		return cmp.Or(cmp.Compare(b.Severity.Rank(), a.Severity.Rank()), b.OpenedAt.Compare(a.OpenedAt))
	})
	return &sorted[0]
}
