package policy

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

// noisyRate returns a pass rate around mean with run-to-run noise sd.
func noisyRate(rng *rand.Rand, mean, sd float64) float64 {
	return min(1, max(0, mean+sd*rng.NormFloat64()))
}

func TestTrendQuietWithoutDecline(t *testing.T) {
	// A baseline that was lucky by 2 points: every run looks 2 points
	// worse than it, which the reference absorbs.
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var tr Trend
		for i := range 2000 {
			if tr.Observe(noisyRate(rng, 0.80, 0.02), 280, 0.82) {
				t.Fatalf("seed %d: alarm at run %d without a decline", seed, i)
			}
		}
		if sd := tr.SD(); sd < 0.018 || sd > 0.022 {
			t.Errorf("seed %d: got σ %.4f, want ≈ 0.02", seed, sd)
		}
	}
}

func TestTrendCatchesDecline(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	var tr Trend
	for i := range DefaultTrendWarmup + 24 {
		if tr.Observe(noisyRate(rng, 0.80, 0.02), 280, 0.80) {
			t.Fatalf("alarm at run %d before the decline", i)
		}
	}
	// One point a day at hourly runs.
	at := -1
	for h := range 24 * 10 {
		if tr.Observe(noisyRate(rng, 0.80-0.01*float64(h)/24, 0.02), 280, 0.80) {
			at = h
			break
		}
	}
	if at < 0 || at > 24*6 {
		t.Fatalf("got alarm %d hours into the decline, want one within 6 days", at)
	}
	if !tr.Alarm() {
		t.Error("Alarm: got false after an alarm, want true")
	}
	// The alarm lasts while the deficit does, and clears once the rate is
	// back.
	if !tr.Observe(0.70, 280, 0.80) {
		t.Error("got no alarm on a run still 10 points down, want the alarm to last")
	}
	cleared := -1
	for i := range 200 {
		if !tr.Observe(noisyRate(rng, 0.80, 0.02), 280, 0.80) {
			cleared = i
			break
		}
	}
	if cleared < 0 {
		t.Error("the alarm did not clear within 200 runs after recovery")
	}
}

func TestTrendOneOddRun(t *testing.T) {
	var tr Trend
	rng := rand.New(rand.NewPCG(5, 1))
	for range DefaultTrendWarmup + 20 {
		tr.Observe(noisyRate(rng, 0.9, 0.01), 280, 0.9)
	}
	c0, _ := tr.Statistic()
	if tr.Observe(0.0, 280, 0.9) {
		t.Error("got an alarm on one run at 0%, want MaxStep to keep one run from alarming")
	}
	if c, h := tr.Statistic(); math.Abs(c-c0-(DefaultTrendMaxStep-DefaultTrendSlack)) > 1e-9 || h != DefaultTrendThreshold {
		t.Errorf("Statistic: got a step of %v (threshold %v), want %v (threshold %v)", c-c0, h, DefaultTrendMaxStep-DefaultTrendSlack, DefaultTrendThreshold)
	}
	// Runs that measured nothing change nothing.
	before := tr
	if tr.Observe(0.2, 0, 0.9) != before.Alarm() || tr != before {
		t.Error("a run with n = 0 changed the state")
	}
}

func TestTrendWarmupAndConfig(t *testing.T) {
	tr := Trend{Warmup: 5, Threshold: 2, Slack: 0.5, MaxStep: 10, MinSD: 0.01}
	for i := range 5 {
		if tr.Ready() {
			t.Fatalf("ready after %d runs, want after 5", i)
		}
		if tr.Observe(0.9, 100, 0.9) {
			t.Fatal("alarm during the warmup")
		}
	}
	if !tr.Ready() {
		t.Fatal("not ready after the warmup")
	}
	// σ is the floor (nothing varied): a 10-point deficit is z = 10 − 0.5.
	if !tr.Observe(0.8, 100, 0.9) {
		t.Error("got no alarm on a 10 σ deficit with threshold 2")
	}
	// Hysteresis: the alarm lasts, below the threshold, until the sum is
	// back at 0; runs at the reference take Slack off each.
	runs := 0
	for {
		c0, _ := tr.Statistic()
		alarm := tr.Observe(0.9, 100, 0.9)
		c, _ := tr.Statistic()
		runs++
		if c != max(0, c0-0.5) {
			t.Fatalf("run %d at the reference: got sum %v after %v, want %v", runs, c, c0, max(0, c0-0.5))
		}
		if alarm != (c > 0) {
			t.Fatalf("run %d at the reference: got alarm %v with sum %v, want alarm while the sum is above 0", runs, alarm, c)
		}
		if !alarm {
			break
		}
	}
	if runs < 4 {
		t.Errorf("alarm cleared after %d runs at the reference, want it to last while the sum drains (≥ 4 runs)", runs)
	}
	tr.Reset()
	if tr.Ready() || tr.Alarm() || tr.Warmup != 5 || tr.Threshold != 2 {
		t.Errorf("Reset: got %+v, want an empty state with the configuration kept", tr)
	}
}

func TestTrendReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	t0 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	var history []promptcanary.CheckRun
	var live Trend
	add := func(cr promptcanary.CheckRun) {
		if n := len(history); n > 0 && history[n-1].BaselineID != cr.BaselineID {
			live.Reset() // what the monitor does when the baseline changes
		}
		history = append(history, cr)
		if Counts(&cr) {
			live.Observe(cr.PassRate, 1, cr.BaselinePassRate)
		}
	}
	for i := range 300 {
		cr := promptcanary.CheckRun{Slot: t0.Add(time.Duration(i) * time.Hour), BaselineID: "b1", Outcome: promptcanary.CheckClean,
			PassRate: noisyRate(rng, 0.85, 0.02), BaselinePassRate: 0.86}
		if i >= 100 {
			cr.BaselineID = "b2"
			cr.PassRate -= 0.01 * float64(i-100) / 24 // a decline on the new baseline
		}
		switch i % 17 {
		case 3:
			cr.Outcome, cr.PassRate = promptcanary.CheckUnmeasured, 0
		case 5:
			cr.Outcome, cr.Confirmed, cr.PassRate = promptcanary.CheckDrift, true, 0.1
		case 7:
			cr.Outcome = promptcanary.CheckDrift // flagged, not confirmed: counts
		}
		add(cr)
	}
	// The store lists newest first.
	rev := make([]promptcanary.CheckRun, len(history))
	for i := range history {
		rev[len(rev)-1-i] = history[i]
	}
	var got Trend
	alarm := got.Replay(rev)
	if got != live || alarm != live.Alarm() {
		t.Errorf("Replay: got %+v (alarm %v), want the live state %+v", got, alarm, live)
	}
	if !alarm {
		t.Error("Replay: got no alarm after 200 runs of decline, want one")
	}
	// The runs before the baseline changed are not part of the state.
	var fresh Trend
	fresh.Replay(history[100:])
	if fresh != got {
		t.Errorf("Replay from the baseline change: got %+v, want %+v", fresh, got)
	}
}

func TestCounts(t *testing.T) {
	tests := []struct {
		run  promptcanary.CheckRun
		want bool
	}{
		{promptcanary.CheckRun{Outcome: promptcanary.CheckClean}, true},
		{promptcanary.CheckRun{Outcome: promptcanary.CheckDrift}, true},
		{promptcanary.CheckRun{Outcome: promptcanary.CheckDrift, Confirmed: true}, false},
		{promptcanary.CheckRun{Outcome: promptcanary.CheckUnmeasured}, false},
		{promptcanary.CheckRun{Outcome: promptcanary.CheckSkipped}, false},
	}
	for _, tc := range tests {
		if got := Counts(&tc.run); got != tc.want {
			t.Errorf("Counts(%s, confirmed %v): got %v, want %v", tc.run.Outcome, tc.run.Confirmed, got, tc.want)
		}
	}
}
