package reasoning

import (
	"strings"
	"testing"
)

func TestDirectAnswerPatterns(t *testing.T) {
	checkPatterns(t, "direct_answer", "preamble_found", []patternCase{
		{"sure bang", "Sure! The answer is 4.", true},
		{"sure comma", "sure, it is 4", true},
		{"sure thing is not a preamble", "Sure thing: 4", false},
		{"of course", "Of course! 4", true},
		{"certainly", "Certainly, 4", true},
		{"great question", "Great question! It is 4.", true},
		{"absolutely", "ABSOLUTELY! 4", true},
		{"I'd be happy to", "I'd be happy to help. 4", true},
		{"I would be happy to", "I would be happy to explain.", true},
		{"as an AI", "As an AI, I think 4.", true},
		{"as a language model", "As a language model I say 4.", true},
		{"I'm glad you asked", "I'm glad you asked! 4", true},
		{"thanks for asking", "Thanks for asking. 4", true},
		{"thank for your question", "Thank for your question. 4", true},
		{"happy to help", "Happy to help: 4", true},
		{"leading whitespace is trimmed", "\n\n   Certainly! 4", true},
		{"preamble later in the text", "The answer is 4. Sure!", false},
		{"preamble on the second line", "4\nSure!", false},
		{"direct", "4", false},
		{"empty", "", false},
	})
}

func TestDirectAnswerVerdict(t *testing.T) {
	spaces := func(n int, sp string) string { return strings.Repeat(sp, n) }
	allowPreamble := map[string]any{"expect_direct": false}
	long := "Sure! " + strings.Repeat("x", 200)
	tests := []struct {
		verdictCase
		preview string
		details string
	}{
		{verdictCase{"direct expected and given", nil, "Paris.", true, 1}, "Paris.", "starts directly"},
		{verdictCase{"preamble not expected", nil, "Sure! Paris.", false, 0}, "Sure! Paris.", `Preamble found in the first 80 characters: "Sure! Paris."`},
		{verdictCase{"preamble expected and given", allowPreamble, "Of course! Paris.", true, 1}, "Of course! Paris.", "as expected"},
		{verdictCase{"preamble expected but absent", allowPreamble, "Paris.", false, 0.5}, "Paris.", "Expected a preamble"},
		{verdictCase{"preamble ends exactly at the limit", nil, spaces(75, " ") + "Sure!", false, 0}, "Sure!", "Preamble found"},
		{verdictCase{"preamble just beyond the limit", nil, spaces(76, " ") + "Sure!", true, 1}, "Sure", "starts directly"},
		{verdictCase{"limit counts code points", nil, spaces(75, "\u00a0") + "Sure! x", false, 0}, "Sure!", "Preamble found"},
		{verdictCase{"short limit cuts the pattern", map[string]any{"max_preamble_chars": 4}, "Sure! Paris.", true, 1}, "Sure", "starts directly"},
		{verdictCase{"limit of exactly the pattern", map[string]any{"max_preamble_chars": 5}, "Sure! Paris.", false, 0}, "Sure!", "first 5 characters"},
		{verdictCase{"zero limit sees nothing", map[string]any{"max_preamble_chars": 0}, "Sure! Paris.", true, 1}, "", "starts directly"},
		{verdictCase{"preview capped at 100 characters", map[string]any{"max_preamble_chars": 500}, long, false, 0}, long[:100], "Preamble found"},
		{verdictCase{"preview of the default opening", nil, long, false, 0}, long[:80], "Preamble found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runVerdict(t, "direct_answer", tc.raw, tc.content, tc.passed, tc.score, tc.details)
			checkKeys(t, res.Metadata, "opening_preview", "preamble_found")
			if got := res.Metadata["opening_preview"]; got != tc.preview {
				t.Errorf("opening_preview: got %q, want %q", got, tc.preview)
			}
		})
	}
}
