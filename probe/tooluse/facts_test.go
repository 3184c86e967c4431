package tooluse

import (
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// factsSeeds are JSON documents whose keys test jsonFacts: escaped keys
// and values, keys that fold to "name", every kind of value, the
// containers that are not structural keys.
var factsSeeds = []string{
	`{}`, `[]`, `"x"`, `1`,
	`{"city": "Oslo", "unit": "c", "n": 1, "neg": -1, "z": null, "t": true, "f": false, "a": [1], "o": {"x": 1}}`,
	`{"Name": "x"}`, `{"NAME": "x", "Function": "y"}`, `{"naMe": "", "function": 1}`,
	`{"name": "get", "arguments": {"city": "Oslo"}}`, `{"tool_calls": [{"function": {"name": "f", "arguments": "{\"a\": 1}"}}]}`,
	`{"parameters": {"q": "x"}, "args": [1], "input": "{}"}`, `{"type": "t", "id": 1, "role": "r", "content": "c"}`,
	`{"k\"ey": 1}`, `{"\"name": "x"}`, `{"a\\": "b", "\"c": 1}`, `{"x": "say \"name\": \"y\"", "y": "\"k\": 1"}`,
	`{"v": "a\"b", "w": 2}`, `{"v": "a\\", "name": "n"}`, `{"é": 1, "naſe": 2, "K": 3}`, `{"\u006eame": "x"}`,
	`{"x": "<function_calls><invoke><tool_name>t</tool_name>"}`, `{"a-b": 1, "a b": 2, "": 3, "_": 4, "9": 5}`,
	`[{"a": {"b": {"c": [{"d": 1}]}}}, {"a": 2}]`, `{"a": 1, "a": "x", "a": [], "b": 1.5e3, "c": 0}`,
	" \n{\"padded\": true}\t ",
}

// FuzzJSONFacts checks what jsonFacts notes of a valid JSON document
// against the text patterns it stands in for (argKeyPattern, the first
// of namePatterns), which input would otherwise run over the content.
func FuzzJSONFacts(f *testing.F) {
	probetest.AddTestdata(f, "*.json", factsSeeds...)
	f.Fuzz(func(t *testing.T, s string) { checkJSONFacts(t, s) })
}

func TestJSONFacts(t *testing.T) {
	for _, s := range factsSeeds {
		checkJSONFacts(t, s)
		checkJSONFacts(t, strings.ToUpper(s))
	}
	// The switch in jsonFacts.Key keeps the structural keys out.
	for k := range structuralKeys {
		var f jsonFacts
		f.Key(1, k)
		if f.pending != "" {
			t.Errorf("structural key %q is an argument key", k)
		}
	}
}

func checkJSONFacts(t *testing.T, s string) {
	t.Helper()
	var f jsonFacts
	if _, ok := text.ScanJSONKeys(strings.TrimSpace(s), &f); !ok {
		return
	}
	if !f.escKey {
		var want []string
		for _, m := range argKeyPattern.FindAllStringSubmatch(s, -1) {
			if !structuralKeys[m[1]] {
				want = append(want, m[1])
			}
		}
		got := sortedSet(slices.Clone(f.textKeys))
		if want = sortedSet(want); !slices.Equal(got, want) {
			t.Errorf("%q: text keys %q, the pattern finds %q", s, got, want)
		}
	}
	if !f.nameKey && !f.escKey && namePatterns[0].MatchString(s) {
		t.Errorf("%q: no key is name or function, yet the name pattern matches", s)
	}
}
