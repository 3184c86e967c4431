// Package policy holds the monitor's statistics over time: which units a
// drift report flags, whether a confirmation run confirms a finding, and a
// detector of gradual decline over a check's history of pass rates. It is
// pure: no I/O, no clock, no randomness.
//
// A monitor tests again and again, so per-run error rates add up. The drift
// test of one compare (drift.Compare) controls its false alarms per run;
// the monitor adds two defences, both measured by `go run ./bench/drift
// -monitor`:
//
//   - Confirm: a run that flags drift is followed by a confirmation run
//     with fresh samples (ConfirmSamples: three times the run's), at once
//     or, with the check's confirm_after:, at a later hour, and an
//     incident opens only when the confirmation flags a unit that overlaps
//     one the first run flagged.
//   - Trend: a one-sided CUSUM over the pass-rate deficits of the check's
//     runs, for a decline too slow for any single compare to see.
package policy

import (
	"cmp"
	"slices"

	"github.com/promptcanary/promptcanary"
)

// flag is one flagged unit of a report with what ordering and matching
// need beyond the IncidentUnit.
type flag struct {
	promptcanary.IncidentUnit
	severity promptcanary.Severity
	// probe and category locate a pair or probe unit in the suite ("" when
	// unknown or not applicable), for nested overlap.
	probe    string
	category string
	// rep is the "kind key" of the unit whose test this one repeats
	// (TestedUnit.SameTestAs), "" when its test is its own.
	rep string
}

func (f *flag) id() string { return f.Unit + " " + f.Name }

// Flagged returns the flagged units of a drift report as incident units,
// most severe first.
//
// For a statistical report (Statistics set) they are the rejected units of
// Statistics.Units: Unit is the unit's kind (pair, probe, category or
// suite), Name its key, Baseline and Current the pass rates of each side
// pooled over the unit's compared pairs, Q its adjusted p-value. A pair
// with both a pass-count and a score unit rejected appears once, with the
// smaller q. A unit whose test repeats another's exactly (SameTestAs) is
// left out: it would show the same evidence twice. For a single-sample
// report they are the regressed pairs, with Q 0.
//
// The order is by severity (highest first), then q (smallest first), then
// breadth (suite, category, probe, pair), then name, so it is
// deterministic. A nil report, or one that flags nothing, gives nil.
func Flagged(d *promptcanary.DriftReport) []promptcanary.IncidentUnit {
	fs := flags(d)
	var out []promptcanary.IncidentUnit
	for i := range fs {
		if fs[i].rep == "" {
			out = append(out, fs[i].IncidentUnit)
		}
	}
	return out
}

// kindRank orders unit kinds from the broadest.
func kindRank(kind string) int {
	switch kind {
	case promptcanary.UnitSuite:
		return 0
	case promptcanary.UnitCategory:
		return 1
	case promptcanary.UnitProbe:
		return 2
	}
	return 3
}

// flags returns every flagged unit of d, repeated tests included (marked
// by rep), sorted as Flagged documents.
func flags(d *promptcanary.DriftReport) []flag {
	if d == nil {
		return nil
	}
	idx := newRates(d)
	var out []flag
	if d.Statistics == nil {
		for i := range d.Comparisons {
			c := &d.Comparisons[i]
			if !c.Regression {
				continue
			}
			out = append(out, flag{
				IncidentUnit: promptcanary.IncidentUnit{Unit: promptcanary.UnitPair, Name: pairName(c),
					Baseline: c.Baseline.PassRate(), Current: c.Current.PassRate()},
				severity: c.Severity, probe: c.ProbeID, category: string(c.Category),
			})
		}
	} else {
		seen := map[string]int{}
		for i := range d.Statistics.Units {
			u := &d.Statistics.Units[i]
			if !u.Rejected {
				continue
			}
			f := flag{IncidentUnit: promptcanary.IncidentUnit{Unit: u.Kind, Name: u.Key, Q: u.Q}, severity: u.Severity, rep: u.SameTestAs}
			f.Baseline, f.Current = idx.rates(u.Kind, u.Key)
			f.probe, f.category = idx.locate(u.Kind, u.Key)
			if j, ok := seen[f.id()]; ok {
				// The score unit of a pair whose pass-count unit is also
				// rejected (or the other way round): one entry, the
				// stronger evidence.
				g := &out[j]
				if f.severity.Rank() > g.severity.Rank() {
					g.severity = f.severity
				}
				g.Q = min(g.Q, f.Q)
				if f.rep == "" {
					g.rep = ""
				}
				continue
			}
			seen[f.id()] = len(out)
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b flag) int {
		if c := cmp.Compare(b.severity.Rank(), a.severity.Rank()); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Q, b.Q); c != 0 {
			return c
		}
		if c := cmp.Compare(kindRank(a.Unit), kindRank(b.Unit)); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

func pairName(c *promptcanary.Comparison) string {
	return promptcanary.PairKey{ProbeID: c.ProbeID, PromptID: c.PromptID}.String()
}

// rateIndex pools the pass counts of a report's compared pairs by pair,
// probe, category and suite, and locates pairs and probes in the suite.
type rateIndex struct {
	counts   map[string][4]int // "kind key" → baseline passes, n, current passes, n
	pairs    map[string]*promptcanary.Comparison
	category map[string]string // probe id → category
}

func newRates(d *promptcanary.DriftReport) *rateIndex {
	x := &rateIndex{counts: map[string][4]int{}, pairs: map[string]*promptcanary.Comparison{}, category: map[string]string{}}
	for i := range d.Comparisons {
		c := &d.Comparisons[i]
		x.pairs[pairName(c)] = c
		if x.category[c.ProbeID] == "" {
			x.category[c.ProbeID] = string(c.Category)
		}
		if !c.Compared() {
			continue
		}
		add := [4]int{c.Baseline.Passes, c.Baseline.N, c.Current.Passes, c.Current.N}
		for _, k := range []string{
			promptcanary.UnitPair + " " + pairName(c),
			promptcanary.UnitProbe + " " + c.ProbeID,
			promptcanary.UnitCategory + " " + string(c.Category),
			promptcanary.UnitSuite,
		} {
			v := x.counts[k]
			for j := range v {
				v[j] += add[j]
			}
			x.counts[k] = v
		}
	}
	return x
}

// rates returns the pooled pass rates of a unit on each side.
func (x *rateIndex) rates(kind, key string) (base, cur float64) {
	k := kind + " " + key
	if kind == promptcanary.UnitSuite {
		k = promptcanary.UnitSuite
	}
	v := x.counts[k]
	if v[1] > 0 {
		base = float64(v[0]) / float64(v[1])
	}
	if v[3] > 0 {
		cur = float64(v[2]) / float64(v[3])
	}
	return base, cur
}

// locate returns the probe and category of a pair or probe unit, and the
// category of a category unit.
func (x *rateIndex) locate(kind, key string) (probe, category string) {
	switch kind {
	case promptcanary.UnitPair:
		if c := x.pairs[key]; c != nil {
			return c.ProbeID, string(c.Category)
		}
	case promptcanary.UnitProbe:
		return key, x.category[key]
	case promptcanary.UnitCategory:
		return "", key
	}
	return "", ""
}
