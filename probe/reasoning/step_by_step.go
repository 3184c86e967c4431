package reasoning

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/outcome"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// stepPatterns mark explicit reasoning steps; ^ matches at every line start.
var stepPatterns = text.Compile("(?im)",
	`\bStep\s+\d+`,
	`^\d+\.\s+\w`,
	`\bFirst(?:ly)?[,:]`,
	`\bSecond(?:ly)?[,:]`,
	`\bThird(?:ly)?[,:]`,
	`\bFinally[,:]`,
	`\bNext[,:]`,
	`\bThen[,:]`,
	`\bLet(?:'s| us) (start|begin|think|consider)`,
	`\bTo (start|begin|solve)`,
	`<thinking>`,
	`\blet me (think|work|break)`,
)

// stepPhrases are the stepPatterns that start with a word, over a text's
// analysis (see hedgePhrases); numberedLines counts `^\d+\.\s+\w`, and
// <thinking> is the keyword thinking between < and >.
var stepPhrases = text.NewPhraseSet(
	[]text.Phrase{text.NewPhrase("step", text.EndNone, text.Step{Func: text.SkipSpace}, text.Step{Func: text.SkipDigits})},
	[]text.Phrase{text.NewPhrase("first", text.EndPunct), text.NewPhrase("firstly", text.EndPunct)},
	[]text.Phrase{text.NewPhrase("second", text.EndPunct), text.NewPhrase("secondly", text.EndPunct)},
	[]text.Phrase{text.NewPhrase("third", text.EndPunct), text.NewPhrase("thirdly", text.EndPunct)},
	[]text.Phrase{text.NewPhrase("finally", text.EndPunct)},
	[]text.Phrase{text.NewPhrase("next", text.EndPunct)},
	[]text.Phrase{text.NewPhrase("then", text.EndPunct)},
	[]text.Phrase{text.NewPhrase("let", text.EndNone, text.Lits("'s ", " us "), text.Lits("start", "begin", "think", "consider"))},
	[]text.Phrase{text.NewPhrase("to", text.EndNone, text.Lits(" start", " begin", " solve"))},
	[]text.Phrase{text.NewPhrase("let", text.EndNone, text.Lits(" me "), text.Lits("think", "work", "break"))},
)

// thinking is the word of the <thinking> pattern.
var thinking = text.Intern("thinking")

// countSteps counts the matches of stepPatterns in a's content.
func countSteps(a *text.Analysis) int {
	s := a.Content()
	n := countPhrases(a, stepPhrases) + numberedLines(s)
	for _, h := range a.Hits() {
		if h.Word == thinking && h.Start > 0 && s[h.Start-1] == '<' && int(h.End) < len(s) && s[h.End] == '>' {
			n++
		}
	}
	return n
}

// numberedLines counts the matches of (?m)^\d+\.\s+\w in s: at a line
// start, digits, a dot, white space and a word character. Matches do not
// overlap: a line start inside the previous match (its white space may
// span lines) is not a match start.
func numberedLines(s string) int {
	n, end := 0, 0
	for start := 0; start < len(s); {
		if start >= end {
			if j, ok := text.SkipDigits(s, start); ok && j < len(s) && s[j] == '.' {
				if k, ok := text.SkipSpace(s, j+1); ok && k < len(s) && text.IsWordByte(s[k]) {
					n++
					end = k + 1
				}
			}
		}
		nl := strings.IndexByte(s[start:], '\n')
		if nl < 0 {
			break
		}
		start += nl + 1
	}
	return n
}

const stepByStepID = "step_by_step"

func init() {
	probe.Register(probe.Type{
		ID:          stepByStepID,
		Name:        "Step-by-Step Reasoning",
		Category:    promptcanary.CategoryReasoning,
		Description: "Detects whether the model shows explicit step-by-step (chain-of-thought) reasoning.",
		Example: `probes:
  - type: step_by_step
    expect_steps: true
    min_step_count: 3
`,
		Params: []probe.Param{
			{Name: "expect_steps", Kind: probe.Bool, Default: true,
				Doc: "true expects reasoning steps; false expects a direct answer"},
			{Name: "min_step_count", Kind: probe.Int, Default: 2,
				Doc: "step indicators needed to count as step-by-step; must be >= 0"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			s := &StepByStep{}
			s.ExpectSteps, _ = p.Bool("expect_steps")
			s.MinStepCount, _ = p.Int("min_step_count")
			return probe.Validated(s)
		},
	})
}

// StepByStep counts step indicators ("Step 1", "1. …", "First,", "Let's
// think", "<thinking>", …) and checks them against an expectation.
type StepByStep struct {
	// ExpectSteps, when true, requires at least MinStepCount indicators;
	// when false it requires fewer. The YAML default is true.
	ExpectSteps bool
	// MinStepCount is the indicator count that makes a response
	// step-by-step. The YAML default is 2.
	MinStepCount int
}

var _ probe.Probe = (*StepByStep)(nil)

// Validate reports a negative MinStepCount as a *probe.ParamError.
func (s *StepByStep) Validate() error {
	if s.MinStepCount < 0 {
		return &probe.ParamError{Param: "min_step_count",
			Msg: fmt.Sprintf("must be >= 0, got %d", s.MinStepCount)}
	}
	return nil
}

// stepResults holds the result of each step indicator count below 16,
// which depends only on the count and the configuration, shared by every
// response with that count.
var stepResults = outcome.NewTable[StepByStep](16)

// Evaluate counts the step indicators of r's content.
func (s *StepByStep) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	a := text.Analyze(r.Content)
	var count int
	if a.Folds() {
		count = text.Count(r.Content, stepPatterns)
	} else {
		count = countSteps(a)
	}
	a.Release()
	if res, ok := stepResults.Get(count, *s); ok {
		return res
	}
	has := count >= s.MinStepCount
	res := probe.Result{Metadata: map[string]any{
		"step_indicator_count": count,
		"expect_steps":         s.ExpectSteps,
	}}
	var buf [96]byte
	b := buf[:0]
	switch {
	case s.ExpectSteps:
		res.Passed = has
		res.Score = min(1, float64(count)/float64(max(s.MinStepCount, 1)))
		if has {
			b = append(b, "Found "...)
		} else {
			b = append(b, "Expected step-by-step reasoning but found only "...)
		}
		b = appendPlural(b, count, "step indicator")
		b = append(b, " (minimum "...)
		b = strconv.AppendInt(b, int64(s.MinStepCount), 10)
		b = append(b, ")."...)
	case !has:
		res.Passed, res.Score = true, 1
		b = append(b, "Response is direct: "...)
		b = appendPlural(b, count, "step indicator")
		b = append(b, ", fewer than "...)
		b = strconv.AppendInt(b, int64(s.MinStepCount), 10)
		b = append(b, '.')
	default:
		res.Score = max(0, 1-float64(count)/5)
		b = append(b, "Expected a direct answer but found "...)
		b = appendPlural(b, count, "step indicator")
		b = append(b, '.')
	}
	res.Details = string(b)
	return stepResults.Put(count, *s, res)
}
