// Package config loads and validates monitor.yaml, the configuration of
// the monitor (promptcanary serve): its checks, schedules, notifiers,
// budget and incident policy. Every error names the file, the line and
// the field, with a hint where one helps.
package config

import (
	"time"

	"github.com/promptcanary/promptcanary/monitor/notify"
	"github.com/promptcanary/promptcanary/suite"
)

// FileName is the monitor configuration's conventional name.
const FileName = "monitor.yaml"

// Config is a loaded and validated monitor.yaml. Paths are absolute.
type Config struct {
	// Path is the monitor.yaml the configuration came from.
	Path string
	// Listen is the address of the dashboard, /metrics and the API.
	Listen string
	// BaseURL is the dashboard's address as people reach it (behind a
	// proxy, or when Listen binds every interface), for the links in
	// notifications; "" derives it from Listen when that names a host.
	BaseURL string
	// AllowedHosts are the host names, besides loopback names and
	// addresses, IP addresses, Listen's host and BaseURL's host, that the
	// dashboard answers to (the Host header, against DNS rebinding); "*"
	// allows any.
	AllowedHosts []string
	// Store is the history's path (absolute) or a DSN as given.
	Store string
	// AdminToken enables acknowledging incidents and promoting baselines
	// from the dashboard and the API; "" keeps those actions off. A secret.
	AdminToken string
	// ShutdownGrace bounds how long runs in flight may finish after a
	// stop was asked for.
	ShutdownGrace time.Duration
	Budget        Budget
	Incidents     Incidents
	// Checks holds one entry per check and provider: a check with
	// providers: [a, b] becomes two entries with the same Name.
	Checks    []Check
	Notifiers []Notifier
	// OTel is where traces of the checks go (otel:).
	OTel OTel

	// secrets are the values Load read from the environment that must
	// never be shown (see Secrets).
	secrets []string
}

// Budget caps the estimated spend of the monitor.
type Budget struct {
	// USDPerDay skips checks once today's (UTC) estimated spend would pass
	// it; 0 means no budget.
	USDPerDay float64
}

// Incidents is the incident policy.
type Incidents struct {
	// ResolveAfter is how many consecutive clean runs resolve an incident.
	ResolveAfter int
	// RepeatInterval is how often an unchanged open incident is notified
	// again.
	RepeatInterval time.Duration
}

// Check is one check of one provider.
type Check struct {
	// Name is unique among the checks, [a-z0-9-]: the identity of the
	// check's incidents and metrics (with Provider).
	Name string
	// SuitePath is the check's canary.yaml and Suite the suite loaded from it.
	SuitePath string
	Suite     *suite.Suite
	// Provider is NAME/MODEL.
	Provider string
	Schedule Schedule
	// Jitter delays each slot by up to this fraction of the interval.
	Jitter float64
	// Samples per prompt of each run.
	Samples int
	// Confirm runs a confirmation run before an incident opens.
	Confirm bool
	// RunLevel judges the suite unit by the run-level rule
	// (policy.Window): against the run-to-run spread of the baseline's
	// runs and the check's last clean runs, with a window of later runs
	// confirming, instead of the binomial test of drift.Compare. Off by
	// default.
	RunLevel bool
	// ConfirmAfter delays the confirmation run after the run that flagged
	// drift (0: at once), so that it samples a later hour than a bad hour
	// of the provider; shorter than the time between two slots.
	ConfirmAfter time.Duration
	// Notify names the notifiers of the check's incidents.
	Notify []string
	// Baseline is "latest" or the id of a pinned baseline (a snapshot id
	// or a run id); it is never replaced automatically.
	Baseline string
	// MaxErrors is how many failed calls a run may have and still count
	// as measured.
	MaxErrors int
	// Control is the NAME/MODEL of the check's control arm, "" for none:
	// run in the same slot with the same prompts, against its own
	// baseline, so that a drift report can tell the provider's change
	// from a change the control shares (check.CompareRequest.Control).
	// ControlLine is the line of monitor.yaml that set it.
	Control     string
	ControlLine int
	// Candidate is the check's upgrade gate (candidate:), nil when none.
	Candidate *Candidate
	// Line is the check's line in monitor.yaml.
	Line int
}

// Schedule says when a check runs.
type Schedule interface {
	// Next returns the first slot strictly after after.
	Next(after time.Time) time.Time
	// Interval is the nominal spacing of the slots: a check that has not
	// completed for twice it is stale.
	Interval() time.Duration
	// String describes the schedule ("every 30m", "cron 0 */2 * * * (UTC)").
	String() string
}

// Notifier is one configured notifier. Its type is the notifiers' own
// (notify.Config), so that the notifiers need not import the
// configuration, which reads suites and so depends on the run engine.
type Notifier = notify.Config
