package main

// Run-level decision rules (-rules runlevel). In a world with run-level
// noise every answer of one run shares an offset, so the binomial tests of
// drift.Compare, which take answers as independent, see a bad hour as
// drift of every pooled unit (suite, probe, category). These rules judge
// the suite unit against the spread of its rate between runs instead,
// with policy.Window, the monitor's rule (monitor.yaml run_level: true),
// over drift.RunLevel:
//
//	t = (m − c̄) / √(τ²/n + v̄_c/n + s²/k),  df = k − 1,  τ² = max(0, s² − v̄_b),
//
// over k reference runs (the baseline's runs, and with Learn also the
// check's own last clean runs) and the mean of n current runs. A one-run
// test at Alpha opens a window; the mean of the flagged run and up to
// Runs later scheduled runs confirms at AlphaW. Pair units keep
// drift.Compare's verdict, and with probe and category units of the first
// run they are confirmed at a later hour by a pair that fell significantly
// more than that run's other pairs or by the suite unit at AlphaW
// (policy.Window.Confirmation; "R2s+" of the prototype on h/proto).
// Where the reference has fewer than MinRuns runs or no spread beyond
// sampling (τ² = 0) a rule falls back to the monitor's rule with its
// confirmation at a later hour.

import (
	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/monitor/policy"
)

// runLevelOf returns the suite rates of a baseline's runs and its pairs'
// rates, which weigh every run's binomial variance.
func runLevelOf(base []promptcanary.ProbeResult) (runs []drift.RunRate, pairP map[promptcanary.PairKey]float64) {
	pairP = drift.PairRates(base)
	if baselineRuns < 2 {
		return nil, pairP
	}
	for _, rs := range baselineRunResults(base) {
		if r, ok := drift.SuiteRunRate(rs, pairP); ok {
			runs = append(runs, r)
		}
	}
	return runs, pairP
}

// suiteRate is one run's suite rate and binomial variance.
func (c *monitoredCheck) suiteRate(rs []promptcanary.ProbeResult) drift.RunRate {
	r, _ := drift.SuiteRunRate(rs, c.pairP)
	return r
}

// wantsConfirmation reports whether a run-level rule needs the
// confirmation run of a run with this report.
func (c *monitoredCheck) wantsConfirmation(r int, rep *promptcanary.DriftReport) bool {
	if !c.rl[r].Known() {
		return rep.HasDrift
	}
	return len(policy.Flagged(c.firstRun(rep))) > 0
}

// runLevelConfirmed decides a run-level rule's finding at one scheduled
// run; second is the confirmation run (nil when none was taken). A
// control rule also finds what its difference window confirms.
func (c *monitoredCheck) runLevelConfirmed(r int, rep *promptcanary.DriftReport, o drift.RunRate, second *confRun) bool {
	byControl := c.byControl(r)
	return c.windowConfirmed(r, rep, o, second) || byControl
}

// windowConfirmed is runLevelConfirmed of the suite's window, pairs,
// probes and categories (R3).
func (c *monitoredCheck) windowConfirmed(r int, rep *promptcanary.DriftReport, o drift.RunRate, second *confRun) bool {
	conf, w := policy.Confirmation{Overlap: policy.OverlapNested}, c.rl[r]
	confirmed, _, known := w.Step(o)
	if !known {
		return rep.HasDrift && second != nil && conf.Confirm(rep, second.rep) != nil
	}
	if confirmed || second == nil {
		return confirmed
	}
	return conf.Confirm(c.firstRun(rep), w.Confirmation(second.rep, second.obs)) != nil
}

// firstRun is policy.FirstRun of a scheduled run's report, worked out
// once for every run-level rule that asks (its offset tests may take the
// exact test).
func (c *monitoredCheck) firstRun(rep *promptcanary.DriftReport) *promptcanary.DriftReport {
	if c.first.rep != rep {
		c.first.rep = rep
		c.first.out, _ = policy.FirstRun(rep)
	}
	return c.first.out
}

// learnFrom adds a clean run's suite rate to rule r's learned runs: no
// finding and no open incident. A run that opened a window is learned
// too: leaving out the runs below the one-run level would shrink the
// spread learned and raise the false incidents.
func (c *monitoredCheck) learnFrom(r int, st *step, o drift.RunRate) {
	if st.finding(r) || c.open[r] {
		return
	}
	c.rl[r].LearnRun(o)
	c.learnControl(r)
}
