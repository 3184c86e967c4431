package format_test

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/format"
)

func TestJSONKeyOrder(t *testing.T) {
	abc := map[string]any{"expected_order": list("a", "b", "c")}
	ten := map[string]any{"expected_order": list("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9")}
	runCases(t, "json_key_order", []evalCase{
		{name: "exact order", params: abc, content: `{"a":1,"b":2,"c":3}`, pass: true, score: 1,
			meta:    map[string]any{"expected_order": strs("a", "b", "c"), "actual_order": strs("a", "b", "c")},
			details: "order score 1.00"},
		{name: "document order, not sorted order", params: map[string]any{"expected_order": list("zeta", "alpha")},
			content: `{"zeta":1,"alpha":2}`, pass: true, score: 1,
			meta: map[string]any{"expected_order": strs("zeta", "alpha"), "actual_order": strs("zeta", "alpha")}},
		{name: "sorted document against reverse expectation", params: map[string]any{"expected_order": list("zeta", "alpha")},
			content: `{"alpha":1,"zeta":2}`, score: 0.5,
			meta: map[string]any{"expected_order": strs("zeta", "alpha"), "actual_order": strs("alpha", "zeta")}},
		{name: "one swap of three", params: abc, content: `{"a":1,"c":3,"b":2}`, score: 2.0 / 3,
			details: "order score 0.67"},
		{name: "reversed three", params: abc, content: `{"c":1,"b":2,"a":3}`, score: 1.0 / 3},
		{name: "one move of ten is exactly the threshold", params: ten,
			content: `{"k1":1,"k2":1,"k3":1,"k4":1,"k5":1,"k6":1,"k7":1,"k8":1,"k9":1,"k0":1}`, pass: true, score: 0.9},
		{name: "two moves of ten is below the threshold", params: ten,
			content: `{"k1":1,"k0":1,"k2":1,"k3":1,"k4":1,"k5":1,"k6":1,"k7":1,"k9":1,"k8":1}`, score: 0.8},
		{name: "unexpected keys are ignored", params: abc, content: `{"x":0,"a":1,"y":0,"b":2,"z":0,"c":3}`, pass: true, score: 1,
			meta: map[string]any{"expected_order": strs("a", "b", "c"), "actual_order": strs("a", "b", "c")}},
		{name: "absent expected keys are ignored", params: abc, content: `{"a":1,"c":3}`, pass: true, score: 1,
			meta: map[string]any{"expected_order": strs("a", "c"), "actual_order": strs("a", "c")}},
		{name: "no expected key present skips", params: abc, content: `{"x":1}`, pass: true, score: 1,
			meta: map[string]any{"expected_order": strs(), "actual_order": strs()}, details: "skipped"},
		{name: "empty object skips", params: abc, content: `{}`, pass: true, score: 1, details: "skipped"},
		{name: "empty expectation skips", built: &format.JSONKeyOrder{}, content: `{"a":1}`, pass: true, score: 1},
		{name: "duplicate key keeps its first position", params: map[string]any{"expected_order": list("a", "b")},
			content: `{"a":1,"b":2,"a":3}`, pass: true, score: 1,
			meta: map[string]any{"expected_order": strs("a", "b"), "actual_order": strs("a", "b")}},
		{name: "nested keys are not top-level", params: map[string]any{"expected_order": list("a", "b")},
			content: `{"a":{"b":1,"a":[{"b":2}]},"b":[[],{}],"c":"b"}`, pass: true, score: 1,
			meta: map[string]any{"expected_order": strs("a", "b"), "actual_order": strs("a", "b")}},
		{name: "fixture in a fence", params: map[string]any{"expected_order": list("name", "born", "fields", "notes")},
			content: "@fenced_object.txt", pass: true, score: 1},
		{name: "fixture out of order", params: map[string]any{"expected_order": list("notes", "fields", "born", "name")},
			content: "@fenced_object.txt", score: 0.25},
		{name: "unicode keys", params: map[string]any{"expected_order": list("名前", "年齢")},
			content: `{"\u540d\u524d":"x","年齢":3}`, pass: true, score: 1},
		{name: "not json", params: abc, content: `{"a":1,"b":2`, score: 0,
			meta: map[string]any{"expected_order": strs(), "actual_order": strs()}, details: "not valid JSON"},
		{name: "array", params: abc, content: `["a","b","c"]`, score: 0, details: "JSON array, not an object"},
		{name: "null", params: abc, content: `null`, score: 0, details: "JSON null, not an object"},
		{name: "empty", params: abc, content: ``, score: 0},
	})
}

func TestJSONKeyOrderConfig(t *testing.T) {
	runConfigCases(t, "json_key_order", []configCase{
		{name: "missing expected_order", want: []string{"expected_order"}, msg: "required parameter is missing"},
		{name: "not a list", params: map[string]any{"expected_order": map[string]any{"a": 1}},
			want: []string{"expected_order"}, msg: "got a mapping"},
		{name: "duplicate key", params: map[string]any{"expected_order": list("a", "b", "a", "a", "b")},
			want: []string{"expected_order", "expected_order"}, msg: `key "a" is listed more than once`},
		{name: "empty order checks nothing", params: map[string]any{"expected_order": list()},
			want: []string{"expected_order"}, msg: "nothing to check: an order needs at least 2 keys, got 0", hint: "use json_schema"},
		{name: "one key has no order", params: map[string]any{"expected_order": list("a")},
			want: []string{"expected_order"}, msg: "nothing to check: an order needs at least 2 keys, got 1"},
	})
}
