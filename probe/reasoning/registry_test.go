package reasoning

import (
	"math"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

func TestRegistered(t *testing.T) {
	probetest.CheckRegistered(t, []probetest.Registered{
		{ID: "step_by_step", Name: "Step-by-Step Reasoning", Category: promptcanary.CategoryReasoning,
			Defaults: map[string]any{"expect_steps": true, "min_step_count": 2}},
		{ID: "verbosity", Name: "Response Verbosity", Category: promptcanary.CategoryReasoning,
			Defaults: map[string]any{"expected_words": nil, "tolerance": 0.5, "min_words": 1, "max_words": nil}},
		{ID: "confidence_language", Name: "Confidence Language", Category: promptcanary.CategoryReasoning,
			Defaults: map[string]any{"expect_hedging": false, "threshold": 0.03}},
		{ID: "direct_answer", Name: "Direct Answer (No Preamble)", Category: promptcanary.CategoryReasoning,
			Defaults: map[string]any{"expect_direct": true, "max_preamble_chars": 80}},
		{ID: "sentiment", Name: "Response Sentiment / Tone", Category: promptcanary.CategoryReasoning,
			Defaults: map[string]any{"expect_positive": nil, "threshold": 0.02}},
	})
}

func TestNewAppliesParams(t *testing.T) {
	yes := true
	probetest.CheckBuilt(t, []probetest.Built{
		{ID: "step_by_step", Want: &StepByStep{ExpectSteps: true, MinStepCount: 2}},
		{ID: "step_by_step", Raw: map[string]any{"expect_steps": false, "min_step_count": 4}, Want: &StepByStep{MinStepCount: 4}},
		{ID: "verbosity", Want: &Verbosity{Tolerance: 0.5, MinWords: 1}},
		{ID: "verbosity", Raw: map[string]any{"expected_words": 120, "tolerance": 0.25, "min_words": 10, "max_words": 300}, Want: &Verbosity{ExpectedWords: 120, Tolerance: 0.25, MinWords: 10, MaxWords: 300}},
		{ID: "confidence_language", Want: &ConfidenceLanguage{Threshold: 0.03}},
		{ID: "confidence_language", Raw: map[string]any{"expect_hedging": true, "threshold": 1}, Want: &ConfidenceLanguage{ExpectHedging: true, Threshold: 1}},
		{ID: "direct_answer", Want: &DirectAnswer{ExpectDirect: true, MaxPreambleChars: 80}},
		{ID: "direct_answer", Raw: map[string]any{"expect_direct": false, "max_preamble_chars": 20}, Want: &DirectAnswer{MaxPreambleChars: 20}},
		{ID: "sentiment", Want: &Sentiment{Threshold: 0.02}},
		{ID: "sentiment", Raw: map[string]any{"expect_positive": true, "threshold": 0.1}, Want: &Sentiment{ExpectPositive: &yes, Threshold: 0.1}},
	})
}

func TestConfigErrors(t *testing.T) {
	probetest.CheckConfigErrors(t, []probetest.ConfigError{
		{Name: "negative step count", ID: "step_by_step", Raw: map[string]any{"min_step_count": -1}, Params: []string{"min_step_count"}, Msg: "must be >= 0, got -1"},
		{Name: "step count of wrong type", ID: "step_by_step", Raw: map[string]any{"min_step_count": "two"}, Params: []string{"min_step_count"}, Msg: "integer, got string \"two\""},
		{Name: "unknown step parameter", ID: "step_by_step", Raw: map[string]any{"min_steps": 2}, Params: []string{"min_steps"}, Msg: "unknown parameter"},
		{Name: "tolerance of 1", ID: "verbosity", Raw: map[string]any{"tolerance": 1.0}, Params: []string{"tolerance"}, Msg: "must be >= 0 and < 1, got 1"},
		{Name: "negative tolerance", ID: "verbosity", Raw: map[string]any{"tolerance": -0.1}, Params: []string{"tolerance"}, Msg: "got -0.1"},
		{Name: "NaN tolerance", ID: "verbosity", Raw: map[string]any{"tolerance": math.NaN()}, Params: []string{"tolerance"}, Msg: "finite"},
		{Name: "max below min", ID: "verbosity", Raw: map[string]any{"min_words": 5, "max_words": 3}, Params: []string{"max_words"}, Msg: "must be >= min_words (5), got 3"},
		{Name: "every verbosity mistake at once", ID: "verbosity", Raw: map[string]any{"expected_words": -1, "tolerance": 2.0, "min_words": -1, "max_words": -1}, Params: []string{"expected_words", "max_words", "min_words", "tolerance"}, Msg: "expected_words: must be >= 0, got -1"},
		{Name: "zero hedge threshold", ID: "confidence_language", Raw: map[string]any{"threshold": 0}, Params: []string{"threshold"}, Msg: "must be > 0, got 0"},
		{Name: "negative hedge threshold", ID: "confidence_language", Raw: map[string]any{"threshold": -0.01}, Params: []string{"threshold"}, Msg: "must be > 0"},
		{Name: "infinite hedge threshold", ID: "confidence_language", Raw: map[string]any{"threshold": math.Inf(1)}, Params: []string{"threshold"}, Msg: "finite"},
		{Name: "negative preamble chars", ID: "direct_answer", Raw: map[string]any{"max_preamble_chars": -1}, Params: []string{"max_preamble_chars"}, Msg: "must be >= 0, got -1"},
		{Name: "NaN sentiment threshold", ID: "sentiment", Raw: map[string]any{"threshold": math.NaN()}, Params: []string{"threshold"}, Msg: "finite"},
		{Name: "expect_positive of wrong type", ID: "sentiment", Raw: map[string]any{"expect_positive": "yes"}, Params: []string{"expect_positive"}, Msg: "must be a boolean"},
	})
}

// TestZeroValuesValidate checks what Validate says about structs built
// directly in Go without setting fields.
func TestZeroValuesValidate(t *testing.T) {
	tests := []struct {
		name   string
		v      interface{ Validate() error }
		params []string
	}{
		{"step_by_step", &StepByStep{}, nil},
		{"verbosity", &Verbosity{}, nil},
		{"confidence_language", &ConfidenceLanguage{}, []string{"threshold"}},
		{"direct_answer", &DirectAnswer{}, nil},
		{"sentiment", &Sentiment{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := probetest.ParamNames(t, tc.v.Validate()); !slices.Equal(got, tc.params) {
				t.Errorf("Validate params: got %v, want %v", got, tc.params)
			}
		})
	}
}
