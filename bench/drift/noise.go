package main

// Run-level noise. Real providers change behaviour for an hour at a time
// (load, batching and routing move every answer of one run together), so
// answers within one run are not independent. A world with run-level noise
// shifts the pass probability of every pair, or of one cluster of prompts,
// by one offset per run, uniform in ±shift, and shifts back for the next
// run. A baseline is a run too (or several, -baseline-runs), a confirmation
// in the same minute shares its run's offset, and one at a later hour
// draws an offset of its own.

import "math/rand/v2"

// noise is a world's run-level noise; the zero value is none.
type noise struct {
	shift   float64 // half-width of the per-run offset of every pass probability
	cluster int     // 0: every prompt moves; n: only the first n prompts, together
}

// noiseWorlds are the worlds with run-level noise. The monitor mode runs
// them after the independent worlds; the compare mode (one baseline run,
// one current run) has no use for them.
var noiseWorlds = []world{
	{name: "T0-run±2", always: 0.55, never: 0.05, flakyHi: 0.25, flakyLo: 0.15, noise: noise{shift: 0.02}},
	{name: "T0-run±5", always: 0.55, never: 0.05, flakyHi: 0.25, flakyLo: 0.15, noise: noise{shift: 0.05}},
	{name: "T0-cluster±5", always: 0.55, never: 0.05, flakyHi: 0.25, flakyLo: 0.15, noise: noise{shift: 0.05, cluster: numPrompts / 2}},
}

// noisy reports whether runs of the world share an offset.
func (w world) noisy() bool { return w.noise.shift > 0 }

// hour returns the behaviour of s during one run: s itself in a world
// without run-level noise (drawing nothing from rng, so such a world's
// figures do not depend on this code), else a copy shifted by the run's
// offset.
func (w world) hour(s *suiteSpec, rng *rand.Rand) *suiteSpec {
	return w.shift(s, w.offset(rng))
}

// offset draws one run's offset: 0, drawing nothing, in a world without
// run-level noise.
func (w world) offset(rng *rand.Rand) float64 {
	if !w.noisy() {
		return 0
	}
	return w.noise.shift * (2*rng.Float64() - 1)
}

// shift returns s moved by the offset d as the world moves a run: s
// itself in a world without run-level noise, else a copy with the moving
// prompts' pass probabilities shifted by d.
func (w world) shift(s *suiteSpec, d float64) *suiteSpec {
	if !w.noisy() {
		return s
	}
	moving := numPrompts
	if w.noise.cluster > 0 {
		moving = w.noise.cluster
	}
	out := *s
	for j := range numProbes {
		for m := range moving {
			out[j][m].p = min(1, max(0, out[j][m].p+d))
		}
	}
	return &out
}
