package probe

import (
	"context"
	"testing"
)

// TestBuildEnv checks that a type with NewIn learns the suite's directory
// through Build, and that the New Register fills in passes an empty Env.
func TestBuildEnv(t *testing.T) {
	newIn := func(_ Params, env Env) (Probe, error) {
		return Func(func(context.Context, Input) Result { return Result{Details: env.Dir} }), nil
	}
	Register(Type{ID: "zz_test_env", NewIn: newIn})
	typ, err := Lookup("zz_test_env")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		build func() (Probe, error)
		want  string
	}{
		{"Build with a directory", func() (Probe, error) { return typ.Build(Params{}, Env{Dir: "/suites/a"}) }, "/suites/a"},
		{"Build with no directory", func() (Probe, error) { return typ.Build(Params{}, Env{}) }, ""},
		{"filled New", func() (Probe, error) { return typ.New(Params{}) }, ""},
		{"registry New", func() (Probe, error) { p, _, err := New("zz_test_env", nil); return p, err }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Evaluate(context.Background(), Input{}).Details; got != tc.want {
				t.Errorf("got Dir %q, want %q", got, tc.want)
			}
		})
	}

	// A type with New only is built by New whatever the Env.
	plain, err := (&Type{ID: "zz_plain", New: constant(Result{Score: 0.5})}).Build(Params{}, Env{Dir: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := plain.Evaluate(context.Background(), Input{}).Score; got != 0.5 {
		t.Errorf("got score %v from the New-only type, want 0.5", got)
	}
}
