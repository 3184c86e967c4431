package reasoning

import (
	"testing"
)

func TestVerbosity(t *testing.T) {
	expect10 := map[string]any{"expected_words": 10}
	tests := []struct {
		verdictCase
		ratio   any // nil when no expectation
		details string
	}{
		{verdictCase{"empty fails default min", nil, "  \n\t ", false, 0}, nil, "Too few words: 0, minimum 1"},
		{verdictCase{"one word passes", nil, "four", true, 1}, nil, "1 word."},
		{verdictCase{"whitespace runs split words", nil, "a\t b\n\nc   d", true, 1}, nil, "4 words"},
		{verdictCase{"below min", map[string]any{"min_words": 3}, words(2), false, 0}, nil, "Too few words: 2, minimum 3"},
		{verdictCase{"exactly min", map[string]any{"min_words": 3}, words(3), true, 1}, nil, "3 words"},
		{verdictCase{"min 0 accepts empty", map[string]any{"min_words": 0}, "", true, 1}, nil, "0 words"},
		{verdictCase{"exactly max", map[string]any{"max_words": 5}, words(5), true, 1}, nil, "5 words"},
		{verdictCase{"above max", map[string]any{"max_words": 5}, words(6), false, 0}, nil, "Too many words: 6, maximum 5"},
		{verdictCase{"max 0 means no limit", map[string]any{"max_words": 0}, words(50), true, 1}, nil, "50 words"},
		{verdictCase{"expected 0 means none", map[string]any{"expected_words": 0}, words(50), true, 1}, nil, "50 words"},
		{verdictCase{"on expected", expect10, words(10), true, 1}, 1.0, "against an expected 10 (100.0% of expected, tolerance ±50%)"},
		{verdictCase{"upper tolerance edge", expect10, words(15), true, 1}, 1.5, "150.0%"},
		{verdictCase{"just above tolerance", expect10, words(16), false, 0.8}, 1.6, "160.0%"},
		{verdictCase{"lower tolerance edge", expect10, words(5), true, 1}, 0.5, "50.0%"},
		{verdictCase{"just below tolerance", expect10, words(4), false, 0.8}, 0.4, "40.0%"},
		{verdictCase{"far above floors at 0", expect10, words(30), false, 0}, 3.0, "300.0%"},
		{verdictCase{"ratio rounded to 3 places", map[string]any{"expected_words": 3}, words(2), true, 1}, 0.667, "66.7%"},
		{verdictCase{"zero tolerance exact", map[string]any{"expected_words": 10, "tolerance": 0}, words(10), true, 1}, 1.0, "tolerance ±0%"},
		{verdictCase{"zero tolerance off by one", map[string]any{"expected_words": 10, "tolerance": 0}, words(11), false, 0.9}, 1.1, "110.0%"},
		{verdictCase{"tight tolerance", map[string]any{"expected_words": 10, "tolerance": 0.2}, words(13), false, 1 - 0.1/0.8}, 1.3, "±20%"},
		{verdictCase{"max checked before expectation", map[string]any{"expected_words": 10, "max_words": 12}, words(13), false, 0}, nil, "Too many words"},
		{verdictCase{"min checked before expectation", map[string]any{"expected_words": 10, "min_words": 8}, words(7), false, 0}, nil, "Too few words"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runVerdict(t, "verbosity", tc.raw, tc.content, tc.passed, tc.score, tc.details)
			if tc.ratio == nil {
				checkKeys(t, res.Metadata, "word_count")
				return
			}
			checkKeys(t, res.Metadata, "word_count", "expected_words", "ratio")
			if got := res.Metadata["ratio"]; got != tc.ratio {
				t.Errorf("ratio: got %v, want %v", got, tc.ratio)
			}
			if got, want := res.Metadata["expected_words"], tc.raw["expected_words"]; got != want {
				t.Errorf("expected_words: got %v, want %v", got, want)
			}
		})
	}
}

// TestVerbosityUnicodeSpace checks that a no-break space separates words,
// as Python's str.split does.
func TestVerbosityUnicodeSpace(t *testing.T) {
	res := run(t, "verbosity", nil, "Paris is the capital\u00a0of France.")
	if got, want := res.Metadata["word_count"], 6; got != want {
		t.Errorf("word_count: got %v, want %v", got, want)
	}
}
