package probe

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary/internal/suggest"
)

// Kind is the type of a probe parameter.
type Kind int

// The parameter kinds.
const (
	String Kind = iota + 1
	Int
	Float
	Bool
	StringList
	Map
	// Command is a command line: a string, kept as written for the probe
	// to split, or a list of strings, the program and its arguments.
	Command
)

// String returns the kind's name as shown in `probes show` and errors.
func (k Kind) String() string {
	switch k {
	case String:
		return "string"
	case Int:
		return "integer"
	case Float:
		return "number"
	case Bool:
		return "boolean"
	case StringList:
		return "list of strings"
	case Map:
		return "mapping"
	case Command:
		return "string or list of strings"
	}
	return "unknown"
}

// article returns the kind's name with its indefinite article.
func (k Kind) article() string {
	if k == Int {
		return "an integer"
	}
	return "a " + k.String()
}

// Param declares one parameter of a probe type.
type Param struct {
	Name     string
	Kind     Kind
	Required bool
	// Default is the value used when the parameter is absent; nil means
	// "unset" (an optional parameter without default).
	Default any
	// Enum, when set, lists the accepted values of a string parameter.
	Enum []string
	Doc  string
}

// ParamError is a problem with one parameter of a probe.
type ParamError struct {
	Param string
	Msg   string
	Hint  string
}

func (e *ParamError) Error() string {
	if e.Param == "" {
		return e.Msg
	}
	return e.Param + ": " + e.Msg
}

// Params holds validated parameter values: string, int, float64, bool,
// []string or map[string]any; a Command is a string or a []string. Absent
// optional parameters without a default are missing from the map.
type Params map[string]any

// Has reports whether the parameter is set.
func (p Params) Has(name string) bool { _, ok := p[name]; return ok }

// String returns a string parameter, "" when unset.
func (p Params) String(name string) string { s, _ := p[name].(string); return s }

// Int returns an integer parameter and whether it is set.
func (p Params) Int(name string) (int, bool) { v, ok := p[name].(int); return v, ok }

// Float returns a number parameter and whether it is set.
func (p Params) Float(name string) (float64, bool) { v, ok := p[name].(float64); return v, ok }

// Bool returns a boolean parameter and whether it is set.
func (p Params) Bool(name string) (bool, bool) { v, ok := p[name].(bool); return v, ok }

// Strings returns a list parameter, nil when unset.
func (p Params) Strings(name string) []string { v, _ := p[name].([]string); return v }

// Map returns a mapping parameter, nil when unset.
func (p Params) Map(name string) map[string]any { v, _ := p[name].(map[string]any); return v }

// Check validates raw parameter values against t.Params: unknown names,
// wrong types, missing required parameters and values outside an enum. It
// returns the converted values with defaults filled in, or every problem
// joined, each a *ParamError, in parameter-name order.
func (t *Type) Check(raw map[string]any) (Params, error) {
	out := make(Params, len(t.Params))
	var errs []error
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	known := make([]string, len(t.Params))
	for i, p := range t.Params {
		known[i] = p.Name
	}
	for _, name := range names {
		if _, ok := t.Param(name); !ok {
			hint := ""
			if len(known) == 0 {
				hint = t.ID + " takes no parameters"
			} else if c := suggest.Closest(name, known); c != "" {
				hint = "did you mean " + c + "?"
			} else {
				hint = "known parameters: " + strings.Join(known, ", ")
			}
			errs = append(errs, &ParamError{Param: name, Msg: "unknown parameter for " + t.ID, Hint: hint})
		}
	}
	for _, p := range t.Params {
		v, present := raw[p.Name]
		if !present || v == nil {
			if p.Required {
				errs = append(errs, &ParamError{Param: p.Name, Msg: "required parameter is missing", Hint: p.Doc})
				continue
			}
			if p.Default != nil {
				out[p.Name] = cloneDefault(p.Default)
			}
			continue
		}
		cv, err := convert(p.Kind, v)
		if err != nil {
			pe := &ParamError{Param: p.Name, Msg: err.Error(), Hint: p.Doc}
			var ce *ParamError
			if errors.As(err, &ce) {
				pe.Msg, pe.Hint = ce.Msg, ce.Hint
			}
			errs = append(errs, pe)
			continue
		}
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, cv.(string)) {
			errs = append(errs, &ParamError{Param: p.Name, Msg: fmt.Sprintf("invalid value %q", cv),
				Hint: "use one of: " + strings.Join(p.Enum, ", ")})
			continue
		}
		out[p.Name] = cv
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func cloneDefault(v any) any {
	switch d := v.(type) {
	case []string:
		return slices.Clone(d)
	}
	return v
}

// convert turns a decoded YAML/JSON value into the Go type of kind k.
func convert(k Kind, v any) (any, error) {
	switch k {
	case String:
		switch s := v.(type) {
		case string:
			return s, nil
		case int, int64, uint64, float64, bool:
			// A YAML scalar such as `expected_value: 4` means the text "4".
			return fmt.Sprint(s), nil
		}
	case Int:
		switch n := v.(type) {
		case int:
			return intInRange(int64(n), strconv.Itoa(n))
		case int64:
			return intInRange(n, strconv.FormatInt(n, 10))
		case uint64:
			if n <= math.MaxInt32 {
				return int(n), nil
			}
			return nil, intRangeErr(strconv.FormatUint(n, 10))
		case float64:
			if n == math.Trunc(n) && !math.IsInf(n, 0) {
				if n >= MinInt && n <= MaxInt {
					return int(n), nil
				}
				return nil, intRangeErr(strconv.FormatFloat(n, 'g', -1, 64))
			}
			return nil, fmt.Errorf("must be an integer, got %s", Describe(n))
		}
	case Float:
		switch n := v.(type) {
		case int:
			return float64(n), nil
		case int64:
			return float64(n), nil
		case uint64:
			return float64(n), nil
		case float64:
			if math.IsNaN(n) || math.IsInf(n, 0) {
				return nil, &ParamError{Msg: fmt.Sprintf("must be a finite number, got %v", n), Hint: "write a number, for example 0.5"}
			}
			return n, nil
		}
	case Bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case Command:
		switch v.(type) {
		case string:
			return v, nil
		case []string, []any:
			return convert(StringList, v)
		}
	case StringList:
		switch l := v.(type) {
		case []string:
			return slices.Clone(l), nil
		case []any:
			out, bad := StringItems(l)
			if bad >= 0 {
				return nil, fmt.Errorf("item %d must be a string, got %s", bad, Describe(l[bad]))
			}
			return out, nil
		}
	case Map:
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
	}
	return nil, fmt.Errorf("must be %s, got %s", k.article(), Describe(v))
}

// MinInt and MaxInt bound the value of an integer parameter, whatever the
// parameter: generous for lengths and counts, and small enough that a probe
// doing arithmetic on them cannot overflow.
const (
	MinInt = math.MinInt32
	MaxInt = math.MaxInt32
)

// intInRange converts n to int when it lies in [MinInt, MaxInt].
func intInRange(n int64, text string) (any, error) {
	if n < MinInt || n > MaxInt {
		return nil, intRangeErr(text)
	}
	return int(n), nil
}

func intRangeErr(got string) *ParamError {
	return &ParamError{Msg: fmt.Sprintf("out of range: got %s, allowed %d to %d", got, MinInt, MaxInt),
		Hint: fmt.Sprintf("use a value from %d to %d", MinInt, MaxInt)}
}

// StringItems returns the items of a decoded YAML or JSON list as strings,
// and -1; or, when one is not a string, nil and the index of the first
// that is not.
func StringItems(l []any) ([]string, int) {
	out := make([]string, len(l))
	for i, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, i
		}
		out[i] = s
	}
	return out, -1
}

// Describe names the kind of a decoded YAML or JSON value, with the value
// when it is a scalar, for parameter errors: string "x", integer 3, a list.
func Describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case int, int64, uint64:
		return fmt.Sprintf("integer %v", x)
	case float64:
		return fmt.Sprintf("number %v", x)
	case []any, []string:
		return "a list"
	case map[string]any:
		return "a mapping"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// ParamErrors splits an error returned by New, Type.Check or a Type's New
// into its *ParamError parts and any other errors, in order, flattening
// errors joined with errors.Join.
func ParamErrors(err error) (params []*ParamError, other []error) {
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, c := range j.Unwrap() {
				walk(c)
			}
			return
		}
		var pe *ParamError
		if errors.As(e, &pe) {
			params = append(params, pe)
		} else if e != nil {
			other = append(other, e)
		}
	}
	walk(err)
	return params, other
}
