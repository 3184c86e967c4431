package probe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
)

// Type describes a probe type: its identity, its parameters and how to build
// a configured probe from validated parameters.
type Type struct {
	ID          string
	Name        string
	Category    promptcanary.Category
	Description string
	// Example is a canary.yaml fragment that uses the type with realistic
	// values for every parameter: a `probes:` list, preceded by `prompts:`
	// when the probe needs something a prompt declares. Appended to a
	// `prompts:` list (when it has none) it must load without problems;
	// `promptcanary probes show` prints it. Empty for types that declare
	// none; ExampleYAML then makes one from Params.
	Example string
	Params  []Param
	// New builds a probe from parameters already checked against Params and
	// filled with defaults. It reports invalid values (a bad enum, a
	// negative length, max < min) as *ParamError. Register fills it from
	// NewIn when only NewIn is set.
	New func(p Params) (Probe, error)
	// NewIn, when set, is New for a probe that needs to know where its suite
	// is, such as one that reads a file a parameter names; Build calls it
	// with the suite's Env.
	NewIn func(p Params, env Env) (Probe, error)
	// External marks a type whose probes run something outside
	// promptcanary, such as a command, on every response they judge. A
	// self-test, which judges every stored answer under every drift and
	// calls nothing, leaves them out.
	External bool
}

// Env is what a probe type's constructor may learn about the suite that
// uses the probe.
type Env struct {
	// Dir is the directory of the suite file, against which a relative path
	// in a parameter is resolved whatever the working directory; "" means
	// the working directory.
	Dir string
}

// Build builds a probe from parameters already checked against t.Params:
// NewIn with env when it is set, else New.
func (t *Type) Build(p Params, env Env) (Probe, error) {
	if t.NewIn != nil {
		return t.NewIn(p, env)
	}
	return t.New(p)
}

// Param returns the parameter named name.
func (t *Type) Param(name string) (Param, bool) {
	for _, p := range t.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// ExampleYAML returns t.Example, or when it is empty a `probes:` fragment
// made from t.Params: the type and each required parameter with a
// placeholder of its kind (a custom type's parameters may need better).
func (t *Type) ExampleYAML() string {
	if t.Example != "" {
		return t.Example
	}
	var b strings.Builder
	b.WriteString("probes:\n  - type: " + t.ID + "\n")
	for _, p := range t.Params {
		if p.Required {
			b.WriteString("    " + p.Name + ": " + placeholder(p) + "\n")
		}
	}
	return b.String()
}

// placeholder is a YAML value of p's kind.
func placeholder(p Param) string {
	if len(p.Enum) > 0 {
		return p.Enum[0]
	}
	switch p.Kind {
	case StringList:
		return "[a, b]"
	case Int:
		return "1"
	case Float:
		return "0.5"
	case Bool:
		return "true"
	case Map:
		return "{key: value}"
	}
	return "text"
}

var (
	mu    sync.RWMutex
	types = map[string]Type{}
)

// Register makes a probe type available by its id. It panics when the id is
// empty, New and NewIn are both nil or the id is already registered: these
// are programming errors found at start-up. A type with only NewIn gets a
// New that calls it with an empty Env.
func Register(t Type) {
	mu.Lock()
	defer mu.Unlock()
	if t.ID == "" {
		panic("probe: Register with empty id")
	}
	if t.New == nil && t.NewIn == nil {
		panic("probe: Register " + t.ID + " with nil New")
	}
	if t.New == nil {
		newIn := t.NewIn
		t.New = func(p Params) (Probe, error) { return newIn(p, Env{}) }
	}
	if _, dup := types[t.ID]; dup {
		panic("probe: Register called twice for " + t.ID)
	}
	if t.Example != "" && !strings.Contains(t.Example, t.ID) {
		panic("probe: Register " + t.ID + " with an example that does not use it")
	}
	if t.Name == "" {
		t.Name = t.ID
	}
	if t.Category == "" {
		t.Category = promptcanary.CategoryCustom
	}
	if !t.Category.Valid() {
		panic(fmt.Sprintf("probe: Register %s with unknown category %q", t.ID, t.Category))
	}
	types[t.ID] = t
}

// RegisterFunc registers a parameterless probe type backed by fn.
func RegisterFunc(id, name string, cat promptcanary.Category, description string, fn func(p *promptcanary.Prompt, r *promptcanary.Response) Result) {
	f := Func(func(_ context.Context, in Input) Result { return fn(in.Prompt, in.Response) })
	Register(Type{ID: id, Name: name, Category: cat, Description: description,
		New: func(Params) (Probe, error) { return f, nil }})
}

// ErrUnknown is wrapped by Lookup's error for an unregistered id.
var ErrUnknown = errors.New("unknown probe type")

// Lookup returns the registered type with the given id. For an unknown id
// the error names the nearest known id.
func Lookup(id string) (Type, error) {
	mu.RLock()
	t, ok := types[id]
	mu.RUnlock()
	if !ok {
		return Type{}, fmt.Errorf("%w %q%s", ErrUnknown, id, suggest.Hint(id, IDs()))
	}
	return t, nil
}

// IsExternal reports whether the registered type id declared External;
// false for an unknown id.
func IsExternal(id string) bool {
	mu.RLock()
	defer mu.RUnlock()
	return types[id].External
}

// IDs returns the registered type ids, sorted.
func IDs() []string {
	mu.RLock()
	defer mu.RUnlock()
	ids := make([]string, 0, len(types))
	for id := range types {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Types returns every registered type, sorted by id.
func Types() []Type {
	ids := IDs()
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Type, len(ids))
	for i, id := range ids {
		out[i] = types[id]
	}
	return out
}

// New builds a probe of type id from raw parameter values (as decoded from
// YAML or JSON). All parameter problems are returned together, each a
// *ParamError.
func New(id string, raw map[string]any) (Probe, Params, error) {
	inst, err := NewInstance(id, raw)
	return inst.Probe, inst.Params, err
}

// Validated returns p, or nil and the error of p's Validate: the end of a
// Type's New for a probe that checks its own fields.
func Validated[P interface {
	Probe
	Validate() error
}](p P) (Probe, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}
