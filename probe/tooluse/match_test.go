package tooluse

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// argKeyPattern is the reference for appendTextKeys: it captures "key":
// value pairs in free text (case-sensitive, as in the original).
var argKeyPattern = regexp.MustCompile(`"(\w+)"\s*:\s*(?:"[^"]*"|\d+|true|false|\[|\{)`)

var matchSeeds = []string{"", `"function": "x"`, `"FUNCTION"` + "\t:\n\"", `"tool_calls" : [`, `"Tool_Calls":[`,
	`"name": "get_weather", "arguments": {}`, `"NAME":"a_1"  ,  "ARGUMENTS"`, `"name": "a b", "arguments"`, `<tool_call>`,
	`<FUNCTION_CALLS>`, `call functions.get(x)`, `xfunction.a(`, `Functions.a_b(`, `function.(`, `functions(`, `functionss.a(`,
	`"name": "", "function": "f"`, `"function":"a""name":"b"`, `"name": "x`, `<function_calls> <invoke>` + "\n" + `<tool_name> t </tool_name>`,
	`<function_calls><invoke><tool_name></tool_name><function_calls><invoke><tool_name>b</tool_name>`,
	`<function_calls><invoke><tool_name>a<b</tool_name>`, `"a": 1, "b":"x", "c" : true, "d":false, "e":[, "f":{, "g": null`,
	`"x" "key": 12, "type": "t"`, `"a":"b":"c"`, `"k":"unterminated`, `"é": 1`, `"k"` + "\v" + `: 1`, `"k":` + "\v1",
	"\"name\": \"x\xff\", \"arguments\"", `"function"` + "\u00a0: \"x\""}

// FuzzTextPatterns checks the hand matchers against the regexps they
// replace, on content without fold characters (where they are used).
func FuzzTextPatterns(f *testing.F) { fuzzStrings(f, matchSeeds, checkTextPatterns) }

func TestTextPatterns(t *testing.T) {
	for _, s := range matchSeeds {
		checkTextPatterns(t, s)
		checkTextPatterns(t, strings.ToUpper(s))
		for i := range len(s) {
			checkTextPatterns(t, s[:i])
		}
	}
}

func checkTextPatterns(t *testing.T, s string) {
	t.Helper()
	var wantKeys []string
	for _, m := range argKeyPattern.FindAllStringSubmatch(s, -1) {
		if !structuralKeys[m[1]] {
			wantKeys = append(wantKeys, m[1])
		}
	}
	if got := appendTextKeys(nil, s); !slices.Equal(got, wantKeys) {
		t.Errorf("appendTextKeys(%q): got %q, want %q", s, got, wantKeys)
	}
	if text.HasFolds(s) {
		return
	}
	want := false
	for _, re := range presencePatterns {
		want = want || re.MatchString(s)
	}
	if got := hasCallPattern(s); got != want {
		t.Errorf("hasCallPattern(%q): got %v, want %v", s, got, want)
	}
	var wantNames []string
	for _, re := range namePatterns {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if n := strings.TrimSpace(m[1]); n != "" {
				wantNames = append(wantNames, n)
			}
		}
	}
	if got := appendTextNames(nil, s); !slices.Equal(got, wantNames) {
		t.Errorf("appendTextNames(%q): got %q, want %q", s, got, wantNames)
	}
}

var holdSeeds = []string{`{"name": "f"}`, `{"n\u0061me": "f"}`, `[{"function": {"name": "g"}}]`, `{"args": {"a": 1}}`,
	`{"x": {"input": "{\"k\": 1}"}}`, `{"title": "no keys of interest", "items": [1, {"id": 2}]}`, `{"input": {}}`}

// FuzzHolds checks the shortcut of the JSON rules: a JSON document for
// which holds is false yields no name and no argument key.
func FuzzHolds(f *testing.F) { fuzzStrings(f, holdSeeds, checkHolds) }

func checkHolds(t *testing.T, s string) {
	t.Helper()
	root, ok := parseJSON(strings.TrimSpace(s))
	if !ok {
		return
	}
	in := &input{content: s}
	if names := jsonNames(&root, nil); len(names) > 0 && !in.holds(heldNames) {
		t.Errorf("holds(%q, heldNames): got false, but the document names %q", s, names)
	}
	if keys := in.collectArgKeys(&root, nil); len(keys) > 0 && !in.holds(heldContainers) {
		t.Errorf("holds(%q, heldContainers): got false, but the document has argument keys %q", s, keys)
	}
	if obj, ok := in.findArgs(&root); ok && !in.holds(heldContainers) {
		t.Errorf("holds(%q, heldContainers): got false, but the document has arguments %v", s, obj)
	}
}
