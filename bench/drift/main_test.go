package main

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/drift"
)

// The smoke tests run the benchmark machinery with tiny trial counts and a
// fixed seed; they check structure and facts that hold at any trial count,
// never timings.

const smokeSeed = 7

// cellRow matches one scenario row of a world table: name, trials, alarm %.
var cellRow = regexp.MustCompile(`^\| ([^|]+) \| (\d+) \| ([0-9.]+) \[`)

// parseWorlds maps world name → scenario name → (trials, alarm %) from the
// benchmark's Markdown output.
func parseWorlds(t *testing.T, out string) map[string]map[string][2]float64 {
	t.Helper()
	worldsSeen := map[string]map[string][2]float64{}
	var cur string
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(line, "## World "); ok {
			cur = name
			worldsSeen[cur] = map[string][2]float64{}
			continue
		}
		if strings.HasPrefix(line, "## ") {
			cur = ""
		}
		m := cellRow.FindStringSubmatch(line)
		if cur == "" || m == nil {
			continue
		}
		n, _ := strconv.ParseFloat(m[2], 64)
		a, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("parse alarm %q: %v", m[3], err)
		}
		worldsSeen[cur][m[1]] = [2]float64{n, a}
	}
	return worldsSeen
}

func TestRunSmoke(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-trials", "60", "-scenario-trials", "40", "-workers", "2", "-seed", strconv.Itoa(smokeSeed),
		"-worlds", "DET,T07-corr", "-scenarios", "none,pair breaks,all pairs −10"}
	if err := run(args, &out, &errOut); err != nil {
		t.Fatalf("run: %v (stderr %q)", err, errOut.String())
	}
	got := parseWorlds(t, out.String())
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, []string{"DET", "T07-corr"}) {
		t.Fatalf("got world tables %v, want [DET T07-corr]", keys)
	}
	for w, rows := range got {
		if keys := slices.Sorted(maps.Keys(rows)); !slices.Equal(keys, []string{"all pairs −10", "none", "pair breaks (p→0.05)"}) {
			t.Errorf("world %s: got rows %v, want the three selected scenarios", w, keys)
		}
		if n := rows["none"][0]; n != 60 {
			t.Errorf("world %s: got %v drift-free trials, want 60", w, n)
		}
		if n := rows["pair breaks (p→0.05)"][0]; n != 40 {
			t.Errorf("world %s: got %v broken-pair trials, want 40", w, n)
		}
		// A pair that breaks (p ≥ 0.85 → 0.05) is caught nearly always.
		if a := rows["pair breaks (p→0.05)"][1]; a < 90 {
			t.Errorf("world %s: got broken pair detected %.1f%%, want ≥ 90%%", w, a)
		}
	}
	// Nothing varies in the deterministic world without drift.
	if a := got["DET"]["none"][1]; a != 0 {
		t.Errorf("got DET drift-free alarms %.2f%%, want 0", a)
	}
	// The targets table has a false-alarm row per world run.
	for _, w := range []string{"DET", "T07-corr"} {
		if row := "| false alarms ≤ 1.0% | " + w + " |"; !strings.Contains(out.String(), row) {
			t.Errorf("targets table lacks %q", row)
		}
	}
	if !strings.Contains(out.String(), fmt.Sprintf("seed %d;", smokeSeed)) {
		t.Errorf("header does not record seed %d", smokeSeed)
	}
}

func TestRunCellReproducible(t *testing.T) {
	det, t0 := worlds[0], worlds[1]
	broken := scenarios[slices.IndexFunc(scenarios, func(s scenario) bool { return strings.HasPrefix(s.name, "pair breaks") })]
	a := runCell(t0, broken, 30, 2, smokeSeed, drift.DefaultAlpha)
	b := runCell(t0, broken, 30, 1, smokeSeed, drift.DefaultAlpha)
	if a != b {
		t.Errorf("got %+v with 2 workers and %+v with 1, want the same tally", a, b)
	}
	if a.n != 30 || a.drift < 27 {
		t.Errorf("got %d of %d broken-pair trials detected, want ≥ 27 of 30", a.drift, a.n)
	}
	if a.flagged == 0 || a.falseFlagged > a.flagged {
		t.Errorf("got %d flagged pairs, %d false, want some flagged and false ≤ flagged", a.flagged, a.falseFlagged)
	}
	none := runCell(det, scenarios[0], 30, 2, smokeSeed, drift.DefaultAlpha)
	if none.drift != 0 || none.sev[0] != 30 {
		t.Errorf("got %d DET drift-free alarms, severity none %d, want 0 and 30", none.drift, none.sev[0])
	}
	// DET samples only the first stage on a drift-free run: 5 calls/prompt.
	if c := none.calls / float64(none.n); c != float64(drift.Stages[0]) {
		t.Errorf("got %v DET calls per prompt, want %d", c, drift.Stages[0])
	}
}

func TestRunFlagErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown world", []string{"-worlds", "T9"}, `unknown world "T9"`},
		{"zero trials", []string{"-trials", "0"}, "trials must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(tc.args, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestSelected(t *testing.T) {
	tests := []struct {
		name, list string
		want       bool
	}{
		{"pair −50", "", true},
		{"pair −50", "pair", true},
		{"pair −50", "none, pair −5", true},
		{"probe −20", "pair,all", false},
	}
	for _, tc := range tests {
		t.Run(tc.name+"/"+tc.list, func(t *testing.T) {
			if got := selected(tc.name, tc.list); got != tc.want {
				t.Errorf("selected(%q, %q): got %v, want %v", tc.name, tc.list, got, tc.want)
			}
		})
	}
}

// TestSimModes runs the identity and economics modes on a few trials:
// one row per case, with the rate of "different" verdicts or of flagged
// measures.
func TestSimModes(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want []string
	}{
		{"-identity", []string{"# Model identity test", "| sim/stable | sim/stable | 0.7 | 20 × 10/10 | 4 |", "| sim/stable | sim/paraphrase | 0.7 | 20 × 10/10 | 4 | 100.0 [", "| sim/stable | sim/terse | 0.7 | 20 × 10/10 | 4 | 100.0 ["}},
		{"-economics", []string{"# Economic drift", "| sim/stable | sim/stable | 0.7 | 1 | none | 4 | 0.0 [", "| sim/terse | sim/stable | 0.7 | 1 | none | 4 | 100.0 [", "| sim/stable | sim/terse | 0.7 | 1 | none | 4 | 100.0 ["}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			var out, errb strings.Builder
			if err := run([]string{tc.mode, "-identity-trials", "4", "-workers", "2"}, &out, &errb); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}
