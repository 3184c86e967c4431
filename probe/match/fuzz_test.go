package match

import (
	"context"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe"

	"github.com/promptcanary/promptcanary"
)

// fuzzContents are responses of the kinds the probes meet.
var fuzzContents = []string{
	"", " ", "Paris", "  The capital is PARIS.\n", "```json\n{\"a\": 1}\n```", "Sure! Here it is.",
	"O\u212a", "\u0130stanbul", "Straße", "\xff\xfe", "a\xe2\x82b", "😀 done.", "{\"tool_calls\": []}",
	strings.Repeat("word ", 500),
}

// checkResult fails t when a result breaks the contract every match probe
// keeps: a score in [0,1], a pass exactly at score 1, and details.
func checkResult(t *testing.T, score float64, passed bool, details string) {
	t.Helper()
	if math.IsNaN(score) || score < 0 || score > 1 {
		t.Fatalf("score: got %v, want a value in [0,1]", score)
	}
	if passed != (score == 1) {
		t.Fatalf("passed %v with score %v: want a pass exactly at score 1", passed, score)
	}
	if details == "" {
		t.Fatal("details: got empty, want a sentence")
	}
}

func FuzzRegex(f *testing.F) {
	for _, c := range fuzzContents {
		f.Add("i", `\bparis\b`, `(?s)sure.*`, c, false)
	}
	f.Add("ims", `^\{`, `}$`, "{\n}", true)
	f.Add("xx", `(`, `\1`, "", false)
	f.Add("", `a{1001}`, `[[:alpha:]]+`, "abc", false)
	f.Add("m", `^$`, `\pL`, "a\n\nb", true)
	f.Fuzz(func(t *testing.T, flags, must, mustNot, content string, not bool) {
		prefix, err := ParseFlags(flags)
		if err == nil && prefix != "" && !regexp.MustCompile(`^\(\?i?m?s?\)$`).MatchString(prefix) {
			t.Fatalf("ParseFlags(%q): got %q, want a group of i, m, s in order", flags, prefix)
		}
		x, err := NewRegex(RegexConfig{MustMatch: []string{must}, MustNotMatch: []string{mustNot}, Flags: flags, Not: not})
		if err != nil {
			return
		}
		res := x.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{Content: content}})
		checkResult(t, res.Score, res.Passed, res.Details)
		// Without not, the verdict is what the compiled patterns say.
		m := regexp.MustCompile(prefix + must).MatchString(content)
		n := regexp.MustCompile(prefix + mustNot).MatchString(content)
		if want := (m && !n) != not; res.Passed != want {
			t.Fatalf("passed: got %v, want %v (must %v, must not %v)", res.Passed, want, m, n)
		}
	})
}

// fuzzText builds a probe of op from fuzzed settings and checks its result
// on content against a reference that lower-cases with strings.ToLower.
func fuzzText(f *testing.F, op Op) {
	for _, c := range fuzzContents {
		f.Add(c, "paris", "sure", byte(0))
		f.Add(c, "\u212a", "}", byte(0b1111))
	}
	f.Add("ab", "a", "ab", byte(0b0001))
	f.Fuzz(func(t *testing.T, content, v1, v2 string, bits byte) {
		c := TextConfig{Values: []string{v1, v2}, CaseSensitive: bits&2 != 0, Trim: bits&4 != 0, Not: bits&8 != 0}
		if bits&1 != 0 {
			c.Mode = All
		}
		p, err := NewText(op, c)
		if err != nil {
			return
		}
		res := p.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{Content: content}})
		checkResult(t, res.Score, res.Passed, res.Details)
		s := content
		if c.Trim {
			s = strings.TrimSpace(s)
		}
		held := 0
		for _, v := range c.Values {
			if refHolds(op, s, v, c.CaseSensitive) {
				held++
			}
		}
		plain := held > 0
		if c.Mode == All {
			plain = held == len(c.Values)
		}
		if want := plain != c.Not; res.Passed != want {
			t.Fatalf("passed: got %v, want %v (%d of %d values hold; %+v)", res.Passed, want, held, len(c.Values), c)
		}
		if got := len(res.Metadata["matched"].([]string)); got != held {
			t.Fatalf("matched: got %d values, want %d", got, held)
		}
	})
}

// refHolds is the obvious, allocating implementation of a text comparison.
func refHolds(op Op, s, v string, caseSensitive bool) bool {
	if !caseSensitive {
		s, v = strings.ToLower(s), strings.ToLower(v)
	}
	switch op {
	case Equals:
		return s == v
	case StartsWith:
		return strings.HasPrefix(s, v)
	case EndsWith:
		return strings.HasSuffix(s, v)
	}
	return strings.Contains(s, v)
}

func FuzzContains(f *testing.F)   { fuzzText(f, Contains) }
func FuzzEquals(f *testing.F)     { fuzzText(f, Equals) }
func FuzzStartsWith(f *testing.F) { fuzzText(f, StartsWith) }
func FuzzEndsWith(f *testing.F)   { fuzzText(f, EndsWith) }

// FuzzFold compares the allocation-free case-insensitive comparisons with
// strings.ToLower on both sides.
func FuzzFold(f *testing.F) {
	for _, s := range foldSamples {
		f.Add(s+"x"+s, s)
	}
	f.Fuzz(func(t *testing.T, s, v string) {
		if v == "" {
			return
		}
		checkFold(t, s, v)
	})
}
