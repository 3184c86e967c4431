package tooluse

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/outcome"
)

// ArgType is the JSON type an argument value must have in a Schema.
type ArgType string

// The argument types. ParseArgType also accepts the Python names str, int,
// float, bool, list and dict.
const (
	TypeString  ArgType = "string"
	TypeInteger ArgType = "integer" // an integral number, never a boolean
	TypeNumber  ArgType = "number"  // any number, integers included
	TypeBoolean ArgType = "boolean"
	TypeArray   ArgType = "array"
	TypeObject  ArgType = "object"
)

// typeAliases maps every accepted type name to its ArgType.
var typeAliases = map[string]ArgType{
	"string": TypeString, "str": TypeString,
	"integer": TypeInteger, "int": TypeInteger,
	"number": TypeNumber, "float": TypeNumber,
	"boolean": TypeBoolean, "bool": TypeBoolean,
	"array": TypeArray, "list": TypeArray,
	"object": TypeObject, "dict": TypeObject,
}

// typeNames lists the accepted type names, for hints.
var typeNames = []string{"string", "integer", "number", "boolean", "array", "object",
	"str", "int", "float", "bool", "list", "dict"}

// ParseArgType returns the ArgType named s (a JSON Schema name or its Python
// alias), and false for an unknown name.
func ParseArgType(s string) (ArgType, bool) {
	t, ok := typeAliases[s]
	return t, ok
}

// matches reports whether v has type t. An ArgType holding an alias is
// read as the type it names; an unknown type matches nothing.
func (t ArgType) matches(v *node) bool {
	if a, ok := typeAliases[string(t)]; ok {
		t = a
	}
	switch t {
	case TypeString:
		return v.kind == kindString
	case TypeInteger:
		return v.integral()
	case TypeNumber:
		return v.kind == kindNumber
	case TypeBoolean:
		return v.kind == kindBool
	case TypeArray:
		return v.kind == kindArray
	case TypeObject:
		return v.kind == kindObject
	}
	return false
}

// Schema is the tool_call_schema probe: it validates a tool call against an
// expected shape. score = 0.4×name score + 0.4×args score (as tool_call_args)
// + 0.2×type score, and the probe passes at 0.85 or more.
type Schema struct {
	// ToolName is the expected function name; empty means any name (full
	// credit for the name component).
	ToolName string
	// RequiredArgs and ForbiddenArgs are checked as in tool_call_args.
	RequiredArgs  []string
	ForbiddenArgs []string
	// OptionalArgs documents arguments that may be present; it does not
	// change the score.
	OptionalArgs []string
	// ArgTypes maps an argument name to the type its value must have.
	ArgTypes map[string]ArgType

	// schema is the "schema" metadata of every result, rendered once by
	// the registry's constructor; nil for a Schema built directly, whose
	// results each render it.
	schema map[string]any
	// typeArgs holds ArgTypes sorted by argument name, and results the
	// results by what they depend on (see key): both are set by the
	// registry's constructor, whose probe's fields never change; a Schema
	// built directly caches nothing.
	typeArgs []typedArg
	results  *outcome.Memo
}

// typedArg is one entry of Schema.ArgTypes.
type typedArg struct {
	name string
	t    ArgType
}

// memoSlots is the number of results a Schema keeps: one per shape of
// call (function names, argument keys, which argument types hold).
const memoSlots = 256

var _ probe.Probe = (*Schema)(nil)

const (
	schemaID = "tool_call_schema"
	// The component weights and the pass mark.
	nameWeight    = 0.4
	argsWeight    = 0.4
	typesWeight   = 0.2
	schemaPassing = 0.85

	// noArgsTypeScore is the type score when no argument object is found.
	noArgsTypeScore = 0.5
)

// schemaKeys are the keys a schema mapping may hold.
var schemaKeys = []string{"name", "required_args", "optional_args", "forbidden_args", "arg_types"}

func init() {
	probe.Register(probe.Type{
		ID:          schemaID,
		Name:        "Tool Call Schema",
		Category:    promptcanary.CategoryToolUse,
		Description: "Full structural validation of a tool call against an expected schema.",
		Example: `probes:
  - type: tool_call_schema
    schema:
      name: get_weather
      required_args: [city]
      optional_args: [unit]
      forbidden_args: [api_key]
      arg_types: {city: string, unit: string}
`,
		Params: []probe.Param{
			{Name: "schema", Kind: probe.Map, Required: true,
				Doc: "the expected call: name, required_args, optional_args, forbidden_args, arg_types (argument → type)"},
		},
		New: func(p probe.Params) (probe.Probe, error) { return schemaFromMap(p.Map("schema")) },
	})
}

// schemaFromMap validates the schema parameter and builds the probe. Every
// problem is reported, each a *probe.ParamError naming its field path.
func schemaFromMap(m map[string]any) (*Schema, error) {
	s := &Schema{RequiredArgs: []string{}, OptionalArgs: []string{}, ForbiddenArgs: []string{},
		ArgTypes: map[string]ArgType{}}
	var errs []error
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := m[k]
		path := "schema." + k
		switch k {
		case "name":
			switch n := v.(type) {
			case nil:
			case string:
				s.ToolName = n
			default:
				errs = append(errs, &probe.ParamError{Param: path, Msg: "must be a string, got " + probe.Describe(v),
					Hint: "give the function name the model must call"})
			}
		case "required_args", "optional_args", "forbidden_args":
			list, err := stringList(path, v)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			switch k {
			case "required_args":
				s.RequiredArgs = list
			case "optional_args":
				s.OptionalArgs = list
			default:
				s.ForbiddenArgs = list
			}
		case "arg_types":
			errs = append(errs, s.setArgTypes(path, v)...)
		default:
			hint := "known keys: " + strings.Join(schemaKeys, ", ")
			if c := suggest.Closest(k, schemaKeys); c != "" {
				hint = "did you mean " + c + "?"
			}
			errs = append(errs, &probe.ParamError{Param: path, Msg: "unknown key in schema", Hint: hint})
		}
	}
	if err := checkOverlap("schema.forbidden_args", "schema.required_args", s.RequiredArgs, s.ForbiddenArgs); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 && s.ToolName == "" && len(s.RequiredArgs)+len(s.ForbiddenArgs)+len(s.ArgTypes) == 0 {
		errs = append(errs, &probe.ParamError{Param: "schema",
			Msg:  "nothing to check: the schema sets no name, required_args, forbidden_args or arg_types",
			Hint: "describe the expected call, for example schema: {name: get_weather, required_args: [city]}"})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	s.schema = s.metadata()
	for _, a := range slices.Sorted(maps.Keys(s.ArgTypes)) {
		s.typeArgs = append(s.typeArgs, typedArg{a, s.ArgTypes[a]})
	}
	s.results = outcome.NewMemo(memoSlots)
	return s, nil
}

// setArgTypes reads the arg_types mapping into s.
func (s *Schema) setArgTypes(path string, v any) []error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return []error{&probe.ParamError{Param: path, Msg: "must be a mapping of argument name to type, got " + probe.Describe(v),
			Hint: "for example: {query: string, limit: integer}"}}
	}
	args := make([]string, 0, len(m))
	for a := range m {
		args = append(args, a)
	}
	slices.Sort(args)
	var errs []error
	for _, a := range args {
		name, ok := m[a].(string)
		if !ok {
			errs = append(errs, &probe.ParamError{Param: path + "." + a, Msg: "must be a type name, got " + probe.Describe(m[a]),
				Hint: "use one of: " + strings.Join(typeNames, ", ")})
			continue
		}
		t, ok := ParseArgType(name)
		if !ok {
			hint := "use one of: " + strings.Join(typeNames, ", ")
			if c := suggest.Closest(name, typeNames); c != "" {
				hint = "did you mean " + c + "? " + hint
			}
			errs = append(errs, &probe.ParamError{Param: path + "." + a, Msg: fmt.Sprintf("unknown type %q", name), Hint: hint})
			continue
		}
		s.ArgTypes[a] = t
	}
	return errs
}

// stringList converts a decoded YAML/JSON list of strings.
func stringList(path string, v any) ([]string, error) {
	switch l := v.(type) {
	case nil:
		return []string{}, nil
	case []string:
		return slices.Clone(l), nil
	case []any:
		out, bad := probe.StringItems(l)
		if bad >= 0 {
			return nil, &probe.ParamError{Param: fmt.Sprintf("%s[%d]", path, bad), Msg: "must be a string, got " + probe.Describe(l[bad]),
				Hint: "list argument names as strings"}
		}
		return out, nil
	}
	return nil, &probe.ParamError{Param: path, Msg: "must be a list of strings, got " + probe.Describe(v),
		Hint: "for example: [query, limit]"}
}

// Evaluate scores the tool call's name, argument keys and argument types
// and passes when the weighted score reaches 0.85. A probe built from
// canary.yaml builds the result of each shape of call once (see key) and
// shares it, metadata included, with every later answer of that shape: a
// result's metadata is read-only (probe.Result).
func (p *Schema) Evaluate(_ context.Context, pin probe.Input) probe.Result {
	r := pin.Response
	in := getInput(r)
	defer in.release()
	var names []string
	nameSource := sourceNone
	if p.ToolName != "" {
		names, nameSource = in.names()
	}
	keys, keySource := in.argKeys()
	src := schemaSource(in, nameSource, keySource)
	if p.results == nil {
		return p.judge(in, names, keys, src)
	}
	var buf [256]byte
	key := p.key(buf[:0], in, names, keys, src)
	if res, ok := p.results.Get(key); ok {
		return res
	}
	return p.results.Put(key, p.judge(in, names, keys, src))
}

// key appends to b all that judge's result depends on besides p: where
// the call was read, the names and argument keys found, and whether each
// of typeArgs holds (or why none could be checked).
func (p *Schema) key(b []byte, in *input, names, keys []string, src string) []byte {
	b = append(b, src[0]) // structured, json, text, none
	b = appendStrings(b, names)
	b = appendStrings(b, keys)
	if len(p.typeArgs) == 0 {
		return b
	}
	obj, st := in.argObject()
	b = append(b, byte(st)) // why it is not typed depends on src too
	if st == argsObject {
		for _, a := range p.typeArgs {
			v, ok := obj.get(a.name)
			b = append(b, boolByte(ok && a.t.matches(v)))
		}
	}
	return b
}

// appendStrings appends list to b, each string after its length, the
// list after its own.
func appendStrings(b []byte, list []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(list)))
	for _, s := range list {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// judge builds the result of the names and argument keys read from in.
func (p *Schema) judge(in *input, names, keys []string, src string) probe.Result {
	parts := make([]string, 0, 3)
	// Each weighted component is rounded to float64 on its own (no fused
	// multiply-add), so sums match the reference's bit for bit at the
	// pass mark.
	var nameComponent any // nil when no name is set
	namePart := float64(nameWeight)
	if p.ToolName != "" {
		score, details := (&Name{Expected: p.ToolName}).judge(names)
		nameComponent = score
		namePart = float64(score * nameWeight)
		parts = append(parts, "name: "+details)
	}

	args := judgeArgs(keys, p.RequiredArgs, p.ForbiddenArgs)
	argsPart := float64(args.score * argsWeight)
	parts = append(parts, "args: "+args.details)

	types, typeDetails := p.typeScore(in)
	typesPart := float64(types * typesWeight)
	if typeDetails != "" {
		parts = append(parts, "types: "+typeDetails)
	}

	total := namePart + argsPart + typesPart
	return probe.Result{
		Passed:  total >= schemaPassing,
		Score:   total,
		Details: strings.Join(parts, " | "),
		Metadata: map[string]any{
			"component_scores": map[string]any{
				"name":  nameComponent,
				"args":  args.score,
				"types": types,
			},
			"source": src,
			"schema": p.schemaMetadata(),
		},
	}
}

// schemaMetadata is the "schema" metadata of a result: the one rendered
// at construction, or a fresh rendering for a Schema built directly.
func (p *Schema) schemaMetadata() map[string]any {
	if p.schema != nil {
		return p.schema
	}
	return p.metadata()
}

// typeScore checks the argument types: 1 without ArgTypes, 0 when the
// content (or a structured call's arguments) is not JSON, noArgsTypeScore
// when no argument object is found, else the fraction of ArgTypes entries
// whose value has the type.
func (p *Schema) typeScore(in *input) (float64, string) {
	if len(p.ArgTypes) == 0 {
		return 1, ""
	}
	obj, st := in.argObject()
	switch st {
	case argsInvalid:
		if in.structured() {
			return 0, "the tool call's arguments are not JSON."
		}
		return 0, "the response is not JSON."
	case argsNone:
		return noArgsTypeScore, "no argument object found to check."
	}
	var wrong []string
	for arg, t := range p.ArgTypes {
		if v, ok := obj.get(arg); !ok || !t.matches(v) {
			wrong = append(wrong, arg)
		}
	}
	n := len(p.ArgTypes)
	score := float64(n-len(wrong)) / float64(n)
	if len(wrong) == 0 {
		return score, "all " + strconv.Itoa(n) + " argument type(s) correct."
	}
	slices.Sort(wrong)
	return score, strconv.Itoa(n-len(wrong)) + " of " + strconv.Itoa(n) + " argument type(s) correct; missing or wrong: " + quoteList(wrong) + "."
}

// schemaSource says where the checked call was read from: the structured
// calls, the content as JSON, a text pattern, or nowhere.
func schemaSource(in *input, nameSource, keySource string) string {
	if in.structured() {
		return sourceStructured
	}
	if in.json() {
		return sourceJSON
	}
	if nameSource == sourceText || keySource == sourceText {
		return sourceText
	}
	return sourceNone
}

// metadata renders the schema as JSON-friendly values (the three lists
// in one array).
func (p *Schema) metadata() map[string]any {
	types := make(map[string]any, len(p.ArgTypes))
	for a, t := range p.ArgTypes {
		if v, ok := typeValues[t]; ok {
			types[a] = v
		} else {
			types[a] = string(t)
		}
	}
	nr, no := len(p.RequiredArgs), len(p.OptionalArgs)
	lists := make([]string, 0, nr+no+len(p.ForbiddenArgs))
	lists = append(append(append(lists, p.RequiredArgs...), p.OptionalArgs...), p.ForbiddenArgs...)
	return map[string]any{
		"name":           p.ToolName,
		"required_args":  lists[:nr:nr],
		"optional_args":  lists[nr : nr+no : nr+no],
		"forbidden_args": lists[nr+no:],
		"arg_types":      types,
	}
}

// typeValues holds each ArgType's name as metadata holds it, boxed once.
var typeValues = func() map[ArgType]any {
	m := map[ArgType]any{}
	for name := range typeAliases {
		m[ArgType(name)] = name
	}
	return m
}()
