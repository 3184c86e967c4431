package main

import (
	"bytes"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// monitorRow matches a row of a monitor-mode drift table: scenario, trials,
// incident at run 1 %, within 2 runs %.
var monitorRow = regexp.MustCompile(`^\| ([^|]+) \| (\d+) \| ([0-9.]+) \| ([0-9.]+) \|`)

// falseRow matches a row of a confirmation-rule table: rule, false incidents.
var falseRow = regexp.MustCompile(`^\| (\*\*)?([^|*]+)(\*\*)?[^|]* \| (\d+) \| (\d+) \|`)

func TestMonitorQuick(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-monitor", "-quick", "-workers", "2", "-seed", strconv.Itoa(smokeSeed), "-worlds", "DET,T07-corr"}
	if err := run(args, &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %q)", err, errOut.String())
	}
	text := out.String()
	// world → scenario → (trials, within 2 runs %); world → rule → false incidents
	within := map[string]map[string][2]float64{}
	falses := map[string]map[string]int{}
	var cur string
	for _, line := range strings.Split(text, "\n") {
		if name, ok := strings.CutPrefix(line, "## World "); ok {
			cur = name
			within[cur], falses[cur] = map[string][2]float64{}, map[string]int{}
			continue
		}
		if strings.HasPrefix(line, "## ") {
			cur = ""
		}
		if cur == "" {
			continue
		}
		if m := monitorRow.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseFloat(m[2], 64)
			w2, _ := strconv.ParseFloat(m[4], 64)
			within[cur][m[1]] = [2]float64{n, w2}
		} else if m := falseRow.FindStringSubmatch(line); m != nil {
			k, _ := strconv.Atoi(m[4])
			falses[cur][strings.TrimSpace(m[2])] = k
		}
	}
	if len(within) != 2 || within["DET"] == nil || within["T07-corr"] == nil {
		t.Fatalf("got world tables %v, want DET and T07-corr", slices.Sorted(maps.Keys(within)))
	}
	for w, rows := range within {
		if len(rows) != len(monitorScenarios) {
			t.Errorf("world %s: got %d scenario rows, want %d", w, len(rows), len(monitorScenarios))
		}
		// A broken pair opens an incident within two runs nearly always.
		if r := rows["pair breaks (p→0.05)"]; r[0] != 40 || r[1] < 90 {
			t.Errorf("world %s: got broken pair %v (trials, within 2 runs %%), want 40 trials and ≥ 90%%", w, r)
		}
		if len(falses[w]) != len(rules) {
			t.Errorf("world %s: got %d confirmation-rule rows, want %d", w, len(falses[w]), len(rules))
		}
	}
	// Nothing varies in the deterministic world without drift: no incident
	// under any rule.
	for rule, k := range falses["DET"] {
		if k != 0 {
			t.Errorf("DET drift-free: got %d false incidents under %q, want 0", k, rule)
		}
	}
	for _, want := range []string{"| false incidents per check-year, 95% upper bound | DET |", "| pair −50: incident within 2 runs ≥ one compare | T07-corr |", "seed 7."} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestQuietMonthsReproducible(t *testing.T) {
	t0 := worlds[1]
	job := func(i int, q *quietTally) { quietMonth(t0, trialSeed(smokeSeed, t0.name, "monitor/none", i), q) }
	merge := func(a, b *quietTally) { a.merge(b) }
	a := parallel(2, 2, newQuietTally, job, merge)
	b := parallel(2, 1, newQuietTally, job, merge)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("got %+v with 2 workers and %+v with 1, want the same tally", a, b)
	}
	if a.months != 2 || a.runs != 2*monthRuns {
		t.Errorf("got %d months, %d runs, want 2 and %d", a.months, a.runs, 2*monthRuns)
	}
	// A rule without confirmation opens at least as many incidents as any
	// rule with one.
	for r := range rules {
		if a.incidents[r] > a.incidents[0] {
			t.Errorf("rule %q: got %d incidents, more than %d without confirmation", rules[r].name, a.incidents[r], a.incidents[0])
		}
	}
}

func TestDefaultRule(t *testing.T) {
	if defaultRule < 0 {
		t.Fatal("the monitor's rule (policy.DefaultConfirmation, policy.ConfirmSamples) is not among the benchmark's rules")
	}
}

func TestPoissonUpper(t *testing.T) {
	// Exact one-sided 95% bounds (Garwood): χ²(0.95, 2k+2)/2.
	// Past k ≈ 745 a product of terms from e^−λ underflows; 786 and 1000
	// are counts the noisy worlds reach.
	for k, want := range map[int]float64{0: 2.995732, 1: 4.743865, 5: 10.51303, 20: 29.06195, 786: 833.7054, 1000: 1053.6031} {
		if got := poissonUpper(k); math.Abs(got-want) > 1e-4 {
			t.Errorf("poissonUpper(%d): got %.6f, want %.6f", k, got, want)
		}
	}
}

func TestDelayStats(t *testing.T) {
	d := delayStats([]int{1, 2, 3, -1, 1, 6, 4})
	if d.within1 != 100*2.0/7 || d.within2 != 100*3.0/7 || d.within4 != 100*5.0/7 || d.found != 100*6.0/7 || d.mean != 17.0/6 || d.median != 2.5 {
		t.Errorf("got %+v, want within 28.6 42.9 71.4, found 85.7, mean 2.83, median 2.5", d)
	}
	if d := delayStats([]int{-1}); d.found != 0 || d.within4 != 0 || !math.IsNaN(d.mean) {
		t.Errorf("none found: got %+v, want found 0 and mean NaN", d)
	}
}

func TestStagesFor(t *testing.T) {
	for n, want := range map[int][]int{10: {5, 10}, 20: {5, 10, 20}, 30: {5, 10, 20, 30}, 3: {3}} {
		if got := stagesFor(n); !reflect.DeepEqual(got, want) {
			t.Errorf("stagesFor(%d): got %v, want %v", n, got, want)
		}
	}
}

func TestHourShiftsOnlyNoisyWorlds(t *testing.T) {
	spec := drawSuite(worlds[1], rand.New(rand.NewPCG(1, 2)))
	// Without run-level noise a run is the behaviour itself and draws
	// nothing, so the independent worlds' figures do not move.
	a, b := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	if got := worlds[1].hour(&spec, a); got != &spec {
		t.Errorf("T0: hour returned a copy, want the behaviour itself")
	}
	if a.Uint64() != b.Uint64() {
		t.Errorf("T0: hour drew from the generator")
	}
	cluster := noiseWorlds[slices.IndexFunc(noiseWorlds, func(w world) bool { return w.noise.cluster > 0 })]
	for seed := range uint64(20) {
		got := cluster.hour(&spec, rand.New(rand.NewPCG(seed, 5)))
		d := math.NaN()
		for j := range numProbes {
			for m := range numPrompts {
				p, q := spec[j][m].p, got[j][m].p
				if m >= cluster.noise.cluster {
					if q != p {
						t.Fatalf("seed %d: pair %d/%d outside the cluster moved %v → %v", seed, j, m, p, q)
					}
					continue
				}
				if q < 0 || q > 1 {
					t.Fatalf("seed %d: pair %d/%d: p %v out of [0, 1]", seed, j, m, q)
				}
				if p > cluster.noise.shift && p < 1-cluster.noise.shift {
					if math.IsNaN(d) {
						d = q - p
					}
					if math.Abs(q-p-d) > 1e-12 || math.Abs(d) > cluster.noise.shift {
						t.Fatalf("seed %d: pair %d/%d moved %v, others %v (want one offset within ±%v)", seed, j, m, q-p, d, cluster.noise.shift)
					}
				}
			}
		}
		if math.IsNaN(d) || d == 0 {
			t.Fatalf("seed %d: the cluster moved by %v, want a nonzero offset (NaN: no unclamped pair to check)", seed, d)
		}
	}
}

func TestSelectWorldsNoise(t *testing.T) {
	all, err := selectWorlds("", true)
	if err != nil || len(all) != len(worlds)+len(noiseWorlds) {
		t.Fatalf("monitor mode: got %d worlds (%v), want %d", len(all), err, len(worlds)+len(noiseWorlds))
	}
	if ws, err := selectWorlds("", false); err != nil || len(ws) != len(worlds) {
		t.Errorf("compare mode: got %d worlds (%v), want the %d independent ones", len(ws), err, len(worlds))
	}
	if _, err := selectWorlds("T0,T0-run±5", false); err == nil || !strings.Contains(err.Error(), "add -monitor") {
		t.Errorf("compare mode with a noisy world: got %v, want an error that says to add -monitor", err)
	}
	if ws, err := selectWorlds("T0-run±5", true); err != nil || len(ws) != 1 || !ws[0].noisy() {
		t.Errorf("monitor mode: got %v (%v), want the one noisy world", ws, err)
	}
}

func TestBaselineRunsFlag(t *testing.T) {
	for _, v := range []string{"0", "31"} {
		var out, errOut bytes.Buffer
		err := run([]string{"-monitor", "-quick", "-baseline-runs", v}, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "-baseline-runs") {
			t.Errorf("-baseline-runs %s: got %v, want an error naming the flag", v, err)
		}
	}
	var out, errOut bytes.Buffer
	args := []string{"-monitor", "-months", "1", "-step-trials", "1", "-gradual-trials", "1", "-worlds", "DET", "-baseline-runs", "3"}
	if err := run(args, &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %q)", err, errOut.String())
	}
	if want := "spreads its 30 samples per prompt over 3 runs"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q", want)
	}
}

// -baseline-samples sizes a check's baseline in monitor mode, and
// -baseline-runs may then spread it over as many runs as it has samples.
func TestBaselineSamplesFlag(t *testing.T) {
	for _, args := range [][]string{{"-baseline-samples", "0"}, {"-baseline-samples", "20", "-baseline-runs", "21"}} {
		var out, errOut bytes.Buffer
		err := run(append([]string{"-monitor", "-quick"}, args...), &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), args[len(args)-2]) {
			t.Errorf("%v: got %v, want an error naming %s", args, err, args[len(args)-2])
		}
	}
	var out, errOut bytes.Buffer
	args := []string{"-monitor", "-months", "1", "-step-trials", "1", "-gradual-trials", "1", "-worlds", "DET", "-baseline-samples", "40", "-baseline-runs", "40"}
	if err := run(args, &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %q)", err, errOut.String())
	}
	for _, want := range []string{"baseline 40 samples per prompt", "spreads its 40 samples per prompt over 40 runs"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestMonitorNoisyWorld runs three months of the ±5-point world (one
// baseline each: a month whose baseline ran in an average hour sees few
// flags, so one month is not enough): the confirmation in the same minute
// shares the run's offset and confirms what it flagged, so false incidents
// open; the rule that confirms at a later hour is shown beside it.
func TestMonitorNoisyWorld(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-monitor", "-months", "3", "-step-trials", "4", "-gradual-trials", "1", "-workers", "2", "-seed", strconv.Itoa(smokeSeed), "-worlds", "T0-run±5"}
	if err := run(args, &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %q)", err, errOut.String())
	}
	falses := map[string]int{}
	for _, line := range strings.Split(out.String(), "\n") {
		if m := falseRow.FindStringSubmatch(line); m != nil {
			falses[strings.TrimSpace(m[2])], _ = strconv.Atoi(m[4])
		}
	}
	if len(falses) != 3 {
		t.Fatalf("got rule rows %v, want none, the monitor's and the monitor's at a later hour", falses)
	}
	if falses["nested units, 30 samples"] == 0 {
		t.Errorf("got no false incident under the monitor's rule in three months of ±5-point runs; the noise is not reaching the runs")
	}
	for _, want := range []string{"## World T0-run±5", "nested units, 30 samples, a later hour", "| all pairs −5: incident within 4 runs | T0-run±5 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// -control gives each check a control arm measured with a random source
// of its own: every rule but R3c reads as without it, and R3c's row is
// added. It needs -monitor -rules runlevel, and none, shared or own.
func TestControlFlag(t *testing.T) {
	for _, args := range [][]string{{"-monitor", "-quick", "-rules", "runlevel", "-control", "both"}, {"-monitor", "-quick", "-control", "shared"}, {"-quick", "-control", "own"}} {
		var out, errOut bytes.Buffer
		if err := run(args, &out, &errOut); err == nil || !strings.Contains(err.Error(), "-control") {
			t.Errorf("%v: got %v, want an error naming -control", args, err)
		}
	}
	base := []string{"-monitor", "-months", "1", "-step-trials", "2", "-gradual-trials", "1", "-workers", "2", "-seed", strconv.Itoa(smokeSeed),
		"-worlds", "T0-run±5", "-rules", "runlevel", "-baseline-runs", "6"}
	rows := func(args ...string) (map[string]string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(append(slices.Clone(base), args...), &out, &errOut); err != nil {
			t.Fatalf("run %v: %v (stderr %q)", args, err, errOut.String())
		}
		got := map[string]string{}
		for _, line := range strings.Split(out.String(), "\n") {
			if m := falseRow.FindStringSubmatch(line); m != nil {
				got[strings.TrimSpace(m[2])] = line
			}
		}
		return got, out.String()
	}
	plain, _ := rows()
	for _, hour := range []string{"shared", "own"} {
		with, out := rows("-control", hour)
		if len(with) != len(plain)+1 {
			t.Fatalf("-control %s: rule rows %d, want %d and R3c", hour, len(with), len(plain))
		}
		for name, line := range plain {
			if with[name] != line {
				t.Errorf("-control %s changed the row of %q:\n%s\nwas\n%s", hour, name, with[name], line)
			}
		}
		if want := "-control " + hour + "): the model as it was at the baseline"; !strings.Contains(out, want) {
			t.Errorf("-control %s: output lacks %q", hour, want)
		}
	}
}
