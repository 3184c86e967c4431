package suite

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/schema"
)

var (
	formatKeys  = []string{"type", "schema", "strict", "name"}
	formatTypes = []string{promptcanary.FormatJSONSchema, promptcanary.FormatJSONObject}
)

const formatHint = "for example response_format: {type: json_schema, schema: {type: object, properties: {city: {type: string}}, required: [city]}}, or {type: json_object}"

// responseFormat validates a prompt's response_format:. A json_schema
// schema is compiled as json_schema_full compiles its schema (draft
// 2020-12 unless $schema says otherwise, no network), so that a schema that
// does not compile is a load error at its line.
func (p *parser) responseFormat(n *yaml.Node, field, dir string) *promptcanary.ResponseFormat {
	if yamlwalk.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.WrongType(n, field, "a mapping with type:", formatHint)
		return nil
	}
	f := &promptcanary.ResponseFormat{}
	var typeNode, schemaNode, strictNode, nameNode *yaml.Node
	params := map[string]kv{}
	for _, e := range p.Pairs(n, field) {
		switch e.Key.Value {
		case "type":
			typeNode = e.Val
		case "schema":
			schemaNode, params["schema"] = e.Val, e
		case "strict":
			strictNode = e.Val
		case "name":
			nameNode = e.Val
		default:
			p.UnknownKey(e.Key, field, formatKeys)
		}
	}
	ok := p.formatType(n, typeNode, field, f)
	if f.Type == promptcanary.FormatJSONObject {
		for _, x := range []struct {
			n   *yaml.Node
			key string
		}{{schemaNode, "schema"}, {strictNode, "strict"}, {nameNode, "name"}} {
			if x.n != nil {
				p.add(x.n, yamlwalk.Join(field, x.key), x.key+" is for type: json_schema", "use type: json_schema, or remove the "+x.key+" key")
				ok = false
			}
		}
	}
	if strictNode != nil && f.Type != promptcanary.FormatJSONObject {
		v, sok := p.value(strictNode, yamlwalk.Join(field, "strict"))
		b, isBool := v.(bool)
		if sok && !isBool {
			p.WrongType(strictNode, yamlwalk.Join(field, "strict"), "true or false", "write strict: true or strict: false")
		}
		f.Strict, ok = b, ok && sok && isBool
	}
	if nameNode != nil && f.Type != promptcanary.FormatJSONObject {
		ok = p.formatName(nameNode, yamlwalk.Join(field, "name"), f) && ok
	}
	if f.Type == promptcanary.FormatJSONSchema {
		ok = p.formatSchema(n, schemaNode, field, dir, params, f) && ok
	}
	if !ok {
		return nil
	}
	return f
}

// formatType reads response_format.type.
func (p *parser) formatType(n, typeNode *yaml.Node, field string, f *promptcanary.ResponseFormat) bool {
	tf := yamlwalk.Join(field, "type")
	if typeNode == nil {
		p.add(n, field, "missing type", "use type: json_schema (with schema:) or type: json_object")
		return false
	}
	t, ok := p.str(typeNode, tf)
	if !ok {
		return false
	}
	if t != promptcanary.FormatJSONSchema && t != promptcanary.FormatJSONObject {
		hint := "use one of: " + strings.Join(formatTypes, ", ")
		if c := suggest.Closest(t, formatTypes); c != "" {
			hint = "did you mean " + c + "? " + hint
		}
		p.add(typeNode, tf, fmt.Sprintf("unknown response_format type %q", t), hint)
		return false
	}
	f.Type = t
	return true
}

// formatName reads response_format.name, which OpenAI restricts to
// ^[a-zA-Z0-9_-]{1,64}$
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format).
func (p *parser) formatName(n *yaml.Node, field string, f *promptcanary.ResponseFormat) bool {
	name, ok := p.str(n, field)
	if !ok {
		return yamlwalk.IsNull(n)
	}
	if !toolNameRE.MatchString(name) {
		p.add(n, field, fmt.Sprintf("invalid schema name %q", name), "use 1 to 64 letters, digits, '_' or '-', as the model APIs require")
		return false
	}
	f.Name = name
	return true
}

// formatSchema reads and compiles response_format.schema.
func (p *parser) formatSchema(n, schemaNode *yaml.Node, field, dir string, params map[string]kv, f *promptcanary.ResponseFormat) bool {
	sf := yamlwalk.Join(field, "schema")
	switch {
	case schemaNode == nil:
		p.add(n, field, "type json_schema needs a schema", "add schema: with the JSON Schema of the answer, or use type: json_object")
		return false
	case schemaNode.Kind != yaml.MappingNode:
		p.WrongType(schemaNode, sf, "a mapping (a JSON Schema)", formatHint)
		return false
	}
	v, ok := p.value(schemaNode, sf)
	if !ok {
		return false
	}
	f.Schema = v.(map[string]any)
	if _, err := schema.New(schema.Config{Schema: f.Schema, Dir: dir}); err != nil {
		problems, other := probe.ParamErrors(err)
		for _, e := range other {
			p.add(schemaNode, sf, e.Error(), "check the schema against the JSON Schema specification")
		}
		for _, pe := range problems {
			msg, hint := strings.Replace(pe.Msg, "json_schema_full never fetches anything", "nothing is fetched", 1), pe.Hint
			if strings.HasPrefix(msg, "nothing to check") {
				msg, hint = "the schema asks for nothing", "give the answer's shape, for example type: object with properties:, or use type: json_object"
			}
			at := sf
			if pe.Param != "" && pe.Param != "schema" {
				at = yamlwalk.Join(field, pe.Param)
			}
			if hint == "" {
				hint = "check the schema against the JSON Schema specification"
			}
			p.add(paramNode(schemaNode, params, pe.Param), at, msg, hint)
		}
		return false
	}
	return true
}

// mentionsJSON reports whether the prompt says "JSON" somewhere: OpenAI
// rejects a json_object response_format otherwise ("'messages' must contain
// the word 'json' in some form"; https://platform.openai.com/docs/guides/structured-outputs#json-mode).
func mentionsJSON(pr *promptcanary.Prompt) bool {
	if strings.Contains(strings.ToLower(pr.SystemPrompt), "json") {
		return true
	}
	for _, m := range pr.Conversation() {
		if strings.Contains(strings.ToLower(m.Content), "json") {
			return true
		}
	}
	return false
}
