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

// answerTally counts one distinct answer of a prompt (see Answers): two
// responses are the same answer when their content and tool calls (names
// and arguments) are equal.
type answerTally struct {
	text        string
	count       int
	firstSample int
	firstPos    int
}

// answerKey identifies an answer by its content and tool calls.
func answerKey(r *promptcanary.Response) string {
	if len(r.ToolCalls) == 0 {
		return r.ContentKey()
	}
	var b strings.Builder
	b.WriteString(r.ContentKey())
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
