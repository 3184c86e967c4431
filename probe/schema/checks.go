package schema

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"
)

// A check is one assertion the schema makes: an assertion keyword at one
// place in the schema (type, minimum, pattern, enum, …), each name of a
// required list, or a false schema. It is known by its absolute keyword
// location (the schema URL, "/", the keyword), with the property name
// appended after a NUL for required and the like. A check holds when no
// value of the answer violates it, however many values it applies to.
//
// Alternatives count as one check each: anyOf, oneOf, not and contains
// hold or fail as a whole, so the checks inside them are not counted and a
// failure inside them is charged to them. The checks of if are not counted
// either (failing them is no error); those of then and else are.

// countChecks returns the checks reachable from root, following $ref.
func countChecks(root *jsonschema.Schema) map[string]struct{} {
	c := checkCounter{checks: map[string]struct{}{}, seen: map[*jsonschema.Schema]bool{}}
	c.visit(root)
	return c.checks
}

// checkCounter gathers the checks of a schema and of the subschemas whose
// checks are the answer's to meet, visiting each schema once.
type checkCounter struct {
	checks map[string]struct{}
	seen   map[*jsonschema.Schema]bool
}

// add records the check at keyword path kw of s.
func (c *checkCounter) add(s *jsonschema.Schema, kw ...string) {
	c.checks[checkKey(s.Location, kw...)] = struct{}{}
}

// addSet records the check of each keyword of s that is set.
func (c *checkCounter) addSet(s *jsonschema.Schema, set map[string]bool) {
	for kw, ok := range set {
		if ok {
			c.add(s, kw)
		}
	}
}

// visitAny visits v when it is a schema or a list of schemas, as the
// keywords that take either a schema or something else hold them.
func (c *checkCounter) visitAny(v any) {
	switch v := v.(type) {
	case *jsonschema.Schema:
		c.visit(v)
	case []*jsonschema.Schema:
		c.visitAll(v...)
	}
}

// visit records the checks of s and visits its subschemas, once per schema.
func (c *checkCounter) visit(s *jsonschema.Schema) {
	if s == nil || c.seen[s] {
		return
	}
	c.seen[s] = true
	if s.Bool != nil {
		if !*s.Bool {
			c.add(s)
		}
		return
	}
	c.addAnyValue(s)
	c.addNumberString(s)
	c.addArray(s)
	c.addObject(s)
	c.visitSubschemas(s)
}

// addAnyValue records the assertions on any value: type, const, enum,
// format and the alternatives, each of which counts as one check.
func (c *checkCounter) addAnyValue(s *jsonschema.Schema) {
	if s.Types != nil && !s.Types.IsEmpty() {
		c.add(s, "type")
	}
	if s.Const != nil {
		c.add(s, "const")
	}
	if s.Enum != nil {
		c.add(s, "enum")
	}
	if s.Format != nil {
		c.add(s, "format")
	}
	c.addSet(s, map[string]bool{"not": s.Not != nil, "anyOf": len(s.AnyOf) > 0, "oneOf": len(s.OneOf) > 0})
}

// addNumberString records the assertions on numbers and strings.
func (c *checkCounter) addNumberString(s *jsonschema.Schema) {
	c.addSet(s, map[string]bool{
		"multipleOf": s.MultipleOf != nil, "maximum": s.Maximum != nil, "minimum": s.Minimum != nil,
		"exclusiveMaximum": s.ExclusiveMaximum != nil, "exclusiveMinimum": s.ExclusiveMinimum != nil,
		"maxLength": s.MaxLength != nil, "minLength": s.MinLength != nil, "pattern": s.Pattern != nil,
		"contentEncoding": s.ContentEncoding != nil, "contentMediaType": s.ContentMediaType != nil,
	})
}

// addArray records the assertions on arrays.
func (c *checkCounter) addArray(s *jsonschema.Schema) {
	c.addSet(s, map[string]bool{
		"maxItems": s.MaxItems != nil, "minItems": s.MinItems != nil, "uniqueItems": s.UniqueItems,
		"contains": s.Contains != nil && s.MinContains == nil, "minContains": s.Contains != nil && s.MinContains != nil,
		"maxContains":     s.Contains != nil && s.MaxContains != nil,
		"additionalItems": s.AdditionalItems == false,
	})
}

// addObject records the assertions on objects: the property counts,
// additionalProperties: false, and each name a required list or a
// dependency asks for. A dependency given as a schema is visited instead.
func (c *checkCounter) addObject(s *jsonschema.Schema) {
	c.addSet(s, map[string]bool{
		"maxProperties": s.MaxProperties != nil, "minProperties": s.MinProperties != nil,
		"additionalProperties": s.AdditionalProperties == false,
	})
	for _, name := range s.Required {
		c.add(s, "required", name)
	}
	for prop := range s.DependentRequired {
		c.add(s, "dependentRequired", prop)
	}
	for prop, dep := range s.Dependencies {
		if _, ok := dep.([]string); ok {
			c.add(s, "dependencies", prop)
		} else {
			c.visitAny(dep)
		}
	}
}

// visitSubschemas visits the subschemas of s whose checks are the
// answer's to meet: not those under the alternatives, contains or if.
func (c *checkCounter) visitSubschemas(s *jsonschema.Schema) {
	if s.DynamicRef != nil {
		c.visit(s.DynamicRef.Ref)
	}
	c.visitAll(s.Ref, s.RecursiveRef, s.Then, s.Else, s.PropertyNames, s.UnevaluatedProperties,
		s.Items2020, s.UnevaluatedItems, s.ContentSchema)
	c.visitAll(s.AllOf...)
	c.visitAll(s.PrefixItems...)
	visitValues(c, s.Properties)
	visitValues(c, s.PatternProperties)
	visitValues(c, s.DependentSchemas)
	c.visitAny(s.AdditionalProperties)
	c.visitAny(s.Items)
	c.visitAny(s.AdditionalItems)
}

// visitAll visits each of subs.
func (c *checkCounter) visitAll(subs ...*jsonschema.Schema) {
	for _, s := range subs {
		c.visit(s)
	}
}

// visitValues visits each schema of m.
func visitValues[K comparable](c *checkCounter, m map[K]*jsonschema.Schema) {
	for _, s := range m {
		c.visit(s)
	}
}

// checkKey is the key of the check at keyword path kw of the schema at loc.
// A path of two parts (required and its property name) is joined with a
// NUL so that a property name never looks like a pointer token.
func checkKey(loc string, kw ...string) string {
	switch len(kw) {
	case 0:
		return loc
	case 1:
		return loc + "/" + kw[0]
	}
	return loc + "/" + kw[0] + "\x00" + strings.Join(kw[1:], "\x00")
}

// failure is one violated check at one place in the answer.
type failure struct {
	key string
	// pointer is the JSON pointer of the value at fault ("" for the root).
	pointer string
	// keyword is the keyword that fails, such as "minimum" or "required".
	keyword string
	// location is the keyword's absolute location in the schema, and
	// short the same as shortURL shows it ("" when not worked out yet).
	location, short string
	message         string
}

// terminal reports whether an error with causes still counts as one
// failure of its own keyword: the alternatives and contains, whose causes
// say only why each alternative or item did not match.
func terminal(k jsonschema.ErrorKind) bool {
	switch k.(type) {
	case *kind.AnyOf, *kind.OneOf, *kind.Contains, *kind.MinContains, *kind.Not:
		return true
	}
	return false
}

// failures flattens a validation error into the failures it holds, sorted
// by pointer then keyword location.
func failures(err error) []failure {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []failure{{key: "?", keyword: "schema", message: err.Error()}}
	}
	var out []failure
	var walk func(e *jsonschema.ValidationError, ptr []string)
	walk = func(e *jsonschema.ValidationError, ptr []string) {
		loc := e.InstanceLocation
		if _, isNames := e.ErrorKind.(*kind.PropertyNames); isNames {
			// The causes come from validating a property name alone: their
			// instance location is the name's, not a place in the answer.
			ptr = loc
		} else if ptr != nil {
			loc = ptr
		}
		if len(e.Causes) > 0 && !terminal(e.ErrorKind) {
			for _, c := range e.Causes {
				walk(c, ptr)
			}
			return
		}
		out = appendLeaf(out, e.SchemaURL, loc, e.ErrorKind)
	}
	walk(ve, nil)
	sortFailures(out)
	return out
}

// sortFailures sorts failures by pointer, then keyword location, then
// message.
func sortFailures(out []failure) {
	slices.SortFunc(out, func(a, b failure) int {
		return cmp.Or(cmp.Compare(a.pointer, b.pointer), cmp.Compare(a.location, b.location), cmp.Compare(a.message, b.message))
	})
}

// appendLeaf appends the failures of one error without causes (or of an
// alternative, which counts as one): kind k of the schema at schemaURL,
// for the value at loc.
func appendLeaf(out []failure, schemaURL string, loc []string, k jsonschema.ErrorKind) []failure {
	p := pointer(loc)
	switch k := k.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			out = append(out, failure{key: checkKey(schemaURL, "required", name), pointer: p,
				keyword: "required", location: schemaURL + "/required",
				message: "missing property " + quote(name)})
		}
		return out
	case *kind.DependentRequired:
		out = append(out, failure{key: checkKey(schemaURL, "dependentRequired", k.Prop), pointer: p,
			keyword: "dependentRequired", location: schemaURL + "/dependentRequired/" + escape(k.Prop),
			message: message(k)})
		return out
	case *kind.Dependency:
		out = append(out, failure{key: checkKey(schemaURL, "dependencies", k.Prop), pointer: p,
			keyword: "dependencies", location: schemaURL + "/dependencies/" + escape(k.Prop),
			message: message(k)})
		return out
	}
	kw := k.KeywordPath()
	switch k.(type) {
	case *kind.Not:
		kw = []string{"not"}
	case *kind.FalseSchema:
		kw = nil
	}
	f := failure{key: checkKey(schemaURL, kw...), pointer: p, location: schemaURL, message: message(k)}
	if len(kw) > 0 {
		f.keyword = kw[0]
		f.location += "/" + escape(kw[0])
	} else {
		f.keyword = "false"
	}
	return append(out, f)
}

// printer renders the validator's messages in English.
var printer = xmessage.NewPrinter(language.English)

// maxMessage bounds one failure message, which may quote the answer.
const maxMessage = 120

// message is a one-line message for k, bounded: the validator's, except
// where it would print numbers in a localized scientific notation.
func message(k jsonschema.ErrorKind) string {
	m := ""
	switch k := k.(type) {
	case *kind.Not:
		m = "matches the schema under not"
	case *kind.FalseSchema:
		m = "no value is allowed here"
	case *kind.AnyOf:
		m = "matches none of the anyOf alternatives"
	case *kind.OneOf:
		m = "matches none of the oneOf alternatives"
		if len(k.Subschemas) == 2 {
			m = fmt.Sprintf("matches oneOf alternatives %d and %d, want exactly one", k.Subschemas[0], k.Subschemas[1])
		}
	case *kind.Minimum:
		m = "must be >= " + rat(k.Want) + ", got " + rat(k.Got)
	case *kind.Maximum:
		m = "must be <= " + rat(k.Want) + ", got " + rat(k.Got)
	case *kind.ExclusiveMinimum:
		m = "must be > " + rat(k.Want) + ", got " + rat(k.Got)
	case *kind.ExclusiveMaximum:
		m = "must be < " + rat(k.Want) + ", got " + rat(k.Got)
	case *kind.MultipleOf:
		m = "must be a multiple of " + rat(k.Want) + ", got " + rat(k.Got)
	case *kind.MinLength:
		m = fmt.Sprintf("must be at least %d characters long, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		m = fmt.Sprintf("must be at most %d characters long, got %d", k.Want, k.Got)
	case *kind.MinItems:
		m = fmt.Sprintf("must have at least %d items, got %d", k.Want, k.Got)
	case *kind.MaxItems:
		m = fmt.Sprintf("must have at most %d items, got %d", k.Want, k.Got)
	case *kind.MinProperties:
		m = fmt.Sprintf("must have at least %d properties, got %d", k.Want, k.Got)
	case *kind.MaxProperties:
		m = fmt.Sprintf("must have at most %d properties, got %d", k.Want, k.Got)
	case *kind.AdditionalItems:
		m = fmt.Sprintf("%d items more than allowed", k.Count)
	case *kind.AdditionalProperties:
		// The validator lists them in map order: sorted, a result is the
		// same on every run.
		sorted := &kind.AdditionalProperties{Properties: slices.Sorted(slices.Values(k.Properties))}
		m = strings.Join(strings.Fields(sorted.LocalizedString(printer)), " ")
	default:
		m = strings.Join(strings.Fields(k.LocalizedString(printer)), " ")
	}
	if utf8.RuneCountInString(m) <= maxMessage {
		return m
	}
	n := 0
	for i := range m {
		if n == maxMessage {
			return m[:i] + "…"
		}
		n++
	}
	return m
}

// rat renders a number of the schema or the answer exactly when it is an
// integer, else as the shortest float64 text.
func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// pointer renders JSON pointer tokens.
func pointer(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
}

// pointerOrRoot shows the empty pointer as "(root)" in sentences.
func pointerOrRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// quote renders a property name in details, bounded like a message.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		n := 0
		for i := range s {
			if n == 60 {
				s = s[:i] + "…"
				break
			}
			n++
		}
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
