package incident

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// SeverityCandidate is the severity of a candidate incident: a candidate
// worse than the model in production breaks nothing yet, so it reaches
// the notifiers that take low (the default) and no pager set to high.
const SeverityCandidate = promptcanary.SeverityLow

// Gate applies a recorded upgrade gate of the check of t (a check with
// candidate:) to its candidate incident: a gate that finds pairs worse
// beyond the margin opens one, or updates the open one when the pairs
// change; a gate with no pair worse counts as clean, and ResolveAfter of
// them in a row resolve it, saying whether the candidate is ready; a gate
// that compared nothing is neither. It takes the book's lock.
func (l *Lifecycle) Gate(ctx context.Context, t *Tracker, g *promptcanary.CandidateGate) {
	l.Book.Lock()
	defer func() {
		l.Sync()
		l.Book.Unlock()
	}()
	ctx, sub := context.WithoutCancel(ctx), t.Subject
	fp := Fingerprint(sub.Check, sub.Provider, promptcanary.IncidentCandidate)
	open := l.Book.Get(fp)
	r := g.Report
	switch {
	case r == nil || r.Summary.Pairs == 0:
		if open != nil {
			l.NotClean(ctx, open)
		}
	case r.Summary.Worse > 0:
		l.Fire(ctx, sub, Finding{Kind: promptcanary.IncidentCandidate, Severity: SeverityCandidate,
			Units: promptcanary.SortUnits(worseUnits(r)), Summary: GateSummary(g)})
	case open != nil:
		open.CleanRuns++
		if open.CleanRuns < l.ResolveAfter {
			l.save(ctx, open)
			return
		}
		open.Summary = l.Line(GateSummary(g))
		l.Resolve(ctx, open, "", open.Summary)
	}
}

// worseUnits are the pairs of r worse beyond the margin, as incident
// units: the current model's pass rate as the baseline's, the
// candidate's as the current one, and the q-value of the test.
func worseUnits(r *promptcanary.CandidateReport) []promptcanary.IncidentUnit {
	var out []promptcanary.IncidentUnit
	for _, p := range r.With(promptcanary.CandidateWorse) {
		out = append(out, promptcanary.IncidentUnit{Unit: promptcanary.UnitPair, Name: p.ProbeID + "/" + p.PromptID,
			Baseline: rate(p.Current), Current: rate(p.Candidate), Q: p.QWorse})
	}
	return out
}

func rate(c promptcanary.PassCount) float64 {
	if c.N == 0 {
		return 0
	}
	return float64(c.Passed) / float64(c.N)
}

// GateSummary is the one line an incident, its notifications and the
// dashboard say about an upgrade gate: "candidate sim/terse is worse than
// sim/stable on 2 of 29 pairs (margin 5 pts): p/a 100.0% → 0.0%, …",
// "candidate … is no worse than … on all 29 pairs (margin 5 pts): ready
// to upgrade", or, when some pairs are inconclusive, "… is worse than …
// on none of 29 pairs (margin 5 pts); no worse on 20, inconclusive on 9:
// more samples would decide them". Model
// names and pair ids are as given: a renderer escapes the line.
func GateSummary(g *promptcanary.CandidateGate) string {
	r := g.Report
	if r == nil || r.Summary.Pairs == 0 {
		why := g.Reason
		if why == "" {
			why = "no pair was measured on both models"
		}
		return fmt.Sprintf("upgrade gate of candidate %s against %s: no verdict: %s", g.Candidate, g.Provider, why)
	}
	s := r.Summary
	margin := "(margin " + strconv.FormatFloat(100*r.Margin, 'f', -1, 64) + " pts)"
	if s.Worse > 0 {
		var parts []string
		for i, u := range promptcanary.SortUnits(worseUnits(r)) {
			if i == maxSummaryUnits {
				parts = append(parts, fmt.Sprintf("+%d more", s.Worse-maxSummaryUnits))
				break
			}
			parts = append(parts, fmt.Sprintf("%s %s → %s", u.Name, pct(u.Baseline), pct(u.Current)))
		}
		return fmt.Sprintf("candidate %s is worse than %s on %d of %d pairs %s: %s", g.Candidate, g.Provider, s.Worse, s.Pairs, margin, strings.Join(parts, ", "))
	}
	if s.NoWorse == s.Pairs {
		out := fmt.Sprintf("candidate %s is no worse than %s on all %d pairs %s", g.Candidate, g.Provider, s.Pairs, margin)
		if s.Better > 0 {
			out += fmt.Sprintf(", better on %d", s.Better)
		}
		return out + ": ready to upgrade"
	}
	return fmt.Sprintf("candidate %s is worse than %s on none of %d pairs %s; no worse on %d, inconclusive on %d: more samples would decide them",
		g.Candidate, g.Provider, s.Pairs, margin, s.NoWorse, s.Inconclusive)
}
