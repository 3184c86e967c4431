package setting

import (
	"slices"
	"testing"
)

func TestTypeName(t *testing.T) {
	tests := []struct {
		name      string
		v         any
		api, yaml string
	}{
		{"null", nil, "nothing", "null"},
		{"string", "x", "a string", "a string"},
		{"int", 3, "a number", "a number"},
		{"int64", int64(3), "a number", "a number"},
		{"float", 2.5, "a number", "a number"},
		{"uint64", uint64(1) << 63, "a number", "uint64"},
		{"bool", true, "a boolean", "a boolean"},
		{"list", []any{1}, "a list", "a list"},
		{"mapping", map[string]any{}, "a map", "a mapping"},
		{"other", map[string]string{}, "map[string]string", "map[string]string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := APIWords.TypeName(tc.v); got != tc.api {
				t.Errorf("APIWords: got %q, want %q", got, tc.api)
			}
			if got := YAMLWords.TypeName(tc.v); got != tc.yaml {
				t.Errorf("YAMLWords: got %q, want %q", got, tc.yaml)
			}
		})
	}
}

func TestScalar(t *testing.T) {
	checkStrings(t, YAMLWords.Scalar, []stringCase{
		{"string kept as written", " a b ", " a b ", ""},
		{"int", 42, "42", ""},
		{"int64", int64(-7), "-7", ""},
		{"float without exponent", 1e21, "1000000000000000000000", ""},
		{"bool", false, "false", ""},
		{"null is an error", nil, "", "want a string, got null"},
		{"list is an error", []any{"a"}, "", "want a string, got a list"},
		{"mapping is an error", map[string]any{"a": 1}, "", "want a string, got a mapping"},
	})
}

func TestKeys(t *testing.T) {
	got := Keys(map[string]int{"b": 1, "a": 2, "c": 3})
	if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
