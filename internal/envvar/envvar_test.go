package envvar

import (
	"slices"
	"testing"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "tok-1234", "TENANT": "acme", "_X1": "y"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name       string
		in         string
		want       string
		wantValues []string
		wantErr    string
	}{
		{name: "no reference", in: "plain $TOKEN {x}", want: "plain $TOKEN {x}"},
		{name: "one reference", in: "Bearer ${TOKEN}", want: "Bearer tok-1234", wantValues: []string{"tok-1234"}},
		{name: "several references", in: "${TENANT}/${TOKEN}${_X1}", want: "acme/tok-1234y", wantValues: []string{"acme", "tok-1234", "y"}},
		{name: "unset variables are all named", in: "${A} ${TOKEN} ${B}", wantErr: "environment variable A is not set\nenvironment variable B is not set"},
		{name: "unclosed reference", in: "x ${TOKEN", wantErr: "invalid ${…} reference: want ${NAME} with NAME made of letters, digits and underscores"},
		{name: "bad name", in: "${1X}", wantErr: "invalid ${…} reference: want ${NAME} with NAME made of letters, digits and underscores"},
		{name: "empty name", in: "${}", wantErr: "invalid ${…} reference: want ${NAME} with NAME made of letters, digits and underscores"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, values, err := Expand(tc.in, getenv)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got error %v, want %q", err, tc.wantErr)
				}
				if got != "" || values != nil {
					t.Errorf("got %q %q with the error, want nothing", got, values)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || !slices.Equal(values, tc.wantValues) {
				t.Errorf("got %q %q, want %q %q", got, values, tc.want, tc.wantValues)
			}
		})
	}
}

func TestIsName(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"OPENAI_API_KEY", true}, {"_x", true}, {"a1", true},
		{"", false}, {"1A", false}, {"A-B", false}, {"sk-ant-api03-abc", false}, {"A B", false}, {"É", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := IsName(tc.in); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
