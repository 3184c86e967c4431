package match

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

var prefilterPatterns = []string{`(?i)\b(?:Oslo|Paris|Lisbon)\b`, `(?i)(?:as an ai|language model)`, `^\s*[\[{]`, `(?m)^\d+\.`,
	`step`, `(?s)<thinking>.*</thinking>`, `"name"\s*:`, `get_weather`, `Kelvin|ſ`, `\b\d{4}-\d{2}-\d{2}\b`, `(?i)^answer:`,
	`(?i)colou?r`, `(?i)(?:ab)+c`, `x{2,}y`, `(?i)k`, `(?i)s+`, `café`, `(?i)CAFÉ au`, `[a-c]{3}`, `(?i)[xy]z`, `a|b|^c`,
	`(?m)^$`, `\Bfoo`, `(?i)\bThe\b.*\bend\b`, `^`, `$`, `(?:)`, `(?i)é`, `\x{212a}`, `[^a]bc`, `(?i)(?:foo|bar)?baz`,
	`(?U)a+?b`, `a*b+c?d`, `(?i)(hello|world) there`, `\Aabc\z`, `(?m)abc$`}

var prefilterTexts = []string{"", "Oslo", "oslo.", "xOslo", "I am AS AN AI model", "  {\"a\": 1}", "1. a\n2. b", "no steps here",
	"<thinking>\nx\n</thinking>", `{"name": "get_weather"}`, "Kelvin ſ K", "on 2024-06-01.", "Answer: yes", "COLOR colour",
	"ababc", "xxy", "\u212a", "ſſ", "un café", "CAFÉ AU lait", "abc", "XZ yz", "a\nc", "\n\n", "afoo foo", "The quick end",
	"\xffabc", "é", "bbc abc", "Bazbarbaz", "aab", "bbd", "HELLO there", "abc\nx", "x\nabc"}

// FuzzFiltered checks the filtered regexp against the regexp itself.
func FuzzFiltered(f *testing.F) {
	for _, p := range prefilterPatterns {
		for _, s := range prefilterTexts {
			f.Add(p, s)
		}
	}
	f.Fuzz(func(t *testing.T, pat, s string) { checkFiltered(t, pat, s) })
}

func TestFiltered(t *testing.T) {
	for _, p := range prefilterPatterns {
		for _, s := range prefilterTexts {
			checkFiltered(t, p, s)
			checkFiltered(t, p, strings.Repeat("z ", 10)+s+" tail")
			checkFiltered(t, p, strings.ToUpper(s))
		}
	}
}

func checkFiltered(t *testing.T, pat, s string) {
	t.Helper()
	re, err := regexp.Compile(pat)
	if err != nil {
		return
	}
	f := newFiltered(re)
	folds := text.HasFolds(s)
	if got, want := f.MatchString(s, folds), re.MatchString(s); got != want {
		t.Errorf("MatchString(%q, %q): got %v, want %v (filter %s)", pat, s, got, want, f.describe())
	}
	if got, want := f.FindStringIndex(s, folds), re.FindStringIndex(s); !slices.Equal(got, want) {
		t.Errorf("FindStringIndex(%q, %q): got %v, want %v (filter %s)", pat, s, got, want, f.describe())
	}
}

func (f *filtered) describe() string {
	return fmt.Sprintf("required %v, first %v", f.required, f.first)
}

// TestFilteredFindsLiterals checks that the analysis finds the literals of
// typical patterns: a filter that knows nothing is correct but useless.
func TestFilteredFindsLiterals(t *testing.T) {
	tests := []struct {
		pat             string
		required, first string
	}{
		{`(?i)\b(?:Oslo|Paris|Lisbon)\b`, `[[{oslo true} {paris true} {lisbon true}]]`, `[{oslo true} {paris true} {lisbon true}]`},
		{`(?i)(?:as an ai|language model)`, `[[{as an ai true} {language model true}]]`, `[{as an ai true} {language model true}]`},
		{`\b\d{4}-\d{2}-\d{2}\b`, `[[{- false}] [{- false}]]`, `[]`},
		{`(?s)<thinking>.*</thinking>`, `[[{<thinking> false}] [{</thinking> false}]]`, `[{<thinking> false}]`},
		{`(?m)^\d+\.`, `[[{. false}]]`, `[]`},
	}
	for _, tc := range tests {
		f := newFiltered(regexp.MustCompile(tc.pat))
		if got := fmt.Sprint(f.required); got != tc.required {
			t.Errorf("%s: required %s, want %s", tc.pat, got, tc.required)
		}
		if got := fmt.Sprint(f.first); got != tc.first && !(tc.first == "[]" && f.first == nil) {
			t.Errorf("%s: first %s, want %s", tc.pat, got, tc.first)
		}
	}
}

// String prints a literal as the tests expect it: {text fold}.
func (l literal) String() string { return fmt.Sprintf("{%s %v}", l.s, l.fold) }
