package reasoning

import (
	"strings"
	"testing"
)

func TestStepByStepPatterns(t *testing.T) {
	checkPatterns(t, "step_by_step", "step_indicator_count", []patternCase{
		{"step number", "Step 1 is done", 1},
		{"step upper case and spaces", "STEP   12 follows", 1},
		{"step without number", "Step one follows", 0},
		{"step inside word", "A misstep 1 here", 0},
		{"numbered line", "1. Mix the flour", 1},
		{"numbered line after first line", "Intro\n2. Mix the flour", 1},
		{"numbered not at line start", "See item 1. Mix", 0},
		{"decimal number", "3.14 is pi", 0},
		{"first comma", "First, we mix", 1},
		{"firstly colon", "Firstly: we mix", 1},
		{"first without punctuation", "First we mix", 0},
		{"second comma", "Second, we bake", 1},
		{"secondly colon", "secondly: we bake", 1},
		{"third comma", "Third, we eat", 1},
		{"thirdly comma", "Thirdly, we eat", 1},
		{"finally comma", "Finally, done", 1},
		{"finally without punctuation", "finally done", 0},
		{"next colon", "Next: add salt", 1},
		{"then comma", "Then, add salt", 1},
		{"then without punctuation", "then add salt", 0},
		{"let's start", "Let's start with x", 1},
		{"let's begin", "let's begin", 1},
		{"let us think", "Let us think about it", 1},
		{"let us consider", "Let us consider x", 1},
		{"to start", "To start, note x", 1},
		{"to begin", "To begin with", 1},
		{"to solve", "To solve this", 1},
		{"thinking tag", "<thinking>hmm</thinking> 4", 1},
		{"let me think", "Let me think.", 1},
		{"let me work", "let me work it out", 1},
		{"let me break", "Let me break it down", 1},
		{"none", "The answer is 4.", 0},
		{"several", "Step 1: mix\nStep 2: bake\nFinally, eat", 3},
		{"two patterns on one line", "1. First, mix", 2},
	})
}

func TestStepByStepVerdict(t *testing.T) {
	steps := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString("Step ")
			b.WriteByte(byte('1' + i%9))
			b.WriteString(" do it.\n")
		}
		return b.String()
	}
	tests := []struct {
		verdictCase
		details string
	}{
		{verdictCase{"expected, exactly min", nil, steps(2), true, 1}, "Found 2 step indicators"},
		{verdictCase{"expected, above min caps at 1", nil, steps(5), true, 1}, "Found 5"},
		{verdictCase{"expected, one below min", nil, steps(1), false, 0.5}, "only 1 step indicator "},
		{verdictCase{"expected, none", nil, "4", false, 0}, "only 0 step indicators"},
		{verdictCase{"expected, min 3 with 2", map[string]any{"min_step_count": 3}, steps(2), false, 2.0 / 3}, "minimum 3"},
		{verdictCase{"expected, min 0 with none passes with score 0", map[string]any{"min_step_count": 0}, "4", true, 0}, "Found 0"},
		{verdictCase{"expected, min 0 with one", map[string]any{"min_step_count": 0}, steps(1), true, 1}, "Found 1"},
		{verdictCase{"direct, none", map[string]any{"expect_steps": false}, "4", true, 1}, "direct"},
		{verdictCase{"direct, one below min", map[string]any{"expect_steps": false}, steps(1), true, 1}, "1 step indicator,"},
		{verdictCase{"direct, exactly min", map[string]any{"expect_steps": false}, steps(2), false, 0.6}, "Expected a direct answer but found 2"},
		{verdictCase{"direct, four", map[string]any{"expect_steps": false}, steps(4), false, 0.2}, "found 4"},
		{verdictCase{"direct, many floors at 0", map[string]any{"expect_steps": false}, steps(7), false, 0}, "found 7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runVerdict(t, "step_by_step", tc.raw, tc.content, tc.passed, tc.score, tc.details)
			checkKeys(t, res.Metadata, "step_indicator_count", "expect_steps")
			wantExpect := tc.raw["expect_steps"] != false
			if got := res.Metadata["expect_steps"]; got != wantExpect {
				t.Errorf("expect_steps: got %v, want %v", got, wantExpect)
			}
		})
	}
}
