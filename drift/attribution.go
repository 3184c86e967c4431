package drift

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// AttributionInput is what Attribute weighs: a drift report and the
// evidence the workflow recorded around it (docs/attribution.md).
type AttributionInput struct {
	// Report is the target's drift report.
	Report *promptcanary.DriftReport
	// Stale lists the prompts whose configuration hash changed since the
	// baseline (their pairs are stale, not compared).
	Stale []PromptChange
	// Served are the served-model and system-fingerprint changes
	// (ChangeSignal kinds "model" and "system_fingerprint"); when nil, the
	// report's statistics' signals of those kinds are used.
	Served []promptcanary.ChangeSignal
	// Judge is the judge re-run on the baseline's stored answers; nil
	// when it was not re-run.
	Judge *JudgeRecheck
	// Control is the control arm's report; nil without a control arm.
	Control *ControlArm
	// App is set when the target is an application in front of a model
	// (provider.Capabilities.App), so a move its control did not share is
	// the app's.
	App bool
}

// PromptChange is a prompt whose configuration hash (its text, system
// prompt, tools, probes and call parameters) changed since the baseline.
type PromptChange struct {
	PromptID string
	Baseline string
	Current  string
}

// JudgeRecheck is the judge probe run again on answers the baseline
// stored, for the pairs that moved.
type JudgeRecheck struct {
	Pairs []JudgedPair
}

// JudgedPair is one judge pair (probe/prompt) whose baseline answers were
// judged again.
type JudgedPair struct {
	// Key is "probe/prompt".
	Key string
	// Answers counts the baseline answers judged again; Stored of them
	// passed when the baseline was taken, Again pass now.
	Answers, Stored, Again int
	// Current is the current run's pass count of the pair.
	Current promptcanary.SampleStats
	// SameAnswers is set when the current run answered the prompt with
	// the texts the baseline did (the same distinct answers).
	SameAnswers bool
}

// ControlArm is the control arm of a compare: the model it ran and its
// own drift report against its own baseline.
type ControlArm struct {
	Spec   string
	Report *promptcanary.DriftReport
}

// Attribute derives the likely cause of what report found, by the
// precedence of docs/attribution.md: suite, judge, control arm, served
// model or fingerprint, then unknown; a report without drift is noise
// (or suite when the suite changed). It returns nil when nothing was
// compared and the suite did not change.
func Attribute(in AttributionInput) *promptcanary.Attribution {
	d := in.Report
	suite := suiteEvidence(d, in.Stale)
	drifted := d.HasDrift
	if !drifted {
		if len(suite) > 0 {
			return &promptcanary.Attribution{Cause: promptcanary.CauseSuite, Evidence: suite}
		}
		if d.Compared() == 0 {
			return nil
		}
		return &promptcanary.Attribution{Cause: promptcanary.CauseNoise, Evidence: noiseEvidence(d, servedChanges(in))}
	}
	var a *promptcanary.Attribution
	var also []string
	if in.Judge != nil {
		a, also = judgeAttribution(in.Judge)
	}
	if a == nil && in.Control != nil {
		var more []string
		a, more = controlAttribution(d, in.Control, in.App)
		also = append(also, more...)
	}
	if a == nil {
		if served := servedChanges(in); len(served) > 0 {
			a = &promptcanary.Attribution{Cause: promptcanary.CauseProvider}
			for _, s := range served {
				a.Evidence = append(a.Evidence, s.Detail)
			}
		}
	}
	if a == nil {
		a = &promptcanary.Attribution{Cause: promptcanary.CauseUnknown, Evidence: []string{unknownEvidence(d, in.Control != nil)}}
	}
	a.Evidence = append(a.Evidence, also...)
	for _, s := range suite {
		a.Evidence = append(a.Evidence, "also: "+s)
	}
	return a
}

// servedChanges returns the served-model and fingerprint changes of in.
func servedChanges(in AttributionInput) []promptcanary.ChangeSignal {
	sigs := in.Served
	if sigs == nil && in.Report.Statistics != nil {
		sigs = in.Report.Statistics.Signals
	}
	var out []promptcanary.ChangeSignal
	for _, s := range sigs {
		if s.Flagged && (s.Kind == "model" || s.Kind == "system_fingerprint") {
			out = append(out, s)
		}
	}
	return out
}

// suiteEvidence words the suite's changes since the baseline: prompts
// whose configuration changed, pairs added and removed.
func suiteEvidence(d *promptcanary.DriftReport, stale []PromptChange) []string {
	var out []string
	pairs := map[string]int{}
	for _, c := range d.Comparisons {
		if c.Status == promptcanary.StatusStale {
			pairs[c.PromptID]++
		}
	}
	for _, s := range stale {
		out = append(out, fmt.Sprintf("prompt %s changed since the baseline (configuration hash %s → %s: its text, system prompt, tools, probes or call parameters); its %s stale, not compared",
			s.PromptID, short(s.Baseline), short(s.Current), plural(pairs[s.PromptID], "pair is", "pairs are")))
	}
	for _, st := range []struct {
		status promptcanary.Status
		word   string
	}{{promptcanary.StatusAdded, "added"}, {promptcanary.StatusRemoved, "removed"}} {
		probes := map[string]bool{}
		n := 0
		for _, c := range d.Comparisons {
			if c.Status == st.status {
				probes[c.ProbeID] = true
				n++
			}
		}
		if n > 0 {
			ids := slices.Sorted(func(yield func(string) bool) {
				for p := range probes {
					if !yield(p) {
						return
					}
				}
			})
			out = append(out, fmt.Sprintf("%s %s since the baseline (probes %s)", plural(n, "pair", "pairs"), st.word, strings.Join(ids, ", ")))
		}
	}
	return out
}

// short cuts a hash to 12 characters.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// plural is "1 pair" or "n pairs".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// judgeAttribution reads the judge re-run: judge when, on every re-judged
// pair, the baseline's answers now pass at a rate nearer the current
// run's than their stored verdicts' (and some verdict changed). Else it
// returns the facts as evidence for the cause found next.
func judgeAttribution(j *JudgeRecheck) (*promptcanary.Attribution, []string) {
	if len(j.Pairs) == 0 {
		return nil, nil
	}
	var ev []string
	all := true
	for _, p := range j.Pairs {
		n := float64(max(p.Answers, 1))
		s, again, cur := float64(p.Stored)/n, float64(p.Again)/n, p.Current.PassRate()
		moved := p.Stored != p.Again && math.Abs(again-cur) < math.Abs(again-s)
		all = all && moved
		line := fmt.Sprintf("%s: the judge, re-run now on %s the baseline stored, passes %d (stored verdicts: %d; current run: %d/%d)",
			p.Key, plural(p.Answers, "answer", "answers"), p.Again, p.Stored, p.Current.Passes, p.Current.N)
		if p.SameAnswers {
			line += "; the current run gave the baseline's answers"
		}
		ev = append(ev, line)
	}
	if all {
		return &promptcanary.Attribution{Cause: promptcanary.CauseJudge, Evidence: ev}, nil
	}
	for i := range ev {
		ev[i] = "judge re-run: " + ev[i]
	}
	return nil, ev
}

// unknownEvidence words a drift nothing recorded explains.
func unknownEvidence(d *promptcanary.DriftReport, control bool) string {
	what := plural(d.Count(promptcanary.StatusRegression), "pair", "pairs") + " regressed"
	if d.Count(promptcanary.StatusRegression) == 0 {
		what = "groups of pairs (a probe, a category or the suite) regressed together"
	}
	s := what + " with the suite, the served model and the system fingerprint unchanged"
	if !control {
		s += "; a control arm (compare --control) would tell the provider from a provider-wide change"
	}
	return s
}

// noiseEvidence words a report without drift: the largest move of a
// compared pair and what the test made of it.
func noiseEvidence(d *promptcanary.DriftReport, served []promptcanary.ChangeSignal) []string {
	var best *promptcanary.Comparison
	bestMove := 0.0
	for i := range d.Comparisons {
		c := &d.Comparisons[i]
		if !c.Compared() {
			continue
		}
		if m := math.Abs(pairMove(c)); m > bestMove+tolerance {
			best, bestMove = c, m
		}
	}
	var ev []string
	if best == nil {
		ev = append(ev, "nothing moved: every compared pair scored as in the baseline")
	} else {
		ev = append(ev, "largest move: "+moveLine(d, best))
	}
	for _, s := range served {
		ev = append(ev, s.Detail+" (without drift)")
	}
	return append(ev, signalsWithoutDrift(d)...)
}

// signalsWithoutDrift words the signals of their own that a report
// without drift still raised, so that "noise" never reads as "nothing
// changed" when the answers no longer look like the same model's or
// cost more.
func signalsWithoutDrift(d *promptcanary.DriftReport) []string {
	var ev []string
	if id := d.Identity; id.Different() {
		ev = append(ev, fmt.Sprintf("but %s (model identity test: MMD² %.4f, p = %.4f)", promptcanary.IdentityDifferentText, id.MMD, id.P))
	}
	if e := d.Economics; e != nil && e.Summary != "" {
		ev = append(ev, "but "+e.Summary)
	}
	return ev
}

// pairMove is how far a pair moved: its pass rate's change with samples,
// else its score's.
func pairMove(c *promptcanary.Comparison) float64 {
	if c.Baseline.N > 0 && c.Current.N > 0 && (c.Baseline.N > 1 || c.Current.N > 1) {
		if d := c.Current.PassRate() - c.Baseline.PassRate(); d != 0 {
			return d
		}
		return c.Current.MeanScore - c.Baseline.MeanScore
	}
	return c.CurrentScore - c.BaselineScore
}

// moveLine words one pair's move with the test that judged it.
func moveLine(d *promptcanary.DriftReport, c *promptcanary.Comparison) string {
	key := c.ProbeID + "/" + c.PromptID
	var s string
	if c.Baseline.N > 1 || c.Current.N > 1 {
		s = fmt.Sprintf("%s %d/%d → %d/%d passed (%s pts)", key, c.Baseline.Passes, c.Baseline.N, c.Current.Passes, c.Current.N, signed(100*(c.Current.PassRate()-c.Baseline.PassRate()), 1))
		if c.Current.PassRate() == c.Baseline.PassRate() {
			s = fmt.Sprintf("%s mean score %.2f → %.2f", key, c.Baseline.MeanScore, c.Current.MeanScore)
		}
	} else {
		s = fmt.Sprintf("%s score %.2f → %.2f", key, c.BaselineScore, c.CurrentScore)
	}
	if d.Statistics != nil {
		for _, u := range d.Statistics.Units {
			if u.Kind == promptcanary.UnitPair && u.Key == key {
				return s + fmt.Sprintf(", not flagged (one-sided p=%s, q=%s)", fmtP(u.P), fmtQ(u.Q))
			}
		}
	}
	return s + ", within what the test allows"
}
