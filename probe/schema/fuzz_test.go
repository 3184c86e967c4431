package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe/internal/text"
	"github.com/promptcanary/promptcanary/probe/schema"
)

// fuzzSchema exercises most keywords: types, numbers, strings, arrays,
// objects, $ref, alternatives, not, contains and formats.
const fuzzSchema = `{
  "type": "object",
  "required": ["id", "tags"],
  "properties": {
    "id": {"type": "string", "pattern": "^[a-z]+-[0-9]+$", "maxLength": 20},
    "n": {"type": "integer", "multipleOf": 3, "exclusiveMaximum": 100},
    "tags": {"type": "array", "uniqueItems": true, "contains": {"const": "x"}, "maxItems": 4},
    "when": {"type": "string", "format": "date-time"},
    "kind": {"enum": ["a", "b", null]},
    "alt": {"oneOf": [{"type": "string"}, {"type": "number"}]},
    "deep": {"$ref": "#"}
  },
  "propertyNames": {"maxLength": 8},
  "dependentRequired": {"n": ["kind"]},
  "not": {"required": ["forbidden"]},
  "unevaluatedProperties": false
}`

func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `"x"`, `1e999`, `-0`,
		`{"id":"ab-1","tags":["x"]}`,
		`{"id":"AB","tags":["x","x","y","z","w"],"n":99.5,"when":"yesterday","kind":"c","alt":true}`,
		`{"id":"ab-1","tags":["x"],"deep":{"id":"cd-2","tags":[],"deep":{"deep":1}}}`,
		`{"id":"ab-1","tags":["x"],"forbidden":1,"averyverylongname":0,"n":3}`,
		"```json\n{\"id\":\"ab-1\",\"tags\":[\"x\"]}\n```",
		`{"id":"a\ud800","tags":["\u0000"]}`,
		"{\"id\":\"\xff\",\"tags\":[]}",
		`{"a":1,"a":2}`,
		strings.Repeat(`{"deep":`, 200) + `{}` + strings.Repeat(`}`, 200),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	} {
		f.Add(s)
	}
	p, err := schema.New(schema.Config{Schema: schemaMap(f, fuzzSchema), AssertFormat: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, content string) {
		res := probetest.Eval(p, &promptcanary.Prompt{ID: "p"}, &promptcanary.Response{Content: content})
		if _, panicked := res.Metadata["error"]; panicked && strings.Contains(res.Details, "panic") {
			t.Fatalf("Evaluate panicked on %q: %s", content, res.Details)
		}
		if res.Score < 0 || res.Score > 1 {
			t.Fatalf("score %v out of [0,1] on %q", res.Score, content)
		}
		if res.Passed != (res.Score == 1) {
			t.Fatalf("passed %v with score %v on %q", res.Passed, res.Score, content)
		}
		if res.Details == "" {
			t.Fatalf("empty details on %q", content)
		}
		var v any
		if !json.Valid([]byte(text.StripFences(content))) {
			if res.Score != 0 || res.Metadata["error"] == nil {
				t.Fatalf("not JSON %q: got score %v and metadata %v, want 0 and an error", content, res.Score, res.Metadata)
			}
			return
		} else if json.Unmarshal([]byte(text.StripFences(content)), &v) != nil {
			return // valid syntax that encoding/json still refuses (depth)
		}
		if _, isObject := v.(map[string]any); !isObject && res.Passed {
			t.Fatalf("a %T passed a schema of type object", v)
		}
		for _, key := range []string{"failures", "failing_pointers", "failing_keywords"} {
			if l, _ := res.Metadata[key].([]string); len(l) > 50 {
				t.Fatalf("%s holds %d entries, want at most 50", key, len(l))
			}
		}
		failed, _ := res.Metadata["failed_checks"].(int)
		checks, _ := res.Metadata["checks"].(int)
		if failed > checks || (failed == 0) != res.Passed {
			t.Fatalf("failed_checks %d of %d with passed %v on %q", failed, checks, res.Passed, content)
		}
	})
}
