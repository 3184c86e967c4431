package suggest

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"json_validity", "json_schema", "refusal", "step_by_step"}
	tests := []struct {
		name, in, want string
	}{
		{"typo", "json_schem", "json_schema"},
		{"swap", "refsual", "refusal"},
		{"case", "REFUSAL", "refusal"},
		{"prefix", "step", "step_by_step"},
		{"unrelated", "banana", ""},
		{"empty candidates", "x", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := known
			if tc.name == "empty candidates" {
				c = nil
			}
			if got := Closest(tc.in, c); got != tc.want {
				t.Errorf("Closest(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if got, want := Hint("refsual", known), " (did you mean refusal?)"; got != want {
		t.Errorf("Hint = %q, want %q", got, want)
	}
}
