package main

import (
	"math/rand/v2"
	"testing"

	"github.com/promptcanary/promptcanary/drift"
)

// TestRunLevelCheck checks the run-level rules' state: a baseline spread
// over 6 runs gives 6 reference runs, learning keeps the last learn clean
// runs, and a run far below the reference is a drop while the reference's
// own mean is not.
func TestRunLevelCheck(t *testing.T) {
	selectRules("runlevel")
	defer selectRules("monitor")
	baselineRuns = 6
	defer func() { baselineRuns = 1 }()
	w := noiseWorlds[1] // T0-run±5
	rng := rand.New(rand.NewPCG(1, 2))
	spec := drawSuite(w, rng)
	c := newCheck(w, &spec, rng, 1)
	if len(c.baseRuns) != 6 {
		t.Fatalf("baseline runs %d, want 6", len(c.baseRuns))
	}
	r3 := len(rules) - 1
	ru := rules[r3]
	if ru.rl == nil || ru.rl.Learn != 100 {
		t.Fatalf("last rule %q is not R3", ru.name)
	}
	ref := c.rl[r3].Reference()
	mean := 0.0
	for _, r := range ref {
		mean += r.Rate / float64(len(ref))
	}
	if c.rl[r3].Drops(drift.RunRate{Rate: mean, Var: ref[0].Var}, 1, 0.05) {
		t.Error("the reference's own mean is a drop, want none")
	}
	if !c.rl[r3].Drops(drift.RunRate{Rate: mean - 0.5, Var: ref[0].Var}, 1, 0.05) {
		t.Error("a run 50 points below the reference is no drop, want one")
	}
	st := step{confirmed: make([]bool, len(rules)), trend: make([]bool, len(rules))}
	for i := range 130 {
		c.learnFrom(r3, &st, drift.RunRate{Rate: float64(i) / 1000})
	}
	got := c.rl[r3].Reference()[6:]
	if len(got) != 100 || got[0].Rate != 0.030 || got[99].Rate != 0.129 {
		t.Errorf("learned %d runs from %g to %g, want the last 100 (0.030 to 0.129)", len(got), got[0].Rate, got[len(got)-1].Rate)
	}
	st.confirmed[r3] = true
	c.learnFrom(r3, &st, drift.RunRate{Rate: 1})
	if c.rl[r3].Reference()[105].Rate == 1 {
		t.Error("a run with a finding was learned, want it left out")
	}
	if len(c.rl[r3].Reference()) != 106 {
		t.Errorf("R3's reference holds %d runs, want 6 + 100", len(c.rl[r3].Reference()))
	}
}
