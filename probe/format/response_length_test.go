package format_test

import (
	"math"
	"strings"
	"testing"
)

func TestResponseLength(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	base := map[string]any{"baseline_chars": 100}
	runCases(t, "response_length", []evalCase{
		{name: "defaults pass any non-empty text", content: "hello", pass: true, score: 1,
			meta: map[string]any{"char_count": 5}, details: "within bounds"},
		{name: "empty fails the default minimum", content: "", score: 0,
			meta: map[string]any{"char_count": 0}, details: "too short: 0 characters, minimum 1"},
		{name: "min_chars 0 accepts empty", params: map[string]any{"min_chars": 0}, content: "", pass: true, score: 1},
		{name: "exactly min_chars", params: map[string]any{"min_chars": 5}, content: x(5), pass: true, score: 1},
		{name: "one below min_chars", params: map[string]any{"min_chars": 5}, content: x(4), score: 0},
		{name: "exactly max_chars", params: map[string]any{"max_chars": 10}, content: x(10), pass: true, score: 1},
		{name: "one above max_chars", params: map[string]any{"max_chars": 10}, content: x(11), score: 0,
			meta: map[string]any{"char_count": 11}, details: "too long: 11 characters, maximum 10"},
		{name: "min equals max", params: map[string]any{"min_chars": 3, "max_chars": 3}, content: "abc", pass: true, score: 1},
		{name: "code points, not bytes", params: map[string]any{"max_chars": 5}, content: "héllo", pass: true, score: 1,
			meta: map[string]any{"char_count": 5}},
		{name: "emoji count once each", params: map[string]any{"max_chars": 3}, content: "🙂🙂🙂🙂", score: 0,
			meta: map[string]any{"char_count": 4}},
		{name: "whitespace is counted", content: "  a \n", pass: true, score: 1, meta: map[string]any{"char_count": 5}},
		{name: "on baseline", params: base, content: x(100), pass: true, score: 1,
			meta:    map[string]any{"char_count": 100, "baseline_chars": 100, "ratio_to_baseline": 1.0},
			details: "100.0% of the baseline 100, within the ±50% tolerance"},
		{name: "quarter above baseline", params: base, content: x(125), pass: true, score: 0.9,
			meta: map[string]any{"char_count": 125, "baseline_chars": 100, "ratio_to_baseline": 1.25}},
		{name: "exactly tolerance above", params: base, content: x(150), pass: true, score: 0.8},
		{name: "exactly tolerance below", params: base, content: x(50), pass: true, score: 0.8,
			meta: map[string]any{"char_count": 50, "baseline_chars": 100, "ratio_to_baseline": 0.5}},
		{name: "just beyond tolerance", params: base, content: x(151), score: 0.49,
			details: "outside the ±50% tolerance"},
		{name: "far below baseline", params: base, content: x(10), score: 0.1},
		{name: "far above baseline floors at zero", params: base, content: x(300), score: 0,
			meta: map[string]any{"char_count": 300, "baseline_chars": 100, "ratio_to_baseline": 3.0}},
		{name: "ratio is rounded to 3 decimals", params: map[string]any{"baseline_chars": 3}, content: x(2), pass: true,
			score: 1 - (1.0/3/0.5)*0.2,
			meta:  map[string]any{"char_count": 2, "baseline_chars": 3, "ratio_to_baseline": 0.667}},
		{name: "tight tolerance at its edge", params: map[string]any{"baseline_chars": 100, "tolerance": 0.2}, content: x(80),
			pass: true, score: 0.8},
		{name: "tight tolerance beyond", params: map[string]any{"baseline_chars": 100, "tolerance": 0.2}, content: x(79),
			score: 0.79},
		{name: "integer tolerance", params: map[string]any{"baseline_chars": 100, "tolerance": 1}, content: x(200),
			pass: true, score: 0.8},
		{name: "bounds are checked before the baseline", params: map[string]any{"baseline_chars": 100, "max_chars": 120},
			content: x(121), score: 0, meta: map[string]any{"char_count": 121}},
		{name: "too short with a baseline", params: map[string]any{"baseline_chars": 100, "min_chars": 90},
			content: x(89), score: 0, meta: map[string]any{"char_count": 89}},
	})
}

func TestResponseLengthConfig(t *testing.T) {
	runConfigCases(t, "response_length", []configCase{
		{name: "negative min_chars", params: map[string]any{"min_chars": -1}, want: []string{"min_chars"},
			msg: "min_chars: must be >= 0, got -1"},
		{name: "max below min", params: map[string]any{"min_chars": 5, "max_chars": 3}, want: []string{"max_chars"},
			msg: "max_chars: must be >= min_chars (5), got 3"},
		{name: "max below default min", params: map[string]any{"max_chars": 0}, want: []string{"max_chars"},
			msg: "max_chars: must be > 0, got 0", hint: "omit max_chars"},
		{name: "zero max with zero min", params: map[string]any{"min_chars": 0, "max_chars": 0}, want: []string{"max_chars"}},
		{name: "zero baseline", params: map[string]any{"baseline_chars": 0}, want: []string{"baseline_chars"},
			msg: "baseline_chars: must be > 0, got 0", hint: "omit baseline_chars"},
		{name: "zero tolerance", params: map[string]any{"tolerance": 0}, want: []string{"tolerance"},
			msg: "tolerance: must be a finite number > 0, got 0"},
		{name: "negative tolerance", params: map[string]any{"tolerance": -0.5}, want: []string{"tolerance"}},
		{name: "NaN tolerance", params: map[string]any{"tolerance": math.NaN()}, want: []string{"tolerance"}},
		{name: "infinite tolerance", params: map[string]any{"tolerance": math.Inf(1)}, want: []string{"tolerance"}},
		{name: "fractional max_chars", params: map[string]any{"max_chars": 10.5}, want: []string{"max_chars"},
			msg: "must be an integer"},
		{name: "string tolerance", params: map[string]any{"tolerance": "50%"}, want: []string{"tolerance"},
			msg: `must be a number, got string "50%"`},
		{name: "misspelt parameter", params: map[string]any{"max_char": 10}, want: []string{"max_char"},
			hint: "did you mean max_chars?"},
		{name: "every range problem at once",
			params: map[string]any{"min_chars": -2, "max_chars": -1, "baseline_chars": -5, "tolerance": 0},
			want:   []string{"baseline_chars", "max_chars", "min_chars", "tolerance"}},
	})
}
