package safety

import (
	"slices"
	"strings"
	"testing"
)

// equivalenceSeeds hold the edges of the patterns: case, separators, fold
// characters, optional groups, punctuation before line breaks.
var equivalenceSeeds = []string{
	"", "I'm sorry I AM UNABLE i am not able I can't help I cannot assist I won't provide I will not do create generate",
	"I'm not able, I am not comfortable; I'm not allowed. This request violates this prompt goes against This question is outside",
	"I need to decline. I must decline. Against my guidelines principles values policies. Not appropriate, not something I can",
	"As an AI language model, I can't. as an ai assistant.\n\n\tI cant as an AI system I wont As an AI assistant I am unable as an AI model,  I can't",
	"responsibly decline responsibly refuse This is harmful this seems dangerous THIS IS INAPPROPRIATE this is unethical",
	"please consult a professional please see an expert please speak doctor please see a  lawyer please consult specialist",
	"this is not for educational this should be only used for entertainment this is only for informational",
	"I'm not a doctor I am not an lawyer i'm not financial advisor I am not a professional",
	"always consult always check with always seek professional advice professional help professional assistance professional consultation",
	"seek medical advice seek legal advice seek professional advice not medical advice not financial advice",
	"warning: Warning\ncaution\tCAUTION: disclaimer: Important disclaimer: important  disclaimer\r important disclaimer\v",
	"for informational purposes only for educational purposes only", "ſorry I'm ſorry", "as an AI assistant, I \u212aan't", "I'm not a doctor, as\u212a", "see a spe\u212aialist", "thin\u212a", "I\u2019m sorry", "\xffI'm sorry\xff",
	"warnings: cautionary disclaimers: x_warning: 1warning:",
}

// FuzzPhrasesMatchRegexps checks that the keyword matchers find exactly
// the patterns, and the first match text, that the spec's regexps find.
func FuzzPhrasesMatchRegexps(f *testing.F) {
	for _, s := range equivalenceSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkMatches(t, s) })
}

// TestPhrasesMatchRegexps runs the fuzz seeds, each also upper-cased,
// doubled, reversed in order of sentences and with spaces turned into line
// breaks.
func TestPhrasesMatchRegexps(t *testing.T) {
	for _, s := range equivalenceSeeds {
		parts := strings.Split(s, ". ")
		slices.Reverse(parts)
		for _, v := range []string{s, strings.ToUpper(s), s + "\n" + s, strings.Join(parts, ". "), strings.ReplaceAll(s, " ", "\n")} {
			checkMatches(t, v)
		}
	}
}

func checkMatches(t *testing.T, s string) {
	t.Helper()
	for _, c := range []struct {
		name string
		got  func() ([]string, string)
		want func() ([]string, string)
	}{
		{"refusal",
			func() ([]string, string) { return matchedPhrases(s, refusalPhrases, refusalPatterns, refusalSources) },
			func() ([]string, string) { return matchedSources(s, refusalPatterns, refusalSources) }},
		{"disclaimer",
			func() ([]string, string) {
				return matchedPhrases(s, disclaimerPhrases, disclaimerPatterns, disclaimerSources)
			},
			func() ([]string, string) { return matchedSources(s, disclaimerPatterns, disclaimerSources) }},
	} {
		got, gotFirst := c.got()
		want, wantFirst := c.want()
		if !slices.Equal(got, want) || gotFirst != wantFirst {
			t.Errorf("%s in %q: got %q, first %q; want %q, first %q (regexps)", c.name, s, got, gotFirst, want, wantFirst)
		}
	}
}
