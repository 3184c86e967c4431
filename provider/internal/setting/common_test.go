package setting

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadCommon(t *testing.T) {
	root := Root{Source: "setting base_url", Default: "https://api.example.com", Want: "an http or https URL", Suffix: "/v1"}
	tests := []struct {
		name        string
		m           map[string]any
		want        Common
		wantVersion string
		wantErr     string
	}{
		{
			name: "every common key and an extra one",
			m: map[string]any{
				"base_url": " https://proxy.example/v1 ", "api_key_env": "TEAM_KEY",
				"headers": map[string]any{"x-team": "canary"}, "version": "2024-01-01",
			},
			want:        Common{BaseURL: "https://proxy.example/v1", KeyEnv: "TEAM_KEY", Header: http.Header{"X-Team": {"canary"}}},
			wantVersion: "2024-01-01",
		},
		{
			name: "every problem, known list includes the extra keys",
			m:    map[string]any{"base_url": "ftp://x", "api_key_env": "sk-ant-api03-abcdefghijklmnop", "headers": "x", "version": 1, "base_ur": "x"},
			want: Common{BaseURL: "ftp://x"},
			wantErr: "setting api_key_env: want the name of an environment variable (letters, digits and _), not the key itself\n" +
				`unknown setting "base_ur" (did you mean base_url?); known settings: api_key_env, base_url, headers, version` + "\n" +
				"setting base_url: want an http or https URL\n" +
				"setting headers: want a map of header names to strings, got a string\n" +
				"version is bad",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var version string
			got, err := ReadCommon(tc.m, root.Parse, map[string]func(any) error{
				"version": func(v any) error {
					s, ok := v.(string)
					if !ok {
						return errors.New("version is bad")
					}
					version = s
					return nil
				},
			})
			if errString(err) != tc.wantErr {
				t.Errorf("got error %q, want %q", errString(err), tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if version != tc.wantVersion {
				t.Errorf("got version %q, want %q", version, tc.wantVersion)
			}
		})
	}
}

func TestReadCommonWithoutExtra(t *testing.T) {
	parse := func(raw string) (*url.URL, error) { return url.Parse(raw) }
	_, err := ReadCommon(map[string]any{"anthropic_version": "x"}, parse, nil)
	want := `unknown setting "anthropic_version"; known settings: api_key_env, base_url, headers`
	if errString(err) != want {
		t.Errorf("got %q, want %q", errString(err), want)
	}
}
