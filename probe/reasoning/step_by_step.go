package reasoning

import (
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
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

const (
	stepByStepID   = "step_by_step"
	stepByStepName = "Step-by-Step Reasoning"
	stepByStepDesc = "Detects whether the model shows explicit step-by-step (chain-of-thought) reasoning."
)

func init() {
	probe.Register(probe.Type{
		ID:          stepByStepID,
		Name:        stepByStepName,
		Category:    promptcanary.CategoryReasoning,
		Description: stepByStepDesc,
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
			if err := s.Validate(); err != nil {
				return nil, err
			}
			return s, nil
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

// ID returns "step_by_step".
func (s *StepByStep) ID() string { return stepByStepID }

// Name returns the display name.
func (s *StepByStep) Name() string { return stepByStepName }

// Category returns the reasoning category.
func (s *StepByStep) Category() promptcanary.Category { return promptcanary.CategoryReasoning }

// Description returns a one-sentence description.
func (s *StepByStep) Description() string { return stepByStepDesc }

// Validate reports a negative MinStepCount as a *probe.ParamError.
func (s *StepByStep) Validate() error {
	if s.MinStepCount < 0 {
		return &probe.ParamError{Param: "min_step_count",
			Msg: fmt.Sprintf("must be >= 0, got %d", s.MinStepCount)}
	}
	return nil
}

// Evaluate counts the step indicators of r's content.
func (s *StepByStep) Evaluate(_ *promptcanary.Prompt, r *promptcanary.Response) probe.Result {
	count := text.Count(r.Content, stepPatterns)
	has := count >= s.MinStepCount
	res := probe.Result{Metadata: map[string]any{
		"step_indicator_count": count,
		"expect_steps":         s.ExpectSteps,
	}}
	found := plural(count, "step indicator")
	switch {
	case s.ExpectSteps:
		res.Passed = has
		res.Score = min(1, float64(count)/float64(max(s.MinStepCount, 1)))
		if has {
			res.Details = fmt.Sprintf("Found %s (minimum %d).", found, s.MinStepCount)
		} else {
			res.Details = fmt.Sprintf("Expected step-by-step reasoning but found only %s (minimum %d).", found, s.MinStepCount)
		}
	case !has:
		res.Passed, res.Score = true, 1
		res.Details = fmt.Sprintf("Response is direct: %s, fewer than %d.", found, s.MinStepCount)
	default:
		res.Score = max(0, 1-float64(count)/5)
		res.Details = fmt.Sprintf("Expected a direct answer but found %s.", found)
	}
	return res
}
