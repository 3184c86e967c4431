package suite

import (
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary/internal/quote"
)

// Problem is one configuration mistake in a suite file, with its location,
// the field path it concerns and a short hint on how to fix it.
type Problem struct {
	File string
	// Line and Column are 1-based; 0 when the problem concerns the whole file.
	// Error shows the column of a problem of the text itself (a syntax
	// error, a NUL byte), which has no field path to find it by.
	Line, Column int
	// Field is the path of the field, such as "prompts[3].expected_keywords[1]"
	// or "probes[2] (response_length).max_chars"; empty for file-level problems.
	Field string
	Msg   string
	Hint  string
}

// NewProblem returns the problem msg of field at line and column of file,
// with hint. The values that field, msg and hint quote are cut at
// quote.Max characters, so that a value of megabytes is not echoed back
// whole.
func NewProblem(file string, line, column int, field, msg, hint string) *Problem {
	return &Problem{File: file, Line: line, Column: column, Field: quote.Bound(field), Msg: quote.Bound(msg), Hint: quote.Bound(hint)}
}

// Error returns "file:line: field: msg", leaving out the parts that are
// unset, or "file:line:column: msg" for a problem without a field path
// whose column is known. The hint is not part of it.
func (p *Problem) Error() string {
	var b strings.Builder
	switch {
	case p.File != "" && p.Line > 0:
		b.WriteString(p.File)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Line))
		if p.Field == "" && p.Column > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Column))
		}
		b.WriteString(": ")
	case p.File != "":
		b.WriteString(p.File)
		b.WriteString(": ")
	case p.Line > 0:
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(p.Line))
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// ValidationError carries every problem found in a suite file, in file order.
type ValidationError struct {
	Problems []*Problem
}

// Error returns one line per problem, without hints.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, so errors.As finds a *Problem.
func (e *ValidationError) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}
