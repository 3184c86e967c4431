package selftest

import (
	"fmt"
	"math"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
)

// detectable fills each probe's Detectable for the sample counts n.
func detectable(res *Result, n Samples, alpha float64) error {
	if n.Baseline < 1 || n.Current < 1 || n.Baseline > promptcanary.MaxSamples || n.Current > promptcanary.MaxSamples {
		return fmt.Errorf("selftest: samples must be between 1 and %d on each side (got %d and %d)", promptcanary.MaxSamples, n.Baseline, n.Current)
	}
	if alpha == 0 {
		alpha = drift.DefaultAlpha
	}
	res.Samples, res.Alpha = &n, alpha
	cache := map[int]Detectable{}
	for i := range res.Probes {
		p := &res.Probes[i]
		if p.Judged == 0 {
			p.Detectable = &Detectable{Reason: "no answer was judged: no pass rate to drop from"}
			continue
		}
		bPass := int(math.Round(p.PassRate() * float64(n.Baseline)))
		d, ok := cache[bPass]
		if !ok {
			var err error
			if d, err = pairDrop(bPass, n, alpha); err != nil {
				return err
			}
			cache[bPass] = d
		}
		p.Detectable = &d
	}
	return nil
}

// pairDrop asks the drift statistics for the smallest drop they detect on
// one (probe, prompt) pair whose baseline passes bPass of n.Baseline
// samples, by comparing such a pair with an unchanged current run: a clean
// statistical comparison quotes each pair's minimum detectable drop
// (DriftStatistics.PairDetectableDrop), computed by the same exact Fisher
// power calculation that sizes every clean compare.
//
// The pair is compared alone, so its test faces the level alpha; in a suite
// whose comparison holds many testable pairs the multiplicity step lowers
// that level and the detectable drop grows.
func pairDrop(bPass int, n Samples, alpha float64) (Detectable, error) {
	from := float64(bPass) / float64(n.Baseline)
	switch {
	case n.Baseline < 2 || n.Current < 2:
		return Detectable{From: from, Reason: "one sample on a side: no statistical verdict"}, nil
	case bPass == 0:
		return Detectable{From: from, Reason: "the probe never passes on the stored answers: no drop possible"}, nil
	}
	const name = "selftest"
	results := func(k, passes int) []promptcanary.ProbeResult {
		out := make([]promptcanary.ProbeResult, k)
		for s := range out {
			out[s] = promptcanary.ProbeResult{ProbeID: "probe", ProbeName: "probe", Category: promptcanary.CategoryCustom, PromptID: "prompt", Sample: s, Passed: s < passes, Score: b2f(s < passes)}
		}
		return out
	}
	// The current run passes at least as often as the baseline: no drift.
	cPass := int(math.Ceil(from * float64(n.Current)))
	base := &promptcanary.Baseline{SnapshotID: name, SuiteName: name, RunResult: promptcanary.Run{SuiteName: name, Samples: n.Baseline, ProbeResults: results(n.Baseline, bPass)}}
	cur := &promptcanary.Run{RunID: name, SuiteName: name, Samples: n.Current, ProbeResults: results(n.Current, cPass)}
	rep, err := drift.Compare(base, cur, drift.Options{
		Method: drift.MethodStatistical, Alpha: alpha, Seed: 1,
		Now: func() time.Time { return time.Time{} }, NewID: func() string { return name },
	})
	if err != nil {
		return Detectable{}, fmt.Errorf("selftest: detectable drop: %w", err)
	}
	if rep.Statistics == nil || rep.Statistics.PairDetectableDrop.Upper <= 0 {
		return Detectable{From: from, Reason: fmt.Sprintf("no drop detectable with %d and %d samples", n.Baseline, n.Current)}, nil
	}
	return Detectable{Drop: rep.Statistics.PairDetectableDrop.Upper, From: from}, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
