package promptcanary

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"time"
)

// The records of the monitor (promptcanary serve): scheduled check runs,
// incidents with their events, and notification attempts. They live here,
// with the other stored records, so that stores, notifiers and the
// dashboard need not import the monitor itself.

// CheckOutcome is what one scheduled run of a check concluded.
type CheckOutcome string

// The outcomes of a check run; the same strings label the
// promptcanary_check_runs_total metric.
const (
	// CheckClean: measured, and no confirmed drift.
	CheckClean CheckOutcome = "clean"
	// CheckDrift: measured, and drift flagged (confirmed or awaiting
	// confirmation: see CheckRun.Confirmed).
	CheckDrift CheckOutcome = "drift"
	// CheckUnmeasured: the run failed or too many of its calls did.
	CheckUnmeasured CheckOutcome = "unmeasured"
	// CheckSkipped: the run was not made (the daily budget, or a run of the
	// same check still in flight).
	CheckSkipped CheckOutcome = "skipped"
)

// CheckRun is one scheduled run of a check against one provider: the
// summary row behind the dashboard's charts and the check's history.
type CheckRun struct {
	// ID identifies the check run; Check and Provider the check.
	ID       string `json:"id"`
	Check    string `json:"check"`
	Provider string `json:"provider"`
	Suite    string `json:"suite"`
	// Slot is the scheduled time this run stands for; StartedAt and
	// FinishedAt when it really ran.
	Slot       time.Time    `json:"slot"`
	StartedAt  time.Time    `json:"started_at"`
	FinishedAt time.Time    `json:"finished_at"`
	Outcome    CheckOutcome `json:"outcome"`
	// RunID and ReportID are the stored run and drift report, "" when none
	// was made; ConfirmRunID and ConfirmReportID the confirmation run's.
	RunID           string `json:"run_id,omitempty"`
	ReportID        string `json:"report_id,omitempty"`
	ConfirmRunID    string `json:"confirm_run_id,omitempty"`
	ConfirmReportID string `json:"confirm_report_id,omitempty"`
	// BaselineID is the snapshot compared against.
	BaselineID string `json:"baseline_id,omitempty"`
	// Confirmed is set when a drift was confirmed by the confirmation run.
	Confirmed bool `json:"confirmed,omitempty"`
	// PassRate and Score are the run's pass rate and mean score, and
	// BaselinePassRate the baseline's over the same pairs: set only when
	// the run was measured (see Measured), and NaN when not a number. In
	// JSON a run that has none writes them as null.
	PassRate         float64 `json:"pass_rate"`
	Score            float64 `json:"score"`
	BaselinePassRate float64 `json:"baseline_pass_rate"`
	// Severity is the drift report's, none when clean.
	Severity Severity `json:"severity,omitempty"`
	// CostUSD is the estimated spend of the run and its confirmation.
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Reason says, in one scrubbed line, why a run was unmeasured or
	// skipped.
	Reason string `json:"reason,omitempty"`
	// RunLevel is the run's suite rate and its binomial variance as the
	// run-level rule measures them (monitor.yaml run_level: true), nil
	// when the check does not use the rule or the run measured nothing.
	RunLevel *SuiteRunRate `json:"run_level,omitempty"`
}

// SuiteRunRate is one run's suite rate (the mean of its pairs' pass
// rates) and the binomial variance of that rate; for a check with a
// control arm also the run's difference from the control in the same
// slot.
type SuiteRunRate struct {
	Rate float64 `json:"rate"`
	Var  float64 `json:"variance"`
	// ControlDiff is the weighted mean of the run's pair pass rates less
	// its control arm's (drift.ArmDifference), nil for a check without a
	// control or a slot whose control measured none of the run's pairs;
	// Control is that control's NAME/MODEL.
	ControlDiff *float64 `json:"control_difference,omitempty"`
	Control     string   `json:"control,omitempty"`
}

// Measured reports whether the check run measured anything: clean or
// drift. An unmeasured or skipped run has no pass rate or score.
func (cr *CheckRun) Measured() bool { return cr.Outcome == CheckClean || cr.Outcome == CheckDrift }

// checkRunJSON is the JSON form of a CheckRun: its fields, whether it was
// measured, and its rates as numbers or null.
type checkRunJSON struct {
	checkRunFields
	Measured         bool     `json:"measured"`
	PassRate         *float64 `json:"pass_rate"`
	Score            *float64 `json:"score"`
	BaselinePassRate *float64 `json:"baseline_pass_rate"`
}

// checkRunFields is CheckRun without its methods, for its JSON form.
type checkRunFields CheckRun

// MarshalJSON writes cr with "measured" and its pass rates and score as
// null when it has none (an unmeasured or skipped run) or they are not
// numbers: a run that measured nothing never reads as a rate of 0 or 1.
func (cr CheckRun) MarshalJSON() ([]byte, error) {
	out := checkRunJSON{checkRunFields: checkRunFields(cr), Measured: cr.Measured()}
	if out.Measured {
		out.PassRate, out.Score, out.BaselinePassRate = number(cr.PassRate), number(cr.Score), number(cr.BaselinePassRate)
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes: null rates are NaN.
func (cr *CheckRun) UnmarshalJSON(b []byte) error {
	var in checkRunJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*cr = CheckRun(in.checkRunFields)
	cr.PassRate, cr.Score, cr.BaselinePassRate = orNaN(in.PassRate), orNaN(in.Score), orNaN(in.BaselinePassRate)
	return nil
}

// number returns f for JSON, nil (null) when it is not finite.
func number(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// orNaN reads a number written by number: null is NaN.
func orNaN(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

// IncidentKind says what an incident is about.
type IncidentKind string

// The kinds of incident.
const (
	// IncidentDrift: a confirmed drift (or a gradual decline).
	IncidentDrift IncidentKind = "drift"
	// IncidentUnmeasured: the check failed to run twice in a row, or has
	// not completed for twice its interval.
	IncidentUnmeasured IncidentKind = "unmeasured"
	// IncidentBudget: the daily cost budget stopped checks.
	IncidentBudget IncidentKind = "budget"
)

// IncidentUnit is one flagged unit of a drift incident, as notifications
// carry it.
type IncidentUnit struct {
	// Unit is "pair", "probe", "category" or "suite"; Name its key.
	Unit string `json:"unit"`
	Name string `json:"name"`
	// Baseline and Current are the pass rates of each side.
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
	// Q is the unit's adjusted p-value (its q-value), 0 when none.
	Q float64 `json:"q"`
}

// SortUnits returns a copy of units in the order every surface lists
// them (the incident's summary and page, every notifier): the pairs that
// broke first, then probes, categories and the suite, so that the pair
// behind a finding is never cut off behind broader units; within a kind
// the largest drop in pass rate first, then the smaller q, then the name.
func SortUnits(units []IncidentUnit) []IncidentUnit {
	out := slices.Clone(units)
	slices.SortStableFunc(out, func(a, b IncidentUnit) int {
		return cmp.Or(cmp.Compare(unitRank(a.Unit), unitRank(b.Unit)),
			cmp.Compare(a.Current-a.Baseline, b.Current-b.Baseline), cmp.Compare(a.Q, b.Q), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// unitRank orders unit kinds from the narrowest.
func unitRank(kind string) int {
	switch kind {
	case UnitPair:
		return 0
	case UnitProbe:
		return 1
	case UnitCategory:
		return 2
	case UnitSuite:
		return 3
	}
	return 4
}

// Incident is an open or resolved finding of the monitor about one check
// and provider.
type Incident struct {
	ID string `json:"id"`
	// Fingerprint identifies what the incident is about, (check, provider,
	// kind): the dedup key notifiers use.
	Fingerprint string         `json:"fingerprint"`
	Check       string         `json:"check"`
	Suite       string         `json:"suite"`
	Provider    string         `json:"provider"`
	Kind        IncidentKind   `json:"kind"`
	Severity    Severity       `json:"severity"`
	Summary     string         `json:"summary"`
	Units       []IncidentUnit `json:"units,omitempty"`
	// Attribution is the likely cause of the change, from the drift
	// report that opened or last updated the incident.
	Attribution *Attribution `json:"attribution,omitempty"`
	// RunID is the latest run that flagged it (the confirmation run when
	// confirmed), ReportID its drift report.
	RunID    string    `json:"run_id,omitempty"`
	ReportID string    `json:"report_id,omitempty"`
	OpenedAt time.Time `json:"opened_at"`
	// UpdatedAt is the last change of state, severity or units.
	UpdatedAt time.Time `json:"updated_at"`
	// ResolvedAt is zero while the incident is open.
	ResolvedAt time.Time `json:"resolved_at,omitzero"`
	// AcknowledgedAt is zero until someone acknowledges the incident,
	// which silences repeats until its state changes.
	AcknowledgedAt time.Time `json:"acknowledged_at,omitzero"`
	AcknowledgedBy string    `json:"acknowledged_by,omitempty"`
	// CleanRuns counts the consecutive clean runs since the last finding.
	CleanRuns int `json:"clean_runs"`
	// NotifiedAt is when the last firing notification was sent; NotifiedTo
	// the notifiers that were sent the open (a resolve goes only to them).
	NotifiedAt time.Time `json:"notified_at,omitzero"`
	NotifiedTo []string  `json:"notified_to,omitempty"`
}

// Open reports whether the incident is not resolved.
func (i *Incident) Open() bool { return i.ResolvedAt.IsZero() }

// IncidentEventType names a step of an incident's lifecycle.
type IncidentEventType string

// The steps of an incident's lifecycle.
const (
	EventOpened       IncidentEventType = "opened"
	EventUpdated      IncidentEventType = "updated"
	EventRepeated     IncidentEventType = "repeated"
	EventAcknowledged IncidentEventType = "acknowledged"
	EventResolved     IncidentEventType = "resolved"
)

// IncidentEvent is one step of an incident's lifecycle.
type IncidentEvent struct {
	IncidentID string            `json:"incident_id"`
	At         time.Time         `json:"at"`
	Type       IncidentEventType `json:"type"`
	RunID      string            `json:"run_id,omitempty"`
	Severity   Severity          `json:"severity,omitempty"`
	Summary    string            `json:"summary"`
}

// NotificationStatus is what a notification tells: the incident fires or
// is resolved.
type NotificationStatus string

// The statuses of a notification.
const (
	NotificationFiring   NotificationStatus = "firing"
	NotificationResolved NotificationStatus = "resolved"
)

// NotificationAttempt is one attempt to deliver one notification of an
// incident to one notifier.
type NotificationAttempt struct {
	// ID identifies the notification (all attempts at one delivery share
	// it); Attempt counts from 1.
	ID         string             `json:"id"`
	IncidentID string             `json:"incident_id"`
	Notifier   string             `json:"notifier"`
	Status     NotificationStatus `json:"status"`
	// Event is the lifecycle step notified (opened, updated, repeated,
	// resolved).
	Event   IncidentEventType `json:"event"`
	Attempt int               `json:"attempt"`
	At      time.Time         `json:"at"`
	// OK is set when the notifier accepted it; Code is the HTTP status (0
	// when none came back) and Error a scrubbed one-line error.
	OK    bool   `json:"ok"`
	Code  int    `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
}
