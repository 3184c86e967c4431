package reasoning

import (
	"strings"
	"testing"
)

func TestConfidenceLanguagePatterns(t *testing.T) {
	checkPatterns(t, "confidence_language", "hedge_matches", []patternCase{
		{"I think", "I think so", 1},
		{"I believe", "i believe so", 1},
		{"I'm not sure", "I'm not sure.", 1},
		{"perhaps", "Perhaps.", 1},
		{"maybe", "maybe", 1},
		{"might", "it might", 1},
		{"could be", "it could be", 1},
		{"possibly", "possibly", 1},
		{"probably", "PROBABLY", 1},
		{"likely", "likely", 1},
		{"seem", "they seem", 1},
		{"seems", "it seems", 1},
		{"appear", "they appear", 1},
		{"appears", "it appears", 1},
		{"suggest", "I suggest", 1},
		{"suggests", "it suggests", 1},
		{"it's possible", "it's possible", 1},
		{"uncertain", "uncertain", 1},
		{"unsure", "unsure", 1},
		{"not entirely", "not entirely", 1},
		{"tend to", "they tend to", 1},
		{"tends to", "it tends to", 1},
		{"generally", "generally", 1},
		{"inside longer words", "mighty likelihood seemingly unlikely", 0},
		{"curly apostrophe is not matched", "I\u2019m not sure", 0},
		{"confident", "The capital of France is Paris.", 0},
		{"several", "Maybe, perhaps; maybe.", 3},
	})
}

func TestConfidenceLanguageVerdict(t *testing.T) {
	hedged := func(hedges, n int) string {
		return withWords(strings.TrimSpace(strings.Repeat("maybe ", hedges)), hedges, n)
	}
	expect := map[string]any{"expect_hedging": true}
	tests := []struct {
		verdictCase
		rate    float64
		details string
	}{
		{verdictCase{"confident, no hedges", nil, words(100), true, 1}, 0, "sounds confident"},
		{verdictCase{"confident, below threshold", nil, hedged(2, 100), true, 1 - 0.02/0.06}, 0.02, "2 hedging phrases, rate 0.020 below threshold 0.030"},
		{verdictCase{"confident, exactly threshold", nil, hedged(3, 100), false, 0.5}, 0.03, "Unexpected hedging: 3 hedging phrases"},
		{verdictCase{"confident, twice threshold floors at 0", nil, hedged(6, 100), false, 0}, 0.06, "Unexpected hedging"},
		{verdictCase{"confident, floor of 0.01 on the divisor", map[string]any{"threshold": 0.004}, hedged(1, 200), false, 0.5}, 0.005, "Unexpected hedging: 1 hedging phrase,"},
		{verdictCase{"confident, empty content", nil, "", true, 1}, 0, "0 hedging phrases"},
		{verdictCase{"hedging, exactly threshold", expect, hedged(3, 100), true, 1}, 0.03, "Hedging found as expected"},
		{verdictCase{"hedging, above threshold caps at 1", expect, hedged(6, 100), true, 1}, 0.06, "6 hedging phrases"},
		{verdictCase{"hedging, below threshold", expect, hedged(1, 100), false, 1.0 / 3}, 0.01, "Expected hedging but found 1 hedging phrase"},
		{verdictCase{"hedging, none", expect, words(10), false, 0}, 0, "Expected hedging"},
		{verdictCase{"rate rounded to 4 places", map[string]any{"threshold": 0.5}, hedged(1, 3), true, 1 - (1.0/3)/1.0}, 0.3333, "sounds confident"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runVerdict(t, "confidence_language", tc.raw, tc.content, tc.passed, tc.score, tc.details)
			checkKeys(t, res.Metadata, "hedge_rate", "hedge_matches")
			if got := res.Metadata["hedge_rate"]; got != tc.rate {
				t.Errorf("hedge_rate: got %v, want %v", got, tc.rate)
			}
		})
	}
}
