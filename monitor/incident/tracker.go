package incident

import (
	"slices"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/policy"
)

// ReasonInterrupted is the reason of a run the monitor's stop cancelled:
// a stop is no finding, so such a run is not counted as unmeasured.
const ReasonInterrupted = "interrupted: the monitor stopped before the run finished"

// HistoryRuns is how many of a check's latest runs are read back to
// rebuild its Tracker: enough for the trend detector's warmup several
// times over, today's spend of a check that runs every few minutes, and
// the count of failures in a row.
const HistoryRuns = 500

// Monitors sharing a store split the slots of a check between them, so no
// monitor sees every run: what a decision depends on (failures in a row,
// the last success, the trend detector, the open incidents, today's
// spend) is read back from the store whenever another monitor recorded a
// run since this one last looked (CatchUp). A lone monitor finds nothing
// new and reads little.

// syncProbe is how many of a check's newest runs CatchUp reads to learn
// whether another monitor recorded one.
const syncProbe = 8

// ringSize is how many run ids an idRing remembers: more than syncProbe
// and the runs the monitor's ticker reads back, so that runs already
// accounted for are recognised.
const ringSize = 64

// Tracker follows one check's runs for what its incidents depend on: the
// unmeasured runs in a row, the last measured run, the trend detector and
// the baseline it runs against, the cost of a run for the budget, and the
// runs it accounts for. Its methods are safe for concurrent use.
type Tracker struct {
	// Subject is the check the tracker follows; set before use.
	Subject Subject
	// Trend detects a gradual decline of the check's pass rate; set (or
	// left zero, for the policy's defaults) before use.
	Trend policy.Trend

	mu          sync.Mutex // guards Trend once in use, and the fields below
	failures    int        // consecutive unmeasured runs
	lastSuccess time.Time
	baselineID  string
	// estimate is the cost of the next run for the budget: the cost of
	// the last run that cost anything, 0 before the first.
	estimate float64
	// applied are the latest runs the decision state above accounts for;
	// counted those today's spend and the estimate account for. A run not
	// among them was recorded by another monitor.
	applied, counted idRing
}

// NewTracker returns the tracker of sub, whose runs compare against the
// baseline baselineID.
func NewTracker(sub Subject, baselineID string) *Tracker {
	return &Tracker{Subject: sub, baselineID: baselineID}
}

// LastSuccess is when the check last completed a measured run, zero
// before the first.
func (t *Tracker) LastSuccess() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastSuccess
}

// Succeeded notes a measured run of the check that finished at, recorded
// by another monitor; it reports whether at is later than the last
// success known.
func (t *Tracker) Succeeded(at time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !at.After(t.lastSuccess) {
		return false
	}
	t.lastSuccess = at
	return true
}

// Baseline is the snapshot id of the baseline the check's runs compare
// against.
func (t *Tracker) Baseline() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.baselineID
}

// Follow makes id the check's baseline; a change (a promotion, a new
// --save-baseline) restarts the trend detector, and is reported.
func (t *Tracker) Follow(id string) (moved bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.baselineID == id {
		return false
	}
	t.baselineID = id
	t.Trend.Reset()
	return true
}

// Restart makes id the check's baseline and restarts the trend detector,
// as a promotion does.
func (t *Tracker) Restart(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.baselineID = id
	t.Trend.Reset()
}

// Count remembers the run id as counted against the budget; false when it
// was already.
func (t *Tracker) Count(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.counted.has(id) {
		return false
	}
	t.counted.add(id)
	return true
}

// Cost notes what a run of the check cost: a run that cost anything is
// the estimate of the next.
func (t *Tracker) Cost(usd float64) {
	if usd <= 0 {
		return
	}
	t.mu.Lock()
	t.estimate = usd
	t.mu.Unlock()
}

// Estimate is the cost of the check's next run for the budget.
func (t *Tracker) Estimate() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.estimate
}

// observe applies a recorded run to the decision state: an unmeasured run
// counts one more failure in a row, a measured one ends them and feeds
// the trend detector unless it confirmed a drift. It returns the failures
// in a row and whether the trend detector is in alarm.
func (t *Tracker) observe(cr *promptcanary.CheckRun) (failures int, alarm bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch cr.Outcome {
	case promptcanary.CheckUnmeasured:
		t.failures++
	case promptcanary.CheckClean, promptcanary.CheckDrift:
		t.failures = 0
		t.lastSuccess = cr.FinishedAt
		if policy.Counts(cr) {
			alarm = t.Trend.Observe(cr.PassRate, 1, cr.BaselinePassRate)
		}
	}
	return t.failures, alarm
}

// unknown reports whether runs hold one other than id that the decision
// state does not account for: another monitor recorded it.
func (t *Tracker) unknown(runs []promptcanary.CheckRun, id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.ContainsFunc(runs, func(r promptcanary.CheckRun) bool { return r.ID != id && !t.applied.has(r.ID) })
}

// apply notes that the decision state accounts for the run id.
func (t *Tracker) apply(id string) {
	t.mu.Lock()
	t.applied.add(id)
	t.mu.Unlock()
}

// Replay rebuilds the decision state from the check's runs (newest
// first): the failures in a row, the last success and the trend detector,
// and remembers the runs as applied. It returns the last measured run.
func (t *Tracker) Replay(runs []promptcanary.CheckRun) (lastMeasured *promptcanary.CheckRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	lastMeasured = t.replay(runs)
	t.applied.reset(runs)
	return lastMeasured
}

// replay is Replay for a caller that holds t.mu, without remembering the
// runs.
func (t *Tracker) replay(runs []promptcanary.CheckRun) (lastMeasured *promptcanary.CheckRun) {
	failing := true
	t.failures = 0
	for i := range runs {
		r := &runs[i]
		switch r.Outcome {
		case promptcanary.CheckClean, promptcanary.CheckDrift:
			if lastMeasured == nil {
				lastMeasured = r
				t.lastSuccess = r.FinishedAt
			}
			failing = false
		case promptcanary.CheckUnmeasured:
			if failing && r.Reason != ReasonInterrupted {
				t.failures++
			}
		}
	}
	// The trend detector continues over the runs against the current
	// baseline; a new baseline since the last run starts it afresh.
	var compared []promptcanary.CheckRun
	for _, r := range runs {
		if r.BaselineID != "" {
			compared = append(compared, r)
		}
	}
	if len(compared) > 0 && compared[0].BaselineID == t.baselineID {
		t.Trend.Replay(compared)
	} else {
		t.Trend.Reset()
	}
	return lastMeasured
}

// idRing remembers the last ringSize ids added.
type idRing struct {
	ids  []string
	next int
}

// add remembers id.
func (r *idRing) add(id string) {
	if len(r.ids) < ringSize {
		r.ids = append(r.ids, id)
		return
	}
	r.ids[r.next] = id
	r.next = (r.next + 1) % ringSize
}

// has reports whether id is remembered.
func (r *idRing) has(id string) bool { return slices.Contains(r.ids, id) }

// reset remembers only the ids of runs (newest first), the newest
// ringSize of them.
func (r *idRing) reset(runs []promptcanary.CheckRun) {
	r.ids, r.next = r.ids[:0], 0
	for i := min(len(runs), ringSize) - 1; i >= 0; i-- {
		r.add(runs[i].ID)
	}
}
