package main

// The control arm (-control shared or -control own). A check can name a
// control (monitor.yaml control:): a pinned snapshot beside a moving alias,
// the raw model beside an app. It answers the same prompts in the same
// slot. Here it is the target's model as it was at the baseline: a drift
// moves the target only. With -control shared a bad hour moves both arms
// by the same offset (the provider's hour, which a snapshot served beside
// its alias shares); with -control own the control draws an hour of its
// own, the worst case for a rule that takes the difference of the two.
//
// Rule R3c is R3, and also judges the arms' difference in each slot
// (drift.ArmDifference: the weighted mean of the target's pair rates less
// the control's, whose whole spread is learned from the check's last
// clean runs) with policy.NewControlWindow, as the monitor does for a
// check with run_level: true and a control. The control takes every
// sample, as the monitor's does, with a random source of its own, so
// every other rule's figures are those of a run without -control.

import (
	"math/rand/v2"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/monitor/policy"
)

// controlHour is how the control arm's hour relates to the target's.
type controlHour int

const (
	noControl    controlHour = iota
	sharedHour               // the control shares the target's offset in every run
	controlsHour             // the control draws an offset of its own
)

// controlSetting is the benchmark's -control setting.
var controlSetting = noControl

// parseControl reads -control.
func parseControl(s string) (controlHour, bool) {
	switch s {
	case "", "none":
		return noControl, true
	case "shared":
		return sharedHour, true
	case "own":
		return controlsHour, true
	}
	return noControl, false
}

// controlRule is R3 that also judges the check against the control arm
// with policy.NewControlWindow, as the monitor does.
func controlRule() rule {
	r := rlRule("R3c R3, and the difference from the control: sliding means of 3-4 runs at 5e-5/2 (learned runs)", r3Window)
	r.control = true
	return r
}

// controlArm is a check's control: the behaviour it keeps, its random
// source, and the weights of the arms' difference.
type controlArm struct {
	spec    suiteSpec
	rng     *rand.Rand
	weights map[promptcanary.PairKey]float64 // drift.PairWeights of the target's baseline
}

// newControl gives c its control arm when -control asks for one, and a
// difference window per control rule.
func (c *monitoredCheck) newControl(spec *suiteSpec) {
	if controlSetting == noControl {
		return
	}
	c.ctl = &controlArm{spec: *spec, rng: rand.New(rand.NewPCG(c.seed, 0x3c6ef372fe94f82b)),
		weights: drift.PairWeights(c.baseline.RunResult.ProbeResults, monitorSamples)}
	c.diff = make([]*policy.Window, len(rules))
	for r, ru := range rules {
		if ru.control {
			c.diff[r] = policy.NewControlWindow()
		}
	}
}

// controlStages are the control's: every sample, as the monitor's control
// takes (check.CompareRequest: its counts are the samples asked for).
var controlStages = []int{monitorSamples}

// measureControl runs the control arm in the slot of a scheduled run
// whose results are target and whose offset is d, and keeps the arms'
// difference (drift.ArmDifference) for the control rules.
func (c *monitoredCheck) measureControl(target []promptcanary.ProbeResult, d float64) {
	a := c.ctl
	if a == nil {
		return
	}
	if controlSetting == controlsHour {
		d = c.w.offset(a.rng)
	}
	rs, _ := sampleRun(c.w, c.w.shift(&a.spec, d), controlStages, nil, a.rng)
	c.ctlDiff, _ = drift.ArmDifference(target, rs, a.weights)
}

// byControl steps rule r's difference window with the scheduled run's
// difference and reports whether it confirmed a fall of the suite below
// the control's; false for a rule without one.
func (c *monitoredCheck) byControl(r int) bool {
	if c.ctl == nil || c.diff[r] == nil {
		return false
	}
	confirmed, _, _ := c.diff[r].Step(c.ctlDiff)
	return confirmed
}

// learnControl adds the scheduled run's difference to rule r's learned
// differences (a clean run: the caller checked).
func (c *monitoredCheck) learnControl(r int) {
	if c.ctl != nil && c.diff[r] != nil {
		c.diff[r].LearnRun(c.ctlDiff)
	}
}
