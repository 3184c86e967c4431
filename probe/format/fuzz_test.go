package format_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/format"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

var fuzzSeeds = []string{
	``,
	`{}`,
	`[]`,
	`{"a":1,"b":2,"c":3}`,
	`{"c":1,"b":{"a":[1,{"c":2}]},"a":null}`,
	`{"a":1,"a":2}`,
	`{"\u0061":1,"b":"\ud800"}`,
	`{"big":1e999,"neg":-0.0e-999}`,
	"```json\n{\"b\":1,\"a\":2}\n```",
	"```\n[1,2]",
	`{"a":1,}`,
	`{"a":`,
	`nul`,
	"\xff\xfe{}",
	`{"a":"` + "\xff" + `"}`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
}

// keysOf returns the distinct top-level keys of s when it is a JSON object,
// decoded independently of the probes.
func keysOf(s string) ([]string, bool) {
	var m map[string]json.RawMessage
	if !json.Valid([]byte(s)) || json.Unmarshal([]byte(s), &m) != nil || m == nil {
		return nil, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, true
}

func FuzzJSONValidity(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	p := &format.JSONValidity{}
	f.Fuzz(func(t *testing.T, content string) {
		got := probetest.Eval(p, &promptcanary.Prompt{}, &promptcanary.Response{Content: content})
		valid := json.Valid([]byte(text.StripFences(content)))
		if got.Passed != valid {
			t.Fatalf("passed: got %v, want %v (json.Valid) for %q", got.Passed, valid, content)
		}
		if want := map[bool]float64{true: 1, false: 0}[valid]; got.Score != want {
			t.Fatalf("score: got %v, want %v", got.Score, want)
		}
		if !valid {
			if _, ok := got.Metadata["error"].(string); !ok {
				t.Fatalf("metadata error: got %#v, want a string", got.Metadata["error"])
			}
			if prev, _ := got.Metadata["raw_content_preview"].(string); len([]rune(prev)) > 200 {
				t.Fatalf("preview: got %d characters, want <= 200", len([]rune(prev)))
			}
		}
	})
}

func FuzzJSONSchema(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	p := &format.JSONSchema{RequiredKeys: []string{"a", "b", "c"}, ForbiddenKeys: []string{"x"}}
	f.Fuzz(func(t *testing.T, content string) {
		got := probetest.Eval(p, &promptcanary.Prompt{}, &promptcanary.Response{Content: content})
		if got.Score < 0 || got.Score > 1 {
			t.Fatalf("score: got %v, want in [0,1]", got.Score)
		}
		if got.Passed && got.Score != 1 {
			t.Fatalf("passed with score %v, want 1", got.Score)
		}
		present, _ := got.Metadata["present_keys"].([]string)
		missing, _ := got.Metadata["missing_keys"].([]string)
		if present == nil || missing == nil || got.Metadata["forbidden_found"] == nil {
			t.Fatalf("metadata: got %#v, want every list set", got.Metadata)
		}
		want, isObject := keysOf(text.StripFences(content))
		if !isObject {
			want = []string{}
		}
		if !slices.Equal(present, want) {
			t.Fatalf("present_keys: got %q, want %q", present, want)
		}
		wantScore := 0.0
		if isObject {
			wantScore = float64(3-len(missing)) / 3
			if slices.Contains(present, "x") {
				wantScore *= 0.5
			}
		}
		if !approx(got.Score, wantScore) {
			t.Fatalf("score: got %v, want %v (missing %q, present %q)", got.Score, wantScore, missing, present)
		}
	})
}

func FuzzJSONKeyOrder(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "a,b,c")
	}
	f.Add(`{"k":1,"j":2}`, "j,k")
	f.Fuzz(func(t *testing.T, content, order string) {
		expected := strings.Split(order, ",")
		p, _, err := probe.New("json_key_order", map[string]any{"expected_order": list(expected...)})
		if err != nil {
			return // a duplicate key is a configuration error
		}
		got := probetest.Eval(p, &promptcanary.Prompt{}, &promptcanary.Response{Content: content})
		if got.Score < 0 || got.Score > 1 {
			t.Fatalf("score: got %v, want in [0,1]", got.Score)
		}
		if got.Passed != (got.Score >= format.KeyOrderPassScore) {
			t.Fatalf("passed %v with score %v", got.Passed, got.Score)
		}
		exp, _ := got.Metadata["expected_order"].([]string)
		act, _ := got.Metadata["actual_order"].([]string)
		if exp == nil || act == nil {
			t.Fatalf("metadata: got %#v, want both orders set", got.Metadata)
		}
		// Both sides hold the same keys: those expected and present.
		keys, isObject := keysOf(text.StripFences(content))
		var want []string
		if isObject {
			for _, k := range keys {
				if slices.Contains(expected, k) {
					want = append(want, k)
				}
			}
		}
		for _, side := range [][]string{exp, act} {
			s := slices.Sorted(slices.Values(side))
			if !slices.Equal(s, want) {
				t.Fatalf("compared keys: got %q, want %q", s, want)
			}
		}
		if isObject && slices.Equal(exp, act) && got.Score != 1 {
			t.Fatalf("same order %q: got score %v, want 1", exp, got.Score)
		}
	})
}
