package main

// Run-level decision rules (-rules runlevel). In a world with run-level
// noise every answer of one run shares an offset, so the binomial tests of
// drift.Compare, which take answers as independent, see a bad hour as
// drift of every pooled unit (suite, probe, category). These rules judge
// the suite unit against the spread of its rate between runs instead,
// with drift.RunLevel (the product's test):
//
//	t = (m − c̄) / √(τ²/n + v̄_c/n + s²/k),  df = k − 1,  τ² = max(0, s² − v̄_b),
//
// over k reference runs (the baseline's runs, and with learn also the
// check's own last clean runs) and the mean of n current runs. A one-run
// test at alpha opens a window; the mean of the flagged run and up to
// window later scheduled runs confirms at alphaW. Pair units keep
// drift.Compare's verdict, and with probe and category units of the first
// run they are confirmed at a later hour by a pair or by the suite unit
// at alphaW ("R2s+" of the prototype on h/proto). Where the reference
// has fewer than minRuns runs or no spread beyond sampling (τ² = 0) a rule
// falls back to the monitor's rule with its confirmation at a later hour.

import (
	"slices"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/monitor/policy"
)

// runLevel is a rule's run-level test of the suite unit.
type runLevel struct {
	alpha   float64 // one-sided level of one run's test, which opens a window
	window  int     // later runs a window waits for
	alphaW  float64 // level of the window's mean
	learn   int     // the last clean runs that join the reference, 0 for none
	minRuns int     // reference runs needed, with τ² > 0, before the rule applies
}

// rlState is a run-level rule's open window and learned runs.
type rlState struct {
	open      int // runs in the open window, 0 when none
	sum, vsum float64
	learned   []drift.RunRate // the last clean runs, oldest first
}

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

// reference is rule r's reference runs: the baseline's and the learned.
func (c *monitoredCheck) reference(r int) []drift.RunRate {
	return slices.Concat(c.baseRuns, c.rl[r].learned)
}

// spreadKnown reports whether rule r has enough reference runs, with a
// spread beyond sampling, to apply its run-level test.
func (c *monitoredCheck) spreadKnown(r int, rl *runLevel) bool {
	ref := c.reference(r)
	if len(ref) < max(rl.minRuns, 2) {
		return false
	}
	t, err := drift.RunLevel(ref, ref[:1])
	return err == nil && t.Tau2 > 0
}

// drops reports whether the mean rate of n runs is below rule r's
// reference by more than level alpha allows.
func (c *monitoredCheck) drops(r int, mean drift.RunRate, n int, alpha float64) bool {
	cur := make([]drift.RunRate, n) // RunLevel reads only their mean
	for i := range cur {
		cur[i] = mean
	}
	t, err := drift.RunLevel(c.reference(r), cur)
	return err == nil && t.T > 0 && t.P < alpha
}

// pooledOff returns rep with its suite unit cleared (a run-level rule
// tests the suite itself), or with suite set to the run-level verdict and
// every other pooled unit cleared.
func pooledOff(rep *promptcanary.DriftReport, keepOthers bool, suite bool) *promptcanary.DriftReport {
	out, st := *rep, *rep.Statistics
	st.Units = append([]promptcanary.TestedUnit(nil), st.Units...)
	for i := range st.Units {
		u := &st.Units[i]
		switch {
		case u.Kind == promptcanary.UnitPair:
		case u.Kind == promptcanary.UnitSuite:
			u.SameTestAs, u.Rejected = "", suite
		case !keepOthers:
			u.SameTestAs, u.Rejected = "", false
		}
	}
	out.Statistics = &st
	return &out
}

func flagsAny(rep *promptcanary.DriftReport) bool {
	for _, u := range rep.Statistics.Units {
		if u.Rejected {
			return true
		}
	}
	return false
}

// wantsConfirmation reports whether a run-level rule needs the
// confirmation run of a run with this report.
func (c *monitoredCheck) wantsConfirmation(r int, ru rule, rep *promptcanary.DriftReport) bool {
	if !c.spreadKnown(r, ru.rl) {
		return rep.HasDrift
	}
	return flagsAny(pooledOff(rep, true, false))
}

// runLevelConfirmed decides a run-level rule's finding at one scheduled
// run; second is the confirmation run (nil when none was taken).
func (c *monitoredCheck) runLevelConfirmed(r int, ru rule, rep *promptcanary.DriftReport, o drift.RunRate, second *confRun) bool {
	conf, rl, s := policy.Confirmation{Overlap: policy.OverlapNested}, ru.rl, &c.rl[r]
	if !c.spreadKnown(r, rl) {
		s.open = 0
		return rep.HasDrift && second != nil && conf.Confirm(rep, second.rep) != nil
	}
	found := second != nil && conf.Confirm(pooledOff(rep, true, false), pooledOff(second.rep, false, c.drops(r, second.obs, 1, rl.alphaW))) != nil
	switch {
	case s.open > 0:
		s.open++
		s.sum += o.Rate
		s.vsum += o.Var
		n := float64(s.open)
		if c.drops(r, drift.RunRate{Rate: s.sum / n, Var: s.vsum / n}, s.open, rl.alphaW) {
			found, s.open = true, 0
		} else if s.open > rl.window {
			s.open = 0
		}
	case c.drops(r, o, 1, rl.alpha):
		s.open, s.sum, s.vsum = 1, o.Rate, o.Var
	}
	return found
}

// learnFrom adds a clean run's suite rate to rule r's learned runs: no
// finding and no open incident. A run that opened a window is learned
// too: leaving out the runs below the one-run level would shrink the
// spread learned and raise the false incidents.
func (c *monitoredCheck) learnFrom(r int, ru rule, st *step, o drift.RunRate) {
	s := &c.rl[r]
	if ru.rl.learn == 0 || st.finding(r) || c.open[r] {
		return
	}
	if len(s.learned) == ru.rl.learn {
		s.learned = append(s.learned[:0], s.learned[1:]...)
	}
	s.learned = append(s.learned, o)
}
