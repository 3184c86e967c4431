package schema

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// The fast validator checks an answer against a schema that uses only
// the common keywords (type, const and enum of strings, booleans and
// null, properties, required, additionalProperties, min/maxProperties,
// items, prefixItems, min/maxItems, min/maxLength, pattern, minimum,
// maximum, their exclusive forms and multipleOf, and boolean schemas),
// walking the validator's own compiled schema the way the validator does
// (jsonschema v6, validator.go) but without allocating for what holds and
// with integers compared as integers. What it reports fails is built as
// the validator builds it (the same error kinds, schema locations and
// instance locations), so the results are the same; FuzzFastValidator
// checks them against the validator. A schema with any other keyword is
// left to the validator.

// JSON types, as bits.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeBits = map[string]uint8{"null": tNull, "boolean": tBoolean, "number": tNumber, "integer": tInteger,
	"string": tString, "array": tArray, "object": tObject}

// fastNode is one compiled schema the fast validator checks.
type fastNode struct {
	s         *jsonschema.Schema
	types     uint8    // 0: no type keyword
	typeNames []string // as the validator reports them
	// enum and const hold strings, booleans and null only.
	enumTypes    uint8
	props        map[string]*fastNode
	additional   *fastNode // additionalProperties as a schema
	noAdditional bool      // additionalProperties: false
	prefix       []*fastNode
	items        *fastNode // the items after prefix
	// The numeric bounds as integers, when they are.
	minimum, maximum, exclMin, exclMax, multipleOf intBound
	// leaves are the failures of each kind in leafKinds at this schema,
	// but for the pointer and the message; required those of each
	// required property, but for the pointer.
	leaves   [len(leafKinds)]failure
	required map[string]failure
}

// leafKinds are the error kinds the fast validator reports, but for
// required, in the order of leafIndex.
var leafKinds = [...]jsonschema.ErrorKind{&kind.FalseSchema{}, &kind.Type{}, &kind.Const{}, &kind.Enum{},
	&kind.MinProperties{}, &kind.MaxProperties{}, &kind.AdditionalProperties{}, &kind.MinItems{}, &kind.MaxItems{},
	&kind.MinLength{}, &kind.MaxLength{}, &kind.Pattern{}, &kind.Minimum{}, &kind.Maximum{},
	&kind.ExclusiveMinimum{}, &kind.ExclusiveMaximum{}, &kind.MultipleOf{}}

// leafIndex is the index of k's kind in leafKinds, -1 for another kind.
func leafIndex(k jsonschema.ErrorKind) int {
	switch k.(type) {
	case *kind.FalseSchema:
		return 0
	case *kind.Type:
		return 1
	case *kind.Const:
		return 2
	case *kind.Enum:
		return 3
	case *kind.MinProperties:
		return 4
	case *kind.MaxProperties:
		return 5
	case *kind.AdditionalProperties:
		return 6
	case *kind.MinItems:
		return 7
	case *kind.MaxItems:
		return 8
	case *kind.MinLength:
		return 9
	case *kind.MaxLength:
		return 10
	case *kind.Pattern:
		return 11
	case *kind.Minimum:
		return 12
	case *kind.Maximum:
		return 13
	case *kind.ExclusiveMinimum:
		return 14
	case *kind.ExclusiveMaximum:
		return 15
	case *kind.MultipleOf:
		return 16
	}
	return -1
}

// setLeaves works out n's failures as appendLeaf builds them, but for the
// pointer and the message, and their short locations.
func (n *fastNode) setLeaves(base, dir string) {
	loc := n.s.Location
	for i, k := range leafKinds {
		f := appendLeaf(nil, loc, nil, k)[0]
		f.short, f.message = shortURL(f.location, base, dir), ""
		n.leaves[i] = f
	}
	if len(n.s.Required) > 0 {
		n.required = make(map[string]failure, len(n.s.Required))
		for _, name := range n.s.Required {
			f := appendLeaf(nil, loc, nil, &kind.Required{Missing: []string{name}})[0]
			f.short = shortURL(f.location, base, dir)
			n.required[name] = f
		}
	}
}

// intBound is a bound of the schema that is an int64.
type intBound struct {
	n  int64
	ok bool
}

func newIntBound(r *big.Rat) intBound {
	if r == nil || !r.IsInt() || !r.Num().IsInt64() {
		return intBound{}
	}
	return intBound{n: r.Num().Int64(), ok: true}
}

// newFast compiles s for the fast validator, or returns nil when s (or a
// schema under it) uses a keyword the fast validator leaves to the
// validator.
// base and dir are those of the compiled schema, for shortURL.
func newFast(s *jsonschema.Schema, base, dir string) *fastNode {
	seen := map[*jsonschema.Schema]*fastNode{}
	root := buildFast(s, seen, 0)
	if root == nil {
		return nil
	}
	for _, n := range seen {
		n.setLeaves(base, dir)
	}
	return root
}

// buildFast compiles s, depth schemas under the root, into a node of the
// fast validator, or returns nil when s or a schema under it is left to
// the validator. seen holds the nodes built so far, one per schema.
func buildFast(s *jsonschema.Schema, seen map[*jsonschema.Schema]*fastNode, depth int) *fastNode {
	if s == nil || depth > maxDepth {
		return nil
	}
	if n, ok := seen[s]; ok {
		return n
	}
	if leftToValidator(s) {
		return nil
	}
	n := &fastNode{s: s}
	seen[s] = n
	if s.Bool != nil {
		return n
	}
	if !n.setValueChecks(s) || !n.buildObject(s, seen, depth) || !n.buildArray(s, seen, depth) {
		return nil
	}
	n.minimum, n.maximum = newIntBound(s.Minimum), newIntBound(s.Maximum)
	n.exclMin, n.exclMax = newIntBound(s.ExclusiveMinimum), newIntBound(s.ExclusiveMaximum)
	n.multipleOf = newIntBound(s.MultipleOf)
	return n
}

// leftToValidator reports whether s uses a keyword the fast validator
// does not check.
func leftToValidator(s *jsonschema.Schema) bool {
	return s.Ref != nil || s.RecursiveRef != nil || s.DynamicRef != nil || s.RecursiveAnchor || s.DynamicAnchor != "" ||
		s.Format != nil || s.Not != nil || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 ||
		s.If != nil || s.Then != nil || s.Else != nil ||
		s.PropertyNames != nil || len(s.PatternProperties) > 0 || len(s.Dependencies) > 0 ||
		len(s.DependentRequired) > 0 || len(s.DependentSchemas) > 0 || s.UnevaluatedProperties != nil ||
		s.UniqueItems || s.Contains != nil || s.MinContains != nil || s.MaxContains != nil ||
		s.AdditionalItems != nil || s.UnevaluatedItems != nil ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil || len(s.Extensions) > 0
}

// setValueChecks sets the checks on any value (type, const and enum) and
// reports whether the fast validator can make them: const and enum only
// of strings, booleans and null.
func (n *fastNode) setValueChecks(s *jsonschema.Schema) bool {
	if s.Types != nil && !s.Types.IsEmpty() {
		n.typeNames = s.Types.ToStrings()
		for _, t := range n.typeNames {
			n.types |= typeBits[t]
		}
	}
	if s.Const != nil && !scalar(*s.Const) {
		return false
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			if !scalar(v) {
				return false
			}
			n.enumTypes |= typeOf(v)
		}
	}
	return true
}

// buildObject builds the subschemas of properties and additionalProperties
// and reports whether the fast validator can check them all.
func (n *fastNode) buildObject(s *jsonschema.Schema, seen map[*jsonschema.Schema]*fastNode, depth int) bool {
	if len(s.Properties) > 0 {
		n.props = make(map[string]*fastNode, len(s.Properties))
		for name, sub := range s.Properties {
			if n.props[name] = buildFast(sub, seen, depth+1); n.props[name] == nil {
				return false
			}
		}
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		n.noAdditional = !a
	case *jsonschema.Schema:
		if n.additional = buildFast(a, seen, depth+1); n.additional == nil {
			return false
		}
	default:
		return false
	}
	return true
}

// buildArray builds the subschemas of items (and, from draft 2020-12,
// prefixItems) and reports whether the fast validator can check them all.
func (n *fastNode) buildArray(s *jsonschema.Schema, seen map[*jsonschema.Schema]*fastNode, depth int) bool {
	if s.DraftVersion < 2020 {
		switch it := s.Items.(type) {
		case nil:
		case *jsonschema.Schema:
			if n.items = buildFast(it, seen, depth+1); n.items == nil {
				return false
			}
		default: // a list of schemas, with additionalItems
			return false
		}
		return true
	}
	for _, sub := range s.PrefixItems {
		p := buildFast(sub, seen, depth+1)
		if p == nil {
			return false
		}
		n.prefix = append(n.prefix, p)
	}
	if s.Items2020 != nil {
		if n.items = buildFast(s.Items2020, seen, depth+1); n.items == nil {
			return false
		}
	}
	return true
}

// scalar reports whether v is a string, a boolean or null: the enum and
// const values the fast validator compares itself.
func scalar(v any) bool {
	switch v.(type) {
	case nil, bool, string:
		return true
	}
	return false
}

// typeOf is the JSON type of a decoded value, 0 for a value the decoder
// does not make.
func typeOf(v any) uint8 {
	switch v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case json.Number:
		return tNumber
	case string:
		return tString
	case []any:
		return tArray
	case map[string]any:
		return tObject
	}
	return 0
}

var typeNames = map[uint8]string{tNull: "null", tBoolean: "boolean", tNumber: "number", tString: "string",
	tArray: "array", tObject: "object"}

// fastRun is one validation.
type fastRun struct {
	fails []failure
	loc   []string // the instance location of the value being checked
	// unsupported is set when a value is of a type the decoder does not
	// make: the validator decides then.
	unsupported bool
}

// validate checks v against the fast schema n and returns the failures,
// sorted as failures sorts them, and false when the validator must decide.
func (n *fastNode) validate(v any) ([]failure, bool) {
	if n == nil {
		return nil, false
	}
	var r fastRun
	r.value(n, v)
	if r.unsupported {
		return nil, false
	}
	sortFailures(r.fails)
	return r.fails, true
}

func (r *fastRun) fail(n *fastNode, k jsonschema.ErrorKind) {
	i := leafIndex(k)
	if i < 0 { // unreachable: the fast validator reports only leafKinds
		r.fails = appendLeaf(r.fails, n.s.Location, r.loc, k)
		return
	}
	f := n.leaves[i]
	f.pointer, f.message = pointer(r.loc), message(k)
	r.fails = append(r.fails, f)
}

// missing reports a required property that is missing.
func (r *fastRun) missing(n *fastNode, name string) {
	f := n.required[name]
	f.pointer = pointer(r.loc)
	r.fails = append(r.fails, f)
}

// value checks v against n, as validator.validate does.
func (r *fastRun) value(n *fastNode, v any) {
	s := n.s
	if s.Bool != nil {
		if !*s.Bool {
			r.fail(n, &kind.FalseSchema{})
		}
		return
	}
	t := typeOf(v)
	if t == 0 {
		r.unsupported = true
		return
	}
	if n.types != 0 && n.types&t == 0 && (n.types&tInteger == 0 || t != tNumber || !isInteger(v.(json.Number))) {
		r.fail(n, &kind.Type{Got: typeNames[t], Want: n.typeNames})
		return
	}
	if s.Const != nil && !equalScalar(v, *s.Const) {
		r.fail(n, &kind.Const{Got: v, Want: *s.Const})
		return
	}
	if s.Enum != nil {
		matched := false
		if n.enumTypes&t != 0 {
			for _, e := range s.Enum.Values {
				if equalScalar(v, e) {
					matched = true
					break
				}
			}
		}
		if !matched {
			r.fail(n, &kind.Enum{Got: v, Want: s.Enum.Values})
			return
		}
	}
	switch v := v.(type) {
	case map[string]any:
		r.object(n, v)
	case []any:
		r.array(n, v)
	case string:
		r.string(n, v)
	case json.Number:
		r.number(n, v)
	}
}

// child checks v, at token tok under the current location, against n.
func (r *fastRun) child(n *fastNode, v any, tok string) {
	r.loc = append(r.loc, tok)
	r.value(n, v)
	r.loc = r.loc[:len(r.loc)-1]
}

// properties checks the number of properties of an object against n's
// minProperties and maxProperties.
func (r *fastRun) properties(n *fastNode, count int) {
	s := n.s
	if s.MinProperties != nil && count < *s.MinProperties {
		r.fail(n, &kind.MinProperties{Got: count, Want: *s.MinProperties})
	}
	if s.MaxProperties != nil && count > *s.MaxProperties {
		r.fail(n, &kind.MaxProperties{Got: count, Want: *s.MaxProperties})
	}
}

// items checks the number of items of an array against n's minItems and
// maxItems.
func (r *fastRun) items(n *fastNode, count int) {
	s := n.s
	if s.MinItems != nil && count < *s.MinItems {
		r.fail(n, &kind.MinItems{Got: count, Want: *s.MinItems})
	}
	if s.MaxItems != nil && count > *s.MaxItems {
		r.fail(n, &kind.MaxItems{Got: count, Want: *s.MaxItems})
	}
}

func (r *fastRun) object(n *fastNode, obj map[string]any) {
	r.properties(n, len(obj))
	for _, name := range n.s.Required {
		if _, ok := obj[name]; !ok {
			r.missing(n, name)
		}
	}
	var additional []string
	for name, v := range obj {
		if sub, ok := n.props[name]; ok {
			r.child(sub, v, name)
			continue
		}
		switch {
		case n.additional != nil:
			r.child(n.additional, v, name)
		case n.noAdditional:
			additional = append(additional, name)
		}
	}
	if len(additional) > 0 {
		r.fail(n, &kind.AdditionalProperties{Properties: additional})
	}
}

func (r *fastRun) array(n *fastNode, arr []any) {
	r.items(n, len(arr))
	i := 0
	for ; i < len(arr) && i < len(n.prefix); i++ {
		r.child(n.prefix[i], arr[i], strconv.Itoa(i))
	}
	if n.items != nil {
		for ; i < len(arr); i++ {
			r.child(n.items, arr[i], strconv.Itoa(i))
		}
	}
}

func (r *fastRun) string(n *fastNode, str string) {
	s := n.s
	if s.MinLength != nil || s.MaxLength != nil {
		l := utf8.RuneCountInString(str)
		if s.MinLength != nil && l < *s.MinLength {
			r.fail(n, &kind.MinLength{Got: l, Want: *s.MinLength})
		}
		if s.MaxLength != nil && l > *s.MaxLength {
			r.fail(n, &kind.MaxLength{Got: l, Want: *s.MaxLength})
		}
	}
	if s.Pattern != nil && !s.Pattern.MatchString(str) {
		r.fail(n, &kind.Pattern{Got: str, Want: s.Pattern.String()})
	}
}

// number checks the numeric keywords: as integers when the number and the
// bound are, else as the validator does, with big.Rat.
func (r *fastRun) number(n *fastNode, num json.Number) {
	s := n.s
	if s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil && s.ExclusiveMaximum == nil && s.MultipleOf == nil {
		return
	}
	i, isInt := plainInt(num)
	var rat *big.Rat
	exact := func() *big.Rat {
		if rat == nil {
			rat, _ = new(big.Rat).SetString(string(num))
		}
		return rat
	}
	// cmp compares num with bound b (whose integer form is ib).
	cmp := func(b *big.Rat, ib intBound) int {
		if isInt && ib.ok {
			switch {
			case i < ib.n:
				return -1
			case i > ib.n:
				return 1
			}
			return 0
		}
		return exact().Cmp(b)
	}
	if s.Minimum != nil && cmp(s.Minimum, n.minimum) < 0 {
		r.fail(n, &kind.Minimum{Got: exact(), Want: s.Minimum})
	}
	if s.Maximum != nil && cmp(s.Maximum, n.maximum) > 0 {
		r.fail(n, &kind.Maximum{Got: exact(), Want: s.Maximum})
	}
	if s.ExclusiveMinimum != nil && cmp(s.ExclusiveMinimum, n.exclMin) <= 0 {
		r.fail(n, &kind.ExclusiveMinimum{Got: exact(), Want: s.ExclusiveMinimum})
	}
	if s.ExclusiveMaximum != nil && cmp(s.ExclusiveMaximum, n.exclMax) >= 0 {
		r.fail(n, &kind.ExclusiveMaximum{Got: exact(), Want: s.ExclusiveMaximum})
	}
	if s.MultipleOf != nil {
		var multiple bool
		if isInt && n.multipleOf.ok && n.multipleOf.n > 0 {
			multiple = i%n.multipleOf.n == 0
		} else {
			multiple = new(big.Rat).Quo(exact(), s.MultipleOf).IsInt()
		}
		if !multiple {
			r.fail(n, &kind.MultipleOf{Got: exact(), Want: s.MultipleOf})
		}
	}
}

// plainInt returns num as an int64 when it is written as one: digits, an
// optional minus sign, nothing else.
func plainInt(num json.Number) (int64, bool) {
	if strings.ContainsAny(string(num), ".eE") {
		return 0, false
	}
	i, err := strconv.ParseInt(string(num), 10, 64)
	return i, err == nil
}

// isInteger reports whether num is an integer, as the validator decides it.
func isInteger(num json.Number) bool {
	if _, ok := plainInt(num); ok {
		return true
	}
	if !strings.ContainsAny(string(num), ".eE") {
		return true // an integer too long for an int64
	}
	r, ok := new(big.Rat).SetString(string(num))
	return ok && r.IsInt()
}

// equalScalar reports whether v equals c, a string, a boolean or null, as
// the validator's equals does.
func equalScalar(v, c any) bool {
	switch c := c.(type) {
	case nil:
		return v == nil
	case bool:
		b, ok := v.(bool)
		return ok && b == c
	case string:
		s, ok := v.(string)
		return ok && s == c
	}
	return false
}
