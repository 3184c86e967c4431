package drift

import (
	"fmt"

	"github.com/promptcanary/promptcanary"
)

// compareStatistical tests every pair measured on both sides with Fisher's
// exact test, screens the family with Tarone's method and flags the pairs
// the Benjamini–Hochberg step rejects.
func compareStatistical(rep *promptcanary.DriftReport, idx *index, _ *promptcanary.Baseline, _ *promptcanary.Run, opts *Options) {
	st := &promptcanary.DriftStatistics{Seed: opts.Seed, Alpha: opts.Alpha, Permutations: opts.Permutations, BaselineSamples: idx.baseMax, CurrentSamples: idx.curMax}
	var units []promptcanary.TestedUnit
	var which []int
	for i, p := range idx.pairs {
		if !p.measured() {
			continue
		}
		pv, minP := fisherLess(p.base.passes, p.base.n(), p.cur.passes, p.cur.n())
		d, lo, hi := newcombe(p.base.passes, p.base.n(), p.cur.passes, p.cur.n(), z95)
		units = append(units, promptcanary.TestedUnit{Kind: promptcanary.UnitPair, Key: p.key.String(), Test: "fisher", Statistic: float64(p.cur.passes), P: pv, MinP: minP, Effect: d, Interval: promptcanary.Interval{Lower: lo, Upper: hi}, Severity: promptcanary.SeverityNone})
		which = append(which, i)
	}
	minPs := make([]float64, len(units))
	for i := range units {
		minPs[i] = units[i].MinP
	}
	k, level := tarone(minPs, opts.Alpha)
	st.Hypotheses, st.ScreeningLevel = len(units), level
	var kept []int
	var ps []float64
	for i := range units {
		units[i].Q = 1
		if units[i].MinP > level {
			units[i].Screened = true
			continue
		}
		kept = append(kept, i)
		ps = append(ps, units[i].P)
	}
	_ = k
	st.Testable = len(kept)
	qs := benjaminiHochberg(ps)
	regressions := 0
	rep.Severity = promptcanary.SeverityNone
	for j, i := range kept {
		units[i].Q = qs[j]
		if qs[j] <= opts.Alpha {
			units[i].Rejected = true
			units[i].Severity = pairSeverity(-units[i].Interval.Upper)
			c := &rep.Comparisons[which[i]]
			c.Regression, c.Status, c.Severity = true, promptcanary.StatusRegression, units[i].Severity
			regressions++
			if units[i].Severity.Rank() > rep.Severity.Rank() {
				rep.Severity = units[i].Severity
			}
		}
	}
	st.Units = units
	rep.Statistics = st
	rep.OverallBaselineScore, rep.OverallCurrentScore = overallScores(idx)
	rep.HasDrift = regressions > 0
	if rep.HasDrift {
		rep.Summary = driftSummary(rep.Severity, rep.SuiteName, fmt.Sprintf("%d regression(s) detected", regressions), rep.OverallBaselineScore, rep.OverallCurrentScore)
	} else {
		rep.Summary = noDriftSummary(rep.SuiteName, rep.OverallCurrentScore)
	}
}

// pairSeverity grades a rejected pair by its conservative drop g.
func pairSeverity(g float64) promptcanary.Severity {
	switch {
	case g >= 0.50:
		return promptcanary.SeverityCritical
	case g >= 0.25:
		return promptcanary.SeverityHigh
	case g >= 0.10:
		return promptcanary.SeverityMedium
	}
	return promptcanary.SeverityLow
}
