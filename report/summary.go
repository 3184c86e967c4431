package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/promptcanary/promptcanary/internal/quote"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// streamModel is what a run report adds for a streamed run: where the
// answers came from, how many were read and judged, and the lines for
// prompts the suite does not hold.
type streamModel struct {
	Source string
	// Lines is "1,000,000 lines read, 990,000 judged by their prompt's probes".
	Lines string
	// Unknown is "" or "10,000 lines for 2 prompts not in the suite: a (6,000), b (4,000)".
	Unknown string
	// Note says what a streamed run keeps and what it does not.
	Note string
}

// streamNote is the caveat every rendering of a streamed run carries.
const streamNote = "Streamed run: every line was judged, and only counts per probe × prompt pair were kept: no answers, so it is not in the history, cannot be a baseline and is not compared."

// Summary writes s, a streamed run, in format f to w: the run report's
// layout, built from the aggregates (a pair's count, passes, mean score,
// distinct failure details and first failing answer). JSON is the summary
// itself (see promptcanary.RunSummary), which DecodeSummary reads back.
// Nothing is written when rendering fails.
func Summary(w io.Writer, f Format, s *promptcanary.RunSummary, opts Options) error {
	if s == nil {
		return errors.New("render streamed run: nil summary")
	}
	return (&renderer{
		name:     "streamed run",
		terminal: func(b *bytes.Buffer) { renderRunTerminal(b, newSummaryModel(s), opts) },
		markdown: func(b *bytes.Buffer) { renderRunMarkdown(b, newSummaryModel(s)) },
		html:     func(b *bytes.Buffer) error { return renderHTML(b, "run.html.tmpl", newSummaryModel(s)) },
		json:     func(b *bytes.Buffer) error { return writeJSON(b, s) },
		junit: func(b *bytes.Buffer) error {
			m := newSummaryModel(s)
			return writeXML(b, suitesOf([]junitSuite{modelSuite(m, s.SuiteName, s.StartedAt, s.Duration(), "")}, s.Duration()))
		},
	}).write(w, f)
}

// DecodeSummary reads the JSON of a streamed run, as Summary writes it.
func DecodeSummary(data []byte) (*promptcanary.RunSummary, error) {
	var s promptcanary.RunSummary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("decode streamed run: %w", err)
	}
	if s.Kind != promptcanary.KindRunSummary {
		return nil, fmt.Errorf("decode streamed run: kind %q, want %q", s.Kind, promptcanary.KindRunSummary)
	}
	for i := range s.Pairs {
		if p := &s.Pairs[i]; p.N < 0 || p.Passes < 0 || p.Passes > p.N {
			return nil, fmt.Errorf("decode streamed run: pair %s: %d passes of %d", p.Key(), p.Passes, p.N)
		}
	}
	return &s, nil
}

// newSummaryModel prepares a streamed run for the run renderers.
func newSummaryModel(s *promptcanary.RunSummary) *runModel {
	total, passed := s.Results()
	m := &runModel{
		Suite:       orDash(s.SuiteName),
		Model:       orDash(s.Provider.ModelID),
		Sampling:    sampling(s.Provider),
		Started:     timestamp(s.StartedAt),
		Duration:    duration(s.Duration()),
		Measured:    s.Measured(),
		Score:       "n/a",
		PassRate:    "n/a",
		Passed:      int(passed),
		Total:       int(total),
		Interrupted: s.Interrupted,
		Tool:        s.Tool,
		ConfigHash:  s.ConfigHash,
		RunID:       orDash(s.RunID),
		Errors:      errorRows(s.Errors),
	}
	if m.Measured {
		m.Score, m.PassRate = score(s.OverallScore()), percent(s.PassRate())
	}
	m.Tokens = quote.Thousands(int(s.TotalTokens))
	if s.PromptTokens+s.CompletionTokens > 0 {
		m.Tokens += " (" + quote.Thousands(int(s.PromptTokens)) + " prompt + " + quote.Thousands(int(s.CompletionTokens)) + " completion)"
	}
	m.Cost = costText(s.CostUSD)

	cats := make(map[promptcanary.Category]*categoryRow)
	catScore := make(map[promptcanary.Category]float64)
	pairs := slices.Clone(s.Pairs)
	slices.SortStableFunc(pairs, func(a, b promptcanary.PairSummary) int {
		return cmp.Or(cmp.Compare(a.PromptID, b.PromptID), cmp.Compare(a.ProbeID, b.ProbeID))
	})
	perPrompt := map[string]int64{}
	for i := range pairs {
		p := &pairs[i]
		perPrompt[p.PromptID] = max(perPrompt[p.PromptID], p.N)
		c := cats[p.Category]
		if c == nil {
			c = &categoryRow{Category: string(p.Category)}
			cats[p.Category] = c
		}
		c.Total += int(p.N)
		c.Passed += int(p.Passes)
		catScore[p.Category] += p.ScoreSum
		g := resultGroup{ProbeID: p.ProbeID, Probe: probeLabel(p.ProbeID, p.ProbeName), Category: string(p.Category), PromptID: p.PromptID,
			Passes: int(p.Passes), N: int(p.N), Score: score(p.MeanScore()), Passed: p.Passes == p.N}
		if g.Passed {
			g.Details = p.Details
			m.Passing = append(m.Passing, g)
			continue
		}
		for _, d := range p.Failures {
			g.Failures = append(g.Failures, detailCount{Text: d.Details, N: int(d.N)})
		}
		slices.SortStableFunc(g.Failures, func(a, b detailCount) int { return cmp.Compare(b.N, a.N) })
		if p.OtherFailures > 0 {
			g.Failures = append(g.Failures, detailCount{Text: fmt.Sprintf("with other details (more than %d distinct)", promptcanary.MaxSummaryDetails), N: int(p.OtherFailures)})
		}
		g.Example = cut(p.Example, previewRunes)
		m.Failed = append(m.Failed, g)
	}
	for _, n := range perPrompt {
		m.Samples = max(m.Samples, int(n))
	}
	m.conclude(cats, catScore)
	if !m.Measured {
		m.Verdict = "Nothing was measured: no line read is for a prompt of the suite (" + Count(s.Lines, "line") + " read), so there is no score."
	}
	m.Stream = &streamModel{
		Source: orDash(s.Source),
		Lines:  Count(s.Lines, "line") + " read, " + quote.Thousands(int(s.Judged)) + " judged by their prompt's probes",
		Note:   streamNote,
	}
	if s.UnknownLines > 0 {
		m.Stream.Unknown = unknownLine(s)
	}
	return m
}

// unknownNames is how many prompts not in the suite a report names.
const unknownNames = 10

// unknownLine says how many lines were for prompts not in the suite, and
// names those with the most lines.
func unknownLine(s *promptcanary.RunSummary) string {
	us := slices.Clone(s.Unknown)
	slices.SortStableFunc(us, func(a, b promptcanary.UnknownPrompt) int { return cmp.Compare(b.Lines, a.Lines) })
	parts := make([]string, 0, unknownNames+1)
	var listed int64
	for i, u := range us {
		if i == unknownNames {
			break
		}
		parts = append(parts, cut(u.PromptID, 60)+" ("+quote.Thousands(int(u.Lines))+")")
		listed += u.Lines
	}
	if s.UnknownLines > listed {
		parts = append(parts, "others ("+quote.Thousands(int(s.UnknownLines-listed))+")")
	}
	prompts := strconv.Itoa(len(s.Unknown))
	if len(s.Unknown) >= promptcanary.MaxSummaryUnknown {
		prompts += " or more"
	}
	return Count(s.UnknownLines, "line") + " for " + prompts + " prompt(s) not in the suite, not judged: " + strings.Join(parts, ", ")
}

// Count is "1 line" or "1,000 lines": n things named one, with thousands
// separators, and an "s" after one unless n is 1.
func Count(n int64, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return quote.Thousands(int(n)) + " " + one + "s"
}
