package report

import "github.com/promptcanary/promptcanary"

// candidatePage is the data of the upgrade gate's HTML report
// (templates/candidate.html.tmpl). Every string is passed to html/template
// as text: suite, models and pair ids come from canary.yaml and the
// command line and are escaped like model output.
type candidatePage struct {
	Suite, Current, Candidate string
	// Verdict is CandidateVerdict; Status is "pass", "fail" (a pair is
	// worse) or "none" (nothing compared, or pairs inconclusive).
	Verdict, Status, Badge string
	Method                 string
	// Pairs is the number of pairs compared; Counts split them by verdict.
	Pairs    int
	Counts   []candidateCount
	Sections []candidateSection
	// NoWorse is the no-worse pairs, shown folded.
	NoWorse     candidateSection
	NotCompared []string
}

// candidateCount is one card of the page: a verdict and its pairs.
type candidateCount struct {
	Label, Class string
	N            int
}

// candidateSection is a table of the pairs of one verdict.
type candidateSection struct {
	Title, Class, Note string
	Rows               []candidateRow
}

// candidateRow is one pair as the HTML table shows it.
type candidateRow struct {
	Probe, Prompt, Current, Candidate, Delta, Interval, Tests string
}

// newCandidatePage prepares r for the HTML template.
func newCandidatePage(r *promptcanary.CandidateReport) candidatePage {
	s := r.Summary
	p := candidatePage{Suite: r.Suite, Current: r.Current, Candidate: r.Candidate,
		Verdict: CandidateVerdict(r), Status: "pass", Badge: "no worse", Method: candidateMethod(r),
		Pairs: s.Pairs, NotCompared: r.NotCompared}
	switch {
	case s.Worse > 0:
		p.Status, p.Badge = "fail", "worse"
	case s.Pairs == 0:
		p.Status, p.Badge = "none", "nothing compared"
	case s.Inconclusive > 0:
		p.Status, p.Badge = "none", "inconclusive"
	}
	p.Counts = []candidateCount{
		{"worse", "fail", s.Worse}, {"better", "pass", s.Better}, {"no worse", "pass", s.NoWorse - s.Better},
		{"inconclusive", "warn", s.Inconclusive}, {"not compared", "warn", s.NotCompared},
	}
	for _, sec := range candidateSections {
		t := candidateSection{Title: sec.title, Class: sec.badge,
			Rows: candidateRows(r.With(sec.verdict))}
		if sec.verdict == promptcanary.CandidateInconclusive {
			t.Note = samplesNote(r)
		}
		switch {
		case sec.verbose:
			p.NoWorse = t
		case len(t.Rows) > 0:
			p.Sections = append(p.Sections, t)
		}
	}
	return p
}

// candidateRows are ps as table rows.
func candidateRows(ps []promptcanary.CandidatePair) []candidateRow {
	rows := make([]candidateRow, len(ps))
	for i, p := range ps {
		rows[i] = candidateRow{Probe: p.ProbeID, Prompt: p.PromptID,
			Current: candidateRate(p.Current), Candidate: candidateRate(p.Candidate),
			Delta: signedFixed(100*p.Delta, 1), Interval: candidateInterval(p), Tests: candidateTests(p)}
	}
	return rows
}
