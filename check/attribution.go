package check

import (
	"cmp"
	"context"
	"slices"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/runner"
)

// Bounds of the judge re-run of a compare (docs/attribution.md): it
// re-judges at most rejudgeAnswers baseline answers of each moved pair,
// and only when at most rejudgePairs pairs moved, all of them judge pairs.
const (
	rejudgeAnswers = 10
	rejudgePairs   = 4
)

// attribute fills the Attribution of every pair's report from what was
// recorded: the suite's changes, the judge re-run on the baseline's
// answers, the control arm, the served model and fingerprint (see
// drift.Attribute). It runs before the pairs drop their runs.
func (o *CompareOutcome) attribute(ctx context.Context, req *CompareRequest) {
	for i := range o.Pairs {
		p := &o.Pairs[i]
		in := drift.AttributionInput{Report: p.Report, Served: p.served, App: provider.CapabilitiesOf(p.Report.Provider.ModelID).App}
		if p.Baseline != nil && p.Run != nil {
			in.Stale = promptChanges(&p.Baseline.RunResult, p.Run)
		}
		if o.Control != nil {
			in.Control = &drift.ControlArm{Spec: req.Control.Spec, Report: o.Control.Report}
		}
		in.Judge = req.rejudge(ctx, p)
		p.Report.Attribution = drift.Attribute(in)
	}
	if c := o.Control; c != nil && c.Baseline != nil && c.Run != nil {
		in := drift.AttributionInput{Report: c.Report, Served: c.served, Stale: promptChanges(&c.Baseline.RunResult, c.Run)}
		c.Report.Attribution = drift.Attribute(in)
	}
}

// promptChanges lists the prompts whose configuration hash differs
// between the baseline's run and cur (stalePrompts), with both hashes.
func promptChanges(base, cur *promptcanary.Run) []drift.PromptChange {
	var out []drift.PromptChange
	for id := range stalePrompts(base, cur) {
		out = append(out, drift.PromptChange{PromptID: id, Baseline: base.PromptHashes[id], Current: cur.PromptHashes[id]})
	}
	slices.SortFunc(out, func(a, b drift.PromptChange) int { return cmp.Compare(a.PromptID, b.PromptID) })
	return out
}

// rejudge runs the judge probes of the pairs that moved again on the
// answers the baseline stored, within the bounds above; nil unless the
// report drifted, only judge pairs regressed and the baseline holds their
// answers and verdicts.
func (req *CompareRequest) rejudge(ctx context.Context, p *Pair) *drift.JudgeRecheck {
	d := p.Report
	if !d.HasDrift || req.Suite == nil || p.Baseline == nil || p.Run == nil {
		return nil
	}
	plan := req.Suite.Plan(p.Run.Provider, 1)
	judging := map[string]bool{}
	for _, it := range plan.Items {
		for k := range it.Probes {
			judging[it.Probes[k].ID] = runner.Judging(&it.Probes[k])
		}
	}
	var moved []promptcanary.Comparison
	for _, c := range d.Comparisons {
		if c.Status == promptcanary.StatusRegression {
			if !judging[c.ProbeID] {
				return nil
			}
			moved = append(moved, c)
		}
	}
	if len(moved) == 0 || len(moved) > rejudgePairs {
		return nil
	}
	opts := engine(req.target(p.Run.Provider.ModelID), req.Exec)
	out := &drift.JudgeRecheck{}
	for _, c := range moved {
		jp, ok := rejudgePair(ctx, plan, &p.Baseline.RunResult, p.Run, c, opts)
		if !ok {
			return nil
		}
		out.Pairs = append(out.Pairs, jp)
	}
	return out
}

// target is the request's target of spec, or the zero Target.
func (req *CompareRequest) target(spec string) Target {
	for _, t := range req.Targets {
		if t.Spec == spec {
			return t
		}
	}
	return Target{}
}

// rejudgePair re-judges the first rejudgeAnswers answers the baseline
// stored for the pair c; ok is false when it stored none with a verdict.
func rejudgePair(ctx context.Context, plan *runner.Plan, base, cur *promptcanary.Run, c promptcanary.Comparison, opts runner.Options) (drift.JudgedPair, bool) {
	stored := map[int]bool{}
	for _, r := range base.ProbeResults {
		if r.ProbeID == c.ProbeID && r.PromptID == c.PromptID {
			stored[r.Sample] = r.Passed
		}
	}
	var resps []promptcanary.Response
	for _, r := range base.LLMResponses {
		if _, ok := stored[r.Sample]; ok && r.PromptID == c.PromptID && len(resps) < rejudgeAnswers {
			resps = append(resps, r)
		}
	}
	if len(resps) == 0 {
		return drift.JudgedPair{}, false
	}
	jp := drift.JudgedPair{Key: c.ProbeID + "/" + c.PromptID, Answers: len(resps), Current: c.Current,
		SameAnswers: slices.Equal(answerTexts(base, c.PromptID), answerTexts(cur, c.PromptID))}
	if jp.Current.N == 0 { // one sample a side: the pair's own verdict
		jp.Current = promptcanary.SampleStats{N: 1, Passes: b2i(c.CurrentPassed)}
	}
	for i, r := range runner.Rejudge(ctx, plan, c.ProbeID, c.PromptID, resps, opts) {
		jp.Stored += b2i(stored[resps[i].Sample])
		jp.Again += b2i(r.Passed)
	}
	return jp, true
}

// answerTexts returns the distinct texts of run's answers to prompt,
// sorted.
func answerTexts(run *promptcanary.Run, prompt string) []string {
	var out []string
	for _, r := range run.LLMResponses {
		if r.PromptID == prompt {
			out = append(out, r.Content)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
