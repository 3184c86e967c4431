package main

import (
	"bytes"
	"math"
	"reflect"
	"regexp"
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
		t.Fatalf("got world tables %v, want DET and T07-corr", sortedKeys(within))
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
	for k, want := range map[int]float64{0: 2.995732, 1: 4.743865, 5: 10.51303, 20: 29.06195} {
		if got := poissonUpper(k); math.Abs(got-want) > 1e-4 {
			t.Errorf("poissonUpper(%d): got %.6f, want %.6f", k, got, want)
		}
	}
}

func TestDelayStats(t *testing.T) {
	w1, w2, found, mean, median := delayStats([]int{1, 2, 3, -1, 1, 6})
	if w1 != 100*2.0/6 || w2 != 100*3.0/6 || found != 100*5.0/6 || mean != 13.0/5 || median != 2 {
		t.Errorf("got %v %v %v %v %v, want 33.3 50 83.3 2.6 2", w1, w2, found, mean, median)
	}
	if _, _, found, mean, _ := delayStats([]int{-1}); found != 0 || !math.IsNaN(mean) {
		t.Errorf("none found: got found %v, mean %v, want 0 and NaN", found, mean)
	}
}

func TestStagesFor(t *testing.T) {
	for n, want := range map[int][]int{10: {5, 10}, 20: {5, 10, 20}, 30: {5, 10, 20, 30}, 3: {3}} {
		if got := stagesFor(n); !reflect.DeepEqual(got, want) {
			t.Errorf("stagesFor(%d): got %v, want %v", n, got, want)
		}
	}
}
