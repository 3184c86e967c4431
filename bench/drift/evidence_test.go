package main

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/report"
)

// evidenceTrials is how many reports of each (world, scenario) cell the
// evidence test renders: enough to meet groups flagged through a pair's
// test, q-values below p-values and pairs decided by their score test.
const evidenceTrials = 4

// shownPQ matches "p=…, q=…" in an evidence line as any format prints it
// (the terminal may wrap between the two).
var shownPQ = regexp.MustCompile(`\bp=([0-9.e+-]+),\s+q=([0-9.e+-]+)`)

// shownEffect matches the effect and 95% interval of an evidence line: the
// last "Δ … pts [lo, hi]" or "HL shift … [lo, hi]" before the test.
var shownEffect = regexp.MustCompile(`(?:Δ ([−+]?[0-9.]+) pts|HL shift ([−+]?[0-9.]+)) \[([−+]?[0-9.]+), ([−+]?[0-9.]+)\]`)

// TestFlaggedNumbersFlag renders reports of the benchmark's worlds and
// scenarios, in-process, in every format and checks that no unit is shown
// flagged with numbers that do not flag it: every flagged unit carries the
// p, q, effect and interval of the test that flagged it (its own, or the
// one it repeats), that q is within the level, every "p=…, q=…" a format
// prints is a flagging test's, and the Markdown table of tested units
// marks flagged only rows whose q flags them.
func TestFlaggedNumbersFlag(t *testing.T) {
	alpha := drift.DefaultAlpha
	var scratch []promptcanary.ProbeResult
	var seen struct{ flagged, repeated, qBelowP, notDeciding int }
	for _, w := range worlds {
		for _, sc := range scenarios {
			for i := range evidenceTrials {
				rep := simulate(w, sc, alpha, trialSeed(smokeSeed, w.name, sc.name, i), &scratch).report
				name := w.name + "/" + sc.name + "/" + strconv.Itoa(i)
				checkUnits(t, name, rep, alpha)
				var back promptcanary.DriftReport
				if err := json.Unmarshal([]byte(renderDrift(t, report.JSON, rep)), &back); err != nil {
					t.Fatalf("%s: decode the JSON report: %v", name, err)
				}
				checkUnits(t, name+" (json)", &back, alpha)
				// Terminal, Markdown and JUnit print "p=…, q=…" only on
				// flagged lines; the HTML report also lists every unit's
				// own line, so there the flagged lines must be the units'.
				for _, f := range []report.Format{report.Terminal, report.Markdown, report.JUnit} {
					checkShown(t, name+" ("+string(f)+")", renderDrift(t, f, rep), rep, alpha)
				}
				checkHTML(t, name+" (html)", renderDrift(t, report.HTML, rep), rep, alpha)
				checkUnitTable(t, name, renderDrift(t, report.Markdown, rep), rep, alpha)
				for _, u := range rep.Statistics.Units {
					if !u.Rejected {
						continue
					}
					seen.flagged++
					if u.SameTestAs != "" && u.Kind != promptcanary.UnitPair {
						seen.repeated++
					}
					if u.Q < u.P {
						seen.qBelowP++
					}
				}
				for _, u := range rep.Statistics.Units {
					if u.Kind == promptcanary.UnitPair && !u.Rejected && pairRegressed(rep, u.Key) {
						seen.notDeciding++
					}
				}
			}
		}
	}
	// The cases that once showed numbers that did not flag must have been met.
	if seen.repeated == 0 || seen.qBelowP == 0 || seen.notDeciding == 0 {
		t.Errorf("got %d flagged units, %d groups flagged through another unit's test, %d with q below p, %d tests of a regressed pair that did not flag it; want each case met",
			seen.flagged, seen.repeated, seen.qBelowP, seen.notDeciding)
	}
}

func renderDrift(t *testing.T, f report.Format, rep *promptcanary.DriftReport) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Drift(&buf, f, rep, report.Options{Verbose: true}); err != nil {
		t.Fatalf("render %s: %v", f, err)
	}
	return buf.String()
}

func pairRegressed(rep *promptcanary.DriftReport, key string) bool {
	for _, c := range rep.Comparisons {
		if c.Regression && (promptcanary.PairKey{ProbeID: c.ProbeID, PromptID: c.PromptID}).String() == key {
			return true
		}
	}
	return false
}

// flaggingTest returns the unit whose test flagged u: the unit it repeats
// (SameTestAs, a test of the same family), else u itself.
func flaggingTest(units []promptcanary.TestedUnit, u *promptcanary.TestedUnit) *promptcanary.TestedUnit {
	if u.SameTestAs == "" {
		return u
	}
	score := strings.HasPrefix(u.Test, "mann_whitney")
	for i := range units {
		o := &units[i]
		if o.Kind+" "+o.Key == u.SameTestAs && strings.HasPrefix(o.Test, "mann_whitney") == score {
			return o
		}
	}
	return nil
}

// checkUnits checks every flagged unit of rep against the test that flagged
// it, and every regressed pair's evidence against its deciding unit.
func checkUnits(t *testing.T, name string, rep *promptcanary.DriftReport, alpha float64) {
	t.Helper()
	units := rep.Statistics.Units
	for i := range units {
		u := &units[i]
		if !u.Rejected {
			continue
		}
		f := flaggingTest(units, u)
		if f == nil {
			t.Errorf("%s: unit %s %s repeats %q, which is not in the report", name, u.Kind, u.Key, u.SameTestAs)
			continue
		}
		if u.P != f.P || u.Q != f.Q || !f.Rejected || f.Q > alpha {
			t.Errorf("%s: flagged unit %s %s: got p %g, q %g; its test (%s %s) has p %g, q %g, rejected %v at level %g",
				name, u.Kind, u.Key, u.P, u.Q, f.Kind, f.Key, f.P, f.Q, f.Rejected, alpha)
		}
		line := u.Evidence
		if u.Kind == promptcanary.UnitPair {
			line = u.TestEvidence // Evidence is the pair's deciding line
		}
		checkLine(t, name+": unit "+u.Kind+" "+u.Key, line, f, alpha)
	}
	for _, c := range rep.Comparisons {
		if !c.Regression {
			continue
		}
		key := promptcanary.PairKey{ProbeID: c.ProbeID, PromptID: c.PromptID}.String()
		for i := range units {
			if u := &units[i]; u.Kind == promptcanary.UnitPair && u.Key == key && u.Decisive {
				checkLine(t, name+": pair "+key, c.Evidence, u, alpha)
			}
		}
	}
}

// checkLine checks that an evidence line shows the p, q, effect and
// interval of the flagging test f, and that they flag: q within alpha and
// a drop.
func checkLine(t *testing.T, what, line string, f *promptcanary.TestedUnit, alpha float64) {
	t.Helper()
	pq := shownPQ.FindAllStringSubmatch(line, -1)
	eff := shownEffect.FindAllStringSubmatch(line, -1)
	if len(pq) != 1 || len(eff) == 0 {
		t.Errorf("%s: got evidence %q, want one p and q and an effect", what, line)
		return
	}
	p, q := num(pq[0][1]), num(pq[0][2])
	if !near(p, f.P) || !near(q, f.Q) || q > alpha {
		t.Errorf("%s: shown p=%s, q=%s; the flagging test (%s %s) has p %g, q %g (level %g): %q", what, pq[0][1], pq[0][2], f.Kind, f.Key, f.P, f.Q, alpha, line)
	}
	e := eff[len(eff)-1]
	scale, shown := 100.0, e[1]
	if strings.HasPrefix(f.Test, "mann_whitney") {
		scale, shown = 1, e[2]
	}
	// Points print one decimal, a Hodges–Lehmann shift two.
	tol := 0.051
	if scale == 1 {
		tol = 0.0051
	}
	d, lo, hi := num(shown), num(e[3]), num(e[4])
	if math.Abs(d-scale*f.Effect) > tol || math.Abs(lo-scale*f.Interval.Lower) > tol || math.Abs(hi-scale*f.Interval.Upper) > tol || !(d < 0) {
		t.Errorf("%s: shown effect %s [%s, %s]; the flagging test's is a drop of %g [%g, %g]: %q", what, shown, e[3], e[4],
			scale*f.Effect, scale*f.Interval.Lower, scale*f.Interval.Upper, line)
	}
}

// checkShown checks that every "p=…, q=…" a rendered report prints is the
// p and q of the test that flagged a unit, and flags.
func checkShown(t *testing.T, what, out string, rep *promptcanary.DriftReport, alpha float64) {
	t.Helper()
	for _, m := range shownPQ.FindAllStringSubmatch(out, -1) {
		if !flagsAs(rep, num(m[1]), num(m[2]), alpha) {
			t.Errorf("%s: shows p=%s, q=%s, which is no flagging test's p and q", what, m[1], m[2])
		}
	}
}

// flagsAs reports whether printed p and q are those of the test that
// flagged some unit of rep, and within the level.
func flagsAs(rep *promptcanary.DriftReport, p, q, alpha float64) bool {
	units := rep.Statistics.Units
	for i := range units {
		if !units[i].Rejected {
			continue
		}
		if f := flaggingTest(units, &units[i]); f != nil && near(p, f.P) && near(q, f.Q) && q <= alpha {
			return true
		}
	}
	return false
}

// htmlUnitRow matches a row of the HTML tables of units: kind, key, test,
// p, q, effect, and the severity badge of a flagged row.
var htmlUnitRow = regexp.MustCompile(`<tr><td>[^<]*</td><td class="id">[^<]*</td><td>[^<]*</td><td class="num">([^<]*)</td><td class="num">([^<]*)</td><td class="num">[^<]*</td><td>(<span class="badge sev-)?`)

// checkHTML checks the HTML tables of units (the flagged groups and every
// tested unit): a row shown flagged shows the p and q of the test that
// flagged a unit, and they flag.
func checkHTML(t *testing.T, what, out string, rep *promptcanary.DriftReport, alpha float64) {
	t.Helper()
	for _, m := range htmlUnitRow.FindAllStringSubmatch(out, -1) {
		if m[3] != "" && !flagsAs(rep, num(m[1]), num(m[2]), alpha) {
			t.Errorf("%s: a unit shown flagged with p %s, q %s, which is no flagging test's p and q", what, m[1], m[2])
		}
	}
}

// checkUnitTable checks the Markdown table of every tested unit: a row
// marked flagged or "pair regression" shows the p and q of the test that
// flagged a unit, and they flag.
func checkUnitTable(t *testing.T, what, md string, rep *promptcanary.DriftReport, alpha float64) {
	t.Helper()
	for _, line := range strings.Split(md, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 7 || !strings.HasPrefix(line, "| ") {
			continue
		}
		outcome := cells[6]
		if !strings.Contains(outcome, "flagged (") && !strings.Contains(outcome, "pair regression (") {
			continue
		}
		if !flagsAs(rep, num(cells[3]), num(cells[4]), alpha) {
			t.Errorf("%s: unit row %q is shown flagged with p %s, q %s, which is no flagging test's p and q", what, line, cells[3], cells[4])
		}
	}
}

// num parses a number as the reports print it ("−3.3", "2.4e-06"); NaN
// when it is none ("—").
func num(s string) float64 {
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimPrefix(s, "+"), "−", "-"), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// near reports whether a printed p- or q-value matches v to its printed
// precision: two or three decimals, or two significant digits in exponent
// form below 0.001.
func near(printed, v float64) bool {
	d := math.Abs(printed - v)
	switch {
	case v >= 0.01:
		return d <= 0.0051
	case v >= 0.001:
		return d <= 0.00051
	}
	return d <= 0.051*v
}
