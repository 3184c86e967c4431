package schema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/suite"
)

// TestInvalidConfig loads suites with json_schema_full mistakes and checks
// the exact problems, their lines and hints.
func TestInvalidConfig(t *testing.T) {
	remoteHint := `copy the referenced schema under $defs and refer to it as "#/$defs/NAME", or save it in a local file and $ref its relative path`
	draftHint := "use https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#"
	tests := []struct {
		name, yaml string
		want       []string // Error() and hint of each problem, alternating
	}{
		{"neither schema nor schema_file", `
probes:
  - type: json_schema_full
    assert_format: true
prompts: [hi]
`, []string{
			"canary.yaml:2: probes[0] (json_schema_full): no schema: set schema: or schema_file:",
			"for example schema: {type: object, required: [id]}, or schema_file: schemas/order.json (relative to canary.yaml)",
		}},
		{"both schema and schema_file", `
probes:
  - type: json_schema_full
    schema: {type: object}
    schema_file: order.json
prompts: [hi]
`, []string{
			"canary.yaml:4: probes[0] (json_schema_full).schema_file: schema and schema_file are both set",
			"keep one: the schema inline under schema:, or the path of its JSON file in schema_file:",
		}},
		{"schema that is not a mapping", `
probes:
  - type: json_schema_full
    schema: order.json
prompts: [hi]
`, []string{
			`canary.yaml:3: probes[0] (json_schema_full).schema: must be a mapping, got string "order.json"`,
			"the JSON Schema as a YAML mapping; its $schema picks the draft (default 2020-12); set this or schema_file",
		}},
		{"keyword with a wrong value, reported at its line", `
probes:
  - type: json_schema_full
    schema:
      type: object
      properties:
        age:
          type: integer
          minimum: "18"
prompts: [hi]
`, []string{
			"canary.yaml:8: probes[0] (json_schema_full).schema.properties.age.minimum: not a valid JSON Schema: at /properties/age/minimum: got string, want number",
			"check the keyword's value against the JSON Schema specification of the schema's draft",
		}},
		{"unknown type name", `
probes:
  - type: json_schema_full
    schema:
      required: [id]
      type: strin
prompts: [hi]
`, []string{
			"canary.yaml:5: probes[0] (json_schema_full).schema.type: not a valid JSON Schema: at /type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; at /type: got string, want array",
			"check the keyword's value against the JSON Schema specification of the schema's draft",
		}},
		{"pattern that is not RE2", `
probes:
  - type: json_schema_full
    schema:
      properties:
        id: {type: string, pattern: "^(?!tmp)"}
prompts: [hi]
`, []string{
			"canary.yaml:5: probes[0] (json_schema_full).schema.properties.id.pattern: not a valid JSON Schema: at /properties/id/pattern: '^(?!tmp)' is not valid regex: error parsing regexp: invalid or unsupported Perl syntax: `(?!`",
			"check the keyword's value against the JSON Schema specification of the schema's draft",
		}},
		{"remote $ref", `
probes:
  - type: json_schema_full
    schema:
      type: object
      properties:
        address: {$ref: "https://example.com/address.json"}
prompts: [hi]
`, []string{
			`canary.yaml:6: probes[0] (json_schema_full).schema.properties.address.$ref: $ref to "https://example.com/address.json" refused: json_schema_full never fetches anything over the network`,
			remoteHint,
		}},
		{"remote $ref through a remote $id", `
probes:
  - type: json_schema_full
    schema:
      $id: https://example.com/order.json
      properties:
        address: {$ref: "address.json"}
prompts: [hi]
`, []string{
			`canary.yaml:3: probes[0] (json_schema_full).schema: $ref to "https://example.com/address.json" refused: json_schema_full never fetches anything over the network`,
			remoteHint,
		}},
		{"unknown remote $schema", `
probes:
  - type: json_schema_full
    schema:
      $schema: https://example.com/my-dialect
      type: object
prompts: [hi]
`, []string{
			`canary.yaml:4: probes[0] (json_schema_full).schema.$schema: $schema "https://example.com/my-dialect" is not a known draft, and its metaschema is not fetched over the network`,
			draftHint,
		}},
		{"$ref to a missing definition", `
probes:
  - type: json_schema_full
    schema:
      type: object
      properties:
        a: {$ref: "#/$defs/nope"}
prompts: [hi]
`, []string{
			`canary.yaml:3: probes[0] (json_schema_full).schema: $ref "#/$defs/nope" points at nothing in the schema`,
			`a local $ref is a JSON pointer into the document, such as "#/$defs/address"`,
		}},
		{"$ref to a missing local file", `
probes:
  - type: json_schema_full
    schema:
      properties:
        a: {$ref: "defs/address.json"}
prompts: [hi]
`, []string{
			`canary.yaml:3: probes[0] (json_schema_full).schema: $ref to "defs/address.json": no such file or directory`,
			"a relative $ref is resolved against the file that holds it (an inline schema: the directory of canary.yaml)",
		}},
		{"schema that checks nothing", `
probes:
  - type: json_schema_full
    schema: {title: Order, description: anything}
prompts: [hi]
`, []string{
			"canary.yaml:3: probes[0] (json_schema_full).schema: nothing to check: the schema makes no assertion",
			"add what the answer must satisfy, for example type: object and required: [id]; to check only that the answer is JSON, use json_validity",
		}},
		{"misspelt parameter", `
probes:
  - type: json_schema_full
    schema_fil: order.json
prompts: [hi]
`, []string{
			"canary.yaml:3: probes[0] (json_schema_full).schema_fil: unknown parameter for json_schema_full",
			"did you mean schema_file?",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := probetest.Problems(t, t.TempDir(), "canary.yaml", strings.TrimPrefix(tc.yaml, "\n")); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestSchemaFileErrors checks the problems of a schema_file that cannot be
// used: missing, not JSON, not a valid schema.
func TestSchemaFileErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "schemas/broken.json", "{\n  \"type\": \"object\",\n  \"required\": [\"id\",]\n}\n")
	writeFile(t, dir, "schemas/invalid.json", `{"type": "object", "minProperties": -1}`)
	tests := []struct {
		file string
		want []string
	}{
		{"schemas/missing.json", []string{
			`canary.yaml:3: probes[0] (json_schema_full).schema_file: schema file "schemas/missing.json": open ` + filepath.Join(dir, "schemas/missing.json") + `: no such file or directory`,
			"schema_file is a JSON file, relative to the directory of canary.yaml (" + dir + ")",
		}},
		{"schemas/broken.json", []string{
			`canary.yaml:3: probes[0] (json_schema_full).schema_file: schema file "schemas/broken.json": not JSON: line 3, column 21: invalid character ']' looking for beginning of value`,
			"schema_file is a JSON file, relative to the directory of canary.yaml (" + dir + ")",
		}},
		{"schemas/invalid.json", []string{
			`canary.yaml:3: probes[0] (json_schema_full).schema_file: not a valid JSON Schema: at /minProperties: must be >= 0, got -1`,
			"check the keyword's value against the JSON Schema specification of the schema's draft",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			doc := "probes:\n  - type: json_schema_full\n    schema_file: " + tc.file + "\nprompts: [hi]\n"
			if got := probetest.Problems(t, dir, "canary.yaml", doc); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("problems:\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestSchemaFileBesideSuite loads a suite whose schema_file is relative to
// canary.yaml while the process runs in another directory, by an absolute
// and by a relative suite path.
func TestSchemaFileBesideSuite(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	writeFile(t, proj, "schemas/order.json", orderSchema)
	writeFile(t, proj, "canary.yaml", "probes:\n  - type: json_schema_full\n    schema_file: schemas/order.json\nprompts: [hi]\n")
	elsewhere := filepath.Join(root, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(elsewhere)
	for _, path := range []string{filepath.Join(proj, "canary.yaml"), filepath.Join("..", "proj", "canary.yaml")} {
		t.Run(path, func(t *testing.T) {
			s, err := suite.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			p := s.Probes[0].Probe
			bad := probetest.Eval(p, nil, &promptcanary.Response{Content: `{"id":"ord-1","items":[],"total":1}`})
			if bad.Passed || bad.Score != 17.0/18 {
				t.Errorf("empty items: got passed %v score %v, want a failure scoring 17/18", bad.Passed, bad.Score)
			}
			good := probetest.Eval(p, nil, &promptcanary.Response{Content: `{"id":"ord-1","items":[{"sku":"a","qty":1}],"total":1}`})
			if !good.Passed {
				t.Errorf("valid order: got %q, want a pass", good.Details)
			}
		})
	}
	// From the working directory the same relative path names nothing.
	if _, err := suite.Parse("canary.yaml", []byte("probes:\n  - type: json_schema_full\n    schema_file: schemas/order.json\nprompts: [hi]\n")); err == nil {
		t.Error("schema_file resolved against the working directory: got no error, want the file missing")
	}
}
