package drift

import (
	"fmt"
	"math"

	"github.com/promptcanary/promptcanary"
)

// Differential is the difference-in-differences test of one probe ×
// prompt pair: how much more the target's pass rate changed since its
// baseline than the control's did (docs/attribution.md).
type Differential struct {
	// Key is "probe/prompt".
	Key string
	// Target and Control are each arm's pass counts, baseline and current.
	TargetBase, TargetCur, ControlBase, ControlCur promptcanary.SampleStats
	// Effect is the adjusted difference in differences, (target current −
	// target baseline) − (control current − control baseline), with
	// (y + ½)/(n + 1) for each rate; Lower and Upper its 95% interval.
	Effect, Lower, Upper float64
	// P is the two-sided p-value of "the two changes are equal".
	P float64
}

// Differs reports whether the 95% interval excludes 0: the target's
// change is not the control's.
func (t Differential) Differs() bool { return t.Lower > 0 || t.Upper < 0 }

// DifferenceInDifferences tests whether the target's change of pass rate
// (tb → tc) differs from the control's (cb → cc) with Price and Bonett's
// (2004) adjusted Wald test of a linear contrast of four binomial
// proportions: each rate is (y + ½)/(n + 1) (2/k successes and 4/k trials
// added to each of the k = 4 groups), the contrast
// D = (p̃tc − p̃tb) − (p̃cc − p̃cb) has standard error
// √Σ p̃(1 − p̃)/(n + 1), the interval is D ± 1.96·SE and the p-value
// 2·(1 − Φ(|D|/SE)).
func DifferenceInDifferences(tb, tc, cb, cc promptcanary.SampleStats) Differential {
	adj := func(s promptcanary.SampleStats) (p, v float64) {
		p = (float64(s.Passes) + 0.5) / (float64(s.N) + 1)
		return p, p * (1 - p) / (float64(s.N) + 1)
	}
	ptb, vtb := adj(tb)
	ptc, vtc := adj(tc)
	pcb, vcb := adj(cb)
	pcc, vcc := adj(cc)
	d := (ptc - ptb) - (pcc - pcb)
	se := math.Sqrt(vtb + vtc + vcb + vcc)
	return Differential{TargetBase: tb, TargetCur: tc, ControlBase: cb, ControlCur: cc,
		Effect: d, Lower: d - z95*se, Upper: d + z95*se, P: math.Erfc(math.Abs(d) / se / math.Sqrt2)}
}

// line words the test for the evidence.
func (t Differential) line(spec string) string {
	return fmt.Sprintf("%s: target %d/%d → %d/%d, control %s %d/%d → %d/%d; difference in differences %s pts [%s, %s], p=%s",
		t.Key, t.TargetBase.Passes, t.TargetBase.N, t.TargetCur.Passes, t.TargetCur.N, spec,
		t.ControlBase.Passes, t.ControlBase.N, t.ControlCur.Passes, t.ControlCur.N, signed(100*t.Effect, 1), signed(100*t.Lower, 1), signed(100*t.Upper, 1), fmtP(t.P))
}

// controlAttribution weighs the target's regressed pairs against the
// control arm: provider (or app) when on some pair the target's drop
// differs from the control's, provider-wide when the control regressed too
// and no pair differs, provider (or app) when the control held everywhere
// though the test alone could not separate the drops. It returns nil and
// the facts when the control tells nothing (it compared nothing, or held
// on some pairs and moved on others without a difference).
func controlAttribution(d *promptcanary.DriftReport, arm *ControlArm, app bool) (*promptcanary.Attribution, []string) {
	moved := promptcanary.CauseProvider
	if app {
		moved = promptcanary.CauseApp
	}
	cr := arm.Report
	if cr == nil || cr.Compared() == 0 {
		return nil, []string{"control " + arm.Spec + " compared nothing against its baseline"}
	}
	control := map[string]*promptcanary.Comparison{}
	for i := range cr.Comparisons {
		c := &cr.Comparisons[i]
		control[c.ProbeID+"/"+c.PromptID] = c
	}
	var differ, shared, unsure []string
	measured := 0 // regressed pairs the control measured too
	for _, t := range d.Comparisons {
		if t.Status != promptcanary.StatusRegression {
			continue
		}
		key := t.ProbeID + "/" + t.PromptID
		c, ok := control[key]
		if !ok || !c.Compared() {
			unsure = append(unsure, key+": the control did not measure this pair")
			continue
		}
		measured++
		dd := DifferenceInDifferences(t.Baseline, t.Current, c.Baseline, c.Current)
		dd.Key = key
		switch {
		case dd.Differs() && dd.Effect < 0:
			differ = append(differ, dd.line(arm.Spec))
		case c.Status == promptcanary.StatusRegression:
			shared = append(shared, dd.line(arm.Spec)+" (the control regressed too)")
		default:
			unsure = append(unsure, dd.line(arm.Spec))
		}
	}
	nDiffer := len(differ)
	differ, shared, unsure = firstFew(differ), firstFew(shared), firstFew(unsure)
	held := "the control " + arm.Spec + " held"
	switch {
	case len(differ) > 0:
		return &promptcanary.Attribution{Cause: moved, Evidence: append([]string{fmt.Sprintf("%s on %s where the target regressed", held, plural(nDiffer, "pair", "pairs"))}, differ...)}, nil
	case len(shared) > 0:
		return &promptcanary.Attribution{Cause: promptcanary.CauseProviderWide, Evidence: append([]string{"the control " + arm.Spec + " moved too: the two drops do not differ"}, shared...)}, unsure
	case !cr.HasDrift && measured > 0:
		// Held only where it measured: a control that measured none of
		// the regressed pairs is no evidence either way.
		return &promptcanary.Attribution{Cause: moved, Evidence: append([]string{held + " (its own compare flagged no drift); the difference in differences alone cannot separate the drops at these sample sizes"}, unsure...)}, nil
	}
	return nil, unsure
}

// maxPairLines bounds the pairs an attribution's evidence lists.
const maxPairLines = 3

// firstFew keeps the first maxPairLines lines and counts the others.
func firstFew(lines []string) []string {
	if len(lines) <= maxPairLines {
		return lines
	}
	return append(lines[:maxPairLines:maxPairLines], fmt.Sprintf("and %d more pairs alike", len(lines)-maxPairLines))
}
