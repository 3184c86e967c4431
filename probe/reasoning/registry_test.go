package reasoning

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
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
	tests := []struct {
		id   string
		raw  map[string]any
		want probe.Probe
	}{
		{"step_by_step", nil, &StepByStep{ExpectSteps: true, MinStepCount: 2}},
		{"step_by_step", map[string]any{"expect_steps": false, "min_step_count": 4}, &StepByStep{MinStepCount: 4}},
		{"verbosity", nil, &Verbosity{Tolerance: 0.5, MinWords: 1}},
		{"verbosity", map[string]any{"expected_words": 120, "tolerance": 0.25, "min_words": 10, "max_words": 300},
			&Verbosity{ExpectedWords: 120, Tolerance: 0.25, MinWords: 10, MaxWords: 300}},
		{"confidence_language", nil, &ConfidenceLanguage{Threshold: 0.03}},
		{"confidence_language", map[string]any{"expect_hedging": true, "threshold": 1}, &ConfidenceLanguage{ExpectHedging: true, Threshold: 1}},
		{"direct_answer", nil, &DirectAnswer{ExpectDirect: true, MaxPreambleChars: 80}},
		{"direct_answer", map[string]any{"expect_direct": false, "max_preamble_chars": 20}, &DirectAnswer{MaxPreambleChars: 20}},
		{"sentiment", nil, &Sentiment{Threshold: 0.02}},
		{"sentiment", map[string]any{"expect_positive": true, "threshold": 0.1}, &Sentiment{ExpectPositive: &yes, Threshold: 0.1}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			got, _, err := probe.New(tc.id, tc.raw)
			if err != nil {
				t.Fatalf("New(%q, %v): %v", tc.id, tc.raw, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("probe (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		id     string
		raw    map[string]any
		params []string
		msg    string
	}{
		{"negative step count", "step_by_step", map[string]any{"min_step_count": -1}, []string{"min_step_count"}, "must be >= 0, got -1"},
		{"step count of wrong type", "step_by_step", map[string]any{"min_step_count": "two"}, []string{"min_step_count"}, "integer, got string \"two\""},
		{"unknown step parameter", "step_by_step", map[string]any{"min_steps": 2}, []string{"min_steps"}, "unknown parameter"},
		{"tolerance of 1", "verbosity", map[string]any{"tolerance": 1.0}, []string{"tolerance"}, "must be >= 0 and < 1, got 1"},
		{"negative tolerance", "verbosity", map[string]any{"tolerance": -0.1}, []string{"tolerance"}, "got -0.1"},
		{"NaN tolerance", "verbosity", map[string]any{"tolerance": math.NaN()}, []string{"tolerance"}, "finite"},
		{"max below min", "verbosity", map[string]any{"min_words": 5, "max_words": 3}, []string{"max_words"}, "must be >= min_words (5), got 3"},
		{"every verbosity mistake at once", "verbosity",
			map[string]any{"expected_words": -1, "tolerance": 2.0, "min_words": -1, "max_words": -1},
			[]string{"expected_words", "max_words", "min_words", "tolerance"}, "expected_words: must be >= 0, got -1"},
		{"zero hedge threshold", "confidence_language", map[string]any{"threshold": 0}, []string{"threshold"}, "must be > 0, got 0"},
		{"negative hedge threshold", "confidence_language", map[string]any{"threshold": -0.01}, []string{"threshold"}, "must be > 0"},
		{"infinite hedge threshold", "confidence_language", map[string]any{"threshold": math.Inf(1)}, []string{"threshold"}, "finite"},
		{"negative preamble chars", "direct_answer", map[string]any{"max_preamble_chars": -1}, []string{"max_preamble_chars"}, "must be >= 0, got -1"},
		{"NaN sentiment threshold", "sentiment", map[string]any{"threshold": math.NaN()}, []string{"threshold"}, "finite"},
		{"expect_positive of wrong type", "sentiment", map[string]any{"expect_positive": "yes"}, []string{"expect_positive"}, "must be a boolean"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _, err := probe.New(tc.id, tc.raw)
			if err == nil {
				t.Fatalf("New(%q, %v): got probe %v, want an error", tc.id, tc.raw, p)
			}
			var pe *probe.ParamError
			if !errors.As(err, &pe) {
				t.Errorf("error: got %T %v, want a *probe.ParamError", err, err)
			}
			if got := probetest.ParamNames(t, err); !slices.Equal(got, tc.params) {
				t.Errorf("params: got %v, want %v", got, tc.params)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error: got %q, want it to contain %q", err, tc.msg)
			}
		})
	}
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
