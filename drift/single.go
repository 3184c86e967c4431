package drift

import (
	"fmt"
	"math"

	"github.com/promptcanary/promptcanary"
)

// compareSingle applies the original tool's rule to every pair measured on
// both sides: a regression is a score drop of at least the regression
// threshold that leaves the pair failing, an improvement a gain of at least
// the improvement threshold that leaves it passing. When a side holds
// several samples, its mean score and majority verdict stand for it.
func compareSingle(rep *promptcanary.DriftReport, idx *index, opts *Options) {
	compared, regressions := 0, 0
	worst := 0.0
	for i, p := range idx.pairs {
		if !p.measured() {
			continue
		}
		compared++
		c := &rep.Comparisons[i]
		delta := c.ScoreDelta
		unscored := math.IsNaN(delta) // a side without a score ("score": null in the Python tool's files)
		if unscored {
			// Without scores the verdicts decide: a pass that turned into a
			// failure is the largest drop there is, and the reverse the
			// largest gain.
			c.Regression = c.BaselinePassed && !c.CurrentPassed
			c.Improvement = !c.BaselinePassed && c.CurrentPassed
		} else {
			c.Regression = delta <= -opts.RegressionThreshold+tolerance && !c.CurrentPassed
			c.Improvement = delta >= opts.ImprovementThreshold-tolerance && c.CurrentPassed
		}
		switch {
		case c.Regression && unscored:
			c.Status = promptcanary.StatusRegression
			c.Severity = singleSeverity(1, 1)
			c.Evidence = "passed → failing now (no score on one side); single-sample rule"
			regressions++
			worst = 1
		case c.Regression:
			c.Status = promptcanary.StatusRegression
			c.Severity = singleSeverity(1, math.Abs(delta))
			c.Evidence = fmt.Sprintf("score %.2f → %.2f (Δ %s), failing now; single-sample rule", c.BaselineScore, c.CurrentScore, signed(delta, 2))
			regressions++
			worst = max(worst, math.Abs(delta))
		case c.Improvement:
			c.Status = promptcanary.StatusImprovement
		default:
			c.Status = promptcanary.StatusStable
		}
	}
	rep.OverallBaselineScore, rep.OverallCurrentScore = overallScores(idx)
	rep.HasDrift = regressions > 0
	rep.Severity = promptcanary.SeverityNone
	if rep.HasDrift {
		rep.Severity = singleSeverity(float64(regressions)/float64(compared), worst)
		rep.Summary = driftSummary(rep.Severity, rep.SuiteName, fmt.Sprintf("%d regression(s) detected", regressions), rep.OverallBaselineScore, rep.OverallCurrentScore)
	} else {
		rep.Summary = noDriftSummary(rep.SuiteName, rep.OverallCurrentScore)
	}
	if idx.baseMax <= 1 || idx.curMax <= 1 {
		addNote(rep, promptcanary.NoteMethod, singleSampleNote)
	} else {
		addNote(rep, promptcanary.NoteMethod, "the single-sample rule was applied to the mean score and majority verdict of each side; it does not account for the spread of the samples")
	}
}

// singleSeverity is the original tool's severity of a report with at least
// one regression, from the regression rate r (regressions over compared
// pairs) and the worst absolute score drop w.
func singleSeverity(r, w float64) promptcanary.Severity {
	switch {
	case r >= 0.5-tolerance || w >= 0.6-tolerance:
		return promptcanary.SeverityCritical
	case r >= 0.3-tolerance || w >= 0.4-tolerance:
		return promptcanary.SeverityHigh
	case r >= 0.15-tolerance || w >= 0.2-tolerance:
		return promptcanary.SeverityMedium
	}
	return promptcanary.SeverityLow
}

// signed formats v with an explicit sign, using the minus sign U+2212.
func signed(v float64, decimals int) string {
	s := fmt.Sprintf("%+.*f", decimals, v)
	if s[0] == '-' {
		return "−" + s[1:]
	}
	return s
}
