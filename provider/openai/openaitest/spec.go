package openaitest

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// specJSON is the request and response schemas of the official OpenAPI
// description of the OpenAI API (github.com/openai/openai-openapi,
// openapi.json, OpenAPI 3.1.0, API 2.3.0): CreateChatCompletionRequest,
// CreateResponse and everything they reference, under
// #/components/schemas as in the original.
//
//go:embed openai-chat-and-responses.schema.json
var specJSON []byte

// The schemas the stand-in validates against, by their names in the spec.
const (
	SchemaChatRequest      = "CreateChatCompletionRequest"
	SchemaChatResponse     = "CreateChatCompletionResponse"
	SchemaResponsesRequest = "CreateResponse"
	SchemaResponse         = "Response"
)

var (
	specOnce    sync.Once
	specSchemas map[string]*jsonschema.Schema
	specProps   map[string][]string
	specErr     error
	specModelID []string
)

// specModels returns the model names the spec lists (ModelIdsShared and
// ModelIdsResponses).
func specModels() []string {
	specOnce.Do(compileSpec)
	return specModelID
}

// Schema returns the compiled schema named name (one of the Schema*
// constants), so tests can also check the stand-in's own answers.
func Schema(name string) (*jsonschema.Schema, error) {
	specOnce.Do(compileSpec)
	if specErr != nil {
		return nil, specErr
	}
	s, ok := specSchemas[name]
	if !ok {
		return nil, fmt.Errorf("openaitest: no schema %q", name)
	}
	return s, nil
}

// topLevel returns the top-level property names schema name declares
// (through allOf): the parameters the API knows.
func topLevel(name string) []string {
	specOnce.Do(compileSpec)
	return specProps[name]
}

// compileSpec loads the spec and compiles the four schemas. OpenAPI is
// not quite JSON Schema, so the document is first rewritten as an
// OpenAPI-aware validator reads it: "nullable: true" also admits null;
// a oneOf with a discriminator picks by the discriminator, which anyOf
// approximates (the branches of these unions differ in their "type" or
// "role" constants, so anyOf rejects what matches none); and the
// draft-2019 $recursiveRef of CompoundFilter becomes a plain $ref.
func compileSpec() {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(specJSON))
	if err != nil {
		specErr = fmt.Errorf("openaitest: read spec: %w", err)
		return
	}
	root, ok := doc.(map[string]any)
	if !ok {
		specErr = errors.New("openaitest: spec is not a JSON object")
		return
	}
	schemas, _ := root["components"].(map[string]any)["schemas"].(map[string]any)
	for _, name := range []string{"ModelIdsShared", "ModelIdsResponses"} {
		specModelID = append(specModelID, enums(schemas[name])...)
	}
	for name, s := range schemas {
		schemas[name] = openAPIToJSONSchema(s, "#/components/schemas/"+name)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	const base = "https://openai.test/openapi.json"
	if err := c.AddResource(base, root); err != nil {
		specErr = fmt.Errorf("openaitest: add spec: %w", err)
		return
	}
	specSchemas = map[string]*jsonschema.Schema{}
	specProps = map[string][]string{}
	for _, name := range []string{SchemaChatRequest, SchemaChatResponse, SchemaResponsesRequest, SchemaResponse} {
		s, err := c.Compile(base + "#/components/schemas/" + name)
		if err != nil {
			specErr = fmt.Errorf("openaitest: compile %s: %w", name, err)
			return
		}
		specSchemas[name] = s
		set := map[string]bool{}
		collectProps(schemas, schemas[name], set)
		specProps[name] = slices.Sorted(maps.Keys(set))
	}
}

// openAPIToJSONSchema rewrites one OpenAPI schema value in place (see
// compileSpec); self is its own location, for $recursiveRef.
func openAPIToJSONSchema(v any, self string) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = openAPIToJSONSchema(x[i], self)
		}
	case map[string]any:
		for k, vv := range x {
			if k == "properties" || k == "$defs" {
				if m, ok := vv.(map[string]any); ok {
					for pk, pv := range m {
						m[pk] = openAPIToJSONSchema(pv, self)
					}
				}
				continue
			}
			x[k] = openAPIToJSONSchema(vv, self)
		}
		if n, _ := x["nullable"].(bool); n {
			delete(x, "nullable")
			switch t := x["type"].(type) {
			case string:
				x["type"] = []any{t, "null"}
			case nil:
				if one, ok := x["oneOf"]; ok {
					delete(x, "oneOf")
					x["anyOf"] = append([]any{map[string]any{"type": "null"}}, map[string]any{"oneOf": one})
				}
			}
			if e, ok := x["enum"].([]any); ok {
				x["enum"] = append(e, nil)
			}
		}
		if _, ok := x["discriminator"]; ok {
			delete(x, "discriminator")
			if one, ok := x["oneOf"]; ok {
				delete(x, "oneOf")
				x["anyOf"] = one
			}
		}
		if _, ok := x["$recursiveRef"]; ok {
			delete(x, "$recursiveRef")
			x["$ref"] = self
		}
		delete(x, "$recursiveAnchor")
	}
	return v
}

// collectProps adds the property names s declares, following allOf and
// $ref into schemas.
func collectProps(schemas map[string]any, s any, into map[string]bool) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		collectProps(schemas, schemas[strings.TrimPrefix(ref, "#/components/schemas/")], into)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for k := range props {
			into[k] = true
		}
	}
	if all, ok := m["allOf"].([]any); ok {
		for _, a := range all {
			collectProps(schemas, a, into)
		}
	}
}

// enums returns the strings of every enum in s.
func enums(s any) []string {
	var out []string
	switch x := s.(type) {
	case map[string]any:
		for k, v := range x {
			if k == "enum" {
				arr, _ := v.([]any)
				for _, e := range arr {
					if str, ok := e.(string); ok {
						out = append(out, str)
					}
				}
				continue
			}
			out = append(out, enums(v)...)
		}
	case []any:
		for _, v := range x {
			out = append(out, enums(v)...)
		}
	}
	return out
}
