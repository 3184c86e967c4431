package setting

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	known := []string{"api_key_env", "base_url", "headers"}
	tests := []struct {
		name     string
		m        map[string]any
		wantSeen []string
		wantErr  string
	}{
		{name: "nothing", m: nil, wantErr: ""},
		{name: "known keys in sorted order", m: map[string]any{"headers": 1, "base_url": 2}, wantSeen: []string{"base_url", "headers"}},
		{
			name:    "unknown key suggests the nearest and lists the known",
			m:       map[string]any{"base_ur": "x"},
			wantErr: `unknown setting "base_ur" (did you mean base_url?); known settings: api_key_env, base_url, headers`,
		},
		{
			name:    "far-off key gets no suggestion",
			m:       map[string]any{"temperature": 1},
			wantErr: `unknown setting "temperature"; known settings: api_key_env, base_url, headers`,
		},
		{
			name:     "every problem joined in key order",
			m:        map[string]any{"zzz": 1, "base_url": "bad", "aaa": 2, "headers": "ok"},
			wantSeen: []string{"base_url", "headers"},
			wantErr: `unknown setting "aaa"; known settings: api_key_env, base_url, headers` + "\n" +
				"base_url is bad\n" +
				`unknown setting "zzz"; known settings: api_key_env, base_url, headers`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			err := Read(tc.m, known, func(k string, v any) error {
				seen = append(seen, k)
				if v == "bad" {
					return errors.New(k + " is bad")
				}
				return nil
			})
			if got := errString(err); got != tc.wantErr {
				t.Errorf("got error %q, want %q", got, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantSeen, seen); diff != "" {
				t.Errorf("keys read (-want +got):\n%s", diff)
			}
		})
	}
}

func TestString(t *testing.T) {
	checkStrings(t, func(v any) (string, error) { return String("base_url", v) }, []stringCase{
		{"trimmed", "  https://x \n", "https://x", ""},
		{"number", 3, "", "setting base_url: want a string, got a number"},
		{"null", nil, "", "setting base_url: want a string, got nothing"},
		{"map", map[string]any{}, "", "setting base_url: want a string, got a map"},
	})
}

func TestEnvName(t *testing.T) {
	const notKey = "setting api_key_env: want the name of an environment variable (letters, digits and _), not the key itself"
	tests := []struct {
		name    string
		v       any
		want    string
		wantErr string
	}{
		{"name", " TEAM_KEY ", "TEAM_KEY", ""},
		{"key pasted by mistake", "sk-ant-api03-abcdefghijklmnop", "", notKey},
		{"empty", "", "", notKey},
		{"not a string", true, "", "setting api_key_env: want a string, got a boolean"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EnvName("api_key_env", tc.v)
			if got != tc.want || errString(err) != tc.wantErr {
				t.Errorf("got %q, %q, want %q, %q", got, errString(err), tc.want, tc.wantErr)
			}
			if s, ok := tc.v.(string); ok && err != nil && strings.Contains(err.Error(), s) && s != "" {
				t.Errorf("error %q echoes the value", err)
			}
		})
	}
}

func TestHeader(t *testing.T) {
	const secret = "Bearer s3cr3t-value"
	tests := []struct {
		name    string
		v       any
		want    http.Header
		wantErr string
	}{
		{"map of any", map[string]any{"x-team": "canary", "Anthropic-Beta": "tools"}, http.Header{"X-Team": {"canary"}, "Anthropic-Beta": {"tools"}}, ""},
		{"map of strings", map[string]string{"x-goog-user-project": "ci"}, http.Header{"X-Goog-User-Project": {"ci"}}, ""},
		{"not a map", []any{"a"}, nil, "setting headers: want a map of header names to strings, got a list"},
		{
			name: "every bad entry, values never echoed",
			v:    map[string]any{"x-a": secret + "\r\nx", "bad name": "v", "x-n": 1, "x-ok": "fine"},
			want: http.Header{"X-Ok": {"fine"}},
			wantErr: `setting headers: invalid header name "bad name"` + "\n" +
				"setting headers: x-a: value holds a line break or control character\n" +
				"setting headers: x-n: want a string, got a number",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Header("headers", tc.v)
			if errString(err) != tc.wantErr {
				t.Errorf("got error %q, want %q", errString(err), tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			if strings.Contains(errString(err), "s3cr3t") {
				t.Errorf("error %q echoes a header value", err)
			}
		})
	}
}

func TestRootParse(t *testing.T) {
	api := Root{Source: "setting base_url", Default: "https://api.example.com", Want: "an http or https URL such as https://api.example.com", Suffix: "/v1"}
	host := Root{Source: "OLLAMA_HOST", Want: "a server address", Suffix: "/api", CheckPort: true}
	tests := []struct {
		name    string
		root    Root
		raw     string
		want    string
		wantErr string
	}{
		{"default", api, "  ", "https://api.example.com", ""},
		{"suffix and slash dropped", api, "http://proxy.local:8080/anthropic/v1/", "http://proxy.local:8080/anthropic", ""},
		{"suffix kept inside the path", api, "https://x/v1/beta", "https://x/v1/beta", ""},
		{"any port when not checked", api, "https://x:99999", "https://x:99999", ""},
		{"not http", api, "ftp://x", "", "setting base_url: want an http or https URL such as https://api.example.com"},
		{"no host", api, "https://", "", "setting base_url: want an http or https URL such as https://api.example.com"},
		{"query with a key is not echoed", api, "https://x/?key=AIzaSyD-secret", "", "setting base_url: must not carry a query string or fragment (put credentials in headers)"},
		{"fragment", api, "https://x/#frag", "", "setting base_url: must not carry a query string or fragment (put credentials in headers)"},
		{"port checked", host, "http://gpu:99999", "", "OLLAMA_HOST: want a server address"},
		{"port zero", host, "http://gpu:0", "", "OLLAMA_HOST: want a server address"},
		{"bad port wins over a query", host, "http://gpu:70000/?key=1", "", "OLLAMA_HOST: want a server address"},
		{"good port", host, "http://gpu:11434/api", "http://gpu:11434", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := tc.root.Parse(tc.raw)
			got := ""
			if u != nil {
				got = u.String()
			}
			if got != tc.want || errString(err) != tc.wantErr {
				t.Errorf("got %q, %q, want %q, %q", got, errString(err), tc.want, tc.wantErr)
			}
		})
	}
}

// stringCase is a value read as a string, and the string or the error
// reading it must give.
type stringCase struct {
	name    string
	v       any
	want    string
	wantErr string
}

// checkStrings runs each case in its own subtest through read.
func checkStrings(t *testing.T, read func(v any) (string, error), tests []stringCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := read(tc.v)
			if got != tc.want || errString(err) != tc.wantErr {
				t.Errorf("got %q, %q, want %q, %q", got, errString(err), tc.want, tc.wantErr)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestRootEndpoint(t *testing.T) {
	api := Root{Source: "setting base_url", Default: "https://api.example.com", Want: "an http or https URL", Suffix: "/v1"}
	tests := []struct {
		name                 string
		endpoint, base, path string
		want, wantHost       string
		wantErr              string
	}{
		{"default root", "", "", "/v1/messages", "https://api.example.com/v1/messages", "api.example.com", ""},
		{"root with its suffix", "", "http://proxy:8080/v1/", "/v1/messages", "http://proxy:8080/v1/messages", "proxy:8080", ""},
		{"bad root", "", "ftp://x", "/v1/messages", "", "", "setting base_url: want an http or https URL"},
		{"endpoint as given, root ignored", "https://eu.example.com/m:rawPredict", "ftp://x", "/v1/messages", "https://eu.example.com/m:rawPredict", "eu.example.com", ""},
		{"endpoint without a host, key not echoed", "/m?key=secret-1", "", "", "", "", `invalid endpoint "/m?key=[REDACTED]"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, u, err := api.Endpoint(tc.endpoint, tc.base, tc.path)
			host := ""
			if u != nil {
				host = u.Host
			}
			if got != tc.want || host != tc.wantHost || errString(err) != tc.wantErr {
				t.Errorf("got %q (host %q), %q, want %q (host %q), %q", got, host, errString(err), tc.want, tc.wantHost, tc.wantErr)
			}
		})
	}
}
