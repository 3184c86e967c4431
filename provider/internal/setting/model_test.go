package setting

import "testing"

func TestModel(t *testing.T) {
	tests := []struct {
		name, model, want string
	}{
		{"a plain name", "llama3.2", ""},
		{"a name with a tag and slashes", "org/model:8b@v1", ""},
		{"empty", "", "missing model name: want x/MODEL, for example x/m"},
		{"a space", "gpt 4", `invalid model name "gpt 4": it holds whitespace or control characters`},
		{"a newline", "gpt\n4", `invalid model name "gpt\n4": it holds whitespace or control characters`},
		{"DEL", "gpt\x7f", `invalid model name "gpt\x7f": it holds whitespace or control characters`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Model(tc.model, "x/MODEL, for example x/m")
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
