package format_test

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/format"
)

func TestJSONSchema(t *testing.T) {
	ab := map[string]any{"required_keys": list("a", "b")}
	abForbidX := map[string]any{"required_keys": list("a", "b"), "forbidden_keys": list("x", "y")}
	allOrNothing := map[string]any{"required_keys": list("a", "b"), "forbidden_keys": list("x"), "score_per_key": false}
	runCases(t, "json_schema", []evalCase{
		{name: "all required present", params: ab, content: `{"b": 2, "a": 1, "c": 3}`, pass: true, score: 1,
			meta:    map[string]any{"missing_keys": strs(), "forbidden_found": strs(), "present_keys": strs("a", "b", "c")},
			details: "All 2 required keys are present"},
		{name: "one of two missing", params: ab, content: `{"a": 1}`, score: 0.5,
			meta:    map[string]any{"missing_keys": strs("b"), "forbidden_found": strs(), "present_keys": strs("a")},
			details: `Missing required keys "b"`},
		{name: "all missing", params: ab, content: `{"c": 1}`, score: 0,
			meta: map[string]any{"missing_keys": strs("a", "b"), "forbidden_found": strs(), "present_keys": strs("c")}},
		{name: "empty object", params: ab, content: `{}`, score: 0,
			meta: map[string]any{"missing_keys": strs("a", "b"), "forbidden_found": strs(), "present_keys": strs()}},
		{name: "none required", built: &format.JSONSchema{}, content: `{"z": 1}`, pass: true, score: 1,
			meta: map[string]any{"missing_keys": strs(), "forbidden_found": strs(), "present_keys": strs("z")}},
		{name: "forbidden present halves the score", params: abForbidX, content: `{"a":1,"b":2,"x":3}`, score: 0.5,
			meta:    map[string]any{"missing_keys": strs(), "forbidden_found": strs("x"), "present_keys": strs("a", "b", "x")},
			details: `Found forbidden keys "x"`},
		{name: "missing and forbidden", params: abForbidX, content: `{"a":1,"y":2,"x":3}`, score: 0.25,
			meta:    map[string]any{"missing_keys": strs("b"), "forbidden_found": strs("x", "y"), "present_keys": strs("a", "x", "y")},
			details: `Missing required keys "b" and found forbidden keys "x", "y"`},
		{name: "forbidden absent", params: abForbidX, content: `{"a":1,"b":2}`, pass: true, score: 1},
		{name: "all or nothing, all present", params: allOrNothing, content: `{"a":1,"b":2}`, pass: true, score: 1},
		{name: "all or nothing, one missing", params: allOrNothing, content: `{"a":1}`, score: 0},
		{name: "all or nothing, forbidden", params: allOrNothing, content: `{"a":1,"b":2,"x":0}`, score: 0.5},
		{name: "duplicate required keys count once", params: map[string]any{"required_keys": list("a", "a", "b")},
			content: `{"a":1}`, score: 0.5,
			meta: map[string]any{"missing_keys": strs("b"), "forbidden_found": strs(), "present_keys": strs("a")}},
		{name: "duplicate document keys listed once", params: ab, content: `{"b":1,"a":1,"b":2}`, pass: true, score: 1,
			meta: map[string]any{"missing_keys": strs(), "forbidden_found": strs(), "present_keys": strs("a", "b")}},
		{name: "nested keys do not count", params: map[string]any{"required_keys": list("name", "age")},
			content: "@fenced_object.txt", score: 0.5,
			meta: map[string]any{"missing_keys": strs("age"), "forbidden_found": strs(),
				"present_keys": strs("born", "fields", "name", "notes")}},
		{name: "escaped keys are decoded", params: map[string]any{"required_keys": list("é", "a\"b")},
			content: `{"\u00e9": 1, "a\"b": 2}`, pass: true, score: 1},
		{name: "keys are case sensitive", params: ab, content: `{"A":1,"B":2}`, score: 0},
		{name: "number beyond float64", params: ab, content: `{"a": 1e999, "b": -1e999}`, pass: true, score: 1},
		{name: "not json", params: ab, content: `{"a": 1`, score: 0,
			meta:    map[string]any{"missing_keys": strs("a", "b"), "forbidden_found": strs(), "present_keys": strs()},
			details: "not valid JSON"},
		{name: "array", params: ab, content: `[{"a":1,"b":2}]`, score: 0, details: "JSON array, not an object"},
		{name: "array with none required", built: &format.JSONSchema{}, content: `[]`, score: 0},
		{name: "string", params: ab, content: `"a b"`, score: 0, details: "JSON string, not an object"},
		{name: "empty", params: ab, content: ``, score: 0},
	})
}

func TestJSONSchemaConfig(t *testing.T) {
	runConfigCases(t, "json_schema", []configCase{
		{name: "missing required_keys", params: nil, want: []string{"required_keys"}, msg: "required parameter is missing"},
		{name: "required_keys null", params: map[string]any{"required_keys": nil}, want: []string{"required_keys"}},
		{name: "required_keys not a list", params: map[string]any{"required_keys": "a"}, want: []string{"required_keys"},
			msg: "must be a list of strings"},
		{name: "non-string key", params: map[string]any{"required_keys": []any{"a", 1}}, want: []string{"required_keys"},
			msg: "item 1 must be a string"},
		{name: "score_per_key not a bool", params: map[string]any{"required_keys": list("a"), "score_per_key": "yes"},
			want: []string{"score_per_key"}},
		{name: "unknown parameter", params: map[string]any{"required_keys": list("a"), "forbiden_keys": list("b")},
			want: []string{"forbiden_keys"}, msg: "unknown parameter for json_schema", hint: "did you mean forbidden_keys?"},
		{name: "key both required and forbidden", params: map[string]any{"required_keys": list("a", "b"), "forbidden_keys": list("b", "a")},
			want: []string{"forbidden_keys", "forbidden_keys"}, msg: `key "b" is also in required_keys`},
		{name: "nothing to check", params: map[string]any{"required_keys": list()},
			want: []string{"required_keys"}, msg: "nothing to check: required_keys is empty and there are no forbidden_keys", hint: "use json_validity"},
		{name: "every problem at once", params: map[string]any{"forbidden_keys": "x", "extra": 1},
			want: []string{"extra", "forbidden_keys", "required_keys"}},
	})
}
