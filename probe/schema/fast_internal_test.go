package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe"

	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/promptcanary/promptcanary"
)

// fastSchemas are schemas of the keywords the fast validator knows, in
// drafts 2020-12, 2019-09, 7, 6 and 4, and the names of their fuzz seeds.
var fastSchemas = []string{
	`{"type": "object", "required": ["name", "born"], "properties": {
	   "name": {"type": "string", "minLength": 1, "maxLength": 12},
	   "born": {"type": "integer", "minimum": 0, "maximum": 2100},
	   "city": {"type": "string"}, "field": {"type": ["string", "null"]},
	   "known_for": {"type": "array", "items": {"type": "string"}, "maxItems": 3}}}`,
	`{"type": "object", "required": ["name", "city"], "additionalProperties": false, "minProperties": 2, "maxProperties": 3,
	  "properties": {"name": {"type": "string", "pattern": "^[A-Z]"}, "city": {"enum": ["Oslo", "Paris", null, true]},
	  "ok": {"const": false}, "kind": {"const": "person"}}}`,
	`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "minItems": 2,
	  "items": {"type": "object", "required": ["city"], "properties": {"temp_c": {"type": "number", "multipleOf": 0.5,
	  "exclusiveMinimum": -90, "exclusiveMaximum": 60.5}, "n": {"type": "integer", "multipleOf": 3}}}}`,
	`{"type": "array", "prefixItems": [{"type": "string"}, {"type": "number", "minimum": 1.5}, true, false], "items": {"type": "boolean"}}`,
	`{"type": ["object", "array"], "properties": {"a": {"type": "object", "additionalProperties": {"type": "integer", "maximum": 9007199254740993}}},
	  "additionalProperties": {"type": ["string", "integer"], "maxLength": 3, "minimum": -5}, "items": false}`,
	`{"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object", "properties": {"x": {"type": "integer", "minimum": 1e300}}, "required": ["a/b", "~"]}`,
	`{"$schema": "http://json-schema.org/draft-06/schema#", "properties": {"s": {"pattern": "x+", "minLength": 2}}, "additionalProperties": false}`,
	`{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "properties": {"n": {"type": "number", "minimum": 3, "exclusiveMinimum": true, "maximum": 10, "exclusiveMaximum": true}}}`,
	`false`,
	`{"properties": {"a": true, "b": false}, "required": ["a"]}`,
}

// slowSchemas use a keyword the fast validator leaves to the validator.
var slowSchemas = []string{
	`{"anyOf": [{"type": "string"}, {"type": "number"}]}`,
	`{"$ref": "#/$defs/x", "$defs": {"x": {"type": "string"}}}`,
	`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "format": "email"}`,
	`{"enum": [1, 2]}`,
	`{"type": "array", "uniqueItems": true}`,
	`{"properties": {"a": {"not": {"type": "string"}}}}`,
	`{"patternProperties": {"^x": {"type": "string"}}}`,
}

var fastSeeds = []string{
	"The answer", "  \n\tYes", "'quoted'", "\"unterminated", "æ", "\xff\xfe", "\x00", "<thinking>", "\\", "Ãx", "\u2028 x",
	"# Title", "```json\n[1,]\n```", "tru", "nope", "- list", "07", "+1", ".5",
	``, `{}`, `[]`, `null`, `"x"`, `1e999`, `-0`, `true`, `3`, `3.0`, `1e2`, `-7`, `2.5`,
	`{"name": "Ada Lovelace", "born": 1815, "city": "London", "field": null, "known_for": ["engines"]}`,
	`{"name": "", "born": -1.5, "city": 3, "known_for": ["a", 2, "c", "d"], "extra": {}}`,
	`{"name": "Grace", "born": 1906.0, "field": 7}`,
	`{"name": "Édith Piaf the singer", "born": 99999999999999999999}`,
	`{"name": "ada", "city": "Rome", "ok": true, "kind": "person", "x": 1}`,
	`{"name": "Ada", "city": null, "ok": false}`,
	`[{"city": "Oslo", "temp_c": 20.5, "n": 9}, {"temp_c": -90, "n": 4}, {"city": "x", "temp_c": 60.5}, 3]`,
	`[{"city": "a", "temp_c": 0.25}]`,
	`["a", 1, null, 7, true, false, "x"]`,
	`["a", 2, 3]`,
	`{"a": {"x": 1, "y": "2", "z": 9007199254740993, "w": 9007199254740994}, "b": "long", "c": -6, "d": 1.5}`,
	`{"a/b": 1, "~": {"x": 0}, "x": 5}`,
	`{"s": "x", "t": 1}`, `{"s": "yy"}`, `{"n": 3}`, `{"n": 10}`, `{"n": 5}`, `{"n": "5"}`,
	"```json\n{\"name\": \"A\", \"born\": 1}\n```",
	`{"name": "A", "born": 1, "born": "x"}`,
	`{"name":"a\ud800","born":1}`,
	`{"name": "A\u00e9\n", "born": 1, "extra": {"deep": [[[[{"x": "y"}]]]]}}`,
	`{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "j": 10, "k": 11, "l": 12, "m": 13, "n": 14, "o": 15, "p": 16, "q": 17, "name": "x", "a": 0}`,
	`{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "j": 10, "k": 11, "l": 12, "m": 13, "n": 14, "o": 15, "p": 16, "q": 17, "name": "x", "born": 2}`,
	`{"city": "Oslo", "city": "Paris", "name": "A"}`,
	`{"name": "A", "city": ["Oslo"], "kind": {"a": 1}, "ok": 3}`,
	`{"name": "A", "city": "Lima", "kind": "person "}`,
	`[[1, "a", {"b": [true, false, null]}], "\"", -1.5e-3]`,
	` {"x": ` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `} `,
	` {"known_for": ` + strings.Repeat("[", 250) + strings.Repeat("]", 250) + `, "name": "x", "born": 1} `,
}

func compileFull(tb testing.TB, src string) *Full {
	tb.Helper()
	var m any
	if err := json.Unmarshal([]byte(src), &m); err != nil {
		tb.Fatal(err)
	}
	var cfg Config
	switch m := m.(type) {
	case map[string]any:
		cfg.Schema = m
	default:
		// A boolean schema: from a file.
		path := filepath.Join(tb.TempDir(), "schema.json")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
		cfg.SchemaFile = path
	}
	f, err := New(cfg)
	if err != nil {
		tb.Fatalf("%s: %v", src, err)
	}
	return f
}

// TestFastCovers checks which schemas the fast validator takes.
func TestFastCovers(t *testing.T) {
	for _, src := range fastSchemas {
		if f := compileFull(t, src); f.fast == nil {
			t.Errorf("%.60s: left to the validator, want the fast validator", src)
		}
	}
	for _, src := range slowSchemas {
		if f := compileFull(t, src); f.fast != nil {
			t.Errorf("%.60s: taken by the fast validator, want the validator", src)
		}
	}
}

// FuzzFastValidator checks that the fast validator's results equal the
// validator's, on every schema it takes, and that the errors of answers
// that are not JSON, cached by their first character, are the decoder's.
func FuzzFastValidator(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	var fast, slow, decoded []*Full
	for _, src := range fastSchemas {
		p := compileFull(f, src)
		if p.fast == nil {
			f.Fatalf("%.60s: left to the validator", src)
		}
		q := *p
		q.fast, q.badStart = nil, nil
		fast, slow = append(fast, p), append(slow, &q)
		// The fast validator on decoded values only, without the text.
		d := *p
		d.noText = true
		decoded = append(decoded, &d)
	}
	f.Fuzz(func(t *testing.T, content string) {
		r := &promptcanary.Response{Content: content}
		for i := range fast {
			want := slow[i].Evaluate(context.Background(), probe.Input{Response: r})
			if got := fast[i].Evaluate(context.Background(), probe.Input{Response: r}); !reflect.DeepEqual(got, want) {
				t.Fatalf("schema %d on %q:\nfast      %s\nvalidator %s", i, content, show(got), show(want))
			}
			if got := decoded[i].Evaluate(context.Background(), probe.Input{Response: r}); !reflect.DeepEqual(got, want) {
				t.Fatalf("schema %d on %q:\nfast, decoded %s\nvalidator     %s", i, content, show(got), show(want))
			}
		}
	})
}

func show(v any) string { return strings.ReplaceAll(fmt.Sprintf("%+v", v), "\n", " ") }

// TestLeafIndex checks that leafIndex numbers leafKinds in order.
func TestLeafIndex(t *testing.T) {
	for i, k := range leafKinds {
		if got := leafIndex(k); got != i {
			t.Errorf("leafIndex(%T) = %d, want %d", k, got, i)
		}
	}
	if got := leafIndex(&kind.AnyOf{}); got != -1 {
		t.Errorf("leafIndex(*kind.AnyOf) = %d, want -1", got)
	}
}
