package match

import (
	"testing"
)

func TestContains(t *testing.T) {
	runCases(t, "contains", []evalCase{
		{name: "any, one holds", params: map[string]any{"values": list("Paris", "Lyon")},
			content: "The capital is Paris.", pass: true, score: 1,
			meta: textMeta([]string{"Paris"}, []string{"Lyon"}, "any", false), details: `The response contains "Paris".`},
		{name: "any, none holds", params: map[string]any{"values": list("Paris", "Lyon")},
			content: "The capital is Berlin.", pass: false, score: 0,
			meta: textMeta(nil, []string{"Paris", "Lyon"}, "any", false), details: `The response contains none of "Paris", "Lyon".`},
		{name: "any, one value missing", params: map[string]any{"values": list("Paris")},
			content: "Berlin", pass: false, score: 0, details: `The response does not contain "Paris".`},
		{name: "case-sensitive by default", params: map[string]any{"values": list("Paris")},
			content: "the capital is PARIS", pass: false, score: 0},
		{name: "case-insensitive", params: map[string]any{"values": list("Paris"), "case_sensitive": false},
			content: "the capital is PARIS", pass: true, score: 1,
			meta: textMeta([]string{"Paris"}, nil, "any", false)},
		{name: "case-insensitive non-ASCII", params: map[string]any{"values": list("Ärger über"), "case_sensitive": false},
			content: "Viel ÄRGER ÜBER nichts", pass: true, score: 1},
		{name: "case-insensitive Kelvin sign lowers to k", params: map[string]any{"values": list("ok"), "case_sensitive": false},
			content: "O\u212a", pass: true, score: 1},
		{name: "case-insensitive does not fold long s", params: map[string]any{"values": list("s"), "case_sensitive": false},
			content: "\u017f", pass: false, score: 0},
		{name: "all, share holds", params: map[string]any{"values": list("a", "b", "c", "d"), "mode": "all"},
			content: "a b", pass: false, score: 0.5,
			meta: textMeta([]string{"a", "b"}, []string{"c", "d"}, "all", false), details: `The response does not contain "c", "d" (2 of 4 values hold).`},
		{name: "all hold", params: map[string]any{"values": list("a", "b"), "mode": "all"},
			content: "b a", pass: true, score: 1, details: "The response contains all 2 values."},
		{name: "not any: none may occur", params: map[string]any{"values": list("sorry", "cannot"), "not": true, "case_sensitive": false},
			content: "Here you are.", pass: true, score: 1,
			meta: textMeta(nil, []string{"sorry", "cannot"}, "any", true), details: `Inverted check (not: true): the response contains none of "sorry", "cannot", as required.`},
		{name: "not any: one occurs", params: map[string]any{"values": list("sorry", "cannot", "unable"), "not": true, "case_sensitive": false},
			content: "Sorry, I can't.", pass: false, score: 2.0 / 3,
			meta: textMeta([]string{"sorry"}, []string{"cannot", "unable"}, "any", true), details: `Inverted check (not: true): the response contains "sorry", which it must not.`},
		{name: "not all: one missing is enough", params: map[string]any{"values": list("a", "b"), "mode": "all", "not": true},
			content: "a", pass: true, score: 1, details: `the response does not contain "b", so not all 2 values hold, as required.`},
		{name: "not all: all occur", params: map[string]any{"values": list("a", "b"), "mode": "all", "not": true},
			content: "a b", pass: false, score: 0, details: "Inverted check (not: true): the response contains all 2 values, which it must not."},
		{name: "trim matters for a value with spaces", params: map[string]any{"values": list(" x"), "trim": true},
			content: " x", pass: false, score: 0},
		{name: "untrimmed by default", params: map[string]any{"values": list(" x")},
			content: " x", pass: true, score: 1},
		{name: "empty response", params: map[string]any{"values": list("x"), "case_sensitive": false},
			content: "", pass: false, score: 0},
		{name: "long value is cut in details", params: map[string]any{"values": list("abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij")},
			content: "", pass: false, score: 0, details: `"abcdefghij abcdefghij abcdefghij abcdefghij abcdefghij abcde"…`},
	})
}

func TestEquals(t *testing.T) {
	runCases(t, "equals", []evalCase{
		{name: "trimmed by default", params: map[string]any{"values": list("yes", "no")},
			content: "  no\n", pass: true, score: 1,
			meta: textMeta([]string{"no"}, []string{"yes"}, "any", false), details: `The response equals "no".`},
		{name: "more than the value", params: map[string]any{"values": list("yes")},
			content: "yes.", pass: false, score: 0, details: `The response does not equal "yes".`},
		{name: "untrimmed", params: map[string]any{"values": list("yes"), "trim": false},
			content: "yes\n", pass: false, score: 0},
		{name: "case-insensitive", params: map[string]any{"values": list("Yes"), "case_sensitive": false},
			content: "YES", pass: true, score: 1},
		{name: "case-insensitive length differs", params: map[string]any{"values": list("Yes"), "case_sensitive": false},
			content: "YESS", pass: false, score: 0},
		{name: "not", params: map[string]any{"values": list("I don't know", "N/A"), "not": true},
			content: "N/A", pass: false, score: 0.5, details: `Inverted check (not: true): the response equals "N/A", which it must not.`},
		{name: "all with one value", params: map[string]any{"values": list("42"), "mode": "all"},
			content: "42", pass: true, score: 1, details: `The response equals "42".`},
	})
}

func TestStartsWith(t *testing.T) {
	runCases(t, "starts_with", []evalCase{
		{name: "trimmed", params: map[string]any{"values": list("{", "[")},
			content: "\n  [1, 2]", pass: true, score: 1,
			meta: textMeta([]string{"["}, []string{"{"}, "any", false), details: `The response starts with "[".`},
		{name: "untrimmed", params: map[string]any{"values": list("{"), "trim": false},
			content: " {}", pass: false, score: 0},
		{name: "preamble forbidden", params: map[string]any{"values": list("Sure", "Of course"), "not": true, "case_sensitive": false},
			content: "sure! Here it is.", pass: false, score: 0.5, details: `Inverted check (not: true): the response starts with "Sure", which it must not.`},
		{name: "no preamble", params: map[string]any{"values": list("Sure", "Of course"), "not": true, "case_sensitive": false},
			content: "Paris.", pass: true, score: 1},
		{name: "all: a chain of prefixes", params: map[string]any{"values": list("```", "```json"), "mode": "all"},
			content: "```python\nx", pass: false, score: 0.5},
		{name: "case-insensitive non-ASCII prefix", params: map[string]any{"values": list("état"), "case_sensitive": false},
			content: "ÉTAT des lieux", pass: true, score: 1},
		{name: "content shorter than value", params: map[string]any{"values": list("abc"), "case_sensitive": false},
			content: "ab", pass: false, score: 0},
	})
}

func TestEndsWith(t *testing.T) {
	runCases(t, "ends_with", []evalCase{
		{name: "trimmed", params: map[string]any{"values": list("}")},
			content: "{\"a\": 1}\n\n", pass: true, score: 1,
			meta: textMeta([]string{"}"}, nil, "any", false), details: `The response ends with "}".`},
		{name: "cut off", params: map[string]any{"values": list(".", "!", "?")},
			content: "The answer is", pass: false, score: 0, details: `The response ends with none of ".", "!", "?".`},
		{name: "case-insensitive non-ASCII suffix", params: map[string]any{"values": list("ÜBER"), "case_sensitive": false},
			content: "drüber", pass: true, score: 1},
		{name: "all: a chain of suffixes", params: map[string]any{"values": list("```", "\n```"), "mode": "all", "trim": false},
			content: "x\n```", pass: true, score: 1},
		{name: "not all", params: map[string]any{"values": list("```", "\n```"), "mode": "all", "not": true, "trim": false},
			content: "x```", pass: true, score: 1, details: "Inverted check (not: true)"},
	})
}

func TestRegex(t *testing.T) {
	meta := func(failedMust, failedNot []string, not bool) map[string]any {
		return map[string]any{"failed_must_match": strs(failedMust...), "failed_must_not_match": strs(failedNot...), "not": not}
	}
	runCases(t, "regex", []evalCase{
		{name: "all hold", params: map[string]any{"must_match": list(`\d{4}-\d{2}-\d{2}`), "must_not_match": list(`(?i)as an ai`)},
			content: "Due 2025-01-31.", pass: true, score: 1, meta: meta(nil, nil, false), details: "All 2 pattern(s) hold."},
		{name: "share of patterns", params: map[string]any{"must_match": list(`^Answer:`, `\d+`, `done`), "must_not_match": list(`sorry`)},
			content: "I am sorry, 42", pass: false, score: 0.25,
			meta:    meta([]string{`^Answer:`, `done`}, []string{`sorry`}, false),
			details: `The response did not match "^Answer:", "done" and matched forbidden "sorry" (first at "sorry") (1 of 4 patterns hold).`},
		{name: "flags i", params: map[string]any{"must_match": list(`paris`), "flags": "i"},
			content: "PARIS", pass: true, score: 1},
		{name: "no flags is case-sensitive", params: map[string]any{"must_match": list(`paris`)},
			content: "PARIS", pass: false, score: 0},
		{name: "flags m", params: map[string]any{"must_match": list(`^Answer:`), "flags": "m"},
			content: "Thinking...\nAnswer: 4", pass: true, score: 1},
		{name: "without m ^ is the start", params: map[string]any{"must_match": list(`^Answer:`)},
			content: "Thinking...\nAnswer: 4", pass: false, score: 0},
		{name: "flags s", params: map[string]any{"must_match": list(`<think>.*</think>`), "flags": "s"},
			content: "<think>a\nb</think>", pass: true, score: 1},
		{name: "without s dot stops at a line break", params: map[string]any{"must_match": list(`<think>.*</think>`)},
			content: "<think>a\nb</think>", pass: false, score: 0},
		{name: "forbidden match quoted", params: map[string]any{"must_not_match": list(`(?i)as an? (ai|language model)`)},
			content: "As a language model, I", pass: false, score: 0,
			details: `matched forbidden "(?i)as an? (ai|language model)" (first at "As a language model")`},
		{name: "not passes when a pattern fails", params: map[string]any{"must_match": list(`^\{`), "not": true},
			content: "Sure! {}", pass: true, score: 1, meta: meta([]string{`^\{`}, nil, true),
			details: `Inverted check (not: true): the response did not match "^\\{", so not all patterns hold, as required.`},
		{name: "not fails when all hold", params: map[string]any{"must_match": list(`^\{`), "not": true},
			content: "{}", pass: false, score: 0, details: "Inverted check (not: true): all 1 pattern(s) hold, which they must not."},
		{name: "invalid UTF-8", params: map[string]any{"must_match": list(`.`)},
			content: "\xff", pass: true, score: 1},
	})
}
