package drift

import (
	"strings"

	"github.com/promptcanary/promptcanary"
)

// promptAnswers summarises the answers of one side to one prompt.
type promptAnswers struct {
	// n counts the responses.
	n int
	// example is the typical answer: the most frequent one, ties going to
	// the one seen first in sample order.
	example string
	// distinct counts the distinct answers (content and tool calls).
	distinct int
}

// answerTally counts one distinct answer of a prompt.
type answerTally struct {
	text        string
	count       int
	firstSample int
	firstPos    int
}

// summariseAnswers makes one pass over a run's responses and summarises
// each prompt's answers. Two responses are the same answer when their
// content and tool calls (names and arguments) are equal. A run without
// responses (a baseline written by the Python tool) gives an empty map.
func summariseAnswers(rs []promptcanary.Response) map[string]promptAnswers {
	if len(rs) == 0 {
		return nil
	}
	byPrompt := map[string]map[string]*answerTally{}
	counts := map[string]int{}
	for i := range rs {
		r := &rs[i]
		m := byPrompt[r.PromptID]
		if m == nil {
			m = map[string]*answerTally{}
			byPrompt[r.PromptID] = m
		}
		counts[r.PromptID]++
		key := answerKey(r)
		t := m[key]
		if t == nil {
			t = &answerTally{text: answerText(r), firstSample: r.Sample, firstPos: i}
			m[key] = t
		}
		t.count++
		t.firstSample = min(t.firstSample, r.Sample)
	}
	out := make(map[string]promptAnswers, len(byPrompt))
	for id, m := range byPrompt {
		var best *answerTally
		for _, t := range m {
			if best == nil || t.count > best.count ||
				t.count == best.count && (t.firstSample < best.firstSample || t.firstSample == best.firstSample && t.firstPos < best.firstPos) {
				best = t
			}
		}
		out[id] = promptAnswers{n: counts[id], example: best.text, distinct: len(m)}
	}
	return out
}

// answerKey identifies an answer by its content and tool calls.
func answerKey(r *promptcanary.Response) string {
	if len(r.ToolCalls) == 0 {
		return r.Content
	}
	var b strings.Builder
	b.WriteString(r.Content)
	for _, tc := range r.ToolCalls {
		b.WriteString("\x00")
		b.WriteString(tc.Name)
		b.WriteString("\x01")
		b.Write(tc.Arguments)
	}
	return b.String()
}

// answerText is an answer as shown in a report: its content, then one line
// per tool call, "→ name(arguments)".
func answerText(r *promptcanary.Response) string {
	if len(r.ToolCalls) == 0 {
		return r.Content
	}
	var b strings.Builder
	b.WriteString(r.Content)
	for _, tc := range r.ToolCalls {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("→ " + tc.Name + "(" + string(tc.Arguments) + ")")
	}
	return b.String()
}

// addExamples fills every comparison's example answers and distinct
// counts from the answers of its prompt on each side; a side without
// responses leaves them empty.
func addExamples(rep *promptcanary.DriftReport, base, cur map[string]promptAnswers) {
	for i := range rep.Comparisons {
		c := &rep.Comparisons[i]
		if a, ok := base[c.PromptID]; ok {
			c.BaselineExample, c.BaselineDistinct = a.example, a.distinct
		}
		if a, ok := cur[c.PromptID]; ok {
			c.CurrentExample, c.CurrentDistinct = a.example, a.distinct
		}
	}
}
