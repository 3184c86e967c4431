package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func constant(res Result) func(Params) (Probe, error) {
	return func(Params) (Probe, error) {
		return Func(func(context.Context, Input) Result { return res }), nil
	}
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: got no panic, want one", name)
		}
	}()
	f()
}

func TestRegisterRejectsMistakes(t *testing.T) {
	Register(Type{ID: "zz_test_once", New: constant(Result{})})
	mustPanic(t, "duplicate", func() { Register(Type{ID: "zz_test_once", New: constant(Result{})}) })
	mustPanic(t, "empty id", func() { Register(Type{New: constant(Result{})}) })
	mustPanic(t, "nil New", func() { Register(Type{ID: "zz_test_nil"}) })
	mustPanic(t, "bad category", func() { Register(Type{ID: "zz_test_cat", Category: "vibes", New: constant(Result{})}) })
	got, err := Lookup("zz_test_once")
	if err != nil || got.Name != "zz_test_once" || got.Category != promptcanary.CategoryCustom {
		t.Errorf("got %+v, %v; want defaults for name and category", got, err)
	}
}

func TestLookupSuggestsAndListsSorted(t *testing.T) {
	RegisterFunc("zz_test_refusal_like", "Refusal-like", promptcanary.CategorySafety, "test", func(*promptcanary.Prompt, *promptcanary.Response) Result { return Result{} })
	_, err := Lookup("zz_test_refusal_lik")
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "did you mean zz_test_refusal_like?") {
		t.Errorf("got %v, want ErrUnknown with a suggestion", err)
	}
	ids := IDs()
	if !slices.IsSorted(ids) || !slices.Contains(ids, "zz_test_refusal_like") {
		t.Errorf("got %v, want a sorted list with the registered id", ids)
	}
	if ts := Types(); len(ts) != len(ids) || ts[0].ID != ids[0] {
		t.Errorf("Types and IDs disagree")
	}
}

func TestCheck(t *testing.T) {
	typ := Type{ID: "t", Params: []Param{
		{Name: "keys", Kind: StringList, Required: true},
		{Name: "mode", Kind: String, Default: "contains", Enum: []string{"contains", "exact"}},
		{Name: "min", Kind: Int, Default: 1},
		{Name: "tol", Kind: Float, Default: 0.5},
		{Name: "strict", Kind: Bool},
		{Name: "tags", Kind: StringList, Default: []string{"a"}},
		{Name: "cmd", Kind: Command},
	}}
	tests := []struct {
		name    string
		raw     map[string]any
		wantErr []string
		check   func(Params) bool
	}{
		{"defaults filled", map[string]any{"keys": []any{"a"}}, nil, func(p Params) bool {
			min, _ := p.Int("min")
			tol, _ := p.Float("tol")
			_, strictSet := p.Bool("strict")
			return p.String("mode") == "contains" && min == 1 && tol == 0.5 && !strictSet && slices.Equal(p.Strings("keys"), []string{"a"})
		}},
		{"int accepted as float, integral float as int", map[string]any{"keys": []any{}, "tol": 1, "min": 3.0}, nil, func(p Params) bool {
			min, _ := p.Int("min")
			tol, _ := p.Float("tol")
			return min == 3 && tol == 1
		}},
		{"scalar as string", map[string]any{"keys": []any{}, "mode": "exact"}, nil, func(p Params) bool { return p.String("mode") == "exact" }},
		{"every problem at once", map[string]any{"min": 2.5, "mode": "fuzzy", "strict": "yes", "tolerance": 1},
			[]string{"tolerance: unknown parameter for t", "keys: required parameter is missing", `mode: invalid value "fuzzy"`, "min: must be an integer, got number 2.5", `strict: must be a boolean, got string "yes"`}, nil},
		{"list item type", map[string]any{"keys": []any{"a", 3}}, []string{"keys: item 1 must be a string, got integer 3"}, nil},
		{"command as a string", map[string]any{"keys": []any{}, "cmd": "go 'version'"}, nil, func(p Params) bool { return p.String("cmd") == "go 'version'" }},
		{"command as a list", map[string]any{"keys": []any{}, "cmd": []any{"go", "version"}}, nil, func(p Params) bool { return slices.Equal(p.Strings("cmd"), []string{"go", "version"}) }},
		{"command type", map[string]any{"keys": []any{}, "cmd": 3}, []string{"cmd: must be a string or list of strings, got integer 3"}, nil},
		{"command item type", map[string]any{"keys": []any{}, "cmd": []any{"go", true}}, []string{"cmd: item 1 must be a string, got boolean true"}, nil},
		{"int64 out of range", map[string]any{"keys": []any{}, "min": int64(math.MaxInt64)}, []string{"min: out of range: got 9223372036854775807, allowed -2147483648 to 2147483647"}, nil},
		{"int out of range", map[string]any{"keys": []any{}, "min": math.MinInt32 - 1}, []string{"min: out of range: got -2147483649, allowed -2147483648 to 2147483647"}, nil},
		{"uint64 out of range", map[string]any{"keys": []any{}, "min": uint64(math.MaxUint64)}, []string{"min: out of range: got 18446744073709551615, allowed -2147483648 to 2147483647"}, nil},
		{"integral float out of range", map[string]any{"keys": []any{}, "min": 1e23}, []string{"min: out of range: got 1e+23, allowed -2147483648 to 2147483647"}, nil},
		{"infinite int", map[string]any{"keys": []any{}, "min": math.Inf(1)}, []string{"min: must be an integer, got number +Inf"}, nil},
		{"NaN float", map[string]any{"keys": []any{}, "tol": math.NaN()}, []string{"tol: must be a finite number, got NaN"}, nil},
		{"infinite float", map[string]any{"keys": []any{}, "tol": math.Inf(-1)}, []string{"tol: must be a finite number, got -Inf"}, nil},
		{"bounds accepted", map[string]any{"keys": []any{}, "min": int64(math.MinInt32), "tol": 1e300}, nil, func(p Params) bool {
			min, _ := p.Int("min")
			return min == math.MinInt32
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := typ.Check(tc.raw)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if !tc.check(p) {
					t.Errorf("got params %v", p)
				}
				return
			}
			for _, w := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("got %v, want it to contain %q", err, w)
				}
			}
		})
	}
	// A default list is copied, never shared between instances.
	p1, _ := typ.Check(map[string]any{"keys": []any{}})
	p1.Strings("tags")[0] = "changed"
	p2, _ := typ.Check(map[string]any{"keys": []any{}})
	if p2.Strings("tags")[0] != "a" {
		t.Error("default list shared between instances")
	}
}

func TestEvaluateRecoversAndClamps(t *testing.T) {
	tests := []struct {
		name   string
		eval   func() Result
		passed bool
		score  float64
		detail string
	}{
		{"panic", func() Result { panic("boom") }, false, 0, "probe f failed: panic: boom"},
		{"score above 1", func() Result { return Result{Passed: true, Score: 1.7} }, true, 1, ""},
		{"negative score", func() Result { return Result{Score: -2} }, false, 0, ""},
		{"NaN score", func() Result { return Result{Score: math.NaN()} }, false, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inst := Instance{ID: "f1", Type: "f", Probe: Func(func(context.Context, Input) Result { return tc.eval() })}
			got := inst.Evaluate(context.Background(), Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{}})
			if got.Passed != tc.passed || got.Score != tc.score || !strings.Contains(got.Details, tc.detail) {
				t.Errorf("got %+v, want passed %v score %v details containing %q", got, tc.passed, tc.score, tc.detail)
			}
		})
	}
	boom := Instance{ID: "boom", Probe: Func(func(context.Context, Input) Result { panic("kaput") })}
	if got := boom.Evaluate(context.Background(), Input{}); got.Details != "probe boom failed: panic: kaput" || got.Metadata["error"] != "kaput" {
		t.Errorf("got %+v, want the instance id named when it has no type", got)
	}
}

func TestParamErrors(t *testing.T) {
	a, b := &ParamError{Param: "a", Msg: "bad"}, &ParamError{Param: "b", Msg: "worse"}
	plain := errors.New("not a parameter")
	params, other := ParamErrors(errors.Join(a, errors.Join(fmt.Errorf("in schema: %w", b), plain)))
	if len(params) != 2 || params[0] != a || params[1] != b {
		t.Errorf("got params %v, want a then b", params)
	}
	if len(other) != 1 || other[0] != plain {
		t.Errorf("got other %v, want the plain error", other)
	}
	if p, o := ParamErrors(nil); p != nil || o != nil {
		t.Errorf("got %v %v for nil, want nothing", p, o)
	}
}

func TestExampleYAML(t *testing.T) {
	typ := Type{ID: "zz_example", Params: []Param{
		{Name: "keys", Kind: StringList, Required: true},
		{Name: "mode", Kind: String, Required: true, Enum: []string{"exact", "contains"}},
		{Name: "min", Kind: Int, Default: 1},
	}}
	want := "probes:\n  - type: zz_example\n    keys: [a, b]\n    mode: exact\n"
	if got := typ.ExampleYAML(); got != want {
		t.Errorf("generated: got %q, want %q", got, want)
	}
	typ.Example = "probes:\n  - type: zz_example\n    keys: [id]\n    mode: exact\n"
	if got := typ.ExampleYAML(); got != typ.Example {
		t.Errorf("declared: got %q, want %q", got, typ.Example)
	}
	mustPanic(t, "example of another type", func() {
		Register(Type{ID: "zz_test_example", Example: "probes: [json_validity]\n", New: constant(Result{})})
	})
}

// needy is a probe that compares answers and calls a model.
type needy struct{ Func }

func (needy) Deps() Deps { return Deps{References: true, Models: []Model{{Spec: "acme/judge"}}} }

func TestDepsOf(t *testing.T) {
	plain := Func(func(context.Context, Input) Result { return Result{} })
	if d := DepsOf(plain); d.References || d.Models != nil {
		t.Errorf("plain probe: got %+v, want no deps", d)
	}
	if d := DepsOf(needy{plain}); !d.References || len(d.Models) != 1 || d.Models[0].Spec != "acme/judge" {
		t.Errorf("dependent probe: got %+v, want references and acme/judge", d)
	}
}

func TestNewInstance(t *testing.T) {
	RegisterFunc("zz_test_instance", "Instance", promptcanary.CategoryFactual, "test", func(_ *promptcanary.Prompt, r *promptcanary.Response) Result {
		return Result{Passed: r.Content == "yes", Score: 2}
	})
	inst, err := NewInstance("zz_test_instance", nil)
	if err != nil {
		t.Fatal(err)
	}
	if inst.ID != "zz_test_instance" || inst.Type != "zz_test_instance" || inst.Name != "Instance" || inst.Category != promptcanary.CategoryFactual {
		t.Errorf("got %+v, want the type's identity", inst)
	}
	if got := inst.Evaluate(context.Background(), Input{Response: &promptcanary.Response{Content: "yes"}}); !got.Passed || got.Score != 1 {
		t.Errorf("got %+v, want a pass with the score clamped to 1", got)
	}
	if _, err := NewInstance("zz_test_instanc", nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("got %v, want ErrUnknown", err)
	}
}

func TestInputOrEmpty(t *testing.T) {
	if p, r := (Input{}).OrEmpty(); p == nil || r == nil || p.ID != "" || r.Content != "" {
		t.Errorf("OrEmpty of an empty input: got %v, %v, want an empty prompt and response", p, r)
	}
	prompt, resp := &promptcanary.Prompt{ID: "p"}, &promptcanary.Response{Content: "c"}
	if p, r := (Input{Prompt: prompt, Response: resp}).OrEmpty(); p != prompt || r != resp {
		t.Errorf("OrEmpty: got %p, %p, want the input's own %p, %p", p, r, prompt, resp)
	}
}

func TestStringItems(t *testing.T) {
	if got, bad := StringItems([]any{"a", "b"}); !slices.Equal(got, []string{"a", "b"}) || bad != -1 {
		t.Errorf("StringItems of strings: got %q, %d, want [a b], -1", got, bad)
	}
	if got, bad := StringItems([]any{"a", 3, true}); got != nil || bad != 1 {
		t.Errorf("StringItems with an integer: got %q, %d, want nil, 1", got, bad)
	}
	if got, bad := StringItems(nil); got == nil || len(got) != 0 || bad != -1 {
		t.Errorf("StringItems(nil): got %#v, %d, want an empty list, -1", got, bad)
	}
}
