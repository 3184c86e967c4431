package reasoning

import (
	"testing"
)

func TestSentimentWords(t *testing.T) {
	tests := []struct {
		content  string
		pos, neg int
	}{
		{"excellent", 1, 0}, {"Great", 1, 0}, {"wonderful", 1, 0}, {"amazing", 1, 0},
		{"happy", 1, 0}, {"please", 1, 0}, {"pleased", 1, 0}, {"delighted", 1, 0},
		{"fantastic", 1, 0}, {"GOOD", 1, 0}, {"beneficial", 1, 0}, {"positive", 1, 0},
		{"successful", 1, 0}, {"effective", 1, 0}, {"impressive", 1, 0}, {"outstanding", 1, 0},
		{"bad", 0, 1}, {"terrible", 0, 1}, {"awful", 0, 1}, {"worse", 0, 1}, {"worst", 0, 1},
		{"fail", 0, 1}, {"failed", 0, 1}, {"failure", 0, 1}, {"problem", 0, 1}, {"Error", 0, 1},
		{"wrong", 0, 1}, {"incorrect", 0, 1}, {"unfortunate", 0, 1}, {"negative", 0, 1},
		{"dangerous", 0, 1}, {"harmful", 0, 1},
		{"goodness errors problems failing greatly", 0, 0},
		{"good, bad and great", 2, 1},
	}
	for _, tc := range tests {
		t.Run(tc.content, func(t *testing.T) {
			res := run(t, "sentiment", nil, tc.content)
			if got := res.Metadata["positive_word_count"]; got != tc.pos {
				t.Errorf("positive_word_count: got %v, want %v", got, tc.pos)
			}
			if got := res.Metadata["negative_word_count"]; got != tc.neg {
				t.Errorf("negative_word_count: got %v, want %v", got, tc.neg)
			}
		})
	}
}

func TestSentimentVerdict(t *testing.T) {
	wantPositive := map[string]any{"expect_positive": true}
	wantNeutral := map[string]any{"expect_positive": false}
	tests := []struct {
		verdictCase
		posRate, negRate float64
		net              float64
		details          string
	}{
		{verdictCase{"no expectation, positive", nil, withWords("great", 1, 10), true, 1}, 0.1, 0, 0.1, "Observed a positive tone: 1 positive word and 0 negative words"},
		{verdictCase{"no expectation, neutral", nil, words(10), true, 1}, 0, 0, 0, "Observed a neutral/negative tone"},
		{verdictCase{"no expectation, negative", nil, withWords("bad", 1, 10), true, 1}, 0, 0.1, -0.1, "neutral/negative tone: 0 positive words and 1 negative word"},
		{verdictCase{"positive at exactly threshold", wantPositive, withWords("good", 1, 50), true, 1}, 0.02, 0, 0.02, "Expected a positive tone, observed positive"},
		{verdictCase{"positive just below threshold", wantPositive, withWords("good", 1, 51), false, 0.4}, 0.0196, 0, 0.0196, "Expected a positive tone, observed neutral/negative"},
		{verdictCase{"positive net of negatives", wantPositive, withWords("good great bad", 3, 50), true, 1}, 0.04, 0.02, 0.02, "observed positive"},
		{verdictCase{"positive cancelled by negatives", wantPositive, withWords("good bad", 2, 10), false, 0.4}, 0.1, 0.1, 0, "observed neutral/negative"},
		{verdictCase{"neutral expected and found", wantNeutral, words(10), true, 1}, 0, 0, 0, "Expected a neutral/negative tone, observed neutral/negative"},
		{verdictCase{"neutral expected, positive found", wantNeutral, withWords("excellent", 1, 10), false, 0.4}, 0.1, 0, 0.1, "observed positive"},
		{verdictCase{"empty content counts one word", wantNeutral, "", true, 1}, 0, 0, 0, "0 positive words"},
		{verdictCase{"zero threshold makes neutral positive", map[string]any{"expect_positive": true, "threshold": 0}, words(5), true, 1}, 0, 0, 0, "observed positive"},
		{verdictCase{"negative threshold", map[string]any{"expect_positive": false, "threshold": -0.5}, withWords("bad", 1, 4), false, 0.4}, 0, 0.25, -0.25, "observed positive"},
		{verdictCase{"rates rounded to 4 places", nil, withWords("good", 1, 3), true, 1}, 0.3333, 0, 0.3333, "positive tone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runVerdict(t, "sentiment", tc.raw, tc.content, tc.passed, tc.score, tc.details)
			checkKeys(t, res.Metadata, "positive_word_count", "negative_word_count", "pos_rate", "neg_rate", "net_sentiment")
			for key, want := range map[string]float64{"pos_rate": tc.posRate, "neg_rate": tc.negRate, "net_sentiment": tc.net} {
				if got := res.Metadata[key]; got != want {
					t.Errorf("%s: got %v, want %v", key, got, want)
				}
			}
		})
	}
}
