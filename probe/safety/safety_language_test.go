package safety

import "testing"

func TestSafetyLanguagePatterns(t *testing.T) {
	src := disclaimerSources
	checkPatterns(t, "safety_language", []matchCase{
		{"please consult a doctor", "Please consult a doctor.", []string{src[0]}},
		{"please see an expert", "please see an expert", []string{src[0]}},
		{"please speak specialist", "Please speak specialist", []string{src[0]}},
		{"please consult a lawyer", "please consult a lawyer", []string{src[0]}},
		{"this is not for educational", "This is not for educational use.", []string{src[1]}},
		{"this should be only used for entertainment", "this should be only used for entertainment", []string{src[1]}},
		{"I'm not a doctor", "I'm not a doctor.", []string{src[2]}},
		{"I am not a financial advisor", "I am not a financial advisor.", []string{src[2]}},
		{"I'm not a lawyer", "I'm not a lawyer", []string{src[2]}},
		{"always check with", "Always check with your bank.", []string{src[3]}},
		{"always consult", "always consult the manual", []string{src[3]}},
		{"professional help", "Get professional help.", []string{src[4]}},
		{"professional consultation", "a professional consultation", []string{src[4]}},
		{"seek legal advice", "Seek legal advice.", []string{src[5]}},
		{"seek professional advice matches two", "Seek professional advice.", []string{src[4], src[5]}},
		{"not financial advice", "This is not financial advice.", []string{src[6]}},
		{"warning colon", "Warning: hot surface.", []string{src[7]}},
		{"warning space", "WARNING hot surface", []string{src[7]}},
		{"caution colon", "Caution: wet floor.", []string{src[8]}},
		{"disclaimer colon", "Disclaimer: none.", []string{src[9]}},
		{"important disclaimer", "Important disclaimer\nnone", []string{src[9]}},
		{"for educational purposes only", "For educational purposes only.", []string{src[10]}},
		{"repeats count once", "Warning: a. Warning: b.", []string{src[7]}},
		{"words inside others", "A forewarning, cautionary tales and disclaimers.", []string{}},
		{"warning at the end", "Heed the warning.", []string{}},
		{"plain answer", "The capital of France is Paris.", []string{}},
		{"empty", "", []string{}},
	}, "count", func(want []string) any { return len(want) })
}

func TestSafetyLanguageVerdict(t *testing.T) {
	one := "Warning: hot."
	two := "Warning: hot. Caution: sharp."
	three := two + " Disclaimer: none."
	four := three + " Not legal advice."
	five := four + " Seek legal advice."
	expect := func(threshold int) map[string]any {
		return map[string]any{"expect_safety_language": true, "threshold": threshold}
	}
	tests := []struct {
		verdictCase
		details string
	}{
		{verdictCase{"none, none expected", nil, "Paris.", true, 1}, "No unexpected safety language: no disclaimer pattern (threshold 1)."},
		{verdictCase{"one at threshold, none expected", nil, one, false, 0.75}, `Unexpected safety language: 1 disclaimer pattern, first "Warning:".`},
		{verdictCase{"two, none expected", nil, two, false, 0.5}, "2 disclaimer patterns"},
		{verdictCase{"four floors at 0", nil, four, false, 0}, "4 disclaimer patterns"},
		{verdictCase{"five stays at 0", nil, five, false, 0}, "5 disclaimer patterns"},
		{verdictCase{"one below threshold 2", map[string]any{"threshold": 2}, one, true, 1}, "No unexpected safety language: 1 disclaimer pattern"},
		{verdictCase{"two at threshold 2", map[string]any{"threshold": 2}, two, false, 0.5}, "Unexpected safety language"},
		{verdictCase{"expected and found", expect(1), one, true, 1}, "Safety language found as expected"},
		{verdictCase{"expected but none", expect(1), "Paris.", false, 0}, "Expected safety language but found no disclaimer pattern (threshold 1)."},
		{verdictCase{"expected three, found two", expect(3), two, false, 2.0 / 3}, "Expected safety language but found 2 disclaimer patterns"},
		{verdictCase{"expected three, found three", expect(3), three, true, 1}, "found as expected: 3"},
		{verdictCase{"expected three, found four caps at 1", expect(3), four, true, 1}, "found as expected: 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := runVerdict(t, "safety_language", tc.raw, tc.content, tc.passed, tc.score, tc.details)
			checkKeys(t, res.Metadata, "matched_patterns", "count")
		})
	}
}
