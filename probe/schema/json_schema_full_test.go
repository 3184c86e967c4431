package schema_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	"github.com/promptcanary/promptcanary/probe/schema"
)

// orderSchema is the schema of the tests: 18 checks (root: type, 3
// required, additionalProperties; id: type, pattern; items: type,
// minItems; item via $ref: type, 2 required, sku type, qty type, qty
// minimum; total: type, minimum; email: type, its format only annotated).
const orderSchema = `{
  "type": "object",
  "required": ["id", "items", "total"],
  "properties": {
    "id": {"type": "string", "pattern": "^ord-[0-9]+$"},
    "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/item"}},
    "total": {"type": "number", "minimum": 0},
    "email": {"type": "string", "format": "email"}
  },
  "additionalProperties": false,
  "$defs": {
    "item": {
      "type": "object",
      "required": ["sku", "qty"],
      "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}
    }
  }
}`

// addressSchema uses one definition at two places.
const addressSchema = `{
  "type": "object",
  "properties": {
    "billing": {"$ref": "#/$defs/address"},
    "shipping": {"$ref": "#/$defs/address"}
  },
  "$defs": {"address": {"type": "object", "required": ["street", "city"]}}
}`

// schemaMap decodes a JSON schema, numbers exact as the YAML decoder keeps
// integers.
func schemaMap(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("test schema: %v", err)
	}
	return m
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name          string
		schema        string
		assertFormat  bool
		answer        string
		passed        bool
		score         float64
		checks        int
		failures      []string // metadata failures, exactly
		detailsPrefix string
	}{
		{name: "valid order", schema: orderSchema,
			answer: `{"id":"ord-1","items":[{"sku":"a","qty":2}],"total":9.5,"email":"not checked"}`,
			passed: true, score: 1, checks: 18, failures: []string{},
			detailsPrefix: "Response matches the schema (2020-12, 18 checks)."},
		{name: "fenced valid order", schema: orderSchema,
			answer: "```json\n{\"id\":\"ord-7\",\"items\":[{\"sku\":\"a\",\"qty\":1}],\"total\":0}\n```",
			passed: true, score: 1, checks: 18, failures: []string{}},
		{name: "invalid at several pointers", schema: orderSchema,
			answer: `{"id":"ord-1","items":[{"sku":"a","qty":1},{"sku":"b","qty":0}],"note":"x"}`,
			score:  15.0 / 18, checks: 18,
			failures: []string{
				`: #/additionalProperties: additional properties 'note' not allowed`,
				`: #/required: missing property "total"`,
				`/items/1/qty: #/$defs/item/properties/qty/minimum: must be >= 1, got 0`,
			},
			detailsPrefix: `Response fails 3 of 18 schema checks: (root) additionalProperties (additional properties 'note' not allowed); (root) required (missing property "total"); /items/1/qty minimum (must be >= 1, got 0).`},
		{name: "additional properties named in order", schema: `{"properties":{"a":{}},"additionalProperties":false}`,
			answer: `{"zeta":1,"a":2,"beta":3,"mu":4,"alpha":5,"omega":6,"delta":7,"kappa":8,"gamma":9}`,
			score:  0, checks: 1,
			failures: []string{`: #/additionalProperties: additional properties 'alpha', 'beta', 'delta', 'gamma', 'kappa', 'mu', 'omega', 'zeta' not allowed`}},
		{name: "one check failing at two places counts once", schema: orderSchema,
			answer: `{"id":"ord-1","items":[{"sku":"a","qty":0},{"sku":"b","qty":-3}],"total":1}`,
			score:  17.0 / 18, checks: 18,
			failures: []string{
				`/items/0/qty: #/$defs/item/properties/qty/minimum: must be >= 1, got 0`,
				`/items/1/qty: #/$defs/item/properties/qty/minimum: must be >= 1, got -3`,
			}},
		{name: "wrong type stops the checks below it", schema: orderSchema,
			answer: `{"id":7,"items":"none","total":"free"}`,
			score:  15.0 / 18, checks: 18,
			failures: []string{
				`/id: #/properties/id/type: got number, want string`,
				`/items: #/properties/items/type: got string, want array`,
				`/total: #/properties/total/type: got string, want number`,
			}},
		{name: "not an object at all", schema: orderSchema, answer: `[1,2]`,
			score: 17.0 / 18, checks: 18,
			failures: []string{`: #/type: got array, want object`}},
		{name: "ref within the document, used twice", schema: addressSchema,
			answer: `{"billing":{"street":"1 Main"},"shipping":{}}`,
			score:  2.0 / 4, checks: 4,
			failures: []string{
				`/billing: #/$defs/address/required: missing property "city"`,
				`/shipping: #/$defs/address/required: missing property "city"`,
				`/shipping: #/$defs/address/required: missing property "street"`,
			}},
		{name: "anyOf is one check", schema: `{"anyOf":[{"type":"string","minLength":3},{"type":"integer"}]}`,
			answer: `"ab"`, score: 0, checks: 1,
			failures: []string{`: #/anyOf: matches none of the anyOf alternatives`}},
		{name: "2020-12 only annotates format", schema: `{"type":"string","format":"email"}`,
			answer: `"nope"`, passed: true, score: 1, checks: 1, failures: []string{}},
		{name: "assert_format checks format in 2020-12", schema: `{"type":"string","format":"email"}`, assertFormat: true,
			answer: `"nope"`, score: 0.5, checks: 2,
			failures: []string{`: #/format: 'nope' is not valid email: missing @`}},
		{name: "draft 7 asserts format", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"email"}`,
			answer: `"nope"`, score: 0.5, checks: 2,
			failures: []string{`: #/format: 'nope' is not valid email: missing @`}},
		{name: "2020-12 applies the siblings of $ref", schema: `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","maxLength":3}`,
			answer: `"abcdef"`, score: 0.5, checks: 2,
			failures: []string{`: #/maxLength: must be at most 3 characters long, got 6`}},
		{name: "draft 7 ignores the siblings of $ref", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s","maxLength":3}`,
			answer: `"abcdef"`, passed: true, score: 1, checks: 1, failures: []string{}},
		{name: "draft 7 tuple items and additionalItems", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"}],"additionalItems":false}`,
			answer: `["a",1]`, score: 2.0 / 3, checks: 3,
			failures: []string{`: #/additionalItems: 1 items more than allowed`}},
		{name: "2020-12 prefixItems and items false", schema: `{"type":"array","prefixItems":[{"type":"string"}],"items":false}`,
			answer: `["a",1]`, score: 2.0 / 3, checks: 3,
			failures: []string{`/1: #/items: no value is allowed here`}},
		{name: "not and a false property", schema: `{"not":{"type":"null"},"properties":{"secret":false}}`,
			answer: `{"secret":1}`, score: 0.5, checks: 2,
			failures: []string{`/secret: #/properties/secret: no value is allowed here`}},
		{name: "big numbers keep their precision", schema: `{"type":"integer","maximum":9007199254740993}`,
			answer: `9007199254740994`, score: 0.5, checks: 2,
			failures: []string{`: #/maximum: must be <= 9007199254740993, got 9007199254740994`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := schema.New(schema.Config{Schema: schemaMap(t, tc.schema), Dir: t.TempDir(), AssertFormat: tc.assertFormat})
			if err != nil {
				t.Fatal(err)
			}
			res := probetest.Eval(p, &promptcanary.Prompt{ID: "p"}, &promptcanary.Response{Content: tc.answer})
			probetest.CheckVerdict(t, res, tc.passed, tc.score)
			probetest.CheckKeys(t, res.Metadata, "draft", "checks", "valid", "failed_checks", "failure_count",
				"failures", "failing_pointers", "failing_keywords")
			if got := res.Metadata["checks"]; got != tc.checks {
				t.Errorf("checks: got %v, want %d", got, tc.checks)
			}
			if got := res.Metadata["valid"]; got != tc.passed {
				t.Errorf("valid: got %v, want %v", got, tc.passed)
			}
			if got := res.Metadata["failures"].([]string); !slices.Equal(got, tc.failures) {
				t.Errorf("failures:\ngot  %q\nwant %q", got, tc.failures)
			}
			if got := res.Metadata["failure_count"]; got != len(tc.failures) {
				t.Errorf("failure_count: got %v, want %d", got, len(tc.failures))
			}
			if !strings.HasPrefix(res.Details, tc.detailsPrefix) {
				t.Errorf("details:\ngot  %q\nwant %q…", res.Details, tc.detailsPrefix)
			}
		})
	}
}

func TestEvaluateDraftAndPointers(t *testing.T) {
	p, err := schema.New(schema.Config{Schema: schemaMap(t, orderSchema)})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Evaluate(context.Background(), probe.Input{Response: &promptcanary.Response{Content: `{"id":"x","items":[{"qty":1.5}],"total":-1,"a/b~":0}`}})
	wantPointers := []string{"", "/id", "/items/0", "/items/0/qty", "/total"}
	if got := res.Metadata["failing_pointers"].([]string); !slices.Equal(got, wantPointers) {
		t.Errorf("failing_pointers: got %q, want %q", got, wantPointers)
	}
	wantKeywords := []string{"#/$defs/item/properties/qty/type", "#/$defs/item/required", "#/additionalProperties",
		"#/properties/id/pattern", "#/properties/total/minimum"}
	if got := res.Metadata["failing_keywords"].([]string); !slices.Equal(got, wantKeywords) {
		t.Errorf("failing_keywords: got %q, want %q", got, wantKeywords)
	}
	if got, want := res.Metadata["failed_checks"], 5; got != want {
		t.Errorf("failed_checks: got %v, want %d", got, want)
	}
	if got, want := res.Metadata["draft"], "2020-12"; got != want {
		t.Errorf("draft: got %v, want %s", got, want)
	}
	if got, want := p.Checks(), 18; got != want {
		t.Errorf("Checks: got %d, want %d", got, want)
	}
}

func TestDetailsNameAtMostFive(t *testing.T) {
	props := map[string]any{}
	var answer []string
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		props[k] = map[string]any{"type": "string"}
		answer = append(answer, `"`+k+`":1`)
	}
	p, err := schema.New(schema.Config{Schema: map[string]any{"properties": props}})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Evaluate(context.Background(), probe.Input{Response: &promptcanary.Response{Content: "{" + strings.Join(answer, ",") + "}"}})
	want := "Response fails 7 of 7 schema checks: /a type (got number, want string); /b type (got number, want string); " +
		"/c type (got number, want string); /d type (got number, want string); /e type (got number, want string); and 2 more."
	if res.Details != want {
		t.Errorf("details:\ngot  %q\nwant %q", res.Details, want)
	}
	if got := len(res.Metadata["failures"].([]string)); got != 7 {
		t.Errorf("failures: got %d entries, want all 7", got)
	}
}

func TestMetadataBounded(t *testing.T) {
	p, err := schema.New(schema.Config{Schema: map[string]any{"items": map[string]any{"type": "string"}}})
	if err != nil {
		t.Fatal(err)
	}
	answer := "[" + strings.TrimSuffix(strings.Repeat("1,", 500), ",") + "]"
	res := p.Evaluate(context.Background(), probe.Input{Response: &promptcanary.Response{Content: answer}})
	probetest.CheckVerdict(t, res, false, 0)
	for _, key := range []string{"failures", "failing_pointers"} {
		if got := len(res.Metadata[key].([]string)); got != 50 {
			t.Errorf("%s: got %d entries, want 50", key, got)
		}
	}
	if got := res.Metadata["failure_count"]; got != 500 {
		t.Errorf("failure_count: got %v, want 500", got)
	}
	if !strings.HasSuffix(res.Details, "; and 495 more.") {
		t.Errorf("details: got %q, want it to end with the count left out", res.Details)
	}
}

func TestNotJSON(t *testing.T) {
	p, err := schema.New(schema.Config{Schema: schemaMap(t, orderSchema)})
	if err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{"", "Sure! Here is the order: {\"id\":\"ord-1\"}", `{"id":"ord-1",}`, `{"a":1} {"b":2}`, "```json\n{\"a\":\n```"} {
		t.Run(answer, func(t *testing.T) {
			res := probetest.Eval(p, nil, &promptcanary.Response{Content: answer})
			probetest.CheckVerdict(t, res, false, 0)
			probetest.CheckKeys(t, res.Metadata, "draft", "checks", "error", "raw_content_preview")
			if !strings.HasPrefix(res.Details, "Response is not valid JSON (") {
				t.Errorf("details: got %q, want the parse error", res.Details)
			}
		})
	}
}

func TestConcurrentEvaluate(t *testing.T) {
	p, err := schema.New(schema.Config{Schema: schemaMap(t, orderSchema)})
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]float64{
		`{"id":"ord-1","items":[{"sku":"a","qty":2}],"total":9.5}`: 1,
		`{"id":"ord-1","items":[{"sku":"a","qty":0}],"total":9.5}`: 17.0 / 18,
		`nope`: 0,
	}
	var wg sync.WaitGroup
	for range 8 {
		for answer, want := range answers {
			wg.Go(func() {
				for range 50 {
					if got := p.Evaluate(context.Background(), probe.Input{Response: &promptcanary.Response{Content: answer}}).Score; got != want {
						t.Errorf("score of %q: got %v, want %v", answer, got, want)
						return
					}
				}
			})
		}
	}
	wg.Wait()
}

// writeFile writes data to dir/name, creating directories.
func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSchemaFileFromAnotherFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "schemas/person.json", `{"type":"object","properties":{"home":{"$ref":"address.json"}},"required":["home"]}`)
	writeFile(t, dir, "schemas/address.json", `{"type":"object","required":["city"]}`)
	p, err := schema.New(schema.Config{SchemaFile: "schemas/person.json", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	res := p.Evaluate(context.Background(), probe.Input{Response: &promptcanary.Response{Content: `{"home":{}}`}})
	want := []string{`/home: schemas/address.json#/required: missing property "city"`}
	if got := res.Metadata["failures"].([]string); !slices.Equal(got, want) {
		t.Errorf("failures: got %q, want %q", got, want)
	}
	probetest.CheckVerdict(t, res, false, 3.0/4)
}

func TestDepthLimit(t *testing.T) {
	p, err := schema.New(schema.Config{Schema: schemaMap(t, `{"type":"object","properties":{"deep":{"$ref":"#"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	nested := func(n int, leaf string) string {
		return strings.Repeat(`{"deep":`, n-1) + leaf + strings.Repeat(`}`, n-1)
	}
	tests := []struct {
		name    string
		content string
		passed  bool
		score   float64
		details string
	}{
		{"256 levels are validated", nested(256, `{"s":"}]\"{["}`), true, 1, "Response matches the schema (2020-12, 1 check)."},
		{"256 levels with a failure at the bottom", nested(256, `1`), false, 0, ""},
		{"257 levels are refused", nested(257, `{}`), false, 0, "Response nests JSON more than 256 levels deep, deeper than this probe validates."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := p.Evaluate(context.Background(), probe.Input{Response: &promptcanary.Response{Content: tc.content}})
			probetest.CheckVerdict(t, res, tc.passed, tc.score)
			if tc.details != "" && res.Details != tc.details {
				t.Errorf("details: got %q, want %q", res.Details, tc.details)
			}
		})
	}
}
